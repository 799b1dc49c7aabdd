"""Round-robin tournaments between agents: every pairing played on the same deals, then rated.

Every ordered pair of distinct agents (A, B) is a *pairing*: A takes one seat and B fills every other seat,
so ``M[A][B]`` is A's win rate against a field of B. Each pairing plays the same seeded deals, and each
deal once with A at every seat, so the luck of the cards and of the seating cancels out (see
``docs/evaluation.md``). Games run in worker processes and are aggregated in a fixed order, so the results
do not depend on how many processes played them. The results' report and files are
:mod:`agents.evaluate.tournament_report`'s; their ratings :mod:`agents.evaluate.ratings`'.

>>> result = run_tournament(["random", "heuristic"], num_players=2, deals=5, jobs=1)
>>> [(p.agent, p.opponent, p.games) for p in result.pairings]
[('random', 'heuristic', 10), ('heuristic', 'random', 10)]
"""

from __future__ import annotations

import math
import os
import re
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.bots.base import Agent, AgentUnavailableError
from agents.bots.registry import make_agent
from agents.bots.spec import AgentSpec, SpecKind, index_of, parse_distinct
from agents.bots.threads import set_torch_threads
from agents.evaluate.journal import Journal
from agents.evaluate.matches import play_game, wants_progress
from agents.evaluate.processes import exit_with_parent, worker_count
from agents.evaluate.ratings import AgentRating, game_ranks, rate
from agents.evaluate.tournament_report import PairingResult, TournamentReport
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.engine.options import RuleOptions
from gubs_env.engine.players import check_player_count
from gubs_env.records.record import GameRecord
from gubs_env.support.progress import progress_bar

if TYPE_CHECKING:
    from agents.evaluate.luck import LuckEstimator, LuckSettings
    from agents.evaluate.sequential import SequentialReport, StopRule

_MAX_CHUNK = 64
"""Games per worker task at most: small enough for a smooth progress bar and an even load."""


@dataclass(frozen=True)
class GameOutcome:
    """The result of one tournament game, as the workers send it back."""

    pairing: int
    """Index into :attr:`TournamentResult.played`: which agent (A) played which field (B)."""
    deal: int
    """Deal index: the game was dealt with seed ``seed + deal``."""
    seat: int
    """A's seat; B filled every other seat."""
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    truncated: bool
    luck: tuple[float, ...] = ()
    """Each seat's luck (:mod:`agents.evaluate.luck`), when the tournament adjusts for it; else empty."""
    usage: tuple[dict[str, Any] | None, ...] = ()
    """Per seat, what its agent spent on the game when it reports that (a language model's calls, tokens, seconds,
    retries and fallbacks: :class:`~agents.bots.llm.ModelUsage`), else None; empty when no seat's agent does."""

    @classmethod
    def from_journal(cls, game: dict[str, Any]) -> GameOutcome:
        """A game as the journal holds it (checked there: :mod:`agents.evaluate.journal`)."""
        return cls(
            game["pairing"],
            game["deal"],
            game["seat"],
            tuple(game["scores"]),
            tuple(game["winners"]),
            game["truncated"],
            tuple(game["luck"]),
            tuple(game["usage"]),
        )


class TournamentStopped(RuntimeError):
    """A tournament that an agent could not finish (its service stayed down): what it played is in its journal.

    Attributes:
        played: the games finished, those of earlier runs included.
        total: the games the tournament has in all.
        journal: the journal that holds them (None: they were not kept); resume from it to go on.
    """

    def __init__(self, message: str, played: int, total: int, journal: Path | None) -> None:
        super().__init__(message)
        self.played, self.total, self.journal = played, total, journal


@dataclass
class TournamentResult(TournamentReport):
    """Everything a tournament measured; ``str()`` gives the plain-text report, :meth:`save` its files."""

    agents: list[str]
    num_players: int
    deals: int
    seed: int
    rule_options: dict[str, Any]
    played: list[tuple[int, int]]
    """The pairings that were played, as (A, B) indices into :attr:`agents`; at 2 players only A < B."""
    games: list[GameOutcome]
    """Every game in the fixed order (pairing, deal, seat) that ratings and statistics use."""
    pairings: list[PairingResult]
    """One row per ordered pair of distinct agents, ordered by agent then opponent."""
    ratings: list[AgentRating] = field(default_factory=list)
    """Best first (highest ordinal)."""
    luck: LuckSettings | None = None
    """How the luck was measured, when the tournament adjusted for it (:mod:`agents.evaluate.luck`)."""
    sequential: SequentialReport | None = None
    """What the sequential mode asked, and its answer after the deals played (:mod:`agents.evaluate.sequential`)."""

    def __repr__(self) -> str:
        best = f", best {self.ratings[0].agent} (ordinal {self.ratings[0].ordinal:.2f})" if self.ratings else ""
        return (
            f"<TournamentResult {len(self.agents)} agents, {self.num_players} players, {len(self.games)} games{best}>"
        )


