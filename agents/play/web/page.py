"""The one page of the browser game: inline HTML, CSS and script, nothing fetched but the game's own API.

The page holds no game state of its own: it asks ``GET /api/state`` and draws what comes back, so a reload
shows the game where it is. Every text from the server is put in with ``textContent`` (never as markup);
the only markup taken from the server is the table picture, which the server draws itself. The script runs
under a content security policy that allows only this script (by its nonce) and requests to this server.
"""

from __future__ import annotations

NONCE_MARK = "__NONCE__"

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gubs</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0; background: #f4f1e8; color: #222; }
header { padding: 0.5em 1em; background: #35503a; color: #fff; }
header h1 { display: inline; font-size: 1.3em; margin-right: 1em; }
main { display: flex; flex-wrap: wrap; gap: 1em; padding: 1em; }
#table { flex: 3 1 560px; min-width: 320px; }
#table svg { width: 100%; height: auto; }
#side { flex: 2 1 320px; }
#decision { font-size: 1.15em; }
#choices { display: flex; flex-wrap: wrap; gap: 0.4em; margin-bottom: 1em; }
#choices button { font-size: 1em; padding: 0.4em 0.8em; cursor: pointer; }
#error, #bot-error { background: #fbe3e0; border: 1px solid #c0392b; padding: 0.5em; }
#result { background: #e3f1e0; border: 1px solid #35503a; padding: 0.5em; font-weight: bold; }
ol { padding-left: 1.6em; font-size: 0.9em; }
#news li, #log li { margin: 0.15em 0; }
</style>
</head>
<body>
<header><h1>Gubs</h1><span id="seats">Loading the game...</span></header>
<main>
<section id="table" aria-label="The table as you see it"></section>
<section id="side">
<p id="error" role="alert" hidden></p>
<p id="bot-error" role="alert" hidden></p>
<div id="result" hidden></div>
<p id="decision" aria-live="polite"></p>
<div id="choices"></div>
<h2>Since your last decision</h2>
<ol id="news"></ol>
<details><summary>The whole log, as you saw it</summary><ol id="log"></ol></details>
<p>
<button id="save" type="button" hidden>Save record</button>
<a id="download" href="/api/record" download="gubs-record.json" hidden>Download the record</a>
<span id="saved"></span>
</p>
</section>
</main>
<script nonce="__NONCE__">
"use strict";
const byId = (id) => document.getElementById(id);
let pollTimer = null;
let sending = false;
let connectionLost = false;

function showError(text) {
  byId("error").textContent = text;
  byId("error").hidden = !text;
}

function fillList(list, lines) {
  list.replaceChildren(...lines.map((line) => {
    const item = document.createElement("li");
    item.textContent = line;
    return item;
  }));
}

function choiceButton(text, index, token) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "choice";
  button.textContent = text;
  button.dataset.choice = String(index);
  button.dataset.token = String(token);
  button.addEventListener("click", () => choose(button));
  return button;
}

function show(state) {
  document.body.dataset.token = String(state.token);
  document.body.dataset.over = String(state.over);
  byId("seats").textContent = "You are " + state.names[state.seat] + ". Seats: " + state.names.join(", ") + ".";
  byId("table").innerHTML = state.svg;  // drawn by the server from the game, not from anything a user typed
  byId("decision").textContent = state.decision;
  byId("choices").replaceChildren(...state.choices.map((text, i) => choiceButton(text, i, state.token)));
  fillList(byId("news"), state.news.length ? state.news : ["(nothing yet)"]);
  fillList(byId("log"), state.log);
  byId("result").hidden = !state.over;
  byId("result").textContent = state.over ? "Game over. " + state.result : "";
  if (state.over && state.saved) byId("saved").textContent = state.saved;
  byId("download").hidden = !state.recordable;
  byId("save").hidden = !(state.recordable && state.record_file);
  // a bot that failed stops the game for good: say what it did, and stop asking for moves that will not come
  byId("bot-error").hidden = !state.bot_error;
  byId("bot-error").textContent = state.bot_error ? "The game is stopped. " + state.bot_error : "";
  clearTimeout(pollTimer);
  if (!state.over && !state.your_turn && !state.bot_error) pollTimer = setTimeout(refresh, state.poll_s * 1000);
}

async function call(path, options) {
  let response;
  try {
    response = await fetch(path, Object.assign({cache: "no-store"}, options || {}));
  } catch (err) {
    connectionLost = true;
    showError("The connection to the game server is lost; trying again...");
    clearTimeout(pollTimer);
    pollTimer = setTimeout(refresh, 1000);
    return null;
  }
  let body;
  try {
    body = await response.json();
  } catch (err) {
    body = {error: "The server answered " + response.status + " without a readable reply."};
  }
  if (connectionLost) {
    connectionLost = false;
    showError("");
  }
  if (!response.ok) {
    showError(body.error || "The server answered " + response.status + ".");
    return null;
  }
  return body;
}

async function refresh() {
  const state = await call("/api/state");
  if (state) show(state);
}

async function choose(button) {
  if (sending) return;
  sending = true;
  for (const other of document.querySelectorAll("button.choice")) other.disabled = true;
  const request = {token: Number(button.dataset.token), choice: Number(button.dataset.choice)};
  const state = await call("/api/action", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(request),
  });
  sending = false;
  if (state) {
    showError("");
    show(state);
  } else {
    await refresh();  // the refusal changed nothing: show the game as it is, with the error kept
  }
}

byId("save").addEventListener("click", async () => {
  const answer = await call("/api/save", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: "{}",
  });
  if (answer) byId("saved").textContent = answer.saved;
});

refresh();
</script>
</body>
</html>
"""
"""The page; :data:`NONCE_MARK` stands where each response puts its script nonce."""


def page_html(nonce: str) -> str:
    """The page with ``nonce`` (letters, digits, ``-`` and ``_`` only) as its script's nonce."""
    if not nonce or not nonce.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"a nonce is letters, digits, '-' and '_', not {nonce!r}")
    return PAGE.replace(NONCE_MARK, nonce)
