"""``agents``' old module paths and where each went (see :mod:`gubs_env.support.moved`, CHANGELOG.md)."""

SB3_BENCH = "benchmarks.sb3_throughput (a script of the repository: python benchmarks/sb3_throughput.py)"
FAST_VEC_ENV = (
    "agents.training.sb3.fast_vec_env (training plays on the compiled engine; the reference engine's vector envs "
    "were removed)"
)
THE_LOOP = "agents.training.loop (the one loop takes the snapshots and plays the evaluations)"
SEEDS = "agents.recipes.seeds (python -m agents.recipes.seeds --seeds 0 1)"
RLLIB_BENCH = "benchmarks.rllib_throughput (a script of the repository: python benchmarks/rllib_throughput.py)"

MOVED = {
    "agents.bots.search.settings": "agents.bots.settings",
    "agents.base": "agents.bots.base",
    "agents.model_file": "agents.bots.model_file",
    "agents.ppo": "agents.bots.ppo",
    "agents.random_agent": "agents.bots.random_agent",
    "agents.registry": "agents.bots.registry",
    "agents.heuristic": "agents.bots.heuristic",
    "agents.fast_heuristic": "agents.bots.heuristic.decide",
    "agents.select": "agents.evaluate.select",
    "agents.tournament": "agents.evaluate.tournament",
    "agents.train_bench": SB3_BENCH,
    "agents.fast_vec_env": "agents.training.sb3.fast_vec_env",
    "agents.imitation": "agents.training.imitation",
    "agents.masked_policy": "agents.training.sb3.masked_policy",
    "agents.vec_env": FAST_VEC_ENV,
    "agents.training.main": "agents.training.command (python train.py; from Python: agents.training.train)",
    "agents.rllib": "agents.training.rllib",
    "agents.rllib.train": "agents.training.rllib.backend",
    "agents.rllib.bench": RLLIB_BENCH,
    "agents.rllib.callbacks": THE_LOOP,
    "agents.rllib.env": "gubs_env.envs.rllib_env",
    "agents.rllib.fast_tables": "agents.training.rllib.fast_tables",
    "agents.rllib.module": "agents.training.rllib.module",
    "agents.rllib.runner": "agents.training.rllib.runner",
    "agents.rllib.seats": "gubs_env.envs.rllib_seats",
    "agents.rllib.selfplay": "agents.training.rllib.backend",
    "agents.training.bench": SB3_BENCH,
    "agents.training.fast_vec_env": "agents.training.sb3.fast_vec_env",
    "agents.training.masked_policy": "agents.training.sb3.masked_policy",
    "agents.training.pool": "agents.training.core.seating",
    "agents.training.vec_env": FAST_VEC_ENV,
    "agents.training.config": "agents.training.core.config",
    "agents.training.league": "agents.training.core.league",
    "agents.training.runs": "agents.training.core.runs",
    "agents.training.warm_start": "agents.training.imitation.warm_start",
    "agents.training.cmaes": "agents.recipes.tune_heuristic.cmaes",
    "agents.training.sb3.bench": SB3_BENCH,
    "agents.training.rllib.bench": RLLIB_BENCH,
    "agents.training.selfplay.levers": "benchmarks.selfplay_levers (a script of the repository: "
    "python benchmarks/selfplay_levers.py)",
    "agents.training.selfplay": "agents.training.native (the native backend, the default: train(TrainingConfig()))",
    "agents.training.selfplay.recipe": "agents.training.loop (train(TrainingConfig()))",
    "agents.training.selfplay.learner": "agents.training.native.learner",
    "agents.training.selfplay.rollout": "agents.training.core.games",
    "agents.training.selfplay.evaluate": "agents.training.core.evaluation",
    "agents.training.selfplay.luck_returns": "agents.training.native.luck_returns",
    "agents.training.selfplay.charts": "agents.training.core.curves",
    "agents.bots.heuristic.__main__": "benchmarks.heuristic_speed (a script of the repository: "
    "python benchmarks/heuristic_speed.py)",
    "agents.training.core.tables": "gubs_env.fast (the self-play core is gubs_env.fast.SelfPlayTables)",
    "agents.training.baselines": SEEDS,
    "agents.training.sb3.vec_env": FAST_VEC_ENV,
    "agents.training.baselines.runs": SEEDS,
    "agents.training.trainer": "agents.training.loop",
    "agents.training.sb3.train": "agents.training.sb3.backend",
    "agents.training.sb3.pool": "agents.training.core.seating",
    "agents.training.native.train": "agents.training.native.backend",
    "agents.training.native.rollout": "agents.training.core.games",
    "agents.training.native.evaluate": "agents.training.core.evaluation",
    "agents.training.rllib.train": "agents.training.rllib.backend",
    "agents.training.rllib.env": "gubs_env.envs.rllib_env",
    "agents.training.rllib.seats": "gubs_env.envs.rllib_seats",
    "agents.training.rllib.selfplay": "agents.training.rllib.backend",
    "agents.training.rllib.callbacks": THE_LOOP,
    "agents.training.seeds": SEEDS,
    "agents.training.expert": "agents.recipes.expert",
    "agents.training.search_nets": "agents.recipes.search_nets",
    "agents.training.tune_heuristic": "agents.recipes.tune_heuristic",
}
"""Moved in 0.1.0 (the rooms of docs/architecture.md), in 0.2.0 (one trainer: RLlib under training/) and since 0.2.0
(the training room's rooms: what both backends share in ``core``, the sb3 backend in ``sb3``, each recipe in a
room of its own), and since 0.2.0 to the repository's benchmarks/ folder (benchmarks and experiments, out of the
packages); the self-play recipe became the native backend of the one trainer; then the one loop replaced each
backend's own run (``trainer``, ``*.train``), and the recipes left the training room for ``agents.recipes``."""