def run_tournament(
    agents: Sequence[AgentSpec | str | Any] | Mapping[str, AgentSpec],
    num_players: int = 2,
    deals: int = 1000,
    seed: int = 0,
    jobs: int | None = None,
    progress: bool | None = None,
    records_dir: str | Path | None = None,
    allow_all_seeing: bool = False,
    fields: Sequence[AgentSpec | str] | None = None,
    adjust_luck: bool | LuckSettings = False,
    journal: str | Path | None = None,
    resume: bool = False,
    until: StopRule | None = None,
    **rule_options: Any,
) -> TournamentResult:
    """Play every agent against a field of every other agent (or of each of ``fields``) and rate them all.

    Each pairing (A, B) plays deals ``seed, seed + 1, …, seed + deals - 1``, each deal once with A at every
    seat, so a pairing is ``deals * num_players`` games and every pairing sees the same deals. At 2 players
    the pairings (A, B) and (B, A) are the same games: they are played once and give both rows. Agents are
    reset before each game with a seed derived from the deal and their seat, and every seat gets its own
    agent instance, so a game depends only on (pairing, deal, seat).

    Ratings use OpenSkill's Plackett-Luce model, updated game by game in the fixed order (pairing, deal,
    seat). Every seat is its own one-player team; seats are ranked by result, winners first (a shared win
    is a tie), then by final score (equal scores tie; a truncated game has no winners, so only scores
    count). When one agent fills several seats, each copy is rated from the agent's current rating and the
    agent's new mu and sigma are the averages over its copies. The ratings are reported best first by
    ordinal, ``mu - 3 * sigma``.

    Args:
        agents: two or more distinct agent specs, as text or parsed (see :mod:`agents.bots.spec`), named in the
            results as :func:`name_agents` names them; or, already named and parsed, a mapping from each agent's
            name to its spec (what :func:`name_agents` returns: a command parses its specs once, so).
        num_players: seats per game.
        deals: seeded deals per pairing.
        seed: the first deal's seed.
        jobs: worker processes (None: one per core; 1: play in this process). Results do not depend on it.
        progress: show a tqdm bar over games (None: when stderr is a terminal).
        records_dir: save every game there as a JSON :class:`~gubs_env.records.record.GameRecord` (slower: the game
            keeps its log).
        allow_all_seeing: admit the all-seeing search (``search-all-seeing``), which reads every hidden card; for
            measurements such as the ladder only.
        fields: play only the pairings whose field (every seat but the agent's) is one of these agents (None:
            every pairing). A field that is none of ``agents`` joins the tournament after them as a field only
            (:func:`join_fields`): it fills the fields of the agents given, and is rated from those seats, but
            plays no pairing of its own. Measuring a costly agent against baselines then skips the tables where it fills
            every other seat; the payoff matrix shows the skipped cells as None. Two agents measured against the
            same fields are compared by :func:`agents.evaluate.paired.paired_comparison`.
        adjust_luck: also measure each game's luck and give every pairing its luck-adjusted win rate and mean
            luck (:mod:`agents.evaluate.luck`; True for the default :class:`~agents.evaluate.luck.LuckSettings`).
            The same win rate from fewer games; pairings with ``search-all-seeing`` are not adjusted (it decides
            from the deck's hidden cards).
        journal: write every game to this file as it finishes (:mod:`agents.evaluate.journal`), so that a stopped
            tournament loses nothing; None keeps no journal.
        resume: go on from ``journal``'s games (same agents and settings), playing only the missing ones.
        until: the sequential mode (:mod:`agents.evaluate.sequential`): play the deals in rounds and stop as soon as
            the rule's question is answered (``deals`` is then the most it may play); None plays every deal.
        **rule_options: rule options for every game (see :class:`gubs_env.engine.options.RuleOptions`).

    Returns:
        The pairings, payoff matrix and ratings (and, in the sequential mode, its report).

    Raises:
        ValueError: fewer than two agents (fields included), duplicates, an empty list of fields, or a bad
            count, seed or rule option.
        agents.bots.spec.AgentSpecError: a spec (a field's too) that names no agent, or two specs naming the same
            agent (raised before any game is played; it is a ValueError).
        agents.evaluate.journal.JournalError: ``resume`` from a journal of another tournament, or of none.
        TournamentStopped: an agent could not play on (a model server that stayed down); the games finished are in
            ``journal``.
    """
    specs, parsed = _check_config(agents, fields, num_players, deals, seed, jobs, rule_options)
    field_indices = _field_indices(parsed, fields)
    from agents.evaluate.luck import LuckSettings

    luck = LuckSettings.of(adjust_luck)
    runner = _GameRunner(specs, parsed, num_players, rule_options, records_dir, allow_all_seeing, luck)
    for spec in specs:
        runner.agent(spec, 0)  # builds each agent once here, so a bad spec fails before any game or file
    played = _played_pairings(len(specs), num_players, field_indices, len(agents))
    if until is not None:
        until = replace(until, most=deals)  # its last look: the level of its sequences depends on it
        until.check(specs, num_players, fields is not None)
    config = _journal_config(specs, parsed, num_players, deals, seed, played, luck, until, rule_options)
    if resume and journal is None:
        raise ValueError("resume=True needs the journal to resume from")
    book = None if journal is None else Journal(journal, config, resume)
    if records_dir is not None:
        Path(records_dir).mkdir(parents=True, exist_ok=True)
    outcomes = [] if book is None else [GameOutcome.from_journal(game) for game in book.games]

    def result_of(deals_played: int) -> TournamentResult:
        games = sorted((o for o in outcomes if o.deal < deals_played), key=lambda o: (o.pairing, o.deal, o.seat))
        pairings = _pairing_results(specs, num_players, played, games)
        return TournamentResult(
            agents=specs,
            num_players=num_players,
            deals=deals_played,
            seed=seed,
            rule_options=dict(rule_options),
            played=played,
            games=games,
            pairings=pairings,
            ratings=_ratings(specs, num_players, played, games, pairings),
            luck=luck,
        )

    step = deals if until is None else until.round_deals
    try:
        for start in range(0, deals, step):
            stop = min(start + step, deals)
            have = {(o.pairing, o.deal, o.seat) for o in outcomes}
            tasks = [
                (p, d, s)
                for p in range(len(played))
                for d in range(start, stop)
                for s in range(num_players)
                if (p, d, s) not in have
            ]
            outcomes += _play_all(runner, played, tasks, seed, _jobs_for(parsed, jobs), progress, book)
            if until is not None:
                result = result_of(stop)
                result.sequential = until.report(result)
                if result.sequential.answered or stop == deals:
                    return result
    except _Stopped as stopped:
        total = len(played) * deals * num_players
        where = None if book is None else book.path
        raise TournamentStopped(str(stopped), len(outcomes) + stopped.finished, total, where) from None
    finally:
        if book is not None:
            book.close()
    return result_of(deals)


