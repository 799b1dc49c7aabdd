"""The 30-minute run's recipe (2 players, seed 0, every default) with the rule facts, for 25 minutes on one core.

``python benchmarks/rule_facts_25min.py [OUT_DIR] [MINUTES]`` trains it into OUT_DIR (default:
runs/rule-facts-25min) for MINUTES (default: 25); docs/results/selfplay/rule-facts-25min has what it gave.
"""

import sys

from agents.training.selfplay import PPOSettings, SelfPlayConfig, train_selfplay


def main() -> None:
    """Train the run."""
    out = sys.argv[1] if len(sys.argv) > 1 else "runs/rule-facts-25min"
    minutes = float(sys.argv[2]) if len(sys.argv) > 2 else 25.0
    config = SelfPlayConfig(players=(2,), seed=0, ppo=PPOSettings(rule_facts=True))
    train_selfplay(config, out=out, minutes=minutes, progress=False)


if __name__ == "__main__":
    main()
