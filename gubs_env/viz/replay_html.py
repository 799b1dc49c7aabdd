"""A recorded game as one self-contained HTML page that steps through it, from any seat's view or all-seeing.

``python -m gubs_env.replay game.json --html replay.html [--seat SEAT|all]`` writes the page (see
docs/play.md). Everything is computed here, in Python: the table picture (:func:`~gubs_env.viz.svg.table_svg`)
after every action for every view, and the log as each view saw it. The page only shows them.

The page needs no network at all: its style and script are inline, and its content security policy forbids
every fetch. Two blocks carry the data:

- the log, names and result as JSON in a ``<script type="application/json">`` element, with ``<``, ``>``,
  ``&`` and the two JavaScript line separators written as JSON Unicode escapes, so no text in a record
  (``</script>``, ``<!--``) can end the element early;
- the pictures as zlib-compressed JSON in base64 (letters, digits, ``+``, ``/`` and ``=`` only), which the page
  unpacks with the browser's ``DecompressionStream``. The pictures of consecutive steps differ little, so this
  keeps a 200-step game at three views to a few hundred kilobytes instead of about 12 MB.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gubs_env.engine import Game, LogEntry
from gubs_env.engine.log import HIDDEN_CHOICES
from gubs_env.records.record import GameRecord, replay
from gubs_env.records.transcript import entry_line, seat_name
from gubs_env.support.cli import non_negative_int
from gubs_env.viz.svg import table_svg

ALL_SEEING = "all"
"""The name of the all-seeing view (every hand face up, every private fact shown) on the command line."""

_MARKER = re.compile("@(TITLE|SCRIPT_HASH|TEXTS|PICTURES|SCRIPT)@")
"""Where :data:`_PAGE` takes its content."""
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def view_choice(text: str) -> int | str:
    """Parse ``--seat``: a seat number (checked against the record's seats later) or ``all`` (argparse type).

    Raises:
        argparse.ArgumentTypeError: anything else, negative numbers included.
    """
    if text == ALL_SEEING:
        return ALL_SEEING
    return non_negative_int(text)


def script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: it cannot close the element or open a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return "".join(_JSON_ESCAPES.get(char, char) for char in text)


def all_seeing_line(entry: LogEntry, names: Sequence[str] | None = None) -> str:
    """One log entry with every fact, private ones marked with the seat that alone saw them."""
    facts = [f.text() if f.seen_by is None else f"(seat {f.seen_by} only) {f.text()}" for f in entry.facts]
    if entry.action.op in HIDDEN_CHOICES:  # the card kept, the Scout's order: the facts do not name them
        facts.append(f"(seat {entry.actor} only) {entry.action}")
    seen = "; ".join(facts) or str(entry.action)
    return f"[turn {entry.turn}] {seat_name(entry.actor, names)}: {seen}"


def _views(num_players: int) -> list[int | None]:
    return [*range(num_players), None]


def _view_id(view: int | None) -> str:
    return ALL_SEEING if view is None else str(view)


def replay_data(
    record: GameRecord, picture: Callable[[Game, int | None], str] = table_svg
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Replay ``record`` and compute what the page shows: the texts, and the pictures per view and step.

    Returns:
        ``(texts, pictures)``: ``texts`` holds the names, the views, the log per view and the result;
        ``pictures[view][step]`` is the table after ``step`` actions (step 0: the deal).

    Raises:
        RecordError: the record does not replay (see :func:`gubs_env.records.record.replay`).
    """
    final = replay(record)
    names = record.players
    game = Game(record.num_players, seed=record.seed, **record.options)
    views = _views(record.num_players)
    pictures: dict[str, list[str]] = {_view_id(v): [] for v in views}
    for entry in [*final.log, None]:
        for view in views:
            pictures[_view_id(view)].append(picture(game, view))
        if entry is not None:
            game.apply(entry.action)
    logs = {str(v): [entry_line(e, v, names) for e in final.log] for v in range(record.num_players)}
    logs[ALL_SEEING] = [all_seeing_line(e, names) for e in final.log]
    texts = {
        "names": [seat_name(s, names) for s in range(record.num_players)],
        "seed": record.seed,
        "views": [
            {"id": _view_id(v), "label": "all-seeing" if v is None else f"{seat_name(v, names)}'s view"} for v in views
        ],
        "steps": len(final.log),
        "log": logs,
        "result": _result_text(final, names),
    }
    return texts, pictures


def _result_text(game: Game, names: Sequence[str]) -> str:
    scores = ", ".join(f"{seat_name(s, names)} {score}" for s, score in enumerate(game.scores()))
    if not game.is_over:
        return f"The record ends on turn {game.state.turn}, before the game does. Scores: {scores}."
    if game.truncated:
        return f"Stopped at the turn limit: nobody wins. Scores: {scores}."
    winners = ", ".join(seat_name(s, names) for s in game.winners())
    return f"Game over on turn {game.state.turn}. Winners: {winners}. Scores: {scores}."


def replay_html(record: GameRecord, view: int | str = ALL_SEEING) -> str:
    """The self-contained replay page of ``record``, showing ``view`` first (a seat, or ``"all"``).

    Raises:
        RecordError: the record does not replay, or ``view`` is not one of its seats nor ``"all"``.
    """
    from gubs_env.records.record import RecordError

    if view != ALL_SEEING and not (type(view) is int and 0 <= view < record.num_players):
        raise RecordError(f"--seat must be a seat from 0 to {record.num_players - 1} or {ALL_SEEING}, not {view!r}")
    texts, pictures = replay_data(record)
    texts["first_view"] = str(view)
    packed = zlib.compress(json.dumps(pictures, separators=(",", ":")).encode(), 9)
    title = f"Gubs replay: {record.num_players} players, seed {record.seed}"
    script_hash = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    values = {
        "TITLE": html.escape(title),
        "SCRIPT_HASH": script_hash,
        "TEXTS": script_json(texts),
        "PICTURES": base64.b64encode(packed).decode(),
        "SCRIPT": _SCRIPT,
    }
    # one pass: a marker written inside the record's texts is data, never replaced
    return _MARKER.sub(lambda match: values[match.group(1)], _PAGE)


def write_replay_html(record: GameRecord, path: str | Path, view: int | str = ALL_SEEING) -> Path:
    """Write :func:`replay_html` to ``path`` (folders are created) and return the path.

    Raises:
        RecordError: as :func:`replay_html`; ``OSError`` if the file cannot be written.
    """
    text = replay_html(record, view)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


_SCRIPT = """
"use strict";
const byId = (id) => document.getElementById(id);
const texts = JSON.parse(byId("texts").textContent);
let pictures = null;
let step = 0;
let view = texts.first_view;

function fillLog() {
  const lines = texts.log[view].slice(0, step);
  byId("log").replaceChildren(...lines.map((line, i) => {
    const item = document.createElement("li");
    item.textContent = line;
    if (i === step - 1) item.className = "latest";
    return item;
  }));
  byId("log").scrollTop = byId("log").scrollHeight;
}

function show() {
  byId("counter").textContent = "Step " + step + " of " + texts.steps;
  byId("slider").value = String(step);
  byId("last-action").textContent = step === 0 ? "The deal." : texts.log[view][step - 1];
  byId("result").hidden = step !== texts.steps;
  if (pictures) byId("table").innerHTML = pictures[view][step];  // drawn by gubs_env from the record
  byId("first").disabled = byId("back").disabled = step === 0;
  byId("forward").disabled = byId("last").disabled = step === texts.steps;
  document.body.dataset.step = String(step);
  document.body.dataset.view = view;
  fillLog();
}

function go(to) {
  step = Math.max(0, Math.min(texts.steps, to));
  show();
}

async function unpack() {
  const bytes = Uint8Array.from(atob(byId("pictures").textContent.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return JSON.parse(await new Response(stream).text());
}

function setUp() {
  document.title = byId("title").textContent;
  byId("seats").textContent = "Seats: " + texts.names.join(", ") + ". Seed " + texts.seed + ".";
  byId("result").textContent = texts.result;
  byId("slider").max = String(texts.steps);
  byId("view").replaceChildren(...texts.views.map((v) => {
    const option = document.createElement("option");
    option.value = v.id;
    option.textContent = v.label;
    return option;
  }));
  byId("view").value = view;
  byId("view").addEventListener("change", () => { view = byId("view").value; show(); });
  byId("first").addEventListener("click", () => go(0));
  byId("back").addEventListener("click", () => go(step - 1));
  byId("forward").addEventListener("click", () => go(step + 1));
  byId("last").addEventListener("click", () => go(texts.steps));
  byId("slider").addEventListener("input", () => go(Number(byId("slider").value)));
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLSelectElement || event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: texts.steps};
    if (event.key in moves) {
      event.preventDefault();
      go(moves[event.key]);
    }
  });
  show();
  unpack().then((unpacked) => {
    pictures = unpacked;
    document.body.dataset.ready = "true";
    show();
  }, (err) => {
    byId("table").textContent = "This browser cannot unpack the pictures (it needs DecompressionStream): " + err;
  });
}

setUp();
"""

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-@SCRIPT_HASH@'; \
style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title id="title">@TITLE@</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0; background: #f4f1e8; color: #222; }
header { padding: 0.5em 1em; background: #263238; color: #fff; }
header h1 { display: inline; font-size: 1.2em; margin-right: 1em; }
nav { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em; padding: 0.6em 1em; background: #e0ddd2; }
nav button { font-size: 1em; min-width: 2.5em; }
#slider { flex: 1 1 200px; }
main { display: flex; flex-wrap: wrap; gap: 1em; padding: 1em; }
#table { flex: 3 1 560px; min-width: 320px; }
#table svg { width: 100%; height: auto; }
#side { flex: 2 1 320px; }
#last-action { font-weight: bold; }
#result { background: #e3f1e0; border: 1px solid #35503a; padding: 0.5em; font-weight: bold; }
#log { max-height: 70vh; overflow-y: auto; font-size: 0.9em; padding-left: 2.4em; }
#log .latest { background: #fff3c4; }
</style>
</head>
<body>
<header><h1>Gubs replay</h1><span id="seats"></span></header>
<nav aria-label="Steps">
<button id="first" type="button" title="First step (Home)">&laquo; First</button>
<button id="back" type="button" title="Back one step (left arrow)">&lsaquo; Back</button>
<button id="forward" type="button" title="Forward one step (right arrow)">Forward &rsaquo;</button>
<button id="last" type="button" title="Last step (End)">Last &raquo;</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="Step">
<span id="counter"></span>
<label>View <select id="view"></select></label>
</nav>
<main>
<section id="table" aria-label="The table">Unpacking the pictures...</section>
<section id="side">
<p id="last-action"></p>
<p id="result" hidden></p>
<h2>Log</h2>
<ol id="log"></ol>
</section>
</main>
<script type="application/json" id="texts">@TEXTS@</script>
<script type="application/octet-stream" id="pictures">@PICTURES@</script>
<script>@SCRIPT@</script>
</body>
</html>
"""