def _journal_config(
    specs: list[str],
    parsed: list[AgentSpec],
    num_players: int,
    deals: int,
    seed: int,
    played: list[tuple[int, int]],
    luck: LuckSettings | None,
    until: StopRule | None,
    rule_options: dict[str, Any],
) -> dict[str, Any]:
    """What a journal's tournament is: a resume must match every one of these."""
    from dataclasses import asdict

    return {
        "agents": specs,
        "specs": [str(spec) for spec in parsed],
        "num_players": num_players,
        "deals": deals,
        "seed": seed,
        "pairings": len(played),
        "played": [list(pair) for pair in played],
        "luck": None if luck is None else asdict(luck),
        "until": None if until is None else until.describe(),
        "rule_options": rule_options,
    }


def name_agents(agents: Sequence[AgentSpec | str | Any]) -> dict[str, AgentSpec]:
    """Every agent parsed, once, by the name the tournament's results give it, in the order given.

    A name is the text as given (stripped); for an object or class given in Python, its own ``name`` unless two
    share one; else the parsed spec's canonical text.

    Raises:
        ValueError: ``agents`` is one string, not a list of them.
        agents.bots.spec.AgentSpecError: a spec names no agent, or two name the same one (``search`` and
            ``search:worlds=512``).
    """
    _refuse_one_string(agents, "agents")
    parsed = parse_distinct(agents)
    names = [_label(agent, spec, True) for agent, spec in zip(agents, parsed, strict=True)]
    if len(set(names)) < len(names):  # two objects of one name: their specs tell them apart
        names = [_label(agent, spec, False) for agent, spec in zip(agents, parsed, strict=True)]
    return dict(zip(names, parsed, strict=True))


