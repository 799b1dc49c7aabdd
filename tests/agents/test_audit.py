"""The blunder audit: each kind flagged on a hand-built position, its clean alternative not; counts; the command."""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots.base import Agent
from agents.evaluate import audit
from agents.evaluate.blunders import KIND_NAMES, blunders, chances
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.engine import Action, Game
from gubs_env.support.cli import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from tests.helpers import act, table


def flagged(game: Game, text: str) -> tuple[str, ...]:
    """The kinds the legal action named ``text`` commits at ``game``'s decision."""
    [action] = [a for a in game.legal_actions() if str(a) == text]
    return blunders(game, action)


def assert_blunder(game: Game, kind: str, bad: str, clean: str) -> None:
    """``bad`` is flagged as ``kind`` (and nothing else), ``clean`` is not flagged, and the chance is seen."""
    assert flagged(game, bad) == (kind,)
    assert flagged(game, clean) == ()
    assert kind in chances(game)


FREE_EACH = [{"free": 1}, {"free": 1}]


# --- one hand-built position per kind -----------------------------------------------------------------------


def test_a_sud_spout_on_the_own_gub_is_an_own_trap_when_the_opponent_has_a_free_gub():
    game = table(hands=[{"Sud Spout": 1}, {}], sides=FREE_EACH)
    assert_blunder(game, "own-trap", "Sud Spout → seat 0", "Sud Spout → seat 1")


def test_a_sud_spout_on_the_own_gub_is_not_flagged_when_it_is_the_only_target():
    game = table(hands=[{"Sud Spout": 1}, {}], sides=[{"free": 1}, {"elder": True}])
    assert flagged(game, "Sud Spout → seat 0") == ()
    assert chances(game) == ()


def test_a_ring_pick_of_the_own_gub_is_an_own_trap_while_an_opponent_gub_is_left():
    game = act(table(hands=[{"Double Ring": 1}, {}], sides=[{"free": 2}, {"free": 1}]), "Double Ring: trap Free Gubs")
    assert_blunder(game, "own-trap", "Ring: take a Free Gub from seat 0", "Ring: take a Free Gub from seat 1")
    act(game, "Ring: take a Free Gub from seat 1")
    assert flagged(game, "Ring: take a Free Gub from seat 0") == ()  # forced: the opponent's Gub is taken already


def test_a_spear_kill_of_the_own_gub_is_an_own_kill():
    game = table(hands=[{"Spear": 1}, {}], sides=FREE_EACH)
    assert_blunder(game, "own-kill", "Spear → seat 0: kill a Free Gub", "Spear → seat 1: kill a Free Gub")


def test_lightning_on_the_own_elder_is_an_own_kill_and_on_the_opponents_is_not():
    own = table(hands=[{"Lightning": 1}, {"Gub": 1}], sides=[{"elder": True}, {"free": 1}])
    assert_blunder(own, "own-kill", "Lightning: strike the Esteemed Elder", "Lightning → seat 1: strike a hand")
    theirs = table(hands=[{"Lightning": 1}, {"Gub": 1}], sides=[{"free": 1}, {"elder": True}])
    assert flagged(theirs, "Lightning: strike the Esteemed Elder") == ()


def test_passing_on_a_hand_strike_while_holding_the_feather_throws_the_hand_away():
    game = act(
        table(hands=[{"Lightning": 1}, {"Feather": 1, "Gub": 1}], sides=FREE_EACH), "Lightning → seat 1: strike a hand"
    )
    assert_blunder(game, "hand-thrown", "Pass", "Feather: cancel it")


def test_passing_on_a_hand_strike_is_clean_when_the_answer_is_the_whole_hand():
    game = act(table(hands=[{"Lightning": 1}, {"Feather": 1}], sides=FREE_EACH), "Lightning → seat 1: strike a hand")
    assert flagged(game, "Pass") == ()


def test_passing_on_a_lure_while_holding_the_feather_is_a_choice_not_a_blunder():
    game = act(table(hands=[{"Lure": 1}, {"Feather": 1, "Gub": 1}], sides=FREE_EACH), "Lure → seat 1")
    assert flagged(game, "Pass") == ()  # the Feather may be kept for a bigger threat


def test_passing_on_gargok_plague_while_holding_the_cure_throws_the_hand_away():
    game = table(hands=[{}, {"Age-Old Cure": 1, "Gub": 1}], sides=FREE_EACH, deck_top=["Gargok Plague"], step="draw")
    act(game, "Draw")
    assert game.current_player == 1
    assert_blunder(game, "hand-thrown", "Pass", "Age-Old Cure: keep the hand")


def test_discarding_a_gub_at_the_hand_limit_is_flagged_and_another_card_is_not():
    game = act(table(hands=[{"Gub": 1, "Mushroom": 4, "Lure": 4}, {}], sides=FREE_EACH), "Go (end turn)")
    assert_blunder(game, "gub-discarded", "Discard Gub", "Discard Lure")


def test_go_with_only_gubs_over_the_limit_is_flagged_and_playing_one_is_not():
    game = table(hands=[{"Gub": 9}, {}], sides=FREE_EACH)
    assert_blunder(game, "gub-discarded", "Go (end turn)", "Gub: put into play")
    mixed = table(hands=[{"Gub": 1, "Mushroom": 4, "Lure": 4}, {}], sides=FREE_EACH)
    assert flagged(mixed, "Go (end turn)") == ()  # a Lure can go instead


