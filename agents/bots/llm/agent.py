"""The language-model agent: any chat model behind an OpenAI-compatible server, playing a seat.

At each decision the agent sends the game's conversation (:mod:`agents.bots.llm.prompt`): the rules, the last
``memory`` decisions with the moves it played, and the seat's view now. It reads the move from the reply; a reply
that names no legal move gets a retry that says what was wrong, up to ``retries`` times, and after the last the
``fallback`` plays (a random legal move, or a forfeit: the game counts as lost and the seat plays on at random). A
decision with one legal move is played without asking. Every game's :class:`ModelUsage` counts what it cost.

The server's faults are the client's (:mod:`agents.bots.llm.client`): retried with back-off, and once it stays down
or refuses, :class:`~agents.bots.llm.client.ModelServiceError` ends the game, and the tournament, in one line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.bots.base import Agent, NeedsGameError
from agents.bots.llm.client import ChatClient, Reply
from agents.bots.llm.prompt import AnswerError, chosen_action, decision_message, retry_message, system_message
from agents.bots.llm.settings import FORFEIT, LLMSettings
from gubs_env.engine import Action, Game

if TYPE_CHECKING:
    from gubs_env.encoding.action_table import ActionCodec

_KEPT_REPLY = 2000
"""Characters of an unusable reply kept in the conversation for the retry (its end, where the answer was sought)."""


@dataclass
class ModelUsage:
    """What one game cost the agent, and how often its answers failed.

    Attributes:
        decisions: decisions the model was asked.
        forced: decisions played without asking (one legal move).
        calls: chat requests answered (a retry is one more).
        requests: HTTP requests, those the client sent again after a fault included.
        tokens_in: prompt tokens, as the server counted them.
        tokens_out: completion tokens, as the server counted them.
        seconds: wall-clock seconds waiting for the server.
        retries: answers asked again after one that named no legal move.
        fallbacks: decisions played by the fallback after the last retry.
        forfeited: whether the agent gave the game up (``fallback=forfeit``): it counts as lost.
    """

    decisions: int = 0
    forced: int = 0
    calls: int = 0
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    retries: int = 0
    fallbacks: int = 0
    forfeited: bool = False

    def add(self, reply: Reply) -> None:
        """Count one answered request."""
        self.calls += 1
        self.requests += reply.requests
        self.tokens_in += reply.tokens_in
        self.tokens_out += reply.tokens_out
        self.seconds += reply.seconds

    def to_dict(self) -> dict[str, Any]:
        """The counts as JSON-ready data (seconds rounded to the millisecond)."""
        return {**asdict(self), "seconds": round(self.seconds, 3)}


class LLMAgent(Agent):
    """A seat played by a chat model (see the module docstring); build it from a spec, ``llm:model=NAME,...``.

    Args:
        seed: seeds the fallback's random moves.
        settings: the model, the server and the prompt's settings.
    """

    needs_game = True
    needs_log = True
    name = "llm"

    def __init__(self, seed: int | None = None, settings: LLMSettings | None = None) -> None:
        super().__init__(seed)
        if settings is None:
            raise ValueError("an llm agent needs its settings: build it from a spec, llm:model=NAME,base_url=URL")
        self.settings = settings
        self.usage = ModelUsage()
        """The current game's counts (a new one at each :meth:`reset`)."""
        self._client: ChatClient | None = None
        self._past: list[dict[str, str]] = []
        self._since: int | None = None

    def reset(self, seed: int | None = None) -> None:
        """Start a game: new counts, an empty conversation (the client and its connection stay)."""
        super().reset(seed)
        self.usage = ModelUsage()
        self._past = []
        self._since = None

    def game_usage(self) -> dict[str, Any]:
        """The current game's :class:`ModelUsage` as data: what tournaments report per game."""
        return self.usage.to_dict()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, game: Game | None = None) -> int:
        """The id of the move the model chooses in ``game`` (which it needs: it reads the game in words)."""
        if game is None:
            raise NeedsGameError(f"{self.name} reads the game in words: pass game= (the Game being played)")
        from gubs_env.encoding.action_table import ActionCodec

        return self.act_in_game(game, ActionCodec(game.num_players))

    def act_in_game(self, game: Game, codec: ActionCodec) -> int:
        """The id of the move the model chooses for the player to act."""
        seat = game.current_player
        if seat is None:
            raise ValueError("the game is over: nobody is asked for an action")
        return codec.ids((self.choose(game, seat),), seat)[0]

    def choose(self, game: Game, seat: int) -> Action:
        """The move for ``seat`` (the player to act): the model's, or the fallback's after its last retry.

        Raises:
            ModelServiceError: the server stayed down or refused the request.
        """
        legal = game.legal_actions()
        if len(legal) == 1 or self.usage.forfeited:
            self.usage.forced += len(legal) == 1
            return legal[0] if len(legal) == 1 else legal[int(self.rng.integers(len(legal)))]
        self.usage.decisions += 1
        decision = decision_message(game, seat, self.settings, self._since)
        self._since = len(game.log)  # the next view's events start with this decision's
        messages = [{"role": "system", "content": system_message(self.settings)}, *self._kept(), {
            "role": "user", "content": decision}]  # fmt: skip
        action = self._answer(game, messages)
        self._past += [{"role": "user", "content": decision}, {"role": "assistant", "content": str(action)}]
        return action

    def _kept(self) -> list[dict[str, str]]:
        """The earlier decisions the conversation keeps (``memory`` of them)."""
        return self._past[len(self._past) - 2 * self.settings.memory :] if self.settings.memory else []

    def _answer(self, game: Game, messages: list[dict[str, str]]) -> Action:
        """Ask until a reply names a legal move, ``retries`` more times at most; then the fallback's move."""
        for attempt in range(self.settings.retries + 1):
            reply = self._chat(messages)
            try:
                return chosen_action(reply.text, game, self.settings)
            except AnswerError as err:
                if attempt == self.settings.retries:
                    break
                self.usage.retries += 1
                said = (reply.text or "")[-_KEPT_REPLY:]
                messages = [*messages, {"role": "assistant", "content": said},
                            {"role": "user", "content": retry_message(str(err), self.settings)}]  # fmt: skip
        self.usage.fallbacks += 1
        self.usage.forfeited = self.settings.fallback == FORFEIT
        legal = game.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]

    def _chat(self, messages: list[dict[str, str]]) -> Reply:
        if self._client is None:  # built on first use: a spec parsed or an agent built costs no connection
            self._client = ChatClient(self.settings)
        reply = self._client.send(messages)
        self.usage.add(reply)
        return reply

    def __getstate__(self) -> dict[str, Any]:
        """A copy (for another seat) leaves the client behind: each builds its own, and no key is copied."""
        state = self.__dict__.copy()
        state["_client"] = None
        return state
