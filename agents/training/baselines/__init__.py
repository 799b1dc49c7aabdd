"""The self-play baselines: from-scratch runs of the self-play recipe, their curves and summary.

One run per table size and seed (:mod:`~agents.training.baselines.runs`); ``python -m agents.training.baselines``
runs them.
"""

from agents.training.baselines.runs import (
    BaselineSettings,
    baseline_config,
    gather_curves,
    run_baselines,
    summarize,
    write_curves,
)

__all__ = ["BaselineSettings", "baseline_config", "gather_curves", "run_baselines", "summarize", "write_curves"]
