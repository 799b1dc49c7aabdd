"""Self-play from scratch: the batched rollout core, the learner, fast evaluations and the recipe's run folder."""
