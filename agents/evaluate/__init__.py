"""Measuring agents.

Seat-rotated matches (:mod:`~agents.evaluate.matches`), round-robin tournaments with ratings
(:mod:`~agents.evaluate.tournament`), paired comparisons of two agents against one field
(:mod:`~agents.evaluate.paired`) and checkpoint selection (:mod:`~agents.evaluate.select`).

``python -m agents.evaluate A B [C ...]`` runs a tournament from the command line.
"""
