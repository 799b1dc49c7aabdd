"""The search bot: its settings, its compiled playouts, what it may see, and that it plays every decision."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from agents.bots.heuristic.decide import heuristic_action, heuristic_scores, rng_state
from agents.bots.heuristic.tables import TABLES
from agents.bots.ppo import PPOAgent
from agents.bots.registry import AgentSpecError, make_agent
from agents.bots.search import AllSeeingSearchAgent, SearchAgent, SearchSettings
from agents.bots.search.agent import _pick, _pick_gain, base_for
from agents.bots.search.belief import HOLD_RATIO, reweight_hands, static_weights
from agents.bots.search.rollout import MARGIN_WEIGHT, candidate_values, paired_gains, seat_tables
from agents.evaluate.matches import play_game
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game, Step
from gubs_env.engine.positions.determinize import knowledge, sample_world
from gubs_env.fast.convert import row_to_game, state_to_row
from gubs_env.fast.core import layout as L
from gubs_env.fast.core.rng import seed_pcg64
from gubs_env.fast.determinize import new_rows, sample_rows
from tests.helpers import games_under_way, one_world, playout_value, table

TINY = "worlds=3,top=3,z=0"


# --- settings ------------------------------------------------------------------------------------------


def test_settings_parse_any_subset_in_any_order():
    assert SearchSettings.parse("top=2,worlds=8") == SearchSettings(worlds=8, top=2)
    assert SearchSettings.parse("z=0.5") == SearchSettings(z=0.5)
    assert SearchSettings.parse(SearchSettings(7, 3, 2.5).spec().partition(":")[2]) == SearchSettings(7, 3, 2.5)
    assert SearchSettings.parse(" base = gubs-net ,worlds=8") == SearchSettings(worlds=8, base="gubs-net")
    every = SearchSettings(5, 2, 1.5, 0.5, "heuristic", 1000, "heuristic", leaf=3, belief="learned")
    assert SearchSettings.parse(every.spec().partition(":")[2]) == every


def test_auto_searches_over_the_strongest_shipped_policy_at_each_size():
    assert base_for("auto", 2) == "ppo-2p"
    assert all(base_for("auto", n) == "gubs-net" for n in range(3, 7))
    assert base_for("heuristic", 2) == "heuristic" and base_for("ppo-4p", 6) == "ppo-4p"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("worlds=0", "worlds must be int from 1"),
        ("worlds=5000", "worlds must be int from 1"),
        ("worlds=2.5", "whole number"),
        ("top=-1", "top must be int"),
        ("z=11", "z must be float"),
        ("z=nan", "z must be float"),
        ("depth=3", "unknown search setting 'depth=3'"),
        ("worlds", "unknown search setting"),
        ("worlds=8,worlds=9", "given twice"),
        ("worlds=eight", "must be a number"),
        ("worlds=" + "9" * 1000, "worlds must be int"),
        ("base=minimax", "base must be one of auto, heuristic"),
        ("base=agents.bots.heuristic:HeuristicAgent", "base must be one of"),
        ("base=runs/model.npz", "base must be one of"),
    ],
)
def test_bad_settings_are_refused_with_the_reason(text, words):
    with pytest.raises(AgentSpecError, match=words) as caught:
        make_agent(f"search:{text}")
    assert len(str(caught.value)) < 300  # a huge token is cut short, not echoed whole


def test_the_all_seeing_search_is_built_only_where_allowed():
    with pytest.raises(AgentSpecError, match="for measurements"):
        make_agent("search-all-seeing")
    assert isinstance(make_agent("search-all-seeing", allow_all_seeing=True), AllSeeingSearchAgent)
    assert type(make_agent("search")) is SearchAgent


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "agents.evaluate", "search:worlds=0", "random", "--games", "2"],
        ["-m", "agents.play", "--watch", "--bots", "search-all-seeing", "--delay", "0"],
        ["-m", "agents.play", "--watch", "--bots", "search:top=x", "--delay", "0"],
    ],
)
def test_commands_refuse_bad_search_specs_in_one_line(argv):
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "error:" in done.stderr


def test_it_needs_the_game_not_an_observation():
    with pytest.raises(TypeError, match="game=game"):
        SearchAgent(0).act(np.zeros(512, dtype=np.float32), np.ones(356, dtype=np.int8))


# --- choosing among candidates -------------------------------------------------------------------------


def _midgame(num_players: int, seed: int, wanted: int = 3) -> Game:
    """A position with at least ``wanted`` legal actions, reached by random play."""
    game = Game(num_players, seed=seed, record_log=False)
    rng = np.random.default_rng(seed)
    while len(game.legal_actions()) < wanted or int(rng.integers(4)):
        game.apply(game.legal_actions()[int(rng.integers(len(game.legal_actions())))])
        if game.is_over:
            game = Game(num_players, seed=seed + 100, record_log=False)
    return game


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_candidates_start_with_the_base_choice_and_mix_in_the_heuristic(num_players):
    codec = ActionCodec(num_players)
    for seed in range(6):
        game = _midgame(num_players, seed)
        seat = game.current_player
        observation = encode(game.state, seat)
        legal = np.asarray(codec.ids(game.legal_actions(), seat), dtype=np.int64)
        heuristic_best = int(legal[np.argmax(heuristic_scores(observation, legal))])
        network = PPOAgent.pretrained("2p" if num_players == 2 else "net")
        network_best = int(legal[np.argmax(network.action_logits(observation, legal))])
        for top in (1, 2, 4):
            found = SearchAgent(0, SearchSettings(top=top)).candidates(game, seat, codec)
            assert found[0] == network_best
            assert len(set(found.tolist())) == found.size == min(top, legal.size)
            assert set(found.tolist()) <= set(legal.tolist())
            if top > 1:
                assert heuristic_best in found
        by_heuristic = SearchAgent(0, SearchSettings(top=2, base="heuristic")).candidates(game, seat, codec)
        assert by_heuristic[0] == heuristic_best


def test_with_the_heuristic_as_base_and_no_worlds_to_convince_it_it_plays_the_heuristic():
    # two worlds are fewer than MIN_WORLDS: however alike their playouts end, they never outweigh the base's choice
    codec = ActionCodec(3)
    for seed in range(4):
        game = _midgame(3, seed)
        seat = game.current_player
        stubborn = SearchAgent(seed, SearchSettings(worlds=2, top=3, z=10, base="heuristic"))
        assert stubborn.act_in_game(game, codec) == stubborn.candidates(game, seat, codec)[0]


def test_it_keeps_the_heuristic_choice_unless_a_gain_is_clear():
    noisy = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])  # no gain on average
    assert _pick(noisy, 1.0) == 0
    clear = np.array([[0.0, 1.0, 0.2], [0.0, 1.0, 0.1], [0.0, 0.9, 0.0], [0.1, 1.0, 0.3]])
    assert _pick(clear, 1.0) == 1
    slight = np.array([[0.0, 0.1], [0.0, -0.1], [0.0, 0.2], [0.0, -0.1]])  # a mean gain within its noise
    assert _pick(slight, 1.0) == 0 and _pick(slight, 0.0) == 1
    alike = np.array([[0.0, 1.0], [0.0, 1.0]])  # two worlds that agree: no spread, but too few to judge by
    assert _pick(alike, 10.0) == 0 and _pick(np.vstack([alike, alike[:1]]), 10.0) == 1


# --- compiled playouts ---------------------------------------------------------------------------------


def _reference_playout(game: Game, first: int, tie_seed: int) -> Game:
    """The playout candidate_values plays, step by step on the reference engine: same ids, same tie draws."""
    codec = ActionCodec(game.num_players)
    tie = np.empty(6, dtype=np.uint64)
    seed_pcg64(tie, np.uint64(tie_seed))
    game.apply(codec.action(first, game.current_player))
    while (seat := game.current_player) is not None:
        mask = codec.mask(game.legal_actions(), seat)
        game.apply(codec.action(heuristic_action(encode(game.state, seat), mask, tie), seat))
    return game


@pytest.mark.parametrize("players", [2, 4, 6])
def test_playouts_are_the_heuristic_playing_the_real_rules(players):
    for game in games_under_way(players, 60):  # somewhere into the game
        seat = game.current_player
        ids = np.array(ActionCodec(players).ids(game.legal_actions(), seat), dtype=np.int64)
        world, world_rng = one_world(game)
        values = np.empty((1, ids.size))
        candidate_values(world, world_rng, ids, seat, np.uint64(99), TABLES.ints, seat_tables(TABLES.floats), values)
        for k, first in enumerate(ids.tolist()):
            final = _reference_playout(game.clone(), first, 99)
            assert values[0, k] == pytest.approx(playout_value(final, seat))


def test_candidates_in_one_world_share_its_luck():
    game = Game(3, seed=4, record_log=False)
    seat = game.current_player
    ids = np.array(ActionCodec(3).ids(game.legal_actions(), seat), dtype=np.int64)
    doubled = np.array([ids[0], ids[0]], dtype=np.int64)
    world = np.empty((2, L.ROW), dtype=np.int32)
    world_rng = np.empty((2, 6), dtype=np.uint64)
    for w in range(2):
        state_to_row(game.state, world[w], world_rng[w])
    values = np.empty((2, 2))
    candidate_values(world, world_rng, doubled, seat, np.uint64(5), TABLES.ints, seat_tables(TABLES.floats), values)
    assert values[0, 0] == values[0, 1] and values[1, 0] == values[1, 1]  # the same choice, the same outcome


def test_heuristic_scores_rank_its_own_choice_first():
    game = Game(2, seed=11, record_log=False)
    codec = ActionCodec(2)
    agent = make_agent("heuristic", seed=3)
    for _ in range(80):
        seat = game.current_player
        ids = np.array(codec.ids(game.legal_actions(), seat), dtype=np.int64)
        observation, mask = encode(game.state, seat), codec.mask(game.legal_actions(), seat)
        scores = heuristic_scores(observation, ids)
        choice = heuristic_action(observation, mask, rng_state(np.random.default_rng(0)))
        assert scores[list(ids).index(choice)] >= scores.max() - 1e-9
        game.apply(codec.action(agent.act(observation, mask), seat))


# --- whole games ---------------------------------------------------------------------------------------


class _StepRecorder(AllSeeingSearchAgent):
    """The all-seeing search, keeping the step of every decision it searched."""

    def __init__(self, seed: int, settings: SearchSettings) -> None:
        super().__init__(seed, settings)
        self.steps: set[Step] = set()

    def _search(self, game: Game, seat: int, candidates: np.ndarray) -> int:
        self.steps.add(game.pending.step)
        return super()._search(game, seat, candidates)


def test_the_all_seeing_search_plays_legal_games_at_every_table_size():
    steps: set[Step] = set()
    for players in range(2, 7):
        for seed in range(2):
            searcher = _StepRecorder(seed, SearchSettings.parse(TINY))
            table = [searcher] + [make_agent("heuristic", seed=s) for s in range(1, players)]
            game = play_game(table, seed)  # an illegal id would raise here
            assert game.is_over
            steps |= searcher.steps
    assert {Step.DRAW, Step.PLAY, Step.CANCEL} <= steps, steps  # its turns and a window out of turn


@pytest.mark.parametrize(
    ("setup", "step"),
    [
        (
            lambda: _played(
                table(num_players=3, hands=[{"Double Ring": 1}, {}, {}], sides=[{}, {"free": 2}, {"free": 1}]),
                "Double Ring: trap Free Gubs",
            ),
            Step.RING,
        ),
        (lambda: _played(table(hands=[{"Feather": 2, "Lure": 3, "Mushroom": 5}, {}]), "Go (end turn)"), Step.DISCARD),
    ],
)
def test_ring_picks_and_discards_are_searched(setup, step):
    game = setup()
    assert game.pending.step is step and game.current_player == 0
    searcher = _StepRecorder(0, SearchSettings.parse(TINY))
    choice = searcher.act_in_game(game, ActionCodec(game.num_players))
    assert searcher.steps == {step}
    game.apply(ActionCodec(game.num_players).action(choice, 0))  # legal


def _played(game: Game, text: str) -> Game:
    game.apply(text)
    return game


def test_the_same_seed_plays_the_same_game():
    def finished(seed: int) -> dict:
        table = [make_agent(f"search-all-seeing:{TINY}", seed=0, allow_all_seeing=True), make_agent("heuristic")]
        return play_game(table, seed).to_dict()

    assert finished(5) == finished(5)


# --- what it may see -----------------------------------------------------------------------------------


def test_its_worlds_are_the_compiled_sampler_worlds_and_look_like_the_real_game():
    game = Game(4, seed=8, record_log=False)
    for _ in range(30):
        game.apply(game.legal_actions()[-1])
    seat = game.current_player
    rows, rngs = SearchAgent(0, SearchSettings(worlds=3)).world_rows(game, seat, 1234)
    expected_rows, expected_rngs = new_rows(3)
    sample_rows(knowledge(game.state, seat), 1234, expected_rows, expected_rngs)
    assert np.array_equal(rows, expected_rows) and np.array_equal(rngs, expected_rngs)
    worlds = [row_to_game(rows[w], rngs[w], record_log=False) for w in range(3)]
    assert all(world.information_state(seat) == game.information_state(seat) for world in worlds)
    assert len({repr(world.to_dict()["deck"]) for world in worlds}) > 1


def test_the_all_seeing_worlds_are_the_true_position_with_the_sampled_worlds_futures():
    game = Game(3, seed=4, record_log=False)
    for _ in range(20):
        game.apply(game.legal_actions()[0])
    seat = game.current_player
    _, sampled_rngs = SearchAgent(0, SearchSettings(worlds=2)).world_rows(game, seat, 77)
    rows, rngs = AllSeeingSearchAgent(0, SearchSettings(worlds=2)).world_rows(game, seat, 77)
    assert np.array_equal(rngs, sampled_rngs)
    true_row = np.empty(L.ROW, dtype=np.int32)
    state_to_row(game.state, true_row, np.empty(6, dtype=np.uint64))
    assert all(np.array_equal(row, true_row) for row in rows)


def _hidden_swapped(game: Game, viewer: int) -> Game:
    """The same game with two other seats' hands traded when they hold equally many cards (else the deck cut)."""
    other = game.clone()
    st = other.state
    seats = [s for s in range(game.num_players) if s != viewer]
    a, b = seats[0], seats[-1]
    if sum(st.hands[a]) == sum(st.hands[b]) and st.hands[a] != st.hands[b]:
        st.hands[a], st.hands[b] = st.hands[b], st.hands[a]
    else:
        st.deck = st.deck[len(st.deck) // 2 :] + st.deck[: len(st.deck) // 2]
    return other


def test_its_choice_depends_only_on_what_its_seat_knows():
    codec = ActionCodec(3)
    checked = peeked = 0
    for seed in range(12):
        game = Game(3, seed=seed, record_log=False)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(1, 40))):
            game.apply(game.legal_actions()[int(rng.integers(len(game.legal_actions())))])
            if game.is_over:
                break
        if game.is_over or len(game.legal_actions()) < 2:
            continue
        seat = game.current_player
        other = _hidden_swapped(game, seat)
        if other.to_dict() == game.to_dict() or other.information_state(seat) != game.information_state(seat):
            continue
        choices = [SearchAgent(seed, SearchSettings.parse(TINY)).act_in_game(g, codec) for g in (game, other)]
        assert choices[0] == choices[1]
        seeing = [AllSeeingSearchAgent(seed, SearchSettings.parse(TINY)).act_in_game(g, codec) for g in (game, other)]
        peeked += seeing[0] != seeing[1]
        checked += 1
    assert checked >= 5
    assert peeked >= 1  # the same check catches a search that reads the hidden cards


