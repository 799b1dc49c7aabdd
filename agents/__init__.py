"""Baseline agents for gubs_env.

This package is empty in this version: the random, heuristic and self-play agents come with the
environment and training work, which build on the rules engine in :mod:`gubs_env.engine`.
"""
