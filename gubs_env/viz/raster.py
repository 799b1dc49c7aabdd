"""The table's picture as an RGB frame: the SVG of :mod:`gubs_env.viz.svg`, drawn with Pillow.

A frame is the same drawing as :func:`~gubs_env.viz.svg.state_svg`: this module reads that SVG (the
project's own output, never a file from elsewhere) and draws each of its shapes, so the two pictures
cannot drift apart. It knows exactly the elements and attributes ``svg.py`` writes, and raises
``ValueError`` naming anything else, so a new kind of shape in the SVG fails the tests instead of
vanishing from frames.

Frames have one shape per table size (:func:`frame_size`), as video recorders need: the picture is
drawn at the frame's width, top-aligned on white, and the rare picture taller than the frame is scaled
down to fit. Shapes are drawn at twice the size and reduced, which smooths their edges.

Text uses Pillow's built-in sans-serif face (no font file is read); bold is drawn with a thin outline,
and the two characters the face lacks are written as ``->`` and ``x``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from gubs_env.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from gubs_env.viz.svg import DESIGN_WIDTH, state_svg

if TYPE_CHECKING:
    from gubs_env.engine.state import GameState

FRAME_WIDTH = DESIGN_WIDTH
"""Pixels across a frame: one pixel per unit of the drawing, its texts at their design sizes."""

SUPERSAMPLE = 2
"""Shapes are drawn this many times larger, then reduced: smooth edges without an anti-aliasing drawer."""

_NS = "{http://www.w3.org/2000/svg}"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_PATH_TOKEN = re.compile(r"[MLQZ]|-?\d+(?:\.\d+)?")
_TRANSLATE = re.compile(r"translate\((-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)\)")
_CURVE_STEPS = 8
"""Straight pieces per quadratic curve (the curves are a few pixels long)."""


def frame_size(num_players: int) -> tuple[int, int]:
    """``(height, width)`` of every frame at a table of ``num_players``.

    The height leaves room for the tallest tables seen in random and bot play (a 6-player picture
    measured at most 1,124 units over 11,680 positions); both sides are even, as video encoders want.
    """
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise ValueError(f"num_players must be an int, not {num_players!r}")
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be from {MIN_PLAYERS} to {MAX_PLAYERS}, not {num_players}")
    return 420 + 140 * num_players, FRAME_WIDTH


def state_rgb(st: GameState, viewer: int | None = None) -> np.ndarray:
    """The picture of :func:`~gubs_env.viz.svg.state_svg` as an ``H x W x 3`` ``uint8`` array.

    ``H x W`` is :func:`frame_size` of the table, whatever the position.

    Raises:
        ValueError: ``viewer`` is not a seat of this game.
        ModuleNotFoundError: Pillow is missing (it comes with the ``env`` extra).
    """
    return svg_to_rgb(state_svg(st, viewer), frame_size(st.num_players))


def svg_to_rgb(svg: str, size: tuple[int, int]) -> np.ndarray:
    """Draw an SVG written by :mod:`gubs_env.viz.svg` into a white ``size`` (height, width) frame.

    Raises:
        ValueError: the SVG holds an element or attribute that ``svg.py`` does not write.
    """
    try:
        from PIL import Image
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(
            "rgb_array frames need Pillow: pip install 'gubs_env[env]' (or pip install pillow)"
        ) from err
    root = ET.fromstring(svg)
    _, _, design_w, design_h = (float(v) for v in root.attrib["viewBox"].split())
    height, width = size
    scale = min(width / design_w, height / design_h) * SUPERSAMPLE
    image = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), "white")
    offset_x = (width * SUPERSAMPLE - design_w * scale) / 2
    painter = _Painter(image, scale, offset_x)
    for child in root:
        painter.draw(child, 0.0, 0.0)
    return np.asarray(image.reduce(SUPERSAMPLE), dtype=np.uint8)


@dataclass
class _Painter:
    """Draws the elements of one SVG onto a Pillow image, in drawing units times ``scale``."""

    image: Any
    scale: float
    offset_x: float

    def __post_init__(self) -> None:
        from PIL import ImageDraw

        self.pen = ImageDraw.Draw(self.image)

    def draw(self, element: ET.Element, dx: float, dy: float) -> None:
        tag = element.tag.removeprefix(_NS)
        handler = _HANDLERS.get(tag)
        if handler is None:
            raise ValueError(f"the frame drawer does not know the SVG element <{tag}>")
        unknown = set(element.attrib) - _ATTRIBUTES[tag]
        if unknown:
            raise ValueError(f"the frame drawer does not know <{tag}>'s attributes {sorted(unknown)}")
        handler(self, element, dx, dy)

    def at(self, x: float, y: float) -> tuple[float, float]:
        return self.offset_x + x * self.scale, y * self.scale

    def width(self, element: ET.Element) -> int:
        """The stroke's width in pixels (SVG's default is 1 unit)."""
        return max(1, round(float(element.get("stroke-width", 1.0)) * self.scale))


def _colour(value: str | None) -> str | None:
    return None if value in (None, "none") else value


def _group(p: _Painter, element: ET.Element, dx: float, dy: float) -> None:
    shift = _TRANSLATE.fullmatch(element.get("transform", "translate(0,0)"))
    if shift is None:
        raise ValueError(f"the frame drawer only knows translate(x,y) transforms, not {element.get('transform')!r}")
    dx, dy = dx + float(shift[1]), dy + float(shift[2])
    for child in element:
        p.draw(child, dx, dy)


def _skip(p: _Painter, element: ET.Element, dx: float, dy: float) -> None:
    """A ``<title>``: a tooltip, not drawn."""


def _rect(p: _Painter, element: ET.Element, dx: float, dy: float) -> None:
    x, y = dx + float(element.get("x", 0)), dy + float(element.get("y", 0))
    w, h = float(element.attrib["width"]), float(element.attrib["height"])
    (x0, y0), (x1, y1) = p.at(x, y), p.at(x + w, y + h)
    fill, stroke = _colour(element.get("fill")), _colour(element.get("stroke"))
    radius = float(element.get("rx", 0)) * p.scale
    if element.get("stroke-dasharray") is not None:
        if fill is not None:
            p.pen.rounded_rectangle((x0, y0, x1, y1), radius, fill=fill)
        if stroke is not None:
            corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)]
            _dashed(p, corners, element.attrib["stroke-dasharray"], stroke, p.width(element))
        return
    half = p.width(element) / 2 if stroke is not None else 0  # SVG centres a stroke on the edge; Pillow draws it inside
    box = (x0 - half, y0 - half, x1 + half, y1 + half)
    p.pen.rounded_rectangle(box, radius + half, fill=fill, outline=stroke, width=p.width(element))


def _circle(p: _Painter, element: ET.Element, dx: float, dy: float) -> None:
    cx, cy = p.at(dx + float(element.attrib["cx"]), dy + float(element.attrib["cy"]))
    stroke = _colour(element.get("stroke"))
    r = float(element.attrib["r"]) * p.scale + (p.width(element) / 2 if stroke is not None else 0)
    p.pen.ellipse(
        (cx - r, cy - r, cx + r, cy + r),
        fill=_colour(element.get("fill")),
        outline=stroke,
        width=p.width(element),
    )


def _line(p: _Painter, element: ET.Element, dx: float, dy: float) -> None:
    ends = [(dx + float(element.attrib["x1"]), dy + float(element.attrib["y1"]))]
    ends.append((dx + float(element.attrib["x2"]), dy + float(element.attrib["y2"])))
    stroke = _colour(element.get("stroke"))
    if stroke is None:
        return
    if element.get("stroke-dasharray") is not None:
        _dashed(p, ends, element.attrib["stroke-dasharray"], stroke, p.width(element))
    else:
        p.pen.line([p.at(*end) for end in ends], fill=stroke, width=p.width(element))


def _dashed(p: _Painter, corners: list[tuple[float, float]], pattern: str, colour: str, width: int) -> None:
    """A dashed polyline: dashes and gaps of ``pattern`` (drawing units) carried on round each corner."""
    on, off = (float(v) for v in pattern.split())
    phase = 0.0  # distance along the current dash-and-gap period
    for (ax, ay), (bx, by) in pairwise(corners):
        length = ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5
        done = 0.0
        while done < length:
            step = min((on - phase) if phase < on else (on + off - phase), length - done)
            if phase < on:
                t0, t1 = done / length, (done + step) / length
                start = p.at(ax + (bx - ax) * t0, ay + (by - ay) * t0)
                end = p.at(ax + (bx - ax) * t1, ay + (by - ay) * t1)
                p.pen.line([start, end], fill=colour, width=width)
            done += step
            phase = (phase + step) % (on + off)


def _path_points(d: str) -> Iterator[tuple[list[tuple[float, float]], bool]]:
    """The pieces of a path (``M``, ``L``, ``Q``, ``Z`` with absolute points) as point lists, closed or not."""
    if _PATH_TOKEN.sub("", d).strip(" ,"):
        raise ValueError(f"the frame drawer only knows M, L, Q and Z in paths, not {d!r}")
    tokens = _PATH_TOKEN.findall(d)
    points: list[tuple[float, float]] = []
    i = 0

    def number() -> float:
        nonlocal i
        i += 1
        return float(tokens[i - 1])

    while i < len(tokens):
        command = tokens[i]
        i += 1
        if command == "M":
            if points:
                yield points, False
            points = [(number(), number())]
        elif command == "L":
            points.append((number(), number()))
        elif command == "Q":
            (x0, y0), cx, cy, x1, y1 = points[-1], number(), number(), number(), number()
            for k in range(1, _CURVE_STEPS + 1):
                t = k / _CURVE_STEPS
                a, b, c = (1 - t) ** 2, 2 * (1 - t) * t, t * t
                points.append((a * x0 + b * cx + c * x1, a * y0 + b * cy + c * y1))
        elif command == "Z":
            yield points, True
            points = []
        else:
            raise ValueError(f"path command {command!r} where a command was due in {d!r}")
    if points:
        yield points, False


def _path(p: _Painter, element: ET.Element, dx: float, dy: float) -> None:
    fill, stroke = _colour(element.get("fill")), _colour(element.get("stroke"))
    for points, closed in _path_points(element.attrib["d"]):
        shape = [p.at(dx + x, dy + y) for x, y in points]
        if fill is not None and closed:
            p.pen.polygon(shape, fill=fill)
        if stroke is not None:
            p.pen.line(shape + shape[:1] if closed else shape, fill=stroke, width=p.width(element), joint="curve")


def _polygon(p: _Painter, element: ET.Element, dx: float, dy: float) -> None:
    values = [float(v) for v in _NUMBER.findall(element.attrib["points"])]
    shape = [p.at(dx + x, dy + y) for x, y in zip(values[::2], values[1::2], strict=True)]
    p.pen.polygon(shape, fill=_colour(element.get("fill")))


_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}
"""SVG's text-anchor as Pillow's anchor; SVG's y is the baseline."""