def join_fields(
    named: Mapping[str, AgentSpec], fields: Sequence[AgentSpec | str | Any]
) -> tuple[dict[str, AgentSpec], list[AgentSpec]]:
    """The agents followed by each field that is none of them, and the fields parsed, each once.

    A field is matched to an agent as a parsed spec, so ``search:top=4,worlds=64`` finds ``search:worlds=64,top=4``;
    a field that matches none joins as a field only, named as :func:`name_agents` names an agent.

    Raises:
        ValueError: no field, or ``fields`` is one string.
        agents.bots.spec.AgentSpecError: a field that names no agent.
    """
    _refuse_one_string(fields, "fields")
    if not fields:
        raise ValueError("give at least one field, or none at all (then every agent is a field)")
    joined = dict(named)
    parsed = []
    for given in fields:
        spec = AgentSpec.of(given)
        if spec not in joined.values():
            label = _label(given, spec, True)
            joined[label if label not in joined else str(spec)] = spec
        if spec not in parsed:
            parsed.append(spec)
    return joined, parsed


def _refuse_one_string(specs: object, what: str) -> None:
    """A ValueError when ``specs`` is one string: iterating it would read each character as a spec."""
    if isinstance(specs, str):
        raise ValueError(f"{what} is a list of specs, not one string")


def _check_config(
    agents: Sequence[AgentSpec | str | Any] | Mapping[str, AgentSpec],
    fields: Sequence[AgentSpec | str] | None,
    num_players: int,
    deals: int,
    seed: int,
    jobs: int | None,
    rule_options: dict[str, Any],
) -> tuple[list[str], list[AgentSpec]]:
    """The agents' names and parsed specs (see :func:`name_agents`), the fields joined, once all is valid."""
    _refuse_one_string(agents, "agents")
    if isinstance(agents, Mapping):  # named and parsed by the caller: only checked to be distinct here
        named = dict(zip(agents, parse_distinct(agents.values()), strict=True))
    else:
        named = name_agents(agents)
    if fields is not None:
        named = join_fields(named, fields)[0]
    if len(named) < 2:
        raise ValueError(f"a tournament needs at least two agents (fields included), got {len(named)}")
    check_player_count(num_players)
    checks = [
        (deals, 1, math.inf, "deals"),
        (seed, 0, math.inf, "seed"),
        (1 if jobs is None else jobs, 1, math.inf, "jobs"),
    ]
    for value, low, high, name in checks:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            span = f"at least {low}" if high == math.inf else f"from {low} to {high}"
            raise ValueError(f"{name} must be a whole number {span}, not {value!r}")
    if "games" in rule_options:  # the command line's --games: a likely slip, answered with the right keyword
        games = rule_options["games"]
        same = f"deals={math.ceil(games / num_players)}" if isinstance(games, int) and games > 0 else "deals=N"
        raise ValueError(
            f"run_tournament counts deals, not games: {same} plays what --games {games!r} plays on the command line "
            f"at {num_players} players (each deal once with the agent at every seat)"
        )
    RuleOptions.from_dict(rule_options)  # rejects bad rule options before any work
    return list(named), list(named.values())


def _label(agent: Any, spec: AgentSpec, own_name: bool) -> str:
    """An agent's name in the results: its text as given, else its spec's text.

    With ``own_name``, an object or class given in Python is named by its own ``name`` when it has one.
    """
    if isinstance(agent, str):
        return agent.strip()
    name = getattr(agent, "name", None)
    if own_name and not isinstance(agent, AgentSpec) and isinstance(name, str) and name.strip() not in ("", Agent.name):
        return name.strip()
    return str(spec)


def _jobs_for(parsed: list[AgentSpec], jobs: int | None) -> int | None:
    """``jobs``, or 1 with a note when an agent is a Python object that a worker process cannot build."""
    here = [str(spec) for spec in parsed if spec.kind is SpecKind.OBJECT]
    if here and jobs != 1:
        print(
            f"note: {', '.join(here)} only exists in this process (an instance, or a class a worker cannot import): "
            "the tournament plays here, on one core",
            file=sys.stderr,
        )
        return 1
    return jobs


