"""The SVG picture of the table: well-formed, complete, and showing nothing the viewer may not know."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from gubs_env.engine import Game
from gubs_env.engine.cards import CARDS, Kind
from gubs_env.engine.positions import position
from gubs_env.engine.state import GameState, Step
from gubs_env.viz import save_svg, state_svg, table_svg
from gubs_env.viz.svg import decision_text, main
from tests.helpers import act, table

SVG_NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    return root


def words(svg: str) -> str:
    """Every text node and title of the picture, joined."""
    root = parse(svg)
    return " | ".join(el.text or "" for el in root.iter() if el.tag in (f"{SVG_NS}text", f"{SVG_NS}title"))


def seat_group(svg: str, seat: int) -> ET.Element:
    groups = [g for g in parse(svg).iter(f"{SVG_NS}g") if g.get("class") == "seat" and g.get("data-seat") == str(seat)]
    assert len(groups) == 1
    return groups[0]


def group_words(group: ET.Element) -> str:
    return " | ".join(el.text or "" for el in group.iter() if el.tag in (f"{SVG_NS}text", f"{SVG_NS}title"))


def rich_table() -> Game:
    """Seat 0 has just played Lure at seat 1, who may cancel it; every kind of side zone is in play."""
    game = table(
        num_players=3,
        hands=[{"Lure": 1, "Scout": 1}, {"Feather": 1, "Flop Boat": 1}, {"Spear": 1}],
        sides=[
            {"free": 1, "elder": True, "protected": {"Toad Rider": 1}},
            {"free": 2, "spouted": 1, "rings": ["Double Ring"], "protected": {"Velvet Moth": 1}},
            {},
        ],
        letters=["Letter G", "Letter B"],
        discard={"Cyclone": 1},
    )
    return act(game, "Lure → seat 1")


def test_svg_is_a_well_formed_inline_element_of_the_asked_width() -> None:
    svg = table_svg(Game(3, seed=1), width=600)
    root = parse(svg)
    assert not svg.startswith("<?xml")
    assert root.get("width") == "600"
    assert root.get("viewBox", "").startswith("0 0 900 ")
    assert "href" not in svg and "<image" not in svg and "<script" not in svg and "@import" not in svg


def test_every_side_zone_is_drawn_with_its_cards() -> None:
    svg = table_svg(rich_table(), viewer=0)
    text = words(svg)
    seat0, seat1 = group_words(seat_group(svg, 0)), group_words(seat_group(svg, 1))
    assert "Esteemed Elder" in seat0 and "Toad Rider" in seat0 and "Protected" in seat0
    assert "Double Ring" in seat1 and "holds 2 Gubs" in seat1
    assert "Sud Spout" in seat1 and "Gub trapped" in seat1
    assert "Velvet Moth" in seat1
    assert "Letters laid: 2 of 3" in text and "Letter G" in text and "Letter B" in text
    assert "Cyclone" in text  # the discard pile
    assert "Seat 0 (you)" in seat0


def test_the_cancel_window_shows_the_card_its_target_and_who_decides() -> None:
    svg = table_svg(rich_table(), viewer=1)
    text = words(svg)
    assert "Your decision: cancel seat 0's Lure → seat 1, or pass" in text
    assert "seat 0 plays Lure → seat 1" in text
    seat1 = group_words(seat_group(svg, 1))
    assert "TARGET" in seat1 and "DECIDING" in seat1
    assert "TARGET" not in group_words(seat_group(svg, 0))


def test_the_viewer_sees_their_hand_and_only_backs_of_the_others() -> None:
    game = rich_table()
    mine, theirs = words(table_svg(game, viewer=0)), words(table_svg(game, viewer=1))
    assert "Scout" in mine and "Feather" not in mine and "Flop Boat" not in mine and "Spear" not in mine
    assert "2 cards in hand" in mine and "1 card in hand" in mine
    assert "Feather" in theirs and "Flop Boat" in theirs and "Scout" not in theirs
    everything = words(table_svg(game))
    assert all(name in everything for name in ("Scout", "Feather", "Flop Boat", "Spear"))


def test_hidden_cards_leave_no_trace_in_attributes_either() -> None:
    svg = table_svg(rich_table(), viewer=0)
    assert "flop_boat" not in svg and "Flop Boat" not in svg and "feather" not in svg.lower()


def test_what_a_scout_showed_appears_only_in_its_owners_picture() -> None:
    data = position(3, hands=[{}, {"Blindfold": 1}, {}], deck_top=["Feather", "Cricket Song"])
    data["seen"][0] = {"top": ["Feather", "Cricket Song"], "hand": {"seat": 1, "cards": {"Blindfold": 1}}}
    game = Game.from_dict(data)
    owner, other = words(table_svg(game, viewer=0)), words(table_svg(game, viewer=2))
    assert "You know the deck top: Feather, Cricket Song" in owner
    assert "Your Scout saw seat 1's hand: Blindfold" in owner
    assert "Feather" not in other and "Cricket Song" not in other and "Blindfold" not in other


def finished_game(players: int, seed: int) -> Game:
    game = Game(players, seed=seed)
    chooser = random.Random(seed)
    while not game.is_over:
        game.apply(chooser.choice(game.legal_actions()))
    return game


def test_a_finished_game_names_its_winners() -> None:
    game = next(g for g in (finished_game(3, s) for s in range(20)) if not g.truncated and g.winners())
    svg = table_svg(game, viewer=0)
    text = words(svg)
    assert "Game over:" in text and "to decide" not in text and "Your decision" not in text
    for seat in range(3):
        assert ("WINNER" in group_words(seat_group(svg, seat))) == (seat in game.winners())
    assert f"seat {game.winners()[0]}" in text.split("Game over:")[1]


def test_every_kind_of_decision_is_said_for_the_decider_and_for_the_others() -> None:
    said: dict[Step, str] = {}
    for seed in range(60):
        game = Game(3, seed=seed)
        chooser = random.Random(seed)
        while not game.is_over:
            st = game.state
            actor = st.pending.actor
            mine, theirs = decision_text(st, actor), decision_text(st, (actor + 1) % 3)
            assert mine.startswith("Your decision: ") and theirs.startswith(f"Seat {actor} to decide: ")
            assert mine.removeprefix("Your decision: ") == theirs.removeprefix(f"Seat {actor} to decide: ")
            said.setdefault(st.pending.step, mine)
            game.apply(chooser.choice(game.legal_actions()))
        if len(said) == len(Step) - 1:
            break
    crowded = act(table(hands=[{"Gub": 5, "Lure": 4}, {}]), "Go (end turn)")  # 9 cards: over the hand limit
    said[crowded.state.pending.step] = decision_text(crowded.state, 0)
    assert said[Step.DISCARD] == "Your decision: discard down to the hand limit"
    assert set(said) == set(Step) - {Step.OVER}
    assert said[Step.RING].startswith("Your decision: pick the next Free Gub for seat ")


def disguise(st: GameState, viewer: int) -> GameState:
    """The same position with everything ``viewer`` may not know changed (hand sizes kept)."""
    other = st.copy()
    other.deck.reverse()
    for seat in range(st.num_players):
        if seat == viewer:
            continue
        size = st.hand_size(seat)
        other.hands[seat] = [0] * len(CARDS)
        other.hands[seat][Kind.TRAVELING_MERCHANT] = size
        other.seen_top[seat] = [Kind.CRICKET_SONG]
        other.seen_hand[seat] = (viewer, [1] * len(CARDS))
    if st.pending.step in (Step.SCOUT, Step.KEEP) and st.pending.actor != viewer:
        other.pending.cards = [Kind.TRAVELING_MERCHANT] * len(st.pending.cards)
        other.pending.marks = [-1] * len(st.pending.marks)
    return other


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_positions_draw_valid_pictures_that_depend_only_on_what_the_viewer_knows(players: int) -> None:
    game = Game(players, seed=100 + players)
    chooser = random.Random(players)
    for step in range(400):
        if step % 17 == 0 or game.is_over:
            for viewer in (None, *range(players)):
                svg = state_svg(game.state, viewer)
                parse(svg)
                if viewer is not None:
                    assert state_svg(disguise(game.state, viewer), viewer) == svg
        if game.is_over:
            break
        game.apply(chooser.choice(game.legal_actions()))


@pytest.mark.parametrize("viewer", [-1, 3, True, "0", 1.0])
def test_a_bad_viewer_is_refused(viewer: object) -> None:
    with pytest.raises(ValueError, match="viewer"):
        table_svg(Game(3, seed=0), viewer)  # type: ignore[arg-type]


@pytest.mark.parametrize("width", [0, 99, 10_001, 900.0, "900", None])
def test_a_bad_width_is_refused(width: object) -> None:
    with pytest.raises(ValueError, match="width"):
        table_svg(Game(2, seed=0), width=width)  # type: ignore[arg-type]


def test_save_svg_writes_a_standalone_file(tmp_path) -> None:
    path = save_svg(Game(2, seed=4), tmp_path / "t.svg", viewer=1)
    parse(path.read_text(encoding="utf-8"))


def test_the_command_line_writes_a_picture(tmp_path, capsys) -> None:
    out = tmp_path / "table.svg"
    assert main(["--seed", "7", "--players", "3", "--steps", "40", "--seat", "0", "--svg", str(out)]) == 0
    parse(out.read_text(encoding="utf-8"))
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "9"],
        ["--players", "1"],
        ["--seat", "5"],
        ["--svg", "."],
    ],
)
def test_the_command_line_answers_bad_arguments_with_a_message(tmp_path, capsys, args: list[str]) -> None:
    argv = ["--svg", str(tmp_path / "x.svg"), *args]
    try:
        status = main(argv)
    except SystemExit as stop:  # a bad command line stops in the parser, as in every command
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err
    assert "error:" in err and err.count("\n") == 1
    assert not (tmp_path / "x.svg").exists() or args[0] != "--svg"


@pytest.mark.parametrize("args", [["--steps", "-1"], ["--seed", "x"], ["--players", "three"], ["--bogus"]])
def test_the_command_line_rejects_malformed_options(tmp_path, capsys, args: list[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--svg", str(tmp_path / "x.svg"), *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m gubs_env.viz: error: ") and err.count("\n") == 1  # one line, no usage block
    assert not (tmp_path / "x.svg").exists()


def test_the_svg_option_is_required(capsys) -> None:
    with pytest.raises(SystemExit):
        main([])
    assert "--svg" in capsys.readouterr().err