# --- what it believes about the other hands ------------------------------------------------------------


def _positions(count: int) -> list[Game]:
    found = []
    for seed in range(count):
        players = 2 + seed % 4
        game = Game(players, seed=seed, record_log=False)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 70))):
            if game.is_over:
                break
            game.apply(game.legal_actions()[int(rng.integers(len(game.legal_actions())))])
        if not game.is_over:
            found.append(game)
    return found


def test_reweighted_worlds_are_valid_and_look_the_same_to_the_seat():
    for i, game in enumerate(_positions(40)):
        seat = game.current_player
        known = knowledge(game.state, seat)
        world = sample_world(known, i)
        reweight_hands(world, known, static_weights(1.0, game.num_players), i)
        again = Game.from_dict(Game.from_state(world).to_dict())  # valid
        assert again.information_state(seat) == game.information_state(seat)
        assert (encode(world, seat) == encode(game.state, seat)).all()
        assert sum(map(sum, world.hands)) + len(world.deck) == sum(map(sum, game.state.hands)) + len(game.state.deck)


def test_the_other_hands_move_toward_what_players_keep():
    game = Game(2, seed=3, record_log=False)
    for _ in range(12):
        game.apply(game.legal_actions()[0])
    seat = game.current_player
    known = knowledge(game.state, seat)
    kept = [int(k) for k, ratio in HOLD_RATIO.items() if ratio > 2.5]
    spent = [int(k) for k, ratio in HOLD_RATIO.items() if ratio < 0.2]

    def share(strength: float) -> tuple[float, float]:
        hands = np.zeros(len(known.hand))
        for w in range(300):
            world = sample_world(known, w)
            reweight_hands(world, known, static_weights(strength, 2), w)
            hands += world.hands[1 - seat]
        return hands[kept].sum() / hands.sum(), hands[spent].sum() / hands.sum()

    uniform, believed = share(0.0), share(1.0)
    assert believed[0] > 1.8 * uniform[0] and believed[1] < 0.5 * uniform[1], (uniform, believed)