def _field_indices(parsed: list[AgentSpec], fields: Sequence[AgentSpec | str] | None) -> set[int]:
    """The indices of the agents that may fill a field (all of them when ``fields`` is None).

    Every field is among ``parsed`` (:func:`join_fields` put it there), matched as a parsed spec.
    """
    if fields is None:
        return set(range(len(parsed)))
    return {index for index in (index_of(field, parsed) for field in fields) if index is not None}


def _played_pairings(k: int, num_players: int, fields: set[int], given: int) -> list[tuple[int, int]]:
    """Ordered pairs (agent, field) of distinct agents, the field in ``fields``, the agent among the first ``given``.

    The agents after the first ``given`` joined as fields only: their games against each other answer nothing asked.
    At 2 players (A, B) and (B, A) seat the same two, so only A < B is played, when either may face the other.
    """

    def plays(agent: int, field: int) -> bool:
        return agent != field and agent < given and field in fields

    if num_players == 2:
        return [(a, b) for a in range(k) for b in range(a + 1, k) if plays(a, b) or plays(b, a)]
    return [(a, b) for a in range(k) for b in range(k) if plays(a, b)]


class _GameRunner:
    """Plays tournament games: the agents (one instance per spec and seat) and the table's settings.

    Separate instances per seat keep an agent's generator and any per-game memory to one seat, so a game is
    the same whichever process plays it and whatever that process played before.
    """

    def __init__(
        self,
        specs: list[str],
        parsed: list[AgentSpec],
        num_players: int,
        rule_options: dict[str, Any],
        records_dir: str | Path | None,
        allow_all_seeing: bool = False,
        luck: LuckSettings | None = None,
    ) -> None:
        self.specs = specs
        self.parsed = dict(zip(specs, parsed, strict=True))
        """Each agent's parsed spec, by its name: what builds it."""
        self.luck = luck
        self._estimator: LuckEstimator | None = None
        self._reads_the_deck = {name for name, spec in self.parsed.items() if spec.reads_the_deck}
        self.allow_all_seeing = allow_all_seeing
        self.num_players = num_players
        self.rule_options = rule_options
        self.records_dir = None if records_dir is None else Path(records_dir)
        self.codec = ActionCodec(num_players)
        self._agents: dict[tuple[str, int], Agent] = {}

    def agent(self, spec: str, seat: int) -> Agent:
        """The instance of ``spec`` that plays ``seat`` (built on first use)."""
        if (spec, seat) not in self._agents:
            self._agents[spec, seat] = make_agent(self.parsed[spec], seed=seat, allow_all_seeing=self.allow_all_seeing)
        return self._agents[spec, seat]

    def build_all(self) -> None:
        """Build every agent for every seat now (worker start-up), rather than during the first games."""
        for spec in self.specs:
            for seat in range(self.num_players):
                self.agent(spec, seat)

    def play(self, played: list[tuple[int, int]], pairing: int, deal: int, seat: int, seed: int) -> GameOutcome:
        """Play one game: agent A of ``played[pairing]`` at ``seat``, B everywhere else, dealt with ``seed + deal``."""
        specs = _table_specs(self.specs, self.num_players, played[pairing], seat)
        table = [self.agent(spec, s) for s, spec in enumerate(specs)]
        measured = self.luck is not None and not self._reads_the_deck.intersection(specs)
        ids: list[int] | None = [] if measured else None
        game = play_game(
            table, seed + deal, self.codec, record_log=self.records_dir is not None, played=ids, **self.rule_options
        )
        usage = _usage(table)
        if self.records_dir is not None:
            name = _record_name(played, pairing, self.specs, deal, seat)
            GameRecord.from_game(game, seed + deal, specs, usage=list(usage) or None).save(self.records_dir / name)
        luck = () if ids is None else tuple(self._luck(seed + deal, ids))
        gave_up = {s for s, spent in enumerate(usage) if spent and spent.get("forfeited")}
        winners = tuple(w for w in game.winners() if w not in gave_up)  # a forfeit is a loss, whatever the end
        return GameOutcome(pairing, deal, seat, tuple(game.scores()), winners, game.truncated, luck, usage)

    def _luck(self, deal_seed: int, ids: list[int]) -> list[float]:
        """Each seat's luck in the game dealt with ``deal_seed`` and played with ``ids``."""
        if self._estimator is None:
            from agents.evaluate.luck import LuckEstimator

            self._estimator = LuckEstimator(self.luck)
        measured = self._estimator.game(self.num_players, deal_seed, ids, **self.rule_options)
        return [float(x) for x in measured.luck]


