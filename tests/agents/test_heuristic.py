"""The rule-based HeuristicAgent: legal and reproducible play, sensible choices, and its strength."""

import json
import random

import pytest

from agents import RandomAgent, match
from agents.bots.heuristic import HeuristicAgent
from agents.bots.heuristic.view import unseen_counts
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import encode
from gubs_env.engine import Game
from gubs_env.engine.cards import NUM_KINDS, Kind
from tests.agents.heuristic_golden import GAMES as GOLDEN_GAMES
from tests.agents.heuristic_golden import GOLDEN, golden_choices
from tests.helpers import act, table

# --- helpers -------------------------------------------------------------------------------------


def choice(game: Game, seed: int = 0) -> str:
    """What the heuristic picks for the player to act, as text."""
    seat = game.current_player
    codec = ActionCodec(game.num_players)
    mask = codec.mask(game.legal_actions(), seat)
    action_id = HeuristicAgent(seed).act(encode(game.state, seat), mask)
    assert mask[action_id] == 1
    return str(codec.action(action_id, seat))


def play_checked(num_players: int, seed: int, heuristic_seats: set[int]) -> list[int]:
    """One full game; asserts every heuristic choice is legal and returns its action ids in order."""
    codec = ActionCodec(num_players)
    game = Game(num_players, seed=seed, record_log=False)
    agents = [HeuristicAgent(seed + s) if s in heuristic_seats else RandomAgent(seed + s) for s in range(num_players)]
    chosen = []
    while not game.is_over:
        seat = game.current_player
        mask = codec.mask(game.legal_actions(), seat)
        action_id = agents[seat].act(encode(game.state, seat), mask)
        assert isinstance(action_id, int)
        if seat in heuristic_seats:
            assert mask[action_id] == 1, f"illegal id {action_id} at seat {seat}"
            chosen.append(action_id)
        game.apply(codec.action(action_id, seat))
    assert not game.truncated
    return chosen


# --- legality and determinism ------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_only_legal_ids_at_every_table_size(num_players):
    for seed in range(8):
        play_checked(num_players, seed, heuristic_seats={seed % num_players})
    for seed in range(3):  # a table of heuristics only
        play_checked(num_players, 100 + seed, heuristic_seats=set(range(num_players)))


def test_same_seed_same_game():
    first = play_checked(3, 7, heuristic_seats={0, 1, 2})
    assert play_checked(3, 7, heuristic_seats={0, 1, 2}) == first


def test_reset_reseeds_tie_breaks():
    # Over the hand limit, a Gub and a Cricket Song are worth the same to keep: only the seed decides.
    game = table(hands=[{"Gub": 8, "Cricket Song": 1}, {}], sides=[{}, {}])
    act(game, "Go (end turn)")
    mask = ActionCodec(2).mask(game.legal_actions(), 0)
    observation = encode(game.state, 0)
    agent = HeuristicAgent(5)
    first = [agent.act(observation, mask) for _ in range(30)]
    assert len(set(first)) == 2
    agent.reset(5)
    assert [agent.act(observation, mask) for _ in range(30)] == first
    assert [HeuristicAgent(5).act(observation, mask) for _ in range(3)] == [first[0]] * 3


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_unseen_counts_the_deck_and_the_other_hands(num_players):
    # what the observation does not show: the deck and the other hands (Letters as one total)
    rng = random.Random(num_players)
    for seed in range(6):
        game = Game(num_players, seed=seed, record_log=False)
        while not game.is_over:
            st, viewer = game.state, rng.randrange(num_players)
            hidden = [0] * NUM_KINDS
            for kind in st.deck:
                hidden[kind] += 1
            for seat, hand in enumerate(st.hands):
                if seat != viewer:
                    hidden = [h + c for h, c in zip(hidden, hand, strict=True)]
            unseen = unseen_counts(encode(st, viewer)).tolist()
            letters = (Kind.LETTER_G, Kind.LETTER_U, Kind.LETTER_B)
            assert [u for k, u in enumerate(unseen) if k not in letters] == [
                h for k, h in enumerate(hidden) if k not in letters
            ]
            assert unseen[Kind.LETTER_G] == 3 - len(st.letters)  # all Letters not laid out, under the first
            game.apply(rng.choice(game.legal_actions()))


# --- choices -------------------------------------------------------------------------------------


def test_protects_with_velvet_moth_before_mushroom():
    game = table(hands=[{"Velvet Moth": 1, "Mushroom": 1}, {}], sides=[{"free": 1}, {"free": 1}])
    assert choice(game) == "Velvet Moth: protect a Free Gub"


