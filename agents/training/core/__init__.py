"""What every training backend shares: the typed settings, the league, the seating rule and the run folder.

:mod:`~agents.training.core.config` (``TrainingConfig``, ``PoolConfig``), :mod:`~agents.training.core.league` (who
played the opponent seats, and the snapshots' drawing weights), :mod:`~agents.training.core.seating` (which table size
a slot plays and who sits at each seat) and :mod:`~agents.training.core.runs` (the run folder's files). The backends
(:mod:`agents.training.sb3`, :mod:`agents.training.rllib`) import from here, never the other way round.
"""