def _usage(table: Sequence[Agent]) -> tuple[dict[str, Any] | None, ...]:
    """What each seat's agent spent on the game just played, where it says (``game_usage()``); empty when none does."""
    reports = [getattr(agent, "game_usage", None) for agent in table]
    spent = tuple(report() if callable(report) else None for report in reports)
    return spent if any(s is not None for s in spent) else ()


def _table_specs(specs: list[str], num_players: int, pair: tuple[int, int], seat: int) -> list[str]:
    table = [specs[pair[1]]] * num_players
    table[seat] = specs[pair[0]]
    return table


def _record_name(played: list[tuple[int, int]], pairing: int, specs: list[str], deal: int, seat: int) -> str:
    """``p00-random-vs-heuristic-deal0003-seat1.json``: the pairing index keeps sanitised names apart."""
    a, b = (re.sub(r"[^A-Za-z0-9._-]+", "-", specs[i]).strip("-.") for i in played[pairing])
    return f"p{pairing:02d}-{a}-vs-{b}-deal{deal:04d}-seat{seat}.json"


# --- playing: in this process or in workers ------------------------------------------------------------

_worker: _GameRunner | None = None
"""The worker process's runner, set by :func:`_init_worker`."""


class _Stopped(Exception):
    """An agent could not play on: the message, and how many games finished that were not yet counted."""

    def __init__(self, message: str, finished: int) -> None:
        super().__init__(message)
        self.finished = finished


def _play_all(
    runner: _GameRunner,
    played: list[tuple[int, int]],
    tasks: list[tuple[int, int, int]],
    seed: int,
    jobs: int | None,
    progress: bool | None,
    journal: Journal | None = None,
) -> list[GameOutcome]:
    """The games of ``tasks``, each written to ``journal`` as it comes back.

    Raises:
        _Stopped: an agent could not play on; the games finished before are in the journal.
    """
    if not tasks:
        return []
    jobs = jobs or _cpu_count()
    size = max(1, min(_MAX_CHUNK, math.ceil(len(tasks) / (4 * jobs))))
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    if len(chunks) > 1:
        jobs = worker_count(jobs, "run_tournament")
    finished: list[GameOutcome] = []

    def keep(outcomes: list[GameOutcome]) -> None:
        finished.extend(outcomes)
        if journal is not None:
            journal.add(outcomes)
        bar.update(len(outcomes))

    with progress_bar(total=len(tasks), desc="tournament", unit="game", disable=not wants_progress(progress)) as bar:
        if jobs == 1 or len(chunks) == 1:
            stopped = None
            for chunk in chunks:
                outcomes, stopped = _run_chunk(runner, played, chunk, seed)
                keep(outcomes)
                if stopped:
                    break
        else:
            stopped = _play_in_workers(runner, played, chunks, seed, min(jobs, len(chunks)), keep)
    if stopped:
        raise _Stopped(stopped, len(finished))
    order = {task: i for i, task in enumerate(tasks)}
    return sorted(finished, key=lambda o: order[o.pairing, o.deal, o.seat])


def _run_chunk(
    runner: _GameRunner, played: list[tuple[int, int]], chunk: list[tuple[int, int, int]], seed: int
) -> tuple[list[GameOutcome], str | None]:
    """The chunk's games, and the one-line reason when an agent could not play on (the games before it are kept)."""
    outcomes = []
    for task in chunk:
        try:
            outcomes.append(runner.play(played, *task, seed))
        except AgentUnavailableError as err:
            return outcomes, str(err)
    return outcomes, None


