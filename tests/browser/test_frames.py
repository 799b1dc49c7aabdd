"""An ``rgb_array`` frame against the browser's own drawing of the same SVG.

Chromium is the picture's reference renderer. Pictures are compared at a sixth of their size (6 x 6 blocks
averaged), first without their texts (the shapes must agree closely), then whole (text is set in another
face, so the limit is looser, but a missing or misplaced text still fails it).
"""

from __future__ import annotations

import io
import random
import re

import numpy as np
import pytest

from gubs_env.engine import Game
from gubs_env.viz.raster import frame_size, svg_to_rgb
from gubs_env.viz.svg import state_svg
from tests.viz.test_svg import rich_table

BLOCK = 6
SHAPES_LIMIT = 1.6
"""Mean of the largest channel difference per block (0–255), shapes only: measured 0.9–1.2 for the same
picture, 3.3–4.3 for another seat's view of the table and 2.9–4.5 for the picture moved down 1 pixel."""
WHOLE_LIMIT = 4.0
"""The same with the texts: measured 2.5–3.3 for the same picture, 35 for a blank frame."""


def coarse(frame: np.ndarray) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.fromarray(frame).reduce(BLOCK)).astype(int)


def difference(ours: np.ndarray, theirs: np.ndarray) -> float:
    return float(np.abs(coarse(ours) - coarse(theirs)).max(axis=-1).mean())


def without_texts(svg: str) -> str:
    return re.sub(r"<text[^>]*>[^<]*</text>", "", svg)


def chromium_frame(page, svg: str, size: tuple[int, int]) -> np.ndarray:
    from PIL import Image

    height, width = size
    page.set_viewport_size({"width": width, "height": height})
    page.set_content(f'<html><body style="margin:0;background:#ffffff">{svg}</body></html>')
    return np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB"))


def finished_six_player_game() -> Game:
    game = Game(6, seed=11)
    chooser = random.Random(11)
    while not game.is_over:
        game.apply(chooser.choice(game.legal_actions()))
    return game


@pytest.mark.browser
@pytest.mark.parametrize(
    ("name", "state", "viewer"),
    [
        ("a cancel window at 3 players", rich_table().state, 0),
        ("a finished 6-player game", finished_six_player_game().state, None),
        ("the deal at 2 players", Game(2, seed=3).state, 1),
    ],
)
def test_a_frame_draws_what_the_browser_draws(page_and_log, name: str, state, viewer) -> None:
    page, log = page_and_log
    size = frame_size(state.num_players)
    svg = state_svg(state, viewer)
    shapes = without_texts(svg)
    assert len(shapes) < len(svg) * 0.8
    ours_shapes = svg_to_rgb(shapes, size)
    theirs_shapes = chromium_frame(page, shapes, size)
    assert ours_shapes.shape == theirs_shapes.shape
    assert difference(ours_shapes, theirs_shapes) < SHAPES_LIMIT, name
    assert difference(np.roll(ours_shapes, 1, axis=0), theirs_shapes) > SHAPES_LIMIT  # the comparison sees 1 pixel
    assert difference(svg_to_rgb(svg, size), chromium_frame(page, svg, size)) < WHOLE_LIMIT, name
    assert log.errors == []
