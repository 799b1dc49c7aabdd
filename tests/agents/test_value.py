"""The search's learned value: its features, its file, its training data, and playouts that stop at a leaf."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.bots.heuristic.tables import TABLES
from agents.bots.model_file import ModelFileError, PolicyWeights, load_network, load_policy, save_network, save_policy
from agents.bots.names import CATALOGUE
from agents.bots.registry import make_agent
from agents.bots.search import SearchAgent, SearchSettings
from agents.bots.search.belief import HANDS, HandModel
from agents.bots.search.rollout import FULL_PLAYOUTS, TO_THE_END, Leaves, candidate_values, paired_gains, seat_tables
from agents.bots.search.value import FEATURES, VALUE, ValueNet, leaf_features
from agents.recipes.search_nets.fitting import FitSettings, Positions, fit_value, play_positions
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.encoding.observation import OBS_SIZE, encode
from gubs_env.engine import Game
from gubs_env.engine.cards import COPIES, NUM_KINDS
from gubs_env.engine.positions.determinize import knowledge
from gubs_env.fast.convert import row_to_game, state_to_row
from gubs_env.fast.core import layout as L
from gubs_env.fast.determinize import new_rows, sample_rows
from tests.helpers import float32_sum


def _into(players: int, seed: int, steps: int) -> Game:
    game = Game(players, seed=seed, record_log=False)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        actions = game.legal_actions()
        game.apply(actions[int(rng.integers(len(actions)))])
    return game


def _constant_net(value: float) -> ValueNet:
    """A value network that says ``value`` of every position (zero weights, the value as the last bias)."""
    layers = [
        (np.zeros((4, FEATURES), np.float32), np.zeros(4, np.float32)),
        (np.zeros((1, 4), np.float32), np.full(1, value, np.float32)),
    ]
    return ValueNet(PolicyWeights(tuple(layers), "relu"))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_leaf_features_are_the_seats_observation_then_every_other_hand_by_relative_seat(players):
    game = _into(players, seed=players, steps=40)
    rows, rngs = new_rows(1)
    state_to_row(game.state, rows[0], rngs[0])
    copies = np.array(COPIES, dtype=np.float32)
    for seat in range(players):
        out = np.full(FEATURES, -1.0, dtype=np.float32)
        leaf_features(rows[0], seat, out)
        assert np.array_equal(out[:OBS_SIZE], encode(game.state, seat))
        others = out[OBS_SIZE:].reshape(L.SEATS - 1, NUM_KINDS)
        for rel in range(1, L.SEATS):
            expected = np.zeros(NUM_KINDS, dtype=np.float32)
            if rel < players:
                expected = np.array(game.state.hands[(seat + rel) % players], dtype=np.float32) / copies
            assert np.allclose(others[rel - 1], expected), (seat, rel)


def test_a_value_file_round_trips_and_is_told_apart_from_a_policy_file(tmp_path):
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(8, FEATURES)), rng.normal(size=8)), (rng.normal(size=(1, 8)), rng.normal(size=1))]
    path = save_network(tmp_path / "value.npz", layers, "relu", VALUE)
    net = ValueNet.load(path)
    features = rng.random((5, FEATURES)).astype(np.float32)
    hidden = np.maximum(features @ layers[0][0].T.astype(np.float32) + layers[0][1].astype(np.float32), 0)
    expected = hidden @ layers[1][0].T.astype(np.float32) + layers[1][1].astype(np.float32)
    assert np.allclose(net.values(features), expected[:, 0], rtol=1e-4, atol=1e-4)
    with pytest.raises(ModelFileError, match=r"does not name gubs-policy-weights|without"):
        load_policy(path)
    policy = save_policy(
        tmp_path / "policy.npz",
        [(np.zeros((4, OBS_SIZE)), np.zeros(4)), (np.zeros((356, 4)), np.zeros(356))],
        "tanh",
    )
    with pytest.raises(ModelFileError, match=r"without|does not name"):
        ValueNet.load(policy)


@pytest.mark.parametrize(
    ("layers", "message"),
    [
        ([(np.zeros((4, OBS_SIZE)), np.zeros(4)), (np.zeros((1, 4)), np.zeros(1))], "takes 672 inputs"),
        ([(np.zeros((4, FEATURES)), np.zeros(4)), (np.zeros((2, 4)), np.zeros(2))], "not 1 value"),
        ([(np.full((4, FEATURES), np.nan), np.zeros(4)), (np.zeros((1, 4)), np.zeros(1))], "NaN"),
    ],
)
def test_a_value_network_of_the_wrong_shape_or_values_is_refused(tmp_path, layers, message):
    with pytest.raises(ModelFileError, match=message):
        save_network(tmp_path / "bad.npz", layers, "relu", VALUE)


def test_a_value_file_made_for_other_sizes_is_one_line_error(tmp_path):
    layers = [(np.zeros((4, FEATURES)), np.zeros(4)), (np.zeros((1, 4)), np.zeros(1))]
    good = save_network(tmp_path / "value.npz", layers, "relu", VALUE)
    with zipfile.ZipFile(good) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    odd = tmp_path / "odd.npz"
    with zipfile.ZipFile(odd, "w") as archive:
        for name, data in members.items():
            if name == "feature_count.npy":
                buffer = io.BytesIO()
                np.save(buffer, np.array(600, dtype=np.int64))
                data = buffer.getvalue()
            archive.writestr(name, data)
    with pytest.raises(ModelFileError, match="made for 600 leaf features"):
        load_network(odd, VALUE)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_as_a_value_file_are_a_model_file_error_or_a_value_network(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "value.npz"
    path.write_bytes(data)
    with pytest.raises(ModelFileError):
        ValueNet.load(path)


def test_the_shipped_value_network_loads_as_data_and_judges_positions():
    net = ValueNet.load(CATALOGUE["value"].path)
    assert net.weights.observation_size == FEATURES and net.weights.action_count == 1
    assert all(not w.flags.writeable for w, _b in net.weights.layers)
    rows, rngs = new_rows(1)
    state_to_row(Game(2, seed=1).state, rows[0], rngs[0])
    out = np.zeros((1, FEATURES), dtype=np.float32)
    leaf_features(rows[0], 0, out[0])
    assert -2 < net.values(out)[0] < 2


def _gain_inputs(players: int = 2, worlds: int = 32):
    game = _into(players, seed=3, steps=30)
    while len(game.legal_actions()) < 3:
        game.apply(game.legal_actions()[0])
    seat = game.current_player
    ids = np.array(ActionCodec(players).ids(game.legal_actions(), seat), dtype=np.int64)[:3]
    rows, rngs = new_rows(worlds)
    sample_rows(knowledge(game.state, seat), 7, rows, rngs)
    return rows, rngs, ids, seat


def test_a_playout_cut_at_a_leaf_takes_the_value_networks_judgement():
    rows, rngs, ids, seat = _gain_inputs()
    tfs = seat_tables(TABLES.floats)
    full = np.empty((rows.shape[0], ids.size))
    candidate_values(rows, rngs, ids, seat, np.uint64(3), TABLES.ints, tfs, full)
    cut = np.empty_like(full)
    spent = candidate_values(rows, rngs, ids, seat, np.uint64(3), TABLES.ints, tfs, cut, Leaves(2, _constant_net(7.5)))
    assert (cut == 7.5).mean() > 0.9  # nearly every playout is still going two decisions on
    assert np.array_equal(cut[cut != 7.5], full[cut != 7.5])  # the few that ended keep their outcome
    assert spent <= rows.shape[0] * ids.size * 3
    deep = np.empty_like(full)
    candidate_values(rows, rngs, ids, seat, np.uint64(3), TABLES.ints, tfs, deep, Leaves(10**6, _constant_net(7.5)))
    assert np.array_equal(deep, full)  # no playout is that long: every one ends and keeps its outcome


def test_a_leaf_is_judged_from_the_searching_seats_features():
    """A network that counts the searching seat's hand judges each leaf cut right after the candidate by it."""
    rows, rngs, ids, seat = _gain_inputs(worlds=6)
    weight = np.zeros((1, FEATURES), np.float32)
    weight[0, :NUM_KINDS] = COPIES  # own hand: count / copies, times copies
    layers = ((weight, np.ones(1, np.float32)), (np.ones((1, 1), np.float32), np.zeros(1, np.float32)))
    net = ValueNet(PolicyWeights(layers, "relu"))
    values = np.empty((rows.shape[0], ids.size))
    candidate_values(
        rows, rngs, ids, seat, np.uint64(3), TABLES.ints, seat_tables(TABLES.floats), values, Leaves(0, net)
    )
    codec = ActionCodec(2)
    for w in range(rows.shape[0]):
        for k, action in enumerate(ids):
            world = row_to_game(rows[w], rngs[w], record_log=False)
            world.apply(codec.action(int(action), seat))
            assert values[w, k] == pytest.approx(1 + sum(world.state.hands[seat]), abs=1e-4)