def _play_in_workers(
    runner: _GameRunner,
    played: list[tuple[int, int]],
    chunks: list[list[tuple[int, int, int]]],
    seed: int,
    jobs: int,
    keep: Callable[[list[GameOutcome]], None],
) -> str | None:
    """Chunks in worker processes, each chunk's games kept as it comes back; the first reason to stop, if any.

    Once a chunk stops, the chunks not yet started are dropped and those under way are waited for and kept.
    """
    import multiprocessing

    # spawn, not fork: forking a process whose torch (or other) threads are running can deadlock the children
    context = multiprocessing.get_context("spawn")
    init_args = (
        runner.specs,
        list(runner.parsed.values()),
        runner.num_players,
        runner.rule_options,
        runner.records_dir,
        runner.allow_all_seeing,
        runner.luck,
    )
    executor = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker, initargs=init_args)
    stopped = None
    try:
        futures = [executor.submit(_play_chunk, played, chunk, seed) for chunk in chunks]
        for future in as_completed(futures):
            if future.cancelled():
                continue
            outcomes, reason = future.result()
            keep(outcomes)
            if reason and stopped is None:
                stopped = reason
                for waiting in futures:
                    waiting.cancel()  # the chunks under way finish (and are kept); the others never start
        return stopped
    finally:
        executor.shutdown(cancel_futures=True)


def _init_worker(
    specs: list[str],
    parsed: list[AgentSpec],
    num_players: int,
    rule_options: dict[str, Any],
    records_dir: Path | None,
    allow_all_seeing: bool,
    luck: LuckSettings | None,
) -> None:
    global _worker
    exit_with_parent()
    # Ctrl-C reaches the whole process group: the parent stops the pool; a worker would only print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker = _GameRunner(specs, parsed, num_players, rule_options, records_dir, allow_all_seeing, luck)
    _worker.build_all()
    limit_torch_threads()


def _play_chunk(
    played: list[tuple[int, int]], chunk: list[tuple[int, int, int]], seed: int
) -> tuple[list[GameOutcome], str | None]:
    assert _worker is not None, "the worker initializer did not run"
    limit_torch_threads()  # again, for agents that import torch only when they first act
    return _run_chunk(_worker, played, chunk, seed)


def limit_torch_threads() -> None:
    """One torch thread per worker: the workers already use every core, more threads only contend.

    Only once torch is loaded: importing it just to set this would cost every worker seconds for agents
    that never touch it.
    """
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        set_torch_threads(1)


def _cpu_count() -> int:
    counter = getattr(os, "process_cpu_count", os.cpu_count)  # Python 3.13+ respects CPU affinity
    return counter() or 1


# --- statistics and ratings --------------------------------------------------------------------------------


def _pairing_results(
    specs: list[str], num_players: int, played: list[tuple[int, int]], outcomes: list[GameOutcome]
) -> list[PairingResult]:
    """One row per ordered pair; at 2 players the games of (A, B) also give (B, A), from B's seat."""
    by_pairing: dict[int, list[GameOutcome]] = {p: [] for p in range(len(played))}
    for outcome in outcomes:
        by_pairing[outcome.pairing].append(outcome)
    rows = {}
    for p, (a, b) in enumerate(played):
        games = by_pairing[p]
        rows[a, b] = _pairing_stats(specs[a], specs[b], num_players, [(g, g.seat) for g in games])
        if num_players == 2:
            rows[b, a] = _pairing_stats(specs[b], specs[a], num_players, [(g, 1 - g.seat) for g in games])
    return [rows[key] for key in sorted(rows)]


def _pairing_stats(agent: str, opponent: str, num_players: int, seats: list[tuple[GameOutcome, int]]) -> PairingResult:
    scores = [g.scores[s] for g, s in seats]
    margins = [g.scores[s] - max(v for i, v in enumerate(g.scores) if i != s) for g, s in seats]
    result = PairingResult(
        agent=agent,
        games=len(seats),
        wins=sum(s in g.winners for g, s in seats),
        truncated=sum(g.truncated for g, _ in seats),
        opponent=opponent,
        players=num_players,
        mean_score=sum(scores) / len(seats),
        mean_margin=sum(margins) / len(seats),
    )
    results = [float(s in g.winners) for g, s in seats]
    result.measure_deals(results, [g.deal for g, _ in seats])
    if len(seats) > 1 and all(g.luck for g, _ in seats):
        result.measure_luck(results, [g.luck[s] for g, s in seats], [g.deal for g, _ in seats])
    return result


def _ratings(
    specs: list[str],
    num_players: int,
    played: list[tuple[int, int]],
    outcomes: list[GameOutcome],
    pairings: list[PairingResult],
) -> list[AgentRating]:
    """The agents' ratings over every game in order (see :func:`run_tournament`), with agreeing ranks."""
    games = (
        (_table_specs(specs, num_players, played[game.pairing], game.seat), game_ranks(game.scores, game.winners))
        for game in outcomes
    )
    return rate(specs, games, {(p.agent, p.opponent): p.win_rate for p in pairings})
