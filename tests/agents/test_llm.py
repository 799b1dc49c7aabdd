"""The language-model agent against a scripted OpenAI-compatible server driven by the real ``openai`` client.

Legal, illegal, unparsable, empty, very long, slow, rate-limited, erroring and unreadable answers: the agent never
crashes, never plays an illegal move (a game only ends when every move was legal: the engine refuses any other),
falls back as documented, and its counts are the server's to the request and the token.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openai")

from agents.bots.llm import LLMAgent, ModelServiceError
from agents.bots.llm.client import redacted
from agents.bots.llm.prompt import AnswerError, final_answer
from agents.bots.llm.settings import LLMSettings
from agents.bots.registry import make_agent
from agents.bots.spec import AgentSpec, AgentSpecError
from agents.evaluate.matches import play_game
from tests.llm_helpers import Server
from tests.llm_server import LEAKED_KEY


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("llm"), slow=0.6)
    yield running
    running.stop()


def played(spec: str, players: int = 2, seed: int = 0, max_turns: int = 2000) -> tuple[LLMAgent, object]:
    """One game: the model at seat 0, the heuristic at the others (cut at ``max_turns``, for the slow scripts)."""
    agent = make_agent(spec, seed=0)
    assert isinstance(agent, LLMAgent)
    table = [agent, *(make_agent("heuristic", seed=s) for s in range(1, players))]
    game = play_game(table, seed, max_turns=max_turns)
    assert game.is_over  # every move was legal: the engine refuses any other
    return agent, game


def served(server: Server, model: str, before: dict) -> dict[str, int]:
    """What the server counted for ``model`` since ``before``."""
    now = server.stats()
    return {key: now[key].get(model, 0) - before[key].get(model, 0) for key in ("requests", "answered")} | {
        key: now[key].get(model, 0) - before[key].get(model, 0) for key in ("tokens_in", "tokens_out")
    }


def assert_counts_match(agent: LLMAgent, counted: dict[str, int]) -> None:
    usage = agent.usage
    assert (usage.requests, usage.calls) == (counted["requests"], counted["answered"])
    assert (usage.tokens_in, usage.tokens_out) == (counted["tokens_in"], counted["tokens_out"])


@pytest.mark.parametrize("players", [2, 3, 6])
def test_a_model_that_answers_legal_moves_plays_whole_games(server: Server, players: int) -> None:
    before = server.stats()
    agent, _ = played(server.spec("legal"), players, seed=players)
    usage = agent.usage
    assert usage.decisions > 5 and usage.calls == usage.decisions == usage.requests
    assert (usage.retries, usage.fallbacks, usage.forfeited) == (0, 0, False)
    assert_counts_match(agent, served(server, "legal", before))


@pytest.mark.parametrize("model", ["illegal", "number", "unparsable", "empty", "null"])
def test_an_answer_that_names_no_legal_move_is_retried_then_the_fallback_plays(server: Server, model: str) -> None:
    before = server.stats()
    agent, _ = played(server.spec(model, retries=2))
    usage = agent.usage
    assert usage.decisions > 5
    assert usage.calls == 3 * usage.decisions and usage.retries == 2 * usage.decisions
    assert usage.fallbacks == usage.decisions and not usage.forfeited
    assert_counts_match(agent, served(server, model, before))


def test_a_retry_that_says_what_was_wrong_gets_a_legal_answer(server: Server) -> None:
    before = server.stats()
    agent, _ = played(server.spec("sometimes"))
    usage = agent.usage
    assert usage.retries == usage.decisions and usage.calls == 2 * usage.decisions and usage.fallbacks == 0
    assert_counts_match(agent, served(server, "sometimes", before))


def test_a_very_long_answer_is_read_to_its_final_line(server: Server) -> None:
    agent, _ = played(server.spec("long"))
    assert agent.usage.fallbacks == 0 and agent.usage.retries == 0 and agent.usage.tokens_out > 10_000


@pytest.mark.parametrize(("model", "settings"), [("slow", {"timeout": 0.3}), ("ratelimit", {}), ("error", {})])
def test_slow_rate_limited_and_failing_requests_are_sent_again(server: Server, model: str, settings: dict) -> None:
    before = server.stats()
    agent, _ = played(server.spec(model, attempts=4, **settings), max_turns=40)
    usage = agent.usage
    assert usage.requests > usage.calls == usage.decisions > 5 and usage.fallbacks == 0
    counted = served(server, model, before)
    if model == "slow":  # the server also answered the requests the client had given up on: only those count
        assert usage.requests == counted["requests"] and usage.calls < counted["answered"]
    else:
        assert_counts_match(agent, counted)


def test_an_unreadable_reply_body_is_an_empty_answer(server: Server) -> None:
    before = server.stats()
    agent, _ = played(server.spec("garbage"))
    usage = agent.usage
    assert usage.retries > 0 and usage.fallbacks == 0
    assert usage.requests == served(server, "garbage", before)["requests"]


def test_moves_unlisted_and_answers_without_reasoning(server: Server) -> None:
    agent, _ = played(server.spec("bare", reasoning="none"))
    assert agent.usage.fallbacks == 0 and agent.usage.retries == 0
    unlisted, _ = played(server.spec("legal", moves="unlisted", retries=1))
    assert unlisted.usage.decisions > 0  # the model can't see the moves: it guesses, is retried and falls back


def test_a_forfeit_gives_the_game_up_and_plays_on_at_random(server: Server) -> None:
    agent, _ = played(server.spec("illegal", retries=0, fallback="forfeit"))
    usage = agent.usage
    assert usage.forfeited and usage.decisions == usage.fallbacks == usage.calls == 1


def test_a_server_that_refuses_ends_in_one_line_without_the_key(server: Server, monkeypatch) -> None:
    monkeypatch.setenv("GUBS_TEST_KEY", LEAKED_KEY)
    with pytest.raises(ModelServiceError) as error:
        played(server.spec("refuse", key_env="GUBS_TEST_KEY"))
    message = str(error.value)
    assert "refused the request: 401" in message and "\n" not in message and not error.value.down
    assert "THISKEYMUSTNEVERSHOW" not in message and "[redacted]" in message


def test_a_server_that_stays_down_ends_in_one_line(server: Server) -> None:
    before = server.stats()
    with pytest.raises(ModelServiceError, match="stayed down through 2 tries: 503") as error:
        played(server.spec("down", attempts=2))
    assert error.value.down and served(server, "down", before)["requests"] == 2


def test_a_server_nobody_listens_on_is_down(tmp_path: Path) -> None:
    gone = Server(tmp_path)
    spec = gone.spec("legal", attempts=1, timeout=1)
    gone.stop()
    with pytest.raises(ModelServiceError, match="stayed down through 1 try: APIConnectionError"):
        played(spec)


def test_the_key_is_never_in_the_agent_spec_or_copies(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", LEAKED_KEY)
    spec = AgentSpec.parse("llm:model=m,base_url=http://127.0.0.1:9/v1")
    agent = make_agent(spec)
    assert LEAKED_KEY not in repr(spec) + str(spec) + repr(agent.__dict__)
    assert redacted(f"bad key {LEAKED_KEY}.", LEAKED_KEY) == "bad key [redacted]"
    assert redacted(f"key {LEAKED_KEY[:20]}****", LEAKED_KEY) == "key [redacted]"


def test_the_spec_is_checked_as_it_is_parsed() -> None:
    spec = AgentSpec.parse(" llm:base_url=http://h:8000/v1,model=qwen3-8b,retries=2 ")
    assert str(spec) == "llm:model=qwen3-8b,base_url=http://h:8000/v1" and AgentSpec.parse(str(spec)) == spec
    assert spec.llm_settings == LLMSettings(model="qwen3-8b", base_url="http://h:8000/v1")
    for bad in ["llm", "llm:retries=1", "llm:model=a b", "llm:model=m,base_url=file:///etc", "llm:model=m,fallback=x"]:
        with pytest.raises(AgentSpecError):
            AgentSpec.parse(bad)


def test_the_final_answer_is_the_last_marked_line() -> None:
    free, bare = LLMSettings(model="m"), LLMSettings(model="m", reasoning="none")
    assert final_answer("FINAL ANSWER: 1\nno wait\n**Final answer:** Draw", free) == "Draw"
    assert final_answer("  Draw  ", bare) == "Draw" == final_answer("Draw", free)
    for reply in (None, "", "thinking\nstill thinking"):
        with pytest.raises(AnswerError):
            final_answer(reply, free)


def test_a_model_plays_at_the_terminal_table_and_a_dead_server_ends_it_in_one_line(server: Server, tmp_path) -> None:
    import io

    from agents.play.terminal import main as play

    screen = io.StringIO()
    argv = ["--watch", "--delay", "0", "--bots", server.spec("legal"), "--seed", "3", "--max-turns", "20"]
    assert play(argv, stdout=screen, sleep=lambda s: None) == 0 and "=== Game over ===" in screen.getvalue()
    gone = Server(tmp_path)
    spec = gone.spec("legal", attempts=1, timeout=1)
    gone.stop()
    errors = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stderr", errors)
        code = play(["--watch", "--delay", "0", "--bots", spec], stdout=io.StringIO(), sleep=lambda s: None)
    assert code == 1 and "stayed down through 1 try" in errors.getvalue() and errors.getvalue().count("\n") == 1
