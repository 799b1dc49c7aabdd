"""The language-model agent: a seat played by any chat model behind an OpenAI-compatible server.

``make_agent("llm:model=NAME,base_url=URL")`` builds one (docs/llm.md): :class:`LLMAgent` with its
:class:`LLMSettings`; :class:`ModelUsage` counts each game's calls, tokens, seconds, retries and fallbacks; a server
that stays down or refuses raises :class:`ModelServiceError`. It needs the ``openai`` package (the ``llm`` extra).
"""

from agents.bots.llm.agent import LLMAgent, ModelUsage
from agents.bots.llm.client import ModelServiceError
from agents.bots.llm.settings import LLMSettings

__all__ = ["LLMAgent", "LLMSettings", "ModelServiceError", "ModelUsage"]
