"""The search over the pure self-play network: its playout policy, its playouts, its settings, and that nothing
hand-written takes part."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agents.bots.search.agent as search_agent
from agents.bots.heuristic.tables import TABLES
from agents.bots.model_file import ModelFileError, save_network, save_policy
from agents.bots.names import PLAYOUTS
from agents.bots.registry import AgentSpecError, make_agent
from agents.bots.search import SearchAgent, SelfPlaySearchSettings
from agents.bots.search.playout_net import (
    NO_NET,
    PLAYOUT,
    PlayoutNet,
    choose_by_net,
    load_playout,
    net_logits,
    shipped_playout,
)
from agents.bots.search.rollout import candidate_values, seat_tables
from agents.bots.spec import AgentSpec
from agents.evaluate.matches import play_game
from gubs_env.encoding.action_table import NUM_ACTIONS, ActionCodec
from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import Game
from tests.helpers import games_under_way, one_world, playout_value


def _random_net(seed: int, hidden: int = 8) -> PlayoutNet:
    rng = np.random.default_rng(seed)
    layers = (
        (rng.normal(size=(hidden, OBS_SIZE)).astype(np.float32), rng.normal(size=hidden).astype(np.float32)),
        (rng.normal(size=(NUM_ACTIONS, hidden)).astype(np.float32), rng.normal(size=NUM_ACTIONS).astype(np.float32)),
    )
    return PlayoutNet.from_layers(layers)


def _net_choice(net: PlayoutNet, observation: np.ndarray, ids: np.ndarray) -> int:
    """The playout policy's choice computed in float64 numpy: the legal id of the largest logit.

    The compiled choice sums in float32, in an order (and with fused multiply-adds) that may differ by processor.
    The random nets of these tests leave the two largest legal logits of every decision they meet at least 0.007
    apart (measured over all of them), far above float32's rounding at these magnitudes (about 1e-5), so the
    choices agree exactly on any processor.
    """
    first = net.first.astype(np.float64)
    hidden = np.maximum(observation.astype(np.float64) @ first + net.first_bias, 0.0)
    logits = hidden @ net.head[ids].astype(np.float64).T + net.head_bias[ids]
    return int(ids[np.argmax(logits)])


def test_the_compiled_choice_is_the_largest_legal_logit():
    net = _random_net(0)
    rng = np.random.default_rng(1)
    hidden = np.empty(net.hidden, dtype=np.float32)
    for _ in range(200):
        observation = (rng.random(OBS_SIZE) < 0.08) * rng.random(OBS_SIZE).astype(np.float32)
        ids = np.sort(rng.choice(NUM_ACTIONS, size=int(rng.integers(2, 12)), replace=False)).astype(np.int64)
        assert choose_by_net(observation.astype(np.float32), ids, ids.size, net, hidden) == _net_choice(
            net, observation, ids
        )
    observations = rng.random((4, OBS_SIZE)).astype(np.float32)
    assert net_logits(net, observations).shape == (4, NUM_ACTIONS)


def _reference_playout(game: Game, first: int, net: PlayoutNet) -> Game:
    """The playout candidate_values plays with ``net``, step by step on the reference engine."""
    codec = ActionCodec(game.num_players)
    game.apply(codec.action(first, game.current_player))
    while (seat := game.current_player) is not None:
        ids = np.array(codec.ids(game.legal_actions(), seat), dtype=np.int64)
        choice = int(ids[0]) if ids.size == 1 else _net_choice(net, encode(game.state, seat), ids)
        game.apply(codec.action(choice, seat))
    return game


@pytest.mark.parametrize("players", [2, 4])
def test_net_playouts_are_the_net_playing_the_real_rules(players):
    net = _random_net(players)
    for game in games_under_way(players, 40):
        seat = game.current_player
        ids = np.array(ActionCodec(players).ids(game.legal_actions(), seat), dtype=np.int64)
        world, world_rng = one_world(game)
        values = np.empty((1, ids.size))
        tables = seat_tables(TABLES.floats)
        candidate_values(world, world_rng, ids, seat, np.uint64(9), TABLES.ints, tables, values, net=net)
        for k, first in enumerate(ids.tolist()):
            final = _reference_playout(game.clone(), first, net)
            assert values[0, k] == pytest.approx(playout_value(final, seat))


def test_a_playout_file_is_weights_of_one_relu_hidden_layer(tmp_path):
    net = _random_net(3)
    layers = [(net.first.T.copy(), net.first_bias), (net.head, net.head_bias)]
    loaded = load_playout(save_network(tmp_path / "playout.npz", layers, "relu", PLAYOUT))
    assert all(np.array_equal(a, b) for a, b in zip(loaded, net, strict=True))
    deeper = [(net.first.T.copy(), net.first_bias), (np.eye(8, dtype=np.float32), net.first_bias), layers[1]]
    with pytest.raises(ModelFileError, match="one ReLU hidden layer"):
        load_playout(save_network(tmp_path / "deeper.npz", deeper, "relu", PLAYOUT))
    with pytest.raises(ModelFileError, match="one ReLU hidden layer"):
        load_playout(save_network(tmp_path / "tanh.npz", layers, "tanh", PLAYOUT))
    with pytest.raises(ModelFileError):  # a policy file is another kind of network
        load_playout(save_policy(tmp_path / "policy.npz", layers, "relu"))


def test_every_shipped_playout_policy_loads():
    for network in PLAYOUTS:
        assert shipped_playout(network).hidden > 0
    assert NO_NET.hidden == 0


def test_selfplay_search_spec_and_its_refusals():
    assert str(AgentSpec.parse("selfplay-search:worlds=64")) == "selfplay-search:worlds=64"
    assert AgentSpec.parse("selfplay-search").search_settings == SelfPlaySearchSettings()
    assert AgentSpec.parse("selfplay-search").is_search
    assert SelfPlaySearchSettings() == SelfPlaySearchSettings.parse("base=selfplay-2p,rollout=base")
    for bad, words in [
        ("search:rollout=base", "needs a base with a playout policy"),
        ("selfplay-search:base=ppo-2p", "needs a base with a playout policy"),
        ("selfplay-search:prior=0.5", "takes no prior"),
    ]:
        with pytest.raises(AgentSpecError, match=words):
            AgentSpec.parse(bad)


def _refuse(*_args, **_kwargs):
    raise AssertionError("a hand-written bot was asked")


def _play(seed: int, spec: str = "selfplay-search:worlds=48") -> tuple[list[int], int]:
    """Every id of a 2-player game of ``spec`` (seat 0) against the random agent, and the searched decisions."""
    bot = make_agent(spec, seed=seed)
    assert isinstance(bot, SearchAgent)
    played: list[int] = []
    play_game([bot, make_agent("random", seed=seed + 1)], seed=seed, played=played)
    return played, len(bot.decision_seconds)


def test_selfplay_search_asks_no_hand_written_bot(monkeypatch):
    played, searched = _play(5)
    assert searched > 10
    for name in ("heuristic_scores", "load_weights", "shipped_value", "shipped_hands", "static_weights"):
        monkeypatch.setattr(search_agent, name, _refuse)
    # the compiled playouts get the heuristic's tables as an argument: reversed weights would change any choice
    # the heuristic made in them
    monkeypatch.setattr(SearchAgent, "playout_tables", lambda self, seat: seat_tables(-TABLES.floats))
    assert _play(5) == (played, searched)


def test_selfplay_search_judges_its_leaves_by_its_networks_own_value_and_asks_no_hand_written_bot(monkeypatch):
    spec = "selfplay-search:worlds=48,leaf=4"
    assert AgentSpec.parse(spec).search_settings.leaf == 4
    played, searched = _play(5, spec)
    assert searched > 10 and played != _play(5)[0]  # the leaves changed some choice: they were judged
    judged: list[str] = []
    original = search_agent.own_value

    def own_value(network: str):
        judged.append(network)
        return original(network)

    for name in ("heuristic_scores", "load_weights", "shipped_value", "shipped_hands", "static_weights"):
        monkeypatch.setattr(search_agent, name, _refuse)
    monkeypatch.setattr(search_agent, "own_value", own_value)
    monkeypatch.setattr(SearchAgent, "playout_tables", lambda self, seat: seat_tables(-TABLES.floats))
    assert _play(5, spec) == (played, searched)
    assert set(judged) == {"selfplay-2p"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=4096) | st.sampled_from([b"PK\x03\x04", b"PK\x05\x06" + bytes(18)]))
def test_any_bytes_are_a_playout_policy_or_a_one_line_model_file_error(tmp_path, data):
    path = tmp_path / "playout.npz"
    path.write_bytes(data)
    with pytest.raises(ModelFileError) as refused:
        load_playout(path)
    assert "\n" not in str(refused.value) and str(path) in str(refused.value)


def test_the_shipped_playout_policy_plays_its_shipped_networks_choice():
    """A playout policy left from a network shipped before agrees with today's far less (84% against 97%)."""
    from agents.recipes.search_nets.playout import network_decisions, network_to_distil

    data = network_decisions(network_to_distil("selfplay-2p"), [2], games=60, seed=424242, progress=False)
    mine = np.where(data.masks, net_logits(shipped_playout("selfplay-2p"), data.observations), -np.inf).argmax(axis=1)
    assert len(data.games) > 1000 and (mine == data.policy.argmax(axis=1)).mean() > 0.93
