"""Benchmark: random legal play through the engines and through the PettingZoo environments.

Usage: ``python benchmarks/engine_speed.py`` (2, 4 and 6 players, both engines), ``--players 2 --games 10000``,
``--engine fast|reference|both``, ``--engine-only``.

Engine rows play uniformly random legal games (event log off) and give games/s and decisions/s. Environment
rows step ``raw_env``, ``env()`` and ``parallel_env()`` (one decision per step in each) on each engine with
uniformly random masked actions, next to PettingZoo's own ``connect_four_v3`` ``env()`` and a game that costs
nothing under the same three wrappers (what the wrappers and the loop cost alone: the ceiling of any ``env()``),
all driven by the same loop in the same run, and give the
ratio. Fast-engine rows (gubs_env.fast, needs numba) play whole games with their outcomes in compiled code
(``play_games``) on one thread and on every thread numba has, and with a batched policy callable at every seat;
play one game at a time through ``FastGame`` and ``FastGames(1)`` next to the reference ``Game``; and step a
batch of games with an observation and a mask produced for every step. Compiled runs are also given per CPU
second of the process (every thread's time added up), which on a busy, shared machine estimates idle cores
better than the wall clock. Figures depend on the machine and its load: compare rows of one run, not across
runs.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Any

from gubs_env.engine import Game
from gubs_env.envs.engines import ENGINES, fast_engine_available
from gubs_env.support.cli import (
    CommandParser,
    add_progress_argument,
    non_negative_int,
    player_count,
    positive_int,
    run_command,
)
from gubs_env.support.progress import progress_bar


@dataclass
class EngineFigures:
    """What one batch of random games measured."""

    players: int
    games: int
    seconds: float
    decisions: int
    turns: int
    truncated: int

    @property
    def games_per_s(self) -> float:
        """Games per second."""
        return self.games / self.seconds

    @property
    def decisions_per_s(self) -> float:
        """Decisions (applied actions) per second."""
        return self.decisions / self.seconds


def random_games(players: int, games: int, seed: int = 0, progress: bool = True) -> EngineFigures:
    """Play ``games`` uniformly random games without the event log and time them."""
    decisions = turns = truncated = 0
    start = time.perf_counter()
    for i in progress_bar(range(games), desc=f"{players} players", unit="game", disable=not progress, leave=False):
        game = Game(players, seed=seed + i, record_log=False)
        pick = random.Random(seed + i).random
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[int(pick() * len(legal))])
            decisions += 1
        turns += game.state.turn
        truncated += game.truncated
    return EngineFigures(players, games, time.perf_counter() - start, decisions, turns, truncated)


class EnvRunner:
    """Steps one AEC env with uniformly random masked actions, in slices of time that can be interleaved."""

    def __init__(self, make_env, seed: int = 0) -> None:
        import numpy as np

        self._np = np
        self.env = make_env()
        self.rng = np.random.default_rng(seed)
        self.seed, self.episodes, self.steps, self.seconds = seed, 0, 0, 0.0
        self._agents = iter(())

    def run(self, seconds: float) -> None:
        """Step for about ``seconds`` more, carrying on with the episode in progress."""
        env, flatnonzero, choice = self.env, self._np.flatnonzero, self.rng.choice
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(100):
                if next(self._agents, None) is None:
                    env.reset(seed=self.seed + self.episodes)
                    self.episodes += 1
                    self._agents = iter(env.agent_iter())
                    next(self._agents)
                observation, _reward, terminated, truncated, _info = env.last()
                action = None if terminated or truncated else int(choice(flatnonzero(observation["action_mask"])))
                env.step(action)
                self.steps += 1
        self.seconds += time.perf_counter() - start

    @property
    def steps_per_s(self) -> float:
        """Steps per second over every slice so far."""
        return self.steps / self.seconds


class ParallelRunner(EnvRunner):
    """Steps a ParallelEnv with uniformly random masked actions for every agent, like :class:`EnvRunner`.

    The waiting seats' only legal id is wait, so each step is one decision, as an AEC step is.
    """

    def run(self, seconds: float) -> None:
        """Step for about ``seconds`` more, carrying on with the game in progress."""
        env, flatnonzero, choice = self.env, self._np.flatnonzero, self.rng.choice
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(100):
                if not env.agents:
                    self.observations, _ = env.reset(seed=self.seed + self.episodes)
                    self.episodes += 1
                actions = {a: int(choice(flatnonzero(seen["action_mask"]))) for a, seen in self.observations.items()}
                self.observations, *_ = env.step(actions)
                self.steps += 1
        self.seconds += time.perf_counter() - start


def env_table(players: list[int], seconds: int, engines: list[str], seed: int = 0, progress: bool = True) -> str:
    """Steps/s of Gubs ``raw_env``, ``env()`` and ``parallel_env()`` on ``engines``, beside ``connect_four_v3``.

    A game that costs nothing under the same wrappers (:func:`no_op_env`) shows what the wrappers and the loop
    cost alone. Every row runs for ``seconds`` in one-second slices taken in turn, so that a change in the
    machine's load during the run touches all rows alike.
    """
    from pettingzoo.classic import connect_four_v3

    import gubs_env

    rows = {
        ("connect_four_v3 env()", 2): EnvRunner(connect_four_v3.env, seed),
        ("no-op game env() (the wrappers alone)", 2): EnvRunner(no_op_env, seed),
    }
    for n in players:
        for engine in engines:
            rows[(f"gubs raw_env, {engine}", n)] = EnvRunner(lambda n=n, e=engine: gubs_env.raw_env(n, engine=e), seed)
            rows[(f"gubs env(), {engine}", n)] = EnvRunner(lambda n=n, e=engine: gubs_env.env(n, engine=e), seed)
            rows[(f"gubs parallel_env(), {engine}", n)] = ParallelRunner(
                lambda n=n, e=engine: gubs_env.parallel_env(n, engine=e), seed
            )
    for runner in rows.values():  # untimed: the first steps load code and caches, in one row more than another
        runner.run(0.2)
        runner.steps, runner.seconds = 0, 0.0
    for _ in progress_bar(range(seconds), desc="environments", unit="round", disable=not progress, leave=False):
        for runner in rows.values():
            runner.run(1.0)
    reference = rows[("connect_four_v3 env()", 2)].steps_per_s
    lines = [
        "| environment | players | steps/s | steps measured | ratio to connect_four_v3 env() |",
        "|---|---:|---:|---:|---:|",
    ]
    for (name, n), runner in rows.items():
        lines.append(
            f"| {name} | {n} | {runner.steps_per_s:,.0f} | {runner.steps} | {runner.steps_per_s / reference:.2f} |"
        )
    return "\n".join(lines)


def no_op_env() -> Any:
    """A two-agent game that costs nothing, under ``env()``'s three wrappers: the floor of an ``env()`` step.

    Its agents alternate for 40 steps with a fixed observation (Gubs' shapes, every id legal); a step only does
    the AEC bookkeeping every environment does.
    """
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

    from gubs_env.encoding.action_table import NUM_ACTIONS
    from gubs_env.encoding.observation import OBS_SIZE

    class NoOpGame(AECEnv):
        metadata = {"name": "no_op", "render_modes": [], "is_parallelizable": False}

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = ["player_0", "player_1"]
            self._space: spaces.Space = spaces.Discrete(NUM_ACTIONS)
            self._observation: dict[str, np.ndarray] = {
                "observation": np.zeros(OBS_SIZE, dtype=np.float32),
                "action_mask": np.ones(NUM_ACTIONS, dtype=np.int8),
            }

        def action_space(self, agent: str) -> spaces.Space:
            return self._space

        def observe(self, agent: str) -> dict[str, np.ndarray]:
            return self._observation

        def reset(self, seed: int | None = None, options: dict | None = None) -> None:
            self.agents = self.possible_agents[:]
            self.rewards = dict.fromkeys(self.agents, 0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos: dict[str, dict] = {agent: {} for agent in self.agents}
            self.agent_selection, self.steps = self.agents[0], 0

        def step(self, action: int | None) -> None:
            agent = self.agent_selection
            if self.terminations[agent]:
                self._was_dead_step(action)
                return
            self.steps += 1
            self._cumulative_rewards[agent] = 0
            if self.steps >= 40:
                self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[1 - self.possible_agents.index(agent)]
            self._accumulate_rewards()

    wrapped: AECEnv = wrappers.TerminateIllegalWrapper(NoOpGame(), illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def _table(rows: list[EngineFigures]) -> str:
    lines = [
        "| players | games | games/s | decisions/s | decisions/game | turns/game | truncated |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.players} | {r.games} | {r.games_per_s:,.0f} | {r.decisions_per_s:,.0f} | "
            f"{r.decisions / r.games:.0f} | {r.turns / r.games:.0f} | {r.truncated} |"
        )
    return "\n".join(lines)


BOTH = "both"
BENCH_ENGINES = (*ENGINES, BOTH)
"""``--engine``: one of the engines, or both side by side."""


def warm_up_fast_engine() -> float:
    """Import the fast engine and run each kernel once; return the seconds it took (compile or cache load)."""
    start = time.perf_counter()
    import numpy as np

    from gubs_env.fast import FastGame, FastGames, play_games, sample_legal

    play_games(np.arange(2), 2, threads=1)
    play_games(np.arange(2), 2, seats=[_RandomPolicy(), "random"])
    single = FastGame(2, seed=0)
    single.step(int(np.flatnonzero(single.mask)[0]))
    single.observe(0)
    games = FastGames(2, 2, threads=1, auto_reset=True)
    games.reset()
    actions = np.zeros(2, dtype=np.int64)
    sample_legal(games.mask, np.arange(2, dtype=np.uint64), actions, threads=1)
    games.step(actions)
    games.observe([1, 1])
    return time.perf_counter() - start


POLICY_SHARE = 10
"""The games with a policy at every seat are this share of the others (each decision leaves compiled code)."""


class _RandomPolicy:
    """A batched policy callable that picks uniformly among the legal ids: what a network or bot would be."""

    def __init__(self, seed: int = 0) -> None:
        import numpy as np

        self._chooser = np.arange(seed, seed + 4096, dtype=np.uint64)
        self._ids = np.zeros(4096, dtype=np.int64)

    def __call__(self, observations: Any, masks: Any) -> Any:
        from gubs_env.fast import sample_legal

        rows = masks.shape[0]
        sample_legal(masks, self._chooser[:rows], self._ids[:rows])
        return self._ids[:rows]


@dataclass
class FastFigures:
    """Whole games with outcomes in compiled code: random seats on one thread and on every thread, and a policy."""

    players: int
    games: int
    threads: int
    seconds_one: float
    seconds_all: float
    seconds_policy: float
    """Every seat a batched policy callable (:class:`_RandomPolicy`), one thread: the first ``games //
    POLICY_SHARE`` games, scaled to ``games``."""
    decisions: int
    cpu_one: float
    """CPU seconds of the one-thread run: on a shared, busy machine it estimates what an idle core would take."""
    cpu_all: float
    """CPU seconds of the all-threads run, every thread's added up: what the threads cost, next to ``cpu_one``."""

    @property
    def games_per_s(self) -> float:
        """Games per second on one thread."""
        return self.games / self.seconds_one

    @property
    def speed_up(self) -> float:
        """Every thread against one."""
        return self.seconds_one / self.seconds_all


def fast_random_games(players: int, games: int, seed: int = 0) -> FastFigures:
    """Play ``games`` games (the deals of seeds ``seed...``) with ``play_games``, three ways, and time them.

    Random seats on one thread, then on every thread (the outcomes must be the same), then a batched policy
    callable at every seat on one thread.
    """
    import numpy as np

    from gubs_env.fast import max_threads, play_games

    seeds = np.arange(seed, seed + games, dtype=np.uint64)
    start, cpu = time.perf_counter(), time.process_time()
    results = play_games(seeds, players, threads=1)
    one, cpu_one = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    again = play_games(seeds, players, threads=max_threads())
    both, cpu_all = time.perf_counter() - start, time.process_time() - cpu
    if not all(np.array_equal(a, b) for a, b in zip(vars(results).values(), vars(again).values(), strict=True)):
        raise RuntimeError("the fast engine gave different games on different thread counts")
    policy_games = max(1, games // POLICY_SHARE)
    start = time.perf_counter()
    play_games(seeds[:policy_games], players, seats=[_RandomPolicy(seed)] * players)
    policy = (time.perf_counter() - start) * games / policy_games
    decisions = int(results.decisions.sum())
    return FastFigures(players, games, max_threads(), one, both, policy, decisions, cpu_one, cpu_all)


def single_games(players: int, games: int, seed: int, engine: str) -> EngineFigures:
    """Play ``games`` random games one at a time, choosing in Python from the legal ids, on one engine.

    ``engine`` is ``"FastGame"`` or ``"FastGames(1)"``; the reference ``Game`` is :func:`random_games`.
    """
    import numpy as np

    from gubs_env.fast import FastGame, FastGames
    from gubs_env.fast.core import layout as L

    flatnonzero = np.flatnonzero
    decisions = turns = truncated = 0
    start = time.perf_counter()
    if engine == "FastGame":
        game = FastGame(players)
        for i in range(games):
            game.reset(seed + i)
            pick = random.Random(seed + i).random
            while not game.is_over:
                legal = flatnonzero(game.mask)
                game.step(int(legal[int(pick() * len(legal))]))
                decisions += 1
            turns, truncated = turns + game.turn, truncated + game.truncated
    else:
        batch = FastGames(1, players)
        action = np.zeros(1, dtype=np.int64)
        for i in range(games):
            batch.reset([seed + i])
            pick = random.Random(seed + i).random
            while batch.actor[0] >= 0:
                legal = flatnonzero(batch.mask[0])
                action[0] = legal[int(pick() * len(legal))]
                batch.step(action)
                decisions += 1
            turns, truncated = turns + int(batch.states[0, L.TURN]), truncated + int(batch.truncated[0])
    return EngineFigures(players, games, time.perf_counter() - start, decisions, turns, truncated)


def _single_table(reference: list[EngineFigures], fast: list[EngineFigures], batch: list[EngineFigures]) -> str:
    lines = [
        "| players | reference `Game` games/s | `FastGame` games/s | `FastGame` / reference | "
        "`FastGames(1)` games/s | `FastGames(1)` / reference |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for ref, one, many in zip(reference, fast, batch, strict=True):
        lines.append(
            f"| {ref.players} | {ref.games_per_s:,.0f} | {one.games_per_s:,.0f} | "
            f"{one.games_per_s / ref.games_per_s:.2f}x | {many.games_per_s:,.0f} | "
            f"{many.games_per_s / ref.games_per_s:.2f}x |"
        )
    return "\n".join(lines)


@dataclass
class FastEnvFigures:
    """Batch steps of the fast engine with observations and masks, on one thread and on every thread."""

    players: int
    batch: int
    threads: int
    steps_one: float
    steps_all: float
    steps_one_cpu: float
    """Steps per CPU second of the one-thread run (see :attr:`FastFigures.cpu_one`)."""
    steps_all_cpu: float
    """Steps per CPU second of the all-threads run, every thread's CPU time added up."""


def _batch_steps_per_s(players: int, batch: int, seconds: float, seed: int, threads: int) -> tuple[float, float]:
    """Steps per wall-clock second and per CPU second."""
    import numpy as np

    from gubs_env.fast import FastGames, sample_legal

    games = FastGames(batch, players, threads=threads, auto_reset=True)
    games.reset(np.arange(seed, seed + batch, dtype=np.uint64))
    chooser = np.arange(batch, dtype=np.uint64)
    actions = np.zeros(batch, dtype=np.int64)
    calls = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            sample_legal(games.mask, chooser, actions, threads=threads)
            games.step(actions)
        calls += 20
    return calls * batch / (time.perf_counter() - start), calls * batch / (time.process_time() - cpu)


def fast_env_steps(players: int, batch: int, seconds: float, seed: int = 0) -> FastEnvFigures:
    """Environment steps/s of a batch (random legal ids, auto-reset), one thread then every thread."""
    from gubs_env.fast import max_threads

    top = max_threads()
    one, one_cpu = _batch_steps_per_s(players, batch, seconds, seed, 1)
    every, every_cpu = _batch_steps_per_s(players, batch, seconds, seed, top)
    return FastEnvFigures(players, batch, top, one, every, one_cpu, every_cpu)


def _fast_table(rows: list[FastFigures], reference: list[EngineFigures]) -> str:
    by_players = {r.players: r for r in reference}
    lines = [
        "| players | reference games/s | fast games/s, 1 thread | fast / reference | per CPU second | "
        "fast games/s, all threads | per CPU second | threads | speed-up | decisions/s, 1 thread | "
        "policy at every seat, games/s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ref = by_players.get(r.players)
        ref_text = f"{ref.games_per_s:,.0f}" if ref else "-"
        ratio = f"{r.games_per_s / ref.games_per_s:.1f}x" if ref else "-"
        lines.append(
            f"| {r.players} | {ref_text} | {r.games_per_s:,.0f} | {ratio} | {r.games / r.cpu_one:,.0f} | "
            f"{r.games / r.seconds_all:,.0f} | {r.games / r.cpu_all:,.0f} | "
            f"{r.threads} | {r.speed_up:.2f}x | {r.decisions / r.seconds_one:,.0f} | "
            f"{r.games / r.seconds_policy:,.0f} |"
        )
    return "\n".join(lines)


def _fast_env_table(rows: list[FastEnvFigures]) -> str:
    lines = [
        "| players | games per batch | steps/s, 1 thread | per CPU second | steps/s, all threads | per CPU second | "
        "threads | speed-up |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.players} | {r.batch} | {r.steps_one:,.0f} | {r.steps_one_cpu:,.0f} | {r.steps_all:,.0f} | "
            f"{r.steps_all_cpu:,.0f} | {r.threads} | {r.steps_all / r.steps_one:.2f}x |"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = CommandParser(prog="python benchmarks/engine_speed.py", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--players", type=player_count, nargs="+", default=[2, 4, 6], help="table sizes, 2 to 6 (default: 2 4 6)"
    )
    parser.add_argument("--games", type=positive_int, default=2000, help="games per table size (default: 2000)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first game's seed (default: 0)")
    parser.add_argument(
        "--env-seconds", type=positive_int, default=5, help="seconds of stepping per environment row (default: 5)"
    )
    parser.add_argument(
        "--engine",
        choices=BENCH_ENGINES,
        default=BOTH,
        help="which engine to measure: the compiled one, the reference one, or both side by side (default: both)",
    )
    parser.add_argument(
        "--fast-games", type=positive_int, default=20_000, help="fast engine: games per table size (default: 20000)"
    )
    parser.add_argument(
        "--batch", type=positive_int, default=1024, help="fast engine: games stepped together (default: 1024)"
    )
    parser.add_argument("--engine-only", action="store_true", help="skip the environment rows")
    add_progress_argument(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, parsed."""
    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print Markdown tables."""
    args = parse_args(argv)
    fast = args.engine in ("fast", BOTH)
    reference = args.engine in ("reference", BOTH)
    if fast and not fast_engine_available():
        print("The fast engine needs numba: pip install -e '.[fast]'")
        return 1
    print(f"Random legal play, engine only, one process - Python {platform.python_version()} on {platform.machine()}")
    rows = (
        [random_games(p, args.games, args.seed, progress=not args.no_progress) for p in args.players]
        if reference
        else []
    )
    if reference and not fast:
        print(_table(rows))
    if fast:
        load = warm_up_fast_engine()
        print(f"(fast engine: compiled code loaded in {load:.1f} s; the first run after install compiles it)")
        print("\nWhole games with outcomes in compiled code (play_games: scores, winners, decisions, turns)")
        fast_rows = [fast_random_games(p, args.fast_games, args.seed) for p in args.players]
        print(_fast_table(fast_rows, rows))
        if reference:
            print("\nOne game at a time, random legal ids chosen in Python (FastGame, FastGames(1), Game)")
            single = [single_games(p, args.games, args.seed, "FastGame") for p in args.players]
            batch_of_one = [single_games(p, args.games, args.seed, "FastGames(1)") for p in args.players]
            print(_single_table(rows, single, batch_of_one))
    if args.engine_only:
        return 0
    if fast:
        print(f"\nFast engine environment steps: {args.batch} games per batch, observation and mask for every step")
        print(_fast_env_table([fast_env_steps(p, args.batch, args.env_seconds, args.seed) for p in args.players]))
    try:
        with warnings.catch_warnings():  # pygame's import warns about a deprecated packaging API
            warnings.simplefilter("ignore")
            import pettingzoo.classic.connect_four_v3  # noqa: F401 - needs pettingzoo and pygame
    except ImportError as err:
        print(f"\nEnvironment rows skipped: {err}. They need the env extra and pygame: pip install -e '.[env]' pygame")
        return 0
    engines = [e for e, wanted in (("fast", fast), ("reference", reference)) if wanted]
    print(f"\nEnvironments, random masked actions, {args.env_seconds} s per row in interleaved slices, one process")
    print(env_table(args.players, args.env_seconds, engines, args.seed, progress=not args.no_progress))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
