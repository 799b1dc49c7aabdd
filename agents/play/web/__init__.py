"""Play Gubs in the browser: ``python -m agents.play --web`` serves a local page for one human against bots.

- :mod:`agents.play.web.session`: the game with its bots, and the checks on every request that changes it;
- :mod:`agents.play.web.server`: the HTTP server (standard library only) and its JSON API;
- :mod:`agents.play.web.page`: the one page, inline HTML, CSS and script;
- :mod:`agents.play.web.options`: the command-line options the play command adds.

See docs/play.md.
"""
