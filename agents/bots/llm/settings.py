"""The language-model agent's settings, as the spec ``llm:model=NAME,base_url=URL,...`` gives them.

A spec is typed by people and read from files, so every value is checked here (:class:`~agents.bots.settings.Settings`
says how): the model's name and the server's URL as text of a safe shape, the prompt's settings as one of a few
words, the counts and times within bounds. The API key is never a setting: ``key_env`` names the environment
variable it is read from when the agent first calls the server, so no spec, file, log or result holds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.bots.names import LLM
from agents.bots.settings import Settings

OPENAI_URL = "https://api.openai.com/v1"
"""The server a spec without ``base_url`` calls."""
LISTED, UNLISTED = "listed", "unlisted"
FREE, NONE = "free", "none"
RANDOM, FORFEIT = "random", "forfeit"


@dataclass(frozen=True)
class LLMSettings(Settings):
    """What the agent asks, of which server, and what it does when an answer or the server fails.

    The spec ``llm:model=qwen3-8b,base_url=http://localhost:8000/v1,moves=unlisted`` sets them by name; ``model`` is
    required, every other setting has a default. A value may not hold a comma (it separates the settings).
    """

    model: str = ""
    """The model's name, as the server knows it."""
    base_url: str = OPENAI_URL
    """The OpenAI-compatible server: a hosted API, or a local vLLM, llama.cpp or Ollama server (``.../v1``)."""
    key_env: str = "OPENAI_API_KEY"
    """The environment variable that holds the API key (unset: the request carries a placeholder key, enough for a
    local server that asks for none)."""
    moves: str = LISTED
    """``listed``: each decision's message lists the legal moves, numbered; ``unlisted``: it does not (the model
    must know the rules and the notation), and only a move's text answers."""
    reasoning: str = FREE
    """``free``: the model may reason at any length before a line ``FINAL ANSWER: <move>``; ``none``: it answers
    with the move alone."""
    retries: int = 2
    """Answers asked again after one that names no legal move, each time saying what was wrong."""
    fallback: str = RANDOM
    """After the last retry fails: ``random``, a uniformly random legal move; ``forfeit``, the agent gives up the
    game (it is counted a loss whatever the end, and its seat plays on at random)."""
    memory: int = 4
    """Earlier decisions of the game kept in the conversation (each its message and the model's final answer);
    the rules open every request, the current decision closes it."""
    temperature: str = "default"
    """Sampling temperature sent with each request (``0`` to ``2``), or ``default``: none sent, the server's."""
    max_tokens: int = 0
    """The most tokens an answer may have (``max_tokens`` of the request); 0 sends none, the server's limit."""
    timeout: float = 120.0
    """Seconds one request may take before it counts as failed (and is tried again)."""
    attempts: int = 6
    """Tries per request when the server times out, limits the rate or fails (429, 5xx, a refused connection),
    with back-off between them; after the last, the server is taken to be down and the tournament stops."""

    LIMITS = {
        "retries": (0, 10),
        "memory": (0, 1000),
        "max_tokens": (0, 1_000_000),
        "timeout": (0.1, 3600.0),
        "attempts": (1, 20),
    }
    FLOATS = ("timeout",)
    WORDS = {"moves": (LISTED, UNLISTED), "reasoning": (FREE, NONE), "fallback": (RANDOM, FORFEIT)}
    TEXTS = {
        "model": (r"[A-Za-z0-9._:/@+\-]{1,200}", "a model name (letters, digits and ._:/@+-)"),
        "base_url": (r"https?://[^\s,]{1,300}", "an http:// or https:// URL without spaces or commas"),
        "key_env": (r"[A-Za-z_][A-Za-z0-9_]{0,100}", "an environment variable's name"),
        "temperature": (r"default|[0-1](\.[0-9]{1,4})?|2(\.0{1,4})?", "default or a number from 0 to 2"),
    }
    REQUIRED = ("model",)
    KIND = LLM
