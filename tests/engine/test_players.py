"""Table sizes: the one check of a player count, and the TableSizes value every command, env and trainer shares."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gubs_env.engine.players import TableSizes, check_player_count, is_player_count


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, np.int64(4), np.int8(2)])
def test_every_player_count_the_game_allows_is_accepted_as_an_int(size):
    assert is_player_count(size) and check_player_count(size) == size
    assert type(check_player_count(size)) is int


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (1, "from 2 to 6, not 1"),
        (7, "from 2 to 6, not 7"),
        (True, "an int from 2 to 6, not True"),
        (np.bool_(True), "an int from 2 to 6"),
        (2.0, "an int from 2 to 6, not 2.0"),
        ("2", "an int from 2 to 6, not '2'"),
        (None, "an int from 2 to 6, not None"),
        (10**5000, "from 2 to 6"),
    ],
    ids=["1", "7", "True", "np-True", "2.0", "str", "None", "huge"],
)
def test_anything_else_is_one_line_naming_what_was_checked(value, message):
    assert not is_player_count(value)
    with pytest.raises(ValueError, match=message) as error:
        check_player_count(value, "players")
    assert str(error.value).startswith("players") and "\n" not in str(error.value) and len(str(error.value)) < 120


def test_table_sizes_take_one_size_a_list_or_a_table_sizes_and_keep_the_order_given():
    assert TableSizes.of(3).as_list() == [3]
    sizes = TableSizes.of([4, 2, 4])
    assert sizes.as_list() == [4, 2, 4] and sizes.distinct == [2, 4] and list(sizes) == [4, 2, 4]
    assert TableSizes.of(sizes) is sizes and TableSizes.of((4, 2, 4)) == sizes and len(sizes) == 3 and sizes[1] == 2
    assert str(sizes) == "4 2 4" and TableSizes.of(np.array([2, 6])).as_list() == [2, 6]
    assert hash(TableSizes.of([2])) == hash(TableSizes.of(2))


@pytest.mark.parametrize("value", [[], (), [2, 7], [2, "3"], "2", "23", 2.0, None, {2: 1}, [True], np.array([[2]])])
def test_table_sizes_refuse_what_is_not_a_list_of_player_counts(value):
    with pytest.raises(ValueError, match="table size"):
        TableSizes.of(value)


@given(st.lists(st.integers(min_value=-(2**70), max_value=2**70), min_size=0, max_size=8))
def test_table_sizes_accept_exactly_the_lists_of_allowed_counts(values):
    allowed = bool(values) and all(2 <= v <= 6 for v in values)
    if allowed:
        assert TableSizes.of(values).as_list() == values
    else:
        with pytest.raises(ValueError):
            TableSizes.of(values)