def test_paired_gains_with_leaves_are_the_paired_differences_of_the_judged_values():
    rows, rngs, ids, seat = _gain_inputs(worlds=48)
    tfs = seat_tables(TABLES.floats)
    leaves = Leaves(4, ValueNet.load(CATALOGUE["value"].path), 7.0)
    values = np.empty((rows.shape[0], ids.size))
    candidate_values(rows, rngs, ids, seat, np.uint64(3), TABLES.ints, tfs, values, leaves)
    gains = np.zeros((ids.size, 3))
    paired_gains(rows, rngs, ids, seat, np.uint64(3), TABLES.ints, tfs, 10**9, 8, 2.5, gains, leaves)
    for k in range(1, ids.size):
        n = int(gains[k, 0])
        assert n > 0
        diff = values[:n, k] - values[:n, 0]
        # the leaves' values are float32 network outputs, evaluated in other batches (so rounded otherwise by BLAS)
        # and summed in another order than here: each difference may be off by a few ulps of the values
        largest = 2 * float(np.abs(values[:n]).max())
        assert gains[k, 1] == pytest.approx(diff.sum(), **float32_sum(n, largest))
        assert gains[k, 2] == pytest.approx((diff**2).sum(), **float32_sum(n, largest**2))


def test_playouts_cut_without_a_value_network_are_refused():
    rows, rngs, ids, seat = _gain_inputs(worlds=2)
    values = np.empty((2, ids.size))
    with pytest.raises(ValueError, match="value network"):
        candidate_values(
            rows, rngs, ids, seat, np.uint64(3), TABLES.ints, seat_tables(TABLES.floats), values, Leaves(4)
        )
    assert TO_THE_END > 10**6


