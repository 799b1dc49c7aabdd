"""The native backend behind the loop: each iteration plays ``envs`` whole games and makes one PPO update on them.

The games are the self-play core's (:class:`~agents.training.core.games.SelfPlayGames`): each slot's stream, seeded
``seed + slot``, draws its next game's learner seat and deal, and the seating (:mod:`agents.training.core.seating`)
gives every other seat its player. The learner's policy plays its own seat and, where the league says so, its other
seats (:data:`~agents.training.core.seating.POLICY`); with ``every_seat`` each of them is a sample. The checkpoint is
one torch file of tensors and plain values (the network, the optimizer, the value statistics and the random streams,
the games' included), read back with ``torch.load(weights_only=True)``: never code.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.bots.model_file import PolicyWeights
from agents.evaluate.luck import ObservationValue
from agents.training.core.backend import Iteration, Network
from agents.training.core.config import TrainingConfig
from agents.training.core.games import Batch, SelfPlayGames
from agents.training.core.league import GameEnd
from agents.training.core.runs import RunSetupError
from agents.training.core.seating import Seating
from agents.training.native.learner import Learner, ValueNorm, linear_layers, linears
from agents.training.native.luck_returns import LuckReturns
from gubs_env.support.files import write_atomically


def make(config: TrainingConfig, verbose: bool = False) -> NativeBackend:
    """The native backend for ``config`` (resolved)."""
    return NativeBackend(config)


class NativeBackend:
    """The project's own learner on batches of whole games (see the module's description)."""

    def __init__(self, config: TrainingConfig) -> None:
        assert config.envs is not None, "resolve the config"
        self.config = config
        self.learner = Learner(config)
        self.seating = Seating.of(config, config.envs)
        self.games = SelfPlayGames(self.seating, config.players)
        slots = np.arange(config.envs)
        self.games.tables.seed_streams(slots, config.seed + slots)
        self.luck = self._luck_returns(None) if config.luck_returns else None
        self.samples = 0
        self.updates = 0

    def _luck_returns(self, state: Any) -> LuckReturns:
        """The run's luck-adjusted returns, judged by the shipped luck network or by the learner's own critic."""
        config = self.config
        value = ObservationValue(self.learner.outcome) if config.luck_value == "critic" else None
        return LuckReturns(config.luck_worlds, state, value=value)

    def network(self) -> Network:
        """The actor-critic, for the warm start."""
        model = self.learner.model
        return Network(model.parameters(), self.learner.imitation_heads, linears(model.actor))

    def iterate(self) -> Iteration:
        """Play one batch of whole games and learn from it."""
        config = self.config
        learners = self.games.deal_next()
        history: list[list[int]] | None = [[] for _ in learners] if self.luck is not None else None
        batch = self.games.play(self.learner.decide, not config.skip_forced, history)
        diagnostics: dict[str, float] = {}
        if self.luck is not None and history is not None:
            tables = self.games.tables
            diagnostics["luck_scale"] = self.luck.apply(batch, self.games.players, tables.deals, history)
        ends = self._game_ends(batch, learners)
        if not config.every_seat:
            batch = batch.only(batch.seat == learners[batch.game])
        measure = self.updates % config.native.agreement_every == 0
        stats = self.learner.update(batch, self.samples, measure)
        self.samples += len(batch)
        self.updates += 1
        diagnostics |= asdict(stats)
        return Iteration(batch.policy_decisions, diagnostics, ends)

    def _game_ends(self, batch: Batch, learners: np.ndarray) -> list[GameEnd]:
        players = self.games.players
        return [
            self.seating.game_end(slot, int(players[slot]), int(learners[slot]), np.flatnonzero(rewards > 0).tolist())
            for slot, rewards in enumerate(batch.seat_rewards)
        ]

    def policy(self) -> PolicyWeights:
        """The actor, in numpy."""
        return PolicyWeights(tuple(linear_layers(self.learner.model.actor)), "tanh")

    def set_league(self, snapshots: Sequence[tuple[str, PolicyWeights]], draw_weights: Sequence[float]) -> None:
        """The league's snapshots for the next batches' seats."""
        self.seating.set_league(snapshots, draw_weights)

    def save(self, path: Path) -> None:
        """One torch file: the network, the optimizer, the value statistics and every random stream."""
        learner = self.learner
        saved = {
            "model": learner.model.state_dict(),
            "optimizer": learner.optimizer.state_dict(),
            "generator": learner.generator.get_state(),
            "value_norm": learner.value_norm.state(),
            "rng": json.dumps(learner.rng.bit_generator.state),
            "samples": self.samples,
            "updates": self.updates,
            "luck_returns": self.luck.state() if self.luck is not None else None,
            "games": torch.from_numpy(self.games.tables.streams.view(np.int64).copy()),
        }
        buffer = io.BytesIO()
        torch.save(saved, buffer)
        write_atomically(path, buffer.getvalue())

    def load(self, checkpoint: bytes | Path) -> None:
        """Go on from a verified checkpoint's bytes.

        Raises:
            RunSetupError: a checkpoint that does not fit this run's network or holds values of the wrong kind.
        """
        assert isinstance(checkpoint, bytes), "the native checkpoint is one file"
        learner = self.learner
        try:
            saved = torch.load(io.BytesIO(checkpoint), weights_only=True)
            learner.model.load_state_dict(saved["model"])
            learner.optimizer.load_state_dict(saved["optimizer"])
            learner.generator.set_state(saved["generator"])
            learner.value_norm = ValueNorm.from_state([float(v) for v in saved["value_norm"]])
            learner.rng.bit_generator.state = json.loads(saved["rng"])
            self.samples, self.updates = int(saved["samples"]), int(saved["updates"])
            self._load_streams(saved["games"])
            if self.luck is not None:
                self.luck = self._luck_returns(saved["luck_returns"])
        except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as error:
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise RunSetupError(f"the checkpoint cannot be resumed: {first[:200]}") from None

    def _load_streams(self, saved: Any) -> None:
        """The games' streams where the checkpoint left them."""
        tables = self.games.tables
        shape = tables.streams.shape
        if not isinstance(saved, torch.Tensor) or tuple(saved.shape) != shape or saved.dtype != torch.int64:
            raise ValueError(f"its game streams are not int64 {shape}")
        streams = saved.numpy().view(np.uint64)
        # numpy's PCG64 states: an odd increment (word 3, its low half), else the generator can stall
        if not ((streams[:, 3] & np.uint64(1)) == 1).all() or (streams[:, 4] > 1).any():
            raise ValueError("its game streams are not generator states")
        tables.streams[:] = streams

    def close(self) -> None:
        """Nothing to release."""
