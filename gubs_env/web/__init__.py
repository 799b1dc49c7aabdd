"""Play Gubs in the browser: ``python -m gubs_env.play --web`` serves a local page for one human against bots.

- :mod:`gubs_env.web.session`: the game with its bots, and the checks on every request that changes it;
- :mod:`gubs_env.web.server`: the HTTP server (standard library only) and its JSON API;
- :mod:`gubs_env.web.page`: the one page, inline HTML, CSS and script;
- :mod:`gubs_env.web.options`: the command-line options the play command adds.

See docs/play.md.
"""