def test_the_leaf_setting_reaches_the_search_from_a_spec():
    bot = make_agent("search:leaf=5,worlds=64,steps=5000", seed=0)
    assert isinstance(bot, SearchAgent) and bot.settings.leaf == 5
    assert bot.leaves().depth == 5 and bot.leaves().value is not None
    assert SearchAgent(settings=SearchSettings()).leaves() == FULL_PLAYOUTS  # the default plays to the end
    with pytest.raises(ValueError, match="leaf"):
        SearchSettings.parse("leaf=-1")
    game = _into(2, seed=5, steps=20)
    codec = ActionCodec(2)
    while len(game.legal_actions()) < 2:
        game.apply(game.legal_actions()[0])
    seat = game.current_player
    action = bot.act(encode(game.state, seat), codec.mask(game.legal_actions(), seat), game=game)
    assert codec.mask(game.legal_actions(), seat)[action]


def test_value_positions_are_labelled_with_their_games_outcome_and_depend_on_the_seed_only():
    first = play_positions(40, [2, 3], seed=9, progress=False, keep_every=4)
    again = play_positions(40, [2, 3], seed=9, progress=False, keep_every=4)
    assert all(np.array_equal(getattr(first, f), getattr(again, f)) for f in Positions.__dataclass_fields__)
    assert first.features.shape[1] == FEATURES and len(first.labels) > 100
    assert np.all(np.diff(first.games) >= 0) and set(np.unique(first.players)) == {2, 3}
    for game in np.unique(first.games):
        labels = first.labels[first.games == game]
        assert np.all(labels == labels[0])  # one outcome per game: the learned seat's
    assert np.all(first.players[first.games % 2 == 0] == 2)


def test_joined_positions_keep_their_order_and_the_parts_are_let_go():
    from agents.recipes.search_nets.fitting import _joined

    rng = np.random.default_rng(3)
    sizes = (5, 0, 7)
    parts = [
        Positions(rng.random((m, FEATURES), dtype=np.float32), rng.random(m, dtype=np.float32),
                  np.arange(m, dtype=np.int64), np.full(m, 2, dtype=np.int64))
        for m in sizes
    ]  # fmt: skip
    expected = [np.concatenate([getattr(part, name) for part in parts]) for name in Positions.__dataclass_fields__]
    joined = _joined(parts)
    assert parts == []  # each part is dropped once copied: the positions are held once, not twice
    names = Positions.__dataclass_fields__
    assert all(np.array_equal(getattr(joined, n), e) for n, e in zip(names, expected, strict=True))