# --- per-seat weights and the budgeted search ---------------------------------------------------------------


def _somewhere_into(players: int, seed: int) -> Game:
    game = Game(players, seed=seed, record_log=False)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(5, 40))):
        game.apply(game.legal_actions()[int(rng.integers(len(game.legal_actions())))])
    return game


def test_playouts_weigh_each_seat_with_its_own_tables():
    """The searching seat may play its playouts with other weights: its decisions are then those weights'."""
    from agents.bots.heuristic.tables import tables_with

    odd = tables_with({"END_STAKE": 1.0, "DRAW_GAIN": 2.0, "CARD_VALUE.GUB": 0.2})
    differs = 0
    for seed in range(4):
        game = _somewhere_into(3, seed)
        if game.is_over:
            continue
        seat = game.current_player
        codec = ActionCodec(3)
        ids = np.array(codec.ids(game.legal_actions(), seat), dtype=np.int64)
        world = np.empty((1, L.ROW), dtype=np.int32)
        world_rng = np.empty((1, 6), dtype=np.uint64)
        state_to_row(game.state, world[0], world_rng[0])
        values = np.empty((1, ids.size))
        mixed = seat_tables(TABLES.floats, seat, odd.floats)
        candidate_values(world, world_rng, ids, seat, np.uint64(7), TABLES.ints, mixed, values)
        plain = np.empty((1, ids.size))
        candidate_values(world, world_rng, ids, seat, np.uint64(7), TABLES.ints, seat_tables(TABLES.floats), plain)
        differs += not np.array_equal(values, plain)
        for k, first in enumerate(ids.tolist()):
            final = game.clone()
            tie = np.empty(6, dtype=np.uint64)
            seed_pcg64(tie, np.uint64(7))
            final.apply(codec.action(first, seat))
            while (actor := final.current_player) is not None:
                mask = codec.mask(final.legal_actions(), actor)
                tables = odd if actor == seat else TABLES
                final.apply(codec.action(heuristic_action(encode(final.state, actor), mask, tie, tables), actor))
            won = final.winners()
            margin = final.scores()[seat] - max(s for i, s in enumerate(final.scores()) if i != seat)
            assert values[0, k] == pytest.approx((seat in won) / len(won) + MARGIN_WEIGHT * margin)
    assert differs  # the weights changed some outcome: the test can tell the tables apart


