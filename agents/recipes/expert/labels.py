"""Expert iteration's expert half: positions labelled by the search bot, for a network to learn from.

Expert iteration alternates an *expert*, a search stronger than the policy it starts from, and an *apprentice*,
a network that learns to decide as the expert does without searching. Here the expert is the search bot
(:mod:`agents.bots.search`, over the strongest shipped policy at each table size) and the apprentice is any
network ``train.py`` trains: ``python train.py --labels FILE`` imitates these labels instead of the teacher's
games, optionally from a model's weights (``--init``), then goes on by PPO (docs/training.md).

``python -m agents.recipes.expert --players 2 3 4 5 6 --games 1000 --labels runs/expert/labels.npz`` plays
``--games`` games, the table sizes in turn: the search at one seat (each deal of a size seats it one place
further on), the ``--field`` at every other: by default the heuristic, the field the networks are trained and
measured against. Expert iteration from pure self-play labels ``selfplay-search`` against its own base network
(``--expert selfplay-search --field selfplay-2p --keep-blunders``): no hand-written bot takes part.
Every decision of the searching seat that the search weighs (more than one candidate) is kept:

- the observation and mask its seat saw;
- ``actions``: the search's choice, the policy target (the networks play their most likely id, so the id the
  search would play is what a better network plays);
- ``base_actions``: the base policy's choice, kept beside it to show how much the search changed;
- ``returns``: the game's outcome for that seat (+1 win, -1 loss, 0 truncated), discounted once per later
  decision of the seat, the value target: what PPO's critic predicts (a playout's value is a win share
  against heuristic continuations, a different quantity);
- ``players``: the table size.

The expert never plays a choice the blunder audit flags (:mod:`agents.evaluate.blunders`: each kind is a choice
beaten outright by another legal one): where the search's choice is one, it plays :func:`without_blunder` of it,
and that is the label (``--keep-blunders`` plays the search's choice as it is). ``--expert`` may also name any
bot, whose own choices are then the labels, with its blunders corrected; ``--corrected-only`` keeps just the
decisions where what was played differs from the base's choice. ``--expert gubs-net --corrected-only`` thus gives
the network's blunders in the positions its own play reaches, each with the clean choice to learn instead.

The games run in worker processes (``--jobs``, default one per core) and come back in game order, so the file
depends on the settings and the seed only. The file's format, and how it is read as data, is
:mod:`agents.training.imitation.labels_file`'s.
"""

from __future__ import annotations

import argparse
import signal
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.bots.spec import AgentSpec, AgentSpecError
from agents.evaluate.processes import exit_with_parent
from agents.training.imitation.labels_file import KINDS, SearchLabels, save_labels, summary
from gubs_env.support.progress import progress_bar

PROG = "python -m agents.recipes.expert"
GAMMA = 0.995
"""The discount of the returns: the training environments' (once per decision of the same seat)."""
CHUNK_GAMES = 4
"""Games a worker plays per task: small enough for a steady progress bar."""