def test_a_fitted_value_network_explains_part_of_the_held_out_outcomes(tmp_path):
    """Trained on 3,000 games, the network beats the best constant on games it never saw (by about 8%)."""
    data = play_positions(3000, [2], seed=0, progress=False, keep_every=8)
    fit = FitSettings(value_hidden=(64,), epochs=6, learning_rate=3e-3)
    layers, report = fit_value(data, fit, threads=1, progress=False)
    assert report.held_out_positions > 0 and report.explained > 0.03
    net = ValueNet.load(save_network(tmp_path / "value.npz", layers, "relu", VALUE))
    assert net.values(data.features[:3]).shape == (3,)


def test_the_command_refuses_a_bad_command_line_in_one_line(capsys):
    from agents.recipes.search_nets.fitting import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--games", "0", "--out", "x"])
    assert exit_info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) <= 2


def test_the_command_writes_both_networks_and_its_report(tmp_path, capsys):
    from agents.recipes.search_nets.fitting import main

    assert main(["--games", "60", "--players", "2", "--epochs", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    assert ValueNet.load(tmp_path / "value.npz").weights.action_count == 1
    assert HandModel.load(tmp_path / "hands.npz").weights.action_count == HANDS.outputs
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["games"] == 60 and {"value", "hands"} <= set(report)
    assert report["value"]["held_out_positions"] > 0


def test_the_win_target_labels_each_position_with_whether_its_seat_won(tmp_path):
    from agents.recipes.search_nets.fitting import main

    data = play_positions(40, [2, 3], seed=9, progress=False, keep_every=4, target="win")
    assert set(np.unique(data.labels)) == {0.0, 1.0}
    searched = play_positions(40, [2, 3], seed=9, progress=False, keep_every=4)
    assert np.array_equal(data.features, searched.features)  # the same games and positions, another label
    assert main(["--games", "40", "--players", "2", "--epochs", "1", "--target", "win", "--out", str(tmp_path),
                 "--no-progress"]) == 0  # fmt: skip
    assert ValueNet.load(tmp_path / "luck_value.npz").weights.action_count == 1
    assert not (tmp_path / "value.npz").exists() and not (tmp_path / "hands.npz").exists()
    assert json.loads((tmp_path / "report.json").read_text())["target"] == "win"


def test_a_networks_own_positions_are_its_playout_policys_games_with_nothing_hand_written(monkeypatch, tmp_path):
    from agents.bots.search.playout_net import shipped_playout
    from agents.recipes.search_nets import fitting

    playout = shipped_playout("selfplay-2p")
    own = play_positions(40, [2], seed=9, progress=False, keep_every=4, playout=playout)
    assert not np.array_equal(
        own.features[:50], play_positions(40, [2], seed=9, progress=False, keep_every=4).features[:50]
    )
    # the compiled games get the heuristic's tables as arguments: reversed weights would change any choice it made
    reversed_weights = type("Reversed", (), {"ints": TABLES.ints, "floats": -TABLES.floats})
    monkeypatch.setattr(fitting, "TABLES", reversed_weights)
    monkeypatch.setattr(fitting, "load_weights", lambda path: reversed_weights)
    again = play_positions(40, [2], seed=9, progress=False, keep_every=4, playout=playout)
    assert all(np.array_equal(getattr(own, f), getattr(again, f)) for f in Positions.__dataclass_fields__)
    monkeypatch.undo()
    assert fitting.main(["--games", "40", "--players", "2", "--epochs", "1", "--playout", "selfplay-2p", "--out",
                         str(tmp_path), "--no-progress"]) == 0  # fmt: skip
    assert ValueNet.load(tmp_path / CATALOGUE["selfplay-2p-value"].file).weights.action_count == 1
    assert not (tmp_path / "value.npz").exists() and not (tmp_path / "hands.npz").exists()
    assert json.loads((tmp_path / "report.json").read_text())["playout"] == "selfplay-2p"