def _gain_inputs(players: int = 3, worlds: int = 40, seed: int = 2):
    game = _somewhere_into(players, seed)
    while len(game.legal_actions()) < 3:  # a decision with three candidates at least
        game.apply(game.legal_actions()[0])
    seat = game.current_player
    ids = np.array(ActionCodec(players).ids(game.legal_actions(), seat), dtype=np.int64)[:3]
    rows, rngs = new_rows(worlds)
    sample_rows(knowledge(game.state, seat), 11, rows, rngs)
    return rows, rngs, ids, seat


def test_paired_gains_are_the_paired_differences_of_the_worlds_each_candidate_played():
    rows, rngs, ids, seat = _gain_inputs()
    assert ids.size >= 2
    tfs = seat_tables(TABLES.floats)
    values = np.empty((rows.shape[0], ids.size))
    candidate_values(rows, rngs, ids, seat, np.uint64(3), TABLES.ints, tfs, values)
    gains = np.zeros((ids.size, 3))
    spent = paired_gains(rows, rngs, ids, seat, np.uint64(3), TABLES.ints, tfs, 10**9, 8, 2.5, gains)
    assert spent > 0 and gains[0].tolist() == [0.0, 0.0, 0.0]
    for k in range(1, ids.size):
        n = int(gains[k, 0])
        assert n > 0 and n % 8 == 0  # whole rounds, the first ones
        diff = values[:n, k] - values[:n, 0]
        assert gains[k, 1] == pytest.approx(diff.sum()) and gains[k, 2] == pytest.approx((diff**2).sum())