def searcher_seat(game: int, sizes: int, players: int) -> int:
    """The searching seat of game ``game``: each table size's games seat it one place further on."""
    return (game // sizes) % players


class BotExpert:
    """Any bot as the expert, deciding as :meth:`~agents.bots.search.SearchAgent.decide` does.

    Its candidates are its own choice, then the other legal ids, so its labels are its own play, with
    :func:`without_blunder` where the audit flags a choice; with ``--corrected-only``, just those corrections: for a
    network to unlearn its blunders in the positions its own play reaches.
    """

    def __init__(self, bot) -> None:
        self.bot = bot

    def reset(self, seed: int | None = None) -> None:
        """Reset the bot for a new game."""
        self.bot.reset(seed)

    def decide(self, game, codec) -> tuple[int, np.ndarray]:
        """The bot's choice at ``game``'s decision, and the legal ids, its choice first."""
        choice = self.bot.act_in_game(game, codec)
        others = [i for i in codec.ids(game.legal_actions(), game.current_player) if i != choice]
        return choice, np.asarray([choice, *others], dtype=np.int64)


def without_blunder(game, codec, choice: int, candidates: np.ndarray) -> int:
    """``choice``, or where the blunder audit flags it, the first legal id it does not flag.

    The ids are tried in the search's order of candidates, then the other legal ids in the heuristic's order of
    preference. A flagged choice always has a clean alternative (each kind is defined by one,
    :mod:`agents.evaluate.blunders`), so what the expert plays instead is never a blunder itself.
    """
    from agents.bots.heuristic.decide import heuristic_scores
    from agents.evaluate.blunders import blunders
    from gubs_env.encoding.observation import encode

    seat = game.current_player
    if not blunders(game, codec.action(choice, seat)):
        return choice
    ids = np.asarray(codec.ids(game.legal_actions(), seat), dtype=np.int64)
    rest = ids[~np.isin(ids, candidates)]
    rest = rest[np.argsort(-heuristic_scores(encode(game.state, seat), rest), kind="stable")]
    for action in (*candidates, *rest):
        if not blunders(game, codec.action(int(action), seat)):
            return int(action)
    return choice  # unreachable by the kinds' definitions; kept so that a new kind cannot leave a seat stuck


@dataclass(frozen=True)
class Labelling:
    """How the expert's decisions become labels."""

    keep_blunders: bool = False
    """Play the expert's choice even where the blunder audit flags it (otherwise :func:`without_blunder` of it)."""
    corrected_only: bool = False
    """Keep only the decisions where what was played differs from the base's choice."""


def label_game(search, field, players: int, deal: int, seat: int, how: Labelling = Labelling()) -> dict[str, list]:
    """One game: the expert ``search`` at ``seat``, the agent ``field`` elsewhere.

    ``search`` is a :class:`~agents.bots.search.SearchAgent` or a :class:`BotExpert`; it plays and keeps its
    choices as ``how`` says (:class:`Labelling`). Returns the searched decisions' observations, masks, choices,
    base choices and returns, as lists.
    """
    from gubs_env.encoding.action_table import ActionCodec
    from gubs_env.encoding.observation import encode
    from gubs_env.engine import Game

    codec = ActionCodec(players)
    game = Game(players, seed=deal, record_log=False)
    for s in range(players):  # as play_game resets its table: the game is the one a tournament plays
        (search if s == seat else field).reset(deal * 101 + s)
    rows: dict[str, list] = {"observations": [], "masks": [], "actions": [], "base_actions": [], "own_index": []}
    own = 0
    while (actor := game.current_player) is not None:
        if actor != seat:
            game.apply(codec.action(field.act_in_game(game, codec), actor))
            continue
        choice, candidates = search.decide(game, codec)
        if not how.keep_blunders:
            choice = without_blunder(game, codec, choice, candidates)
        kept = candidates.size > 1 and not (how.corrected_only and choice == candidates[0])
        if kept:  # deciding does not change the game: what the seat saw is what it sees now
            rows["observations"].append(encode(game.state, seat).astype(np.float16))
            rows["masks"].append(codec.mask(game.legal_actions(), seat).astype(bool))
            rows["actions"].append(choice)
            rows["base_actions"].append(int(candidates[0]))
            rows["own_index"].append(own)
        own += 1
        game.apply(codec.action(choice, seat))
    outcome = 0.0 if game.truncated else (1.0 if seat in game.winners() else -1.0)
    later = own - 1 - np.asarray(rows.pop("own_index"), dtype=np.int64)
    rows["returns"] = list(outcome * GAMMA**later)
    return rows


def label(
    spec: AgentSpec | str,
    player_counts: list[int],
    games: int,
    seed: int = 0,
    jobs: int = 1,
    progress: bool = True,
    how: Labelling = Labelling(),
    field: AgentSpec | str = "heuristic",
    network: Any = None,
) -> SearchLabels:
    """Play ``games`` games, the search ``spec`` at one seat and ``field`` at the others; keep its searched decisions.

    ``network`` (a ``(PolicyWeights, PlayoutNet)`` pair, for expert iteration's later rounds,
    :mod:`agents.recipes.expert.rounds`) replaces the search's shipped base network and playout policy, and plays
    every other seat in place of ``field``: self-play with a network no spec names.

    ``spec`` is any bot's (text is parsed here): the search bot's labels are its corrections of its base
    (:attr:`~agents.bots.spec.AgentSpec.is_search`); any other bot's are its own choices (:class:`BotExpert`).
    Game ``g`` is dealt with seed ``seed + g`` at ``player_counts[g % len(player_counts)]`` seats, the search at
    :func:`searcher_seat`, its decisions played and kept as ``how`` says. The result depends on the arguments other
    than ``jobs`` and ``progress`` only.
    """
    spec, field = AgentSpec.of(spec), AgentSpec.of(field)
    tasks = [list(range(start, min(start + CHUNK_GAMES, games))) for start in range(0, games, CHUNK_GAMES)]
    bar = progress_bar(total=games, desc="expert labels", unit="game", disable=not progress)
    if jobs <= 1 or len(tasks) <= 1:
        _build(spec, field, network)
        parts = []
        for task in tasks:
            parts.append(_label_games(task, player_counts, seed, how))
            bar.update(len(task))
    else:
        parts = _label_in_workers(spec, field, network, tasks, player_counts, seed, how, min(jobs, len(tasks)), bar)
    bar.close()
    merged: dict[str, list] = {name: [] for name in parts[0]} if parts else {}
    for part in parts:
        for name, values in part.items():
            merged[name] += values
    if not merged.get("actions"):
        raise ValueError("the games gave no searched decision to label: play more games")
    return SearchLabels(
        observations=np.stack(merged["observations"]),
        masks=np.stack(merged["masks"]),
        actions=np.asarray(merged["actions"], dtype=np.int64),
        returns=np.asarray(merged["returns"], dtype=np.float32),
        base_actions=np.asarray(merged["base_actions"], dtype=np.int64),
        players=np.asarray(merged["players"], dtype=np.int64),
    )


_worker: tuple | None = None
"""The process's expert and field agent, built once (:func:`_build`)."""


def _build(spec: AgentSpec, field: AgentSpec, network: Any = None) -> None:
    global _worker
    from agents.bots.ppo import PPOAgent
    from agents.bots.registry import make_agent
    from agents.bots.search import SearchAgent, SearchSettings

    if network is not None:
        settings = spec.search_settings
        if not isinstance(settings, SearchSettings):
            raise ValueError(f"a network replaces the base of a search bot, not of {spec}")
        weights, playout = network
        _worker = (SearchAgent(0, settings, weights, playout), PPOAgent(weights, name="network"))
        return
    expert = make_agent(spec)
    _worker = (expert if spec.is_search else BotExpert(expert), make_agent(field))


def _init_worker(spec: AgentSpec, field: AgentSpec, network: Any) -> None:
    exit_with_parent()
    # Ctrl-C reaches the whole process group: the parent stops the pool; a worker would only print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _build(spec, field, network)


def _label_games(task: list[int], player_counts: list[int], seed: int, how: Labelling) -> dict[str, list]:
    """The labels of the games ``task`` (see :func:`label`), concatenated in game order."""
    from agents.evaluate.tournament import limit_torch_threads

    assert _worker is not None, "the worker initializer did not run"
    limit_torch_threads()
    search, field = _worker
    out: dict[str, list] = {name: [] for name in KINDS}
    for g in task:
        players = player_counts[g % len(player_counts)]
        seat = searcher_seat(g, len(player_counts), players)
        rows = label_game(search, field, players, seed + g, seat, how)
        for name, values in rows.items():
            out[name] += values
        out["players"] += [players] * len(rows["actions"])
    return out


def _label_in_workers(
    spec: AgentSpec,
    field: AgentSpec,
    network: Any,
    tasks: list[list[int]],
    player_counts: list[int],
    seed: int,
    how: Labelling,
    jobs: int,
    bar: tqdm,
) -> list[dict[str, list]]:
    """:func:`_label_games` over ``tasks`` in ``jobs`` spawned processes; results in the tasks' order."""
    import multiprocessing

    # spawn, not fork: forking a process whose torch threads run can deadlock the children
    context = multiprocessing.get_context("spawn")
    executor = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker, initargs=(spec, field, network))
    try:
        futures = {executor.submit(_label_games, task, player_counts, seed, how): len(task) for task in tasks}
        for future in as_completed(futures):
            future.result()
            bar.update(futures[future])
        return [future.result() for future in futures]  # in the tasks' order, whatever order they finished in
    finally:
        executor.shutdown(cancel_futures=True)