def test_lures_the_leader():
    game = table(num_players=3, hands=[{"Lure": 1}, {}, {}], sides=[{"free": 1}, {"free": 1}, {"free": 4}])
    assert choice(game) == "Lure → seat 2"


def test_never_spears_own_gubs():
    game = table(hands=[{"Spear": 1}, {}], sides=[{"free": 2}, {"protected": {"Velvet Moth": 1}}])
    assert choice(game) == "Go (end turn)"


def test_ring_picks_opponent_gubs():
    game = table(hands=[{"Double Ring": 1}, {}], sides=[{"free": 2}, {"free": 3}])
    assert choice(game) == "Double Ring: trap Free Gubs"
    act(game, "Double Ring: trap Free Gubs")
    assert choice(game) == "Ring: take a Free Gub from seat 1"


def test_haki_flute_frees_a_full_ring():
    game = table(hands=[{"Haki Flute": 1}, {}], sides=[{"free": 1}, {"rings": ["Triple Ring"]}])
    assert choice(game) == "Haki Flute → Triple Ring"


def test_feather_against_an_attack_on_own_side_only():
    # With every Super Lure seen there is no reason to keep the Feather back for one.
    seen = {"Super Lure": 2, "Cricket Song": 1}
    game = table(
        num_players=3,
        hands=[{"Lure": 2}, {"Feather": 1}, {}],
        sides=[{"free": 1}, {"free": 2}, {"free": 2}],
        discard=seen,
    )
    act(game, "Lure → seat 1")
    assert choice(game) == "Feather: cancel it"
    game = table(
        num_players=3,
        hands=[{"Lure": 2}, {}, {"Feather": 1}],
        sides=[{"free": 1}, {"free": 2}, {"free": 2}],
        discard=seen,
    )
    act(game, "Lure → seat 1")
    assert game.current_player == 2
    assert choice(game) == "Pass"


def test_flops_the_last_letter_only_when_behind():
    behind = table(
        hands=[{"Flop Boat": 1}, {}],
        sides=[{"free": 1}, {"free": 3}],
        letters=["Letter G", "Letter U"],
        deck_top=["Letter B"],
        step="draw",
    )
    act(behind, "Draw")
    assert choice(behind) == "Flop Boat: flop the Event"
    ahead = table(
        hands=[{"Flop Boat": 1}, {}],
        sides=[{"free": 3}, {"free": 1}],
        letters=["Letter G", "Letter U"],
        deck_top=["Letter B"],
        step="draw",
    )
    act(ahead, "Draw")
    assert choice(ahead) == "Pass"


def test_keeps_the_last_feather_for_a_super_lure_still_unseen():
    game = table(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2, "protected": {"Velvet Moth": 2}}])
    act(game, "Lure → seat 1")
    assert choice(game) == "Pass"
    game = table(
        hands=[{"Super Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2, "protected": {"Velvet Moth": 2}}]
    )
    act(game, "Super Lure → seat 1")
    assert choice(game) == "Feather: cancel it"


def test_flops_dangerous_alchemy_on_a_big_side():
    game = table(
        hands=[{"Flop Boat": 1}, {}],
        sides=[{"free": 2, "protected": {"Velvet Moth": 2}}, {"free": 1}],
        deck_top=["Dangerous Alchemy"],
        step="draw",
    )
    act(game, "Draw")
    assert choice(game) == "Flop Boat: flop the Event"


def test_discards_the_least_useful_card():
    hand = {"Gub": 3, "Feather": 1, "Lure": 2, "Super Lure": 1, "Omen Beetle": 1, "Cricket Song": 1}
    game = table(hands=[hand, {}], sides=[{}, {}])
    act(game, "Go (end turn)")
    assert choice(game) == "Discard Omen Beetle"


# --- strength --------------------------------------------------------------------------------------


def test_beats_random_at_two_players():
    result = match(HeuristicAgent(0), RandomAgent(1), num_players=2, games=100, seed=1)
    assert result.truncated == 0
    assert result.interval[0] > 0.6, str(result)


@pytest.mark.soak
def test_wins_three_quarters_of_two_thousand_two_player_games():
    result = match(HeuristicAgent(0), RandomAgent(1), num_players=2, games=2000, seed=0)
    print(result)
    assert result.win_rate >= 0.75, str(result)


# --- the golden games ----------------------------------------------------------------------------------


def test_golden_games_get_the_same_choices():
    # written once from the heuristic before its two copies became one (tests/agents/heuristic_golden.py)
    games = json.loads(GOLDEN.read_text())
    assert len(games) == len(GOLDEN_GAMES) and sum(len(c) for g in games for c in g["choices"]) > 6000
    for game in games:
        assert golden_choices(game["players"], game["seed"], game["mixed"]) == game["choices"], game
