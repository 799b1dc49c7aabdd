"""What every training backend shares: the typed settings, the league, the seating rule, the run folder and its reports.

:mod:`~agents.training.core.config` (``TrainingConfig``, ``PoolConfig``), :mod:`~agents.training.core.league` (who
played the opponent seats, and the snapshots' drawing weights), :mod:`~agents.training.core.seating` (which table size
a slot plays and who sits at each seat), :mod:`~agents.training.core.runs` (the run folder's files and their commits),
:mod:`~agents.training.core.reports` (evaluations, the CSV logs and the lines a run prints),
:mod:`~agents.training.core.curves` (the learning curve) and :mod:`~agents.training.core.budget` (the training bar and
the cadence of a run's work). The backends (:mod:`agents.training.sb3`, :mod:`agents.training.rllib`) import from here,
never the other way round.
"""
