import re
from pathlib import Path

import pytest

from gubs_env.engine.cards import CARDS, DECK_SIZE, WILD_AS, CardType, Kind, kind_from_name

# docs/rules.md §1, restated: (name, type, copies).
EXPECTED = [
    ("Gub", "Gub", 13),
    ("Esteemed Elder", "Gub", 1),
    ("Mushroom", "Barricade", 7),
    ("Toad Rider", "Barricade", 4),
    ("Velvet Moth", "Barricade", 2),
    ("Single Ring", "Trap", 1),
    ("Double Ring", "Trap", 1),
    ("Triple Ring", "Trap", 1),
    ("Sud Spout", "Trap", 4),
    ("Lure", "Hazard", 7),
    ("Super Lure", "Hazard", 2),
    ("Cyclone", "Hazard", 1),
    ("Lightning", "Hazard", 1),
    ("Omen Beetle", "Hazard", 1),
    ("Smahl Thief", "Hazard", 1),
    ("Spear", "Tool or Hazard", 4),
    ("Haki Flute", "Tool", 2),
    ("Retreat", "Tool", 1),
    ("Scout", "Tool", 1),
    ("Age-Old Cure", "Interrupt", 2),
    ("Blindfold", "Interrupt", 1),
    ("Feather", "Interrupt", 2),
    ("Flop Boat", "Interrupt", 1),
    ("Cricket Song", "Wild", 1),
    ("Letter G", "Letter", 1),
    ("Letter U", "Letter", 1),
    ("Letter B", "Letter", 1),
    ("Dangerous Alchemy", "Event", 1),
    ("Flash Flood", "Event", 1),
    ("Gargok Plague", "Event", 1),
    ("Rumor of Wasps", "Event", 1),
    ("Traveling Merchant", "Event", 1),
]


def test_deck_has_70_cards_in_32_kinds():
    assert DECK_SIZE == 70
    assert len(CARDS) == len(Kind) == 32


@pytest.mark.parametrize(("index", "expected"), list(enumerate(EXPECTED)))
def test_every_kind_matches_the_card_table(index, expected):
    name, type_name, copies = expected
    spec = CARDS[index]
    assert (spec.name, spec.copies) == (name, copies)
    assert spec.type.name == type_name.upper().replace(" ", "_")


def test_type_totals_match_rules():
    totals = {}
    for spec in CARDS:
        totals[spec.type] = totals.get(spec.type, 0) + spec.copies
    assert totals[CardType.GUB] == 14
    assert totals[CardType.BARRICADE] == 13
    assert totals[CardType.TRAP] == 7
    assert totals[CardType.HAZARD] == 13
    assert totals[CardType.TOOL_OR_HAZARD] == 4
    assert totals[CardType.TOOL] == 4
    assert totals[CardType.INTERRUPT] == 6
    assert totals[CardType.WILD] == 1
    assert totals[CardType.LETTER] + totals[CardType.EVENT] == 8


def test_cricket_song_imitates_hazards_tools_and_interrupts_only():
    allowed = {CardType.HAZARD, CardType.TOOL_OR_HAZARD, CardType.TOOL, CardType.INTERRUPT}
    assert {k.spec.type for k in WILD_AS} == allowed
    assert len(WILD_AS) == 6 + 1 + 3 + 4  # Hazard, Tool-or-Hazard, Tool and Interrupt kinds
    assert set(WILD_AS) == {s.kind for s in CARDS if s.type in allowed}


def test_kind_lookup_by_name():
    assert kind_from_name("toad rider") is Kind.TOAD_RIDER
    assert kind_from_name("TOAD_RIDER") is Kind.TOAD_RIDER
    with pytest.raises(ValueError, match="unknown card kind"):
        kind_from_name("Dragon")


RULES = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"
"""The project's specification, where it lies beside the checkout; the repository's own rules page is docs/rules.md."""
RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


@pytest.mark.parametrize(
    "rules",
    [
        RULES_PAGE,
        pytest.param(
            RULES,
            marks=pytest.mark.skipif(not RULES.exists(), reason="the specification is not beside this checkout"),
        ),
    ],
    ids=["docs/rules.md", "specification"],
)
def test_counts_agree_with_the_rules_page_and_the_specification(rules: Path):
    rows = re.findall(r"^\| ([A-Z][^|]+?) \| ([^|]+?) \| (\d+|1 each) \|", rules.read_text(encoding="utf-8"), re.M)
    spec_counts = {}
    for name, _type, copies in rows:
        if name == "G, U, B":
            for letter in "GUB":
                spec_counts[f"Letter {letter}"] = 1
        else:
            spec_counts[name] = int(copies)
    assert spec_counts == {s.name: s.copies for s in CARDS}
