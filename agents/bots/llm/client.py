"""One chat request to an OpenAI-compatible server, through the ``openai`` package, with its faults sorted out.

The ``openai`` client does the transport and the retries: a request that times out, is refused, is rate-limited
(429, its ``Retry-After`` honoured) or meets a server error (5xx) is sent again with exponential back-off, up to the
``attempts`` setting. An event hook of its HTTP client counts the HTTP requests, so a reply's ``requests`` says how
many it took. What is left after the last try is a :class:`ModelServiceError` with one line that says why: the
server stays down (the tournament stops, keeping what it played) or refuses the request (a wrong model name or
key). A reply whose body is not a chat completion counts as an empty answer.

The API key is read from the environment variable the settings name, once, when the client is built, and lives only
in the client; an error message never repeats it (:func:`redacted`).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any

from agents.bots.base import AgentUnavailableError
from agents.bots.llm.settings import LLMSettings

PLACEHOLDER_KEY = "no-key"
"""The key sent when the environment holds none: enough for a local server that asks for none."""
_KEY_SHAPED = re.compile(r"(sk|key|tok)[-_][A-Za-z0-9*_\-]{6,}", re.IGNORECASE)
_SHOWN = 160
"""Characters of a server's error message that a one-line error repeats."""


class ModelServiceError(AgentUnavailableError):
    """The model's server stayed down after every try, or refused the request: the agent cannot play on.

    Attributes:
        down: True when the server did not answer (time-outs, refused connections, 429 or 5xx to the last try);
            False when it answered with a refusal (400, 401, 403, 404, ...).
    """

    def __init__(self, message: str, down: bool) -> None:
        super().__init__(message)
        self.down = down


@dataclass(frozen=True)
class Reply:
    """A chat completion's text and what it cost."""

    text: str | None
    tokens_in: int
    tokens_out: int
    requests: int
    seconds: float


def redacted(text: str, key: str | None) -> str:
    """``text`` without anything that looks like the key.

    That is the key itself, a piece of 8 characters or more of it, or a token shaped like an API key (``sk-...``,
    masked or not).
    """
    words = re.split(r"(\s+)", text)
    pieces = {key[i : i + 8] for i in range(len(key) - 7)} if key and len(key) >= 8 else set()
    return "".join(
        "[redacted]" if any(piece in word for piece in pieces) or _KEY_SHAPED.search(word) else word for word in words
    )


class ChatClient:
    """Sends a conversation to the server the settings name and returns the model's reply (see the module docstring).

    Args:
        settings: the agent's settings (server, model, time-outs, tries).
    """

    def __init__(self, settings: LLMSettings) -> None:
        import openai

        self.settings = settings
        self._key = os.environ.get(settings.key_env) or None
        self._requests = 0

        def count(_request: Any) -> None:
            self._requests += 1

        self._client = openai.OpenAI(
            api_key=self._key or PLACEHOLDER_KEY,
            base_url=settings.base_url,
            max_retries=settings.attempts - 1,
            timeout=settings.timeout,
            # the client's own transport (httpx, or httpx2 in openai 3), with a hook that counts every request
            http_client=openai.DefaultHttpxClient(event_hooks={"request": [count]}, timeout=settings.timeout),
        )
        self._openai = openai

    def send(self, messages: list[dict[str, str]]) -> Reply:
        """The model's reply to ``messages`` (OpenAI chat messages).

        Raises:
            ModelServiceError: the server stayed down through every try, or refused the request.
        """
        options: dict[str, Any] = {}
        if self.settings.temperature != "default":
            options["temperature"] = float(self.settings.temperature)
        if self.settings.max_tokens:
            options["max_tokens"] = self.settings.max_tokens
        before, start = self._requests, time.perf_counter()
        try:
            completion = self._client.chat.completions.create(
                model=self.settings.model,
                messages=messages,  # type: ignore[arg-type]  # plain role/content dicts, as the API takes them
                **options,
            )
        except self._openai.APIStatusError as err:
            status = err.status_code
            down = status in (408, 409, 429) or status >= 500
            raise self._failure(f"{status} {type(err).__name__}", self._detail(err), down) from None
        except (self._openai.APIConnectionError, self._openai.APITimeoutError) as err:
            raise self._failure(type(err).__name__, "", True) from None
        except self._openai.APIError:  # a reply the client can't read as a chat completion: no answer
            return Reply(None, 0, 0, self._requests - before, time.perf_counter() - start)
        return self._reply(completion, self._requests - before, time.perf_counter() - start)

    @staticmethod
    def _reply(completion: Any, requests: int, seconds: float) -> Reply:
        """The text and token counts of a completion; a body without them counts as an empty answer."""
        choices = getattr(completion, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        text = getattr(message, "content", None)
        usage = getattr(completion, "usage", None)
        tokens_in = getattr(usage, "prompt_tokens", 0) or 0
        tokens_out = getattr(usage, "completion_tokens", 0) or 0
        return Reply(text if isinstance(text, str) else None, int(tokens_in), int(tokens_out), requests, seconds)

    def _detail(self, err: Any) -> str:
        """The server's own error message, short, on one line, the key left out."""
        body = getattr(err, "body", None)
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str):
            error = body.get("error") if isinstance(body, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
        if not isinstance(message, str):
            return ""
        flat = " ".join(message.split())
        return redacted(flat[:_SHOWN], self._key)

    def _failure(self, what: str, detail: str, down: bool) -> ModelServiceError:
        """The one-line error of a request that failed for good."""
        where = f"the model server at {self.settings.base_url} (model {self.settings.model})"
        if down:
            tries = self.settings.attempts
            message = f"{where} stayed down through {tries} tr{'y' if tries == 1 else 'ies'}: {what}"
        else:
            message = f"{where} refused the request: {what}"
        return ModelServiceError(message + (f" ({detail})" if detail else ""), down)