# --- the labels file ---------------------------------------------------------------------------------------

# --- the command -------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from gubs_env.support.cli import (
        CommandParser,
        add_jobs_argument,
        add_progress_argument,
        non_negative_int,
        player_count,
        positive_int,
    )

    parser = CommandParser(prog=PROG, description=__doc__.split("\n")[0])
    parser.add_argument(
        "--expert",
        default="search",
        metavar="SPEC",
        help="whose decisions are labelled: a search spec (default: search), or any bot, whose own choices are kept "
        "(with their blunders corrected)",
    )
    parser.add_argument(
        "--field",
        default="heuristic",
        metavar="SPEC",
        help="the agent at every other seat (default: heuristic; selfplay-2p for expert iteration from pure self-play)",
    )
    parser.add_argument(
        "--players",
        type=player_count,
        nargs="+",
        default=[2, 3, 4, 5, 6],
        help="table sizes, 2 to 6, in turn (default: 2 3 4 5 6)",
    )
    parser.add_argument("--games", type=positive_int, default=1000, help="games to play in all (default: 1000)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first deal's seed (default: 0)")
    add_jobs_argument(parser)
    parser.add_argument("--labels", type=Path, required=True, metavar="FILE", help="the labels file to write (.npz)")
    parser.add_argument(
        "--keep-blunders",
        action="store_true",
        help="play the expert's choice even where the blunder audit flags it (default: the first clean candidate)",
    )
    parser.add_argument(
        "--corrected-only",
        action="store_true",
        help="keep only the decisions where the expert played other than its base's choice (for a bot: its "
        "corrected blunders)",
    )
    add_progress_argument(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, parsed and checked: the expert built, the labels file's folder writable."""
    from gubs_env.support.cli import jobs_or_cores, unwritable_folder

    parser = build_parser()
    args = parser.parse_args(argv)
    args.jobs = jobs_or_cores(args.jobs)
    from agents.bots.registry import make_agent

    for flag in ("expert", "field"):
        try:
            setattr(args, flag, AgentSpec.parse(getattr(args, flag)))
            make_agent(getattr(args, flag))
        except AgentSpecError as error:
            parser.error(f"--{flag}: {error}")
    if args.keep_blunders and args.corrected_only and not args.expert.is_search:
        parser.error("--corrected-only with --keep-blunders keeps nothing of a bot's decisions")
    problem = unwritable_folder(args.labels.parent)
    if problem:
        parser.error(f"--labels: {problem}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Label, write, report; status 2 (one line) for a bad command line, 1 when the games gave nothing to label."""
    from gubs_env.support.cli import failure

    args = parse_args(argv)
    how = Labelling(keep_blunders=args.keep_blunders, corrected_only=args.corrected_only)
    try:
        labels = label(
            args.expert, args.players, args.games, args.seed, args.jobs, not args.no_progress, how, args.field
        )
    except ValueError as error:  # no searched decision in the games played
        return failure(PROG, error, argv)
    save_labels(args.labels, labels)
    print(summary(labels))
    print(f"labels: {args.labels}  (train on them: python train.py --labels {args.labels})")
    return 0