def test_a_budget_stops_the_search_after_the_round_that_spends_it():
    rows, rngs, ids, seat = _gain_inputs(worlds=64)
    gains = np.zeros((ids.size, 3))
    paired_gains(rows, rngs, ids, seat, np.uint64(3), TABLES.ints, seat_tables(TABLES.floats), 1, 8, 0.0, gains)
    assert gains[1:, 0].max() == 8  # one round of 8 worlds


def _spear_race(first: str, second: str, worlds: int) -> np.ndarray:
    """paired_gains of ``second`` over ``first`` on the last draw with a Spear in hand (2 players, seat 0)."""
    from tests.agents.test_ismcts import _last_draw_with_a_spear

    game = _last_draw_with_a_spear(2)
    codec = ActionCodec(2)
    by_text = {str(a): i for a, i in zip(game.legal_actions(), codec.ids(game.legal_actions(), 0), strict=True)}
    rows, rngs = new_rows(worlds)
    sample_rows(knowledge(game.state, 0), 5, rows, rngs)
    gains = np.zeros((2, 3))
    candidates = np.array([by_text[first], by_text[second]], dtype=np.int64)
    tfs = seat_tables(TABLES.floats)
    paired_gains(rows, rngs, candidates, 0, np.uint64(1), TABLES.ints, tfs, 10**6, 16, 2.5, gains)
    return gains


def test_a_budgeted_search_keeps_a_clearly_better_candidate_and_plays_it():
    """On the last draw, spearing the other seat's Gub wins; the search starts from Go and must leave it."""
    gains = _spear_race("Go (end turn)", "Spear → seat 1: kill a Free Gub", 64)
    assert gains[1, 0] == 64 and gains[1, 1] / gains[1, 0] > 0.5
    assert _pick_gain(gains, 2.5) == 1


def test_a_clearly_worse_candidate_leaves_the_race_early():
    gains = _spear_race("Spear → seat 1: kill a Free Gub", "Spear → seat 0: kill a Free Gub", 256)
    assert gains[1, 0] == 16 and _pick_gain(gains, 2.5) == 0


def test_the_budgeted_search_plays_legal_games_with_the_tuned_base():
    for players in (2, 4):
        table = [make_agent("search:worlds=32,steps=3000,base=heuristic-tuned,rollout=heuristic-tuned", seed=1)]
        table += [make_agent("heuristic", seed=s) for s in range(1, players)]
        assert play_game(table, 3).is_over