def test_a_gub_discard_that_go_made_certain_is_flagged_on_the_go_only():
    game = table(hands=[{"Gub": 9, "Lure": 1}, {}], sides=FREE_EACH)  # two must go, one of them a Gub
    assert flagged(game, "Go (end turn)") == ("gub-discarded",)
    act(game, "Go (end turn)")
    assert flagged(game, "Discard Gub") == ()  # the Go made this one certain
    act(game, "Discard Gub")
    assert_blunder(game, "gub-discarded", "Discard Gub", "Discard Lure")  # now the Lure can be the last to go


def test_holding_the_elder_once_lightning_and_cricket_song_are_discarded_is_flagged():
    discarded = {"Lightning": 1, "Cricket Song": 1}
    game = table(hands=[{"Esteemed Elder": 1, "Lure": 1}, {}], sides=FREE_EACH, discard=discarded)
    assert_blunder(game, "elder-held", "Go (end turn)", "Esteemed Elder: put into play")
    live = table(hands=[{"Esteemed Elder": 1, "Lure": 1}, {}], sides=FREE_EACH, discard={"Lightning": 1})
    assert flagged(live, "Go (end turn)") == ()  # Cricket Song can still strike it as Lightning


def test_cricket_song_as_a_card_in_the_hand_wastes_the_wild_card():
    game = table(hands=[{"Cricket Song": 1, "Lure": 1}, {}], sides=FREE_EACH)
    assert_blunder(game, "wild-wasted", "Cricket Song as Lure → seat 1", "Lure → seat 1")
    alone = table(hands=[{"Cricket Song": 1}, {}], sides=FREE_EACH)
    assert flagged(alone, "Cricket Song as Lure → seat 1") == ()


def test_cricket_song_as_blindfold_while_holding_a_feather_wastes_the_wild_card():
    game = act(table(hands=[{"Lure": 1}, {"Feather": 1, "Cricket Song": 1}], sides=FREE_EACH), "Lure → seat 1")
    assert_blunder(game, "wild-wasted", "Cricket Song as Blindfold: cancel it", "Feather: cancel it")


def test_a_forced_decision_is_never_flagged():
    game = table(hands=[{"Gub": 9}, {}], sides=FREE_EACH)
    act(game, "Go (end turn)")
    [only] = game.legal_actions()
    assert blunders(game, only) == () and chances(game) == ()  # the blunder was the Go


# --- counting over games ------------------------------------------------------------------------------------


class Blunderer(Agent):
    """Commits a blunder whenever one is legal, else plays the first legal action; searches the game itself."""

    needs_game = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise AssertionError("asked through act_in_game")

    def act_in_game(self, game: Game, codec: ActionCodec) -> int:
        legal = game.legal_actions()
        chosen: Action = next((a for a in legal if blunders(game, a)), legal[0])
        seat = game.current_player
        assert seat is not None
        return codec.ids((chosen,), seat)[0]


class IllegalBot(Agent):
    """Chooses an action its mask forbids."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask == 0)[0])


def test_a_bot_that_blunders_whenever_it_can_takes_every_chance():
    [result] = audit.audit_tables([(Blunderer(), [Blunderer()])], games=4, progress=False)
    assert result.choices > 0 and result.chances[audit.ANY] > 0
    assert result.blunders[audit.ANY] == result.chances[audit.ANY]


def test_the_heuristic_blunders_less_than_random_and_counts_add_up():
    random_audit, heuristic_audit = audit.run_audit(["random", "heuristic"], games=6, seed=3, progress=False)
    for result in (random_audit, heuristic_audit):
        assert result.games == 6 and result.choices > 0
        for kind in (*KIND_NAMES, audit.ANY):
            assert result.blunders[kind] <= result.chances[kind] <= result.choices
        assert max(result.blunders[k] for k in KIND_NAMES) <= result.blunders[audit.ANY]
        rate, low, high = result.per_thousand(audit.ANY)
        assert low <= rate <= high
    assert random_audit.blunders[audit.ANY] > heuristic_audit.blunders[audit.ANY]


# --- the command ----------------------------------------------------------------------------------------------


def test_the_command_prints_both_tables_and_examples(capsys):
    assert audit.main(["random", "--games", "3", "--examples", "2", "--opponent", "self"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "--games 3 rounded up to 4" in out
    assert "| random | 2 | 4 |" in out and "Blunders taken / chances" in out
    assert all(name in out for name in KIND_NAMES)


def test_every_progress_line_in_a_log_names_the_audit(capsys):
    """The bar's first line in a log was an unnamed "0%": the bot's name is set only when its games start."""
    assert audit.main(["random", "heuristic", "--games", "2"]) == EXIT_OK
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("auditing") for line in lines), lines
    assert lines[-1].startswith("auditing heuristic: 100%")


def test_a_bot_choosing_an_illegal_action_fails_with_status_1_and_one_line(capsys):
    assert audit.main(["tests.agents.test_audit:IllegalBot", "--games", "2", "--no-progress"]) == EXIT_FAILURE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a bot's choice was refused" in err and "not legal" in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["no-such-bot"], "unknown agent"),
        (["random", "--opponent", "no-such-bot"], "unknown agent"),
        (["random", "random"], "repeated: random"),
        (["random", "--players", "7"], "player counts go from 2 to 6"),
        (["random", "--games", "0"], "must be at least 1"),
        (["random", "--examples", "-1"], "must be at least 0"),
        ([], "required"),
    ],
)
def test_bad_command_lines_stop_with_status_2_and_one_line(argv, words, capsys):
    with pytest.raises(SystemExit) as stop:
        audit.main(argv)
    assert stop.value.code == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1].startswith("python -m agents.evaluate.audit: error: ")
    assert words in captured.err
    assert captured.err.count("\n") == 1 or (argv == [] and captured.err.startswith("usage: "))  # none: the usage
