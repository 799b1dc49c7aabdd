"""The warm start: a policy that starts from a trained network, or is taught to choose what a teacher chooses.

:mod:`~agents.training.imitation.demonstrations` collects a teacher's decisions (or reads search labels) and fits a
policy and value to them; :mod:`~agents.training.imitation.warm_start` decides where a new run of any backend
starts, what it imitates and for how long.
"""

from agents.training.imitation.demonstrations import Demonstrations, collect, fit

__all__ = ["Demonstrations", "collect", "fit"]