GLYPH_STAND_INS = {"→": "->", "×": "x"}
"""Characters the built-in face lacks, written the way a keyboard would."""


@lru_cache(maxsize=64)
def _font(pixels: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=max(pixels, 1))


def _text(p: _Painter, element: ET.Element, dx: float, dy: float) -> None:
    words = "".join(GLYPH_STAND_INS.get(c, c) for c in element.text or "")
    x, y = p.at(dx + float(element.attrib["x"]), dy + float(element.attrib["y"]))
    font = _font(round(float(element.attrib["font-size"]) * p.scale))
    squeeze = element.get("textLength")
    if squeeze is not None:  # a long label shrunk to its room, as lengthAdjust="spacingAndGlyphs" does
        room = float(squeeze) * p.scale
        if font.getlength(words) > room:
            font = _font(int(font.size * room / font.getlength(words)))
    bold = element.get("font-weight") == "bold"
    fill = element.get("fill", "#000000")
    p.pen.text(
        (x, y),
        words,
        fill=fill,
        font=font,
        anchor=_ANCHORS[element.get("text-anchor", "start")],
        stroke_width=1 if bold else 0,
        stroke_fill=fill,
    )


_HANDLERS: dict[str, Any] = {
    "g": _group,
    "title": _skip,
    "rect": _rect,
    "circle": _circle,
    "line": _line,
    "path": _path,
    "polygon": _polygon,
    "text": _text,
}
_STROKE = {"fill", "stroke", "stroke-width", "stroke-dasharray"}
_ATTRIBUTES: dict[str, set[str]] = {
    "g": {"class", "data-kind", "data-seat", "transform"},
    "title": set(),
    "rect": {"x", "y", "width", "height", "rx"} | _STROKE,
    "circle": {"cx", "cy", "r"} | _STROKE,
    "line": {"x1", "y1", "x2", "y2"} | _STROKE,
    "path": {"d"} | _STROKE,
    "polygon": {"points", "fill"},
    "text": {"x", "y", "font-size", "font-weight", "fill", "text-anchor", "textLength", "lengthAdjust"},
}
"""What ``svg.py`` writes on each element, and so all that a frame follows."""
