"""The table's picture as an RGB frame: one shape per table size, the SVG's drawing, nothing hidden leaking."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test

from gubs_env import SelfPlayEnv, raw_env
from gubs_env.engine import Game
from gubs_env.viz.raster import GLYPH_STAND_INS, frame_size, state_rgb, svg_to_rgb
from gubs_env.viz.svg import state_svg
from tests.viz.test_svg import SVG_NS, disguise, rich_table

BACKGROUND = (255, 255, 255)


def colour(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def has_colour(frame: np.ndarray, rgb: tuple[int, int, int]) -> bool:
    return bool(np.all(frame == np.array(rgb, dtype=np.uint8), axis=-1).any())


def test_a_frame_is_an_rgb_image_of_the_table_sizes_shape() -> None:
    frame = state_rgb(rich_table().state, 0)
    assert frame.dtype == np.uint8
    assert frame.shape == (*frame_size(3), 3) == (840, 900, 3)
    assert frame.flags.c_contiguous


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_position_of_a_game_gives_frames_of_one_shape(players: int) -> None:
    game = Game(players, seed=players)
    chooser = random.Random(players)
    shapes = set()
    for step in range(1000):
        if step % 23 == 0 or game.is_over:
            shapes.add(state_rgb(game.state, None).shape)
            shapes.add(state_rgb(game.state, step % players).shape)
        if game.is_over:
            break
        game.apply(chooser.choice(game.legal_actions()))
    assert shapes == {(*frame_size(players), 3)}
    height, width = frame_size(players)
    assert height % 2 == width % 2 == 0  # what video encoders need


def test_the_frame_paints_the_svgs_filled_shapes_in_their_colours() -> None:
    """Every colour that fills a rectangle of the SVG shows in the frame, exactly (flat areas keep their colour)."""
    st = rich_table().state
    svg = state_svg(st, 0)
    frame = state_rgb(st, 0)
    filled = {
        rect.attrib["fill"]
        for rect in ET.fromstring(svg).iter(f"{SVG_NS}rect")
        if rect.attrib["fill"] != "none" and float(rect.attrib["width"]) >= 10 and float(rect.attrib["height"]) >= 10
    }
    assert len(filled) >= 10
    missing = [fill for fill in filled if not has_colour(frame, colour(fill))]
    assert missing == []
    assert tuple(frame[5, 5]) == colour("#263238")  # the header band, top left
    assert tuple(frame[-1, 0]) == BACKGROUND  # room left below the picture is white


def test_the_frame_is_the_svgs_drawing() -> None:
    st = rich_table().state
    size = frame_size(st.num_players)
    assert np.array_equal(state_rgb(st, 1), svg_to_rgb(state_svg(st, 1), size))
    assert not np.array_equal(state_rgb(st, 1), state_rgb(st, 0))  # another hand face up


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_frame_depends_only_on_what_its_viewer_knows(players: int) -> None:
    game = Game(players, seed=40 + players)
    chooser = random.Random(players)
    for step in range(300):
        if step % 29 == 0 and not game.is_over:
            viewer = step % players
            assert np.array_equal(state_rgb(disguise(game.state, viewer), viewer), state_rgb(game.state, viewer))
        if game.is_over:
            break
        game.apply(chooser.choice(game.legal_actions()))


def test_a_picture_taller_than_the_frame_is_scaled_down_to_fit() -> None:
    svg = state_svg(rich_table().state, None)
    frame = svg_to_rgb(svg, (300, 900))
    assert frame.shape == (300, 900, 3)
    assert tuple(frame[2, 450]) == colour("#263238")  # the header still at the top, centred
    assert tuple(frame[150, 5]) == BACKGROUND  # white margins beside the narrower picture
    assert tuple(frame[150, -5]) == BACKGROUND


def texts(svg: str) -> set[str]:
    return {el.text or "" for el in ET.fromstring(svg).iter(f"{SVG_NS}text")}


def test_every_character_the_pictures_write_has_a_glyph() -> None:
    """The built-in face lacks some characters: each one the SVGs use is drawn, or has a stand-in."""
    from PIL import Image, ImageDraw

    from gubs_env.viz.raster import _font

    font = _font(24)

    def glyph(char: str) -> np.ndarray:
        image = Image.new("L", (48, 48))
        ImageDraw.Draw(image).text((8, 36), char, font=font, fill=255, anchor="ls")
        return np.asarray(image)

    missing_glyph = glyph("\uffff")
    used: set[str] = set()
    for players in (2, 3, 6):
        game = Game(players, seed=7)
        chooser = random.Random(7)
        while not game.is_over:
            for viewer in (None, 0):
                used |= set("".join(texts(state_svg(game.state, viewer))))
            game.apply(chooser.choice(game.legal_actions()))
    used |= set("".join(texts(state_svg(rich_table().state, 0))))
    assert {"×", "→", "·"} <= used
    drawn = {GLYPH_STAND_INS.get(char, char) for char in used - {" "}}
    assert [text for text in drawn if any(np.array_equal(glyph(c), missing_glyph) for c in text)] == []


@pytest.mark.parametrize(
    ("snippet", "named"),
    [
        ('<ellipse cx="1" cy="1" rx="2" ry="1"/>', "<ellipse>"),
        ('<rect x="0" y="0" width="5" height="5" fill="#000000" opacity="0.5"/>', "opacity"),
        ('<path d="M0,0 C1,1 2,2 3,3" fill="#000000"/>', "M, L, Q and Z"),
        ('<g transform="rotate(45)"><rect width="2" height="2" fill="#000000"/></g>', "translate"),
    ],
)
def test_an_svg_element_the_drawer_does_not_know_is_named_not_dropped(snippet: str, named: str) -> None:
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="50" viewBox="0 0 900 50">{snippet}</svg>'
    with pytest.raises(ValueError, match=re.escape(named)):
        svg_to_rgb(svg, (50, 900))


@pytest.mark.parametrize("players", [1, 7, True, "2"])
def test_frame_size_refuses_a_bad_table_size(players: object) -> None:
    with pytest.raises(ValueError, match="num_players"):
        frame_size(players)  # type: ignore[arg-type]


def test_the_aec_env_renders_frames_of_the_acting_seats_view() -> None:
    render_test(lambda render_mode=None: raw_env(num_players=3, render_mode=render_mode))
    env = raw_env(num_players=3, render_mode="rgb_array")
    env.reset(seed=3)
    game = env._started().game
    frame = env.render()
    assert isinstance(frame, np.ndarray)
    assert np.array_equal(frame, state_rgb(game.state, game.current_player))


def test_the_selfplay_env_renders_the_learners_view_into_a_frame_recorder() -> None:
    env = gymnasium.wrappers.RenderCollection(SelfPlayEnv(num_players=2, render_mode="rgb_array", learner_seat=1))
    _, info = env.reset(seed=5)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    frames = env.render()
    assert len(frames) > 5
    assert {frame.shape for frame in frames} == {(*frame_size(2), 3)}
    assert np.array_equal(frames[-1], state_rgb(env.unwrapped.game.state, 1))
    check_env(gymnasium.make("Gubs-v0", render_mode="rgb_array").unwrapped, skip_render_check=False)


def test_an_unknown_render_mode_is_refused_with_the_modes_named() -> None:
    with pytest.raises(ValueError, match="rgb_array"):
        SelfPlayEnv(render_mode="rgb")
    with pytest.raises(ValueError, match="rgb_array"):
        raw_env(render_mode="rgb")
