"""Playing against the bots.

``python -m agents.play`` in the terminal (:mod:`~agents.play.terminal`) or the browser
(:mod:`agents.play.web`), both on :mod:`~agents.play.table` (seats, bots, command line and game texts).
"""
