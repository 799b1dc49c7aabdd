"""Every scenario test of the reference engine, replayed through the compiled engine as it runs.

The scenario tests (tests/engine) build positions by hand and apply actions. Rather than copy them, this
test runs them in-process with a small pytest plugin that wraps :meth:`Game.apply`: before each action the
game's position is imported into a compiled slot, the same action id is stepped there, and the result must
equal the reference position (state, generator, seat to act, mask and observation). An action the
reference refuses must be illegal in the compiled engine too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gubs_env.encoding.action_table import ActionCodec, encode
from gubs_env.engine import Action, Game, IllegalActionError, InvalidStateError, Kind, Op, Part, Use
from gubs_env.fast import FastGames
from tests.fast.harness import assert_same, assert_view

ENGINE_TESTS = Path(__file__).parent.parent / "engine"
SCENARIO_FILES = (
    "test_card_uses*.py",
    "test_events.py",
    "test_windows.py",
    "test_rulings.py",
    "test_example_scenario.py",
    "test_scoring.py",
    "test_game_api.py",
)
MANY_RANDOM_GAMES = "test_legal_action_texts_are_unique_in_random_games"
"""The one test of those files that plays many whole random games (60) rather than hand-built positions: replaying
it here took three quarters of this test's time, so the default run leaves it out and the ``slow`` run replays it
(tests/fast/test_differential compares random games in both engines in the default run too)."""


class TwinPlugin:
    """Wraps ``Game.apply`` for the duration of a pytest session and checks every action in both engines."""

    def __init__(self) -> None:
        self.batches: dict[int, FastGames] = {}
        self.compared = 0
        self.refused = 0
        self.not_importable = 0
        self.failures: list[str] = []
        self._original = Game.apply

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        plugin, original = self, self._original

        def apply(game: Game, action: Action | str) -> Any:
            return plugin.check(game, action, original)

        Game.apply = apply  # type: ignore[method-assign, assignment]

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        Game.apply = self._original  # type: ignore[method-assign]

    def _twin(self, game: Game) -> FastGames | None:
        n = game.num_players
        if n not in self.batches:
            self.batches[n] = FastGames(1, n, threads=1)
            self.batches[n].reset()
        twin = self.batches[n]
        try:
            twin.import_game(0, game)
        except (InvalidStateError, ValueError):
            self.not_importable += 1  # a test that broke the state on purpose: nothing to compare
            return None
        return twin

    def check(self, game: Game, action: Action | str, original: Any) -> Any:
        twin = self._twin(game) if not game.is_over else None
        actor = game.current_player
        try:
            entry = original(game, action)
        except IllegalActionError:
            if twin is not None and _well_formed(action) and actor is not None:
                try:
                    action_id = encode(action, actor, game.num_players)  # type: ignore[arg-type]
                except (KeyError, ValueError, TypeError, AttributeError):
                    action_id = -2  # not an action of the table at all
                if action_id >= 0 and twin.mask[0, action_id]:
                    self.failures.append(f"compiled engine allows {action} that the reference refuses")
                self.refused += 1
            raise
        if twin is not None:
            try:
                twin.step(np.array([encode(entry.action, entry.actor, game.num_players)]))
                assert_same(twin, 0, game)
                if not game.is_over:
                    assert_view(twin, 0, game, ActionCodec(game.num_players))
            except AssertionError as err:
                self.failures.append(f"{entry.action} at {game!r}: {err}")
            self.compared += 1
        return entry


def _well_formed(action: object) -> bool:
    """An :class:`Action` whose every field has its proper type (the reference refuses others by type)."""
    if not isinstance(action, Action) or type(action.op) is not Op:
        return False
    kinds = all(v is None or type(v) is Kind for v in (action.card, action.as_kind, action.detail))
    enums = (action.use is None or type(action.use) is Use) and (action.part is None or type(action.part) is Part)
    return kinds and enums and (action.seat is None or type(action.seat) is int)


@pytest.mark.parametrize(
    ("leave_out", "least_compared"),
    [
        pytest.param(MANY_RANDOM_GAMES, 5000, id="default"),
        pytest.param("", 15000, id="with-many-random-games", marks=pytest.mark.slow),
    ],
)
def test_every_scenario_replays_identically_in_the_compiled_engine(leave_out: str, least_compared: int) -> None:
    files = sorted(str(p) for pattern in SCENARIO_FILES for p in ENGINE_TESTS.glob(pattern))
    assert files, "no scenario tests found"
    plugin = TwinPlugin()
    selection = ["-k", f"not {leave_out}"] if leave_out else []
    code = pytest.main([*files, "-q", "-p", "no:cacheprovider", "-m", "not soak", *selection], plugins=[plugin])
    assert Game.apply is plugin._original
    assert not plugin.failures, plugin.failures[:5]
    assert code == 0, "the scenario tests themselves failed: see their output above"
    assert plugin.compared > least_compared and plugin.refused > 5, (plugin.compared, plugin.refused)
