"""Expert iteration: search labels (agents/recipes/expert/labels.py), their file, train.py's --labels and --init."""

import io
import os
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.bots.model_file import load_policy
from agents.bots.names import CATALOGUE
from agents.bots.registry import make_agent
from agents.evaluate.blunders import blunders
from agents.evaluate.matches import play_game
from agents.recipes.expert import labels as expert
from agents.recipes.expert.labels import BotExpert, Labelling, label, label_game, searcher_seat, without_blunder
from agents.training.command import main as train_command
from agents.training.command import parse as parse_train
from agents.training.imitation import labels_file
from agents.training.imitation.labels_file import KINDS, LabelsFileError, load_labels, save_labels
from gubs_env.encoding.action_table import ActionCodec
from gubs_env.engine import Game
from gubs_env.engine.positions import position

SEARCH = "search:steps=3000,worlds=32"
"""A small budget: labels in a second or two per game."""


@pytest.fixture(scope="module")
def labels():
    return label(SEARCH, [2, 3], games=4, seed=11, jobs=1, progress=False)


def test_labels_are_legal_ids_of_their_decisions_and_mix_the_sizes_as_asked(labels):
    rows = np.arange(len(labels))
    assert labels.masks[rows, labels.actions].all() and labels.masks[rows, labels.base_actions].all()
    assert (labels.masks.sum(axis=1) > 1).all()  # only decisions with a choice are labelled
    assert set(np.unique(labels.players)) == {2, 3}
    assert labels.observations.dtype == np.float16 and labels.observations.shape[0] == len(labels)
    assert np.isfinite(labels.returns).all() and (np.abs(labels.returns) <= 1).all()
    assert labels.corrected == int((labels.actions != labels.base_actions).sum())


def test_the_labelled_game_is_the_game_a_tournament_plays_and_the_labels_are_its_searched_moves():
    players, deal, seat = 2, 7, 1
    search, heuristic = make_agent(SEARCH), make_agent("heuristic")
    rows = label_game(search, heuristic, players, deal, seat, Labelling(keep_blunders=True))
    searched = len(search.decision_seconds)
    assert len(rows["actions"]) == searched  # one label per searched decision, none for forced ones
    table = [make_agent("heuristic"), make_agent("heuristic")]
    table[seat] = replay = make_agent(SEARCH)
    game = play_game(table, deal)
    assert len(replay.decision_seconds) == searched and replay.deviations == search.deviations
    returns = np.asarray(rows["returns"])
    won = seat in game.winners()
    assert (returns > 0).all() if won else (returns <= 0).all()
    assert np.all(np.diff(np.abs(returns)) >= 0)  # the later the decision, the less discounted
    assert abs(abs(returns[-1]) - (1.0 if not game.truncated else 0.0)) < 0.05


def own_trap_position() -> tuple[Game, ActionCodec, dict[str, int]]:
    """Seat 0 holds a Sud Spout and each side has a Free Gub: the Spout on one's own Gub is the blunder."""
    game = Game.from_dict(position(hands=[{"Sud Spout": 1}, {}], sides=[{"free": 1}, {"free": 1}]))
    codec = ActionCodec(2)
    ids = dict(zip(map(str, game.legal_actions()), codec.ids(game.legal_actions(), 0), strict=True))
    return game, codec, ids


def test_without_blunder_keeps_a_clean_choice_and_replaces_a_flagged_one_by_the_first_clean_candidate():
    game, codec, ids = own_trap_position()
    own, theirs, go = ids["Sud Spout → seat 0"], ids["Sud Spout → seat 1"], ids["Go (end turn)"]
    assert without_blunder(game, codec, theirs, np.array([theirs, own])) == theirs
    assert without_blunder(game, codec, own, np.array([own, go, theirs])) == go  # the candidates' order first
    # with no clean candidate, the other legal ids in the heuristic's order: never the flagged one
    replaced = without_blunder(game, codec, own, np.array([own]))
    assert replaced in (theirs, go) and blunders(game, codec.action(replaced, 0)) == ()


class BlunderingExpert:
    """A stand-in for the search that plays a blunder wherever one is legal, and remembers what it decided at."""

    def __init__(self) -> None:
        self.positions: list[Game] = []

    def reset(self, seed: int | None = None) -> None:
        pass

    def decide(self, game: Game, codec: ActionCodec) -> tuple[int, np.ndarray]:
        seat = game.current_player
        ids = codec.ids(game.legal_actions(), seat)
        flagged = [i for i in ids if blunders(game, codec.action(i, seat))]
        choice = (flagged or ids)[0]
        self.positions.append(game.clone())
        return choice, np.array([choice, *[i for i in ids if i != choice][:1]])


@pytest.mark.parametrize("keep", [False, True])
def test_the_expert_plays_no_blunder_unless_asked_to_keep_them(keep):
    expert_, heuristic = BlunderingExpert(), make_agent("heuristic")
    flagged = 0
    for deal in range(6):
        expert_.positions.clear()
        rows = label_game(expert_, heuristic, 2, deal, deal % 2, Labelling(keep_blunders=keep))
        chosen = [p for p in expert_.positions if len(p.legal_actions()) > 1]
        assert len(chosen) == len(rows["actions"])
        seat = deal % 2
        codec = ActionCodec(2)
        flagged += sum(bool(blunders(p, codec.action(a, seat))) for p, a in zip(chosen, rows["actions"], strict=True))
    assert (flagged > 0) if keep else (flagged == 0)


def test_a_bot_as_expert_gives_its_own_play_and_corrected_only_keeps_its_corrected_blunders():
    heuristic = make_agent("heuristic")
    kept, corrected = 0, 0
    for deal in range(4):
        everything = label_game(BotExpert(make_agent("random")), heuristic, 2, deal, 0)
        assert everything["base_actions"]  # every choice of the bot is there
        only = label_game(BotExpert(make_agent("random")), heuristic, 2, deal, 0, Labelling(corrected_only=True))
        changed = [a != b for a, b in zip(everything["actions"], everything["base_actions"], strict=True)]
        assert only["actions"] == [a for a, c in zip(everything["actions"], changed, strict=True) if c]
        assert only["returns"] == [r for r, c in zip(everything["returns"], changed, strict=True) if c]
        kept, corrected = kept + len(everything["actions"]), corrected + sum(changed)
    assert 0 < corrected < kept  # random blunders now and then: those choices, and only those, are corrected


def test_labels_of_a_bot_expert_from_the_command(tmp_path, capsys):
    out = tmp_path / "fixes.npz"
    assert (
        expert.main(
            [
                "--expert",
                "random",
                "--players",
                "2",
                "--games",
                "4",
                "--jobs",
                "1",
                "--corrected-only",
                "--no-progress",
                "--labels",
                str(out),
            ]
        )
        == 0
    )
    fixes = load_labels(out)
    assert len(fixes) == fixes.corrected > 0 and "the expert corrected its base" in capsys.readouterr().out


def test_searcher_seat_rotates_within_each_table_size():
    sizes = [2, 3]
    seats = {n: [searcher_seat(g, len(sizes), n) for g in range(12) if sizes[g % 2] == n] for n in sizes}
    assert seats == {2: [0, 1, 0, 1, 0, 1], 3: [0, 1, 2, 0, 1, 2]}


@pytest.mark.slow
def test_labels_do_not_depend_on_the_worker_count(labels):
    again = label(SEARCH, [2, 3], games=4, seed=11, jobs=2, progress=False)
    for name in ("observations", "masks", "actions", "base_actions", "returns", "players"):
        assert np.array_equal(getattr(again, name), getattr(labels, name)), name


def test_a_labels_file_round_trips(labels, tmp_path):
    path = save_labels(tmp_path / "labels.npz", labels)
    back = load_labels(path)
    for name in ("observations", "masks", "actions", "base_actions", "returns", "players"):
        assert np.array_equal(getattr(back, name), getattr(labels, name)), name


def _arrays(labels):
    return {name: np.array(getattr(labels, name)) for name in KINDS}


def _write(path, arrays, **extra):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays, **extra)
    path.write_bytes(buffer.getvalue())
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a.update(actions=a["actions"][:-1]), "shaped"),
        (lambda a: a.update(observations=a["observations"][:, :10]), "shaped"),
        (lambda a: a.update(masks=a["masks"].astype(np.float32)), "values shaped"),
        (lambda a: a["actions"].__setitem__(0, 999), "not legal"),
        (lambda a: a["base_actions"].__setitem__(0, -1), "not legal"),
        (lambda a: a["returns"].__setitem__(0, 1.5), "from -1 to 1"),
        (lambda a: a["returns"].__setitem__(0, np.nan), "from -1 to 1"),
        (lambda a: a["observations"].__setitem__((0, 0), np.inf), "finite"),
        (lambda a: a["players"].__setitem__(0, 7), "table sizes"),
        (lambda a: a.pop("players"), "not a labels file"),
    ],
)
def test_a_labels_file_that_is_not_what_save_labels_writes_is_refused(labels, tmp_path, change, message):
    arrays = _arrays(labels)
    change(arrays)
    with pytest.raises(LabelsFileError, match=message):
        load_labels(_write(tmp_path / "bad.npz", arrays))


def test_a_pickled_array_in_a_labels_file_is_refused_without_being_unpickled(labels, tmp_path):
    ran = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(ran), "w"))

    arrays = _arrays(labels)
    arrays["players"] = np.array([Payload()] * len(labels), dtype=object)
    path = tmp_path / "pickle.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=True)
            archive.writestr(f"{name}.npy", buffer.getvalue())
    with pytest.raises(LabelsFileError):
        load_labels(path)
    assert not ran.exists()


def test_labels_files_over_the_limits_or_not_files_are_refused(labels, tmp_path, monkeypatch):
    path = save_labels(tmp_path / "labels.npz", labels)
    monkeypatch.setattr(labels_file, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(LabelsFileError, match="declare more than"):
        load_labels(path)
    monkeypatch.setattr(labels_file, "MAX_LABELS_BYTES", 100)
    with pytest.raises(LabelsFileError, match="over the"):
        load_labels(path)
    with pytest.raises(LabelsFileError, match="not a regular file"):
        load_labels(tmp_path)
    with pytest.raises(LabelsFileError, match="cannot read"):
        load_labels(tmp_path / "missing.npz")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(LabelsFileError, match="not a regular file"):
        load_labels(fifo)  # refused by its kind, without opening it (which would wait for a writer)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
def test_any_bytes_are_labels_or_a_labels_file_error(tmp_path, data):
    path = tmp_path / "fuzz.npz"
    path.write_bytes(data)
    with pytest.raises(LabelsFileError):
        load_labels(path)


def test_expert_command_line_refusals_are_one_line_with_status_2(tmp_path, capsys):
    for argv, message in [
        (["--expert", "nobody", "--labels", str(tmp_path / "l.npz")], "--expert:"),
        (["--expert", "search:worlds=0", "--labels", str(tmp_path / "l.npz")], "worlds must be"),
        (["--expert", "gubs-net", "--keep-blunders", "--corrected-only", "--labels", "l.npz"], "keeps nothing"),
        (["--players", "7", "--labels", str(tmp_path / "l.npz")], "player counts go from 2 to 6"),
        (["--games", "0", "--labels", str(tmp_path / "l.npz")], "must be at least 1"),
        (["--labels", "/proc/nope/l.npz"], "--labels"),
        (["--search", "search", "--labels", str(tmp_path / "l.npz")], "unrecognized arguments: --search"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            expert.parse_args(argv)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


# --- train.py --labels and --init ---------------------------------------------------------------------------

TINY = ["--batch-size", "64", "--eval-games", "2", "--final-games", "2", "--no-progress", "--envs", "2"]


def test_init_starts_the_policy_from_the_models_weights(tmp_path):
    out = tmp_path / "run"
    assert train_command(["--init", "gubs-net", "--imitate-games", "0", "--steps", "1", "--out", str(out), *TINY]) == 0
    shipped, trained = load_policy(CATALOGUE["gubs-net"].path), load_policy(out / "start.npz")
    for (w, b), (w2, b2) in zip(shipped.layers, trained.layers, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)


def test_labels_warm_start_fits_the_labels_and_lowers_its_loss(labels, tmp_path, capsys):
    from agents.training.core.backend import make_backend
    from agents.training.imitation.demonstrations import fit

    path = save_labels(tmp_path / "labels.npz", labels)
    out = tmp_path / "run"
    argv = ["--labels", str(path), "--players", "2", "3", "--steps", "1", "--out", str(out), *TINY]
    assert train_command(argv) == 0
    assert "imitated" in capsys.readouterr().out and (out / "policy.npz").is_file()
    for backend in ("native", "sb3"):
        network = make_backend(parse_train(["--backend", backend, *TINY]).config.resolved()).network()
        losses = fit(network.parameters, network.heads, labels, epochs=5, batch_size=64, progress=False).losses
        assert losses[-1] < losses[0], backend


def test_several_labels_files_are_joined_in_order(labels, tmp_path):
    first, second = save_labels(tmp_path / "a.npz", labels), save_labels(tmp_path / "b.npz", labels)
    from agents.training.imitation.warm_start import read_labels

    config = parse_train(["--labels", str(first), str(second), "--steps", "1"]).config
    assert config.labels == (first, second)
    joined = read_labels(config)
    assert len(joined) == 2 * len(labels) and joined.corrected == 2 * labels.corrected
    assert np.array_equal(joined.actions, np.concatenate([labels.actions, labels.actions]))
    assert np.array_equal(joined.players[len(labels) :], labels.players)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--labels", "/nonexistent/labels.npz"], "labels:"),
        (["--init", "/nonexistent/model.npz"], "init:"),
        (["--init", "ppo-9p"], "init:"),
        (["--init", "heuristic"], "init: heuristic is not a network"),
        (["--imitate-lr", "0"], "must be above 0"),
    ],
)
def test_bad_labels_or_init_are_one_line_errors(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        train_command([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_init_refuses_a_network_of_other_shapes(tmp_path, capsys):
    from agents.bots.model_file import save_policy
    from gubs_env.encoding.action_table import NUM_ACTIONS
    from gubs_env.encoding.observation import OBS_SIZE

    rng = np.random.default_rng(0)
    layers = [
        (rng.standard_normal((64, OBS_SIZE)), np.zeros(64)),
        (rng.standard_normal((NUM_ACTIONS, 64)), np.zeros(NUM_ACTIONS)),
    ]
    small = save_policy(
        tmp_path / "small.npz", [(w.astype(np.float32), b.astype(np.float32)) for w, b in layers], "tanh"
    )
    with pytest.raises(SystemExit):
        train_command(["--init", str(small), "--out", str(tmp_path / "run")])
    assert "the learner's are tanh" in capsys.readouterr().err


def test_init_and_labels_start_new_runs_only(tmp_path, capsys):
    out = tmp_path / "run"
    assert train_command(["--imitate-games", "0", "--steps", "1", "--out", str(out), *TINY]) == 0
    with pytest.raises(SystemExit):
        train_command(["--resume", "--init", "gubs-net", "--out", str(out)])
    assert "start a new run" in capsys.readouterr().err


def test_an_array_header_that_declares_more_than_it_holds_is_refused_before_allocation(labels, tmp_path):
    arrays = _arrays(labels)
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array)
            raw = buffer.getvalue()
            if name == "returns":  # the same bytes, but a header that claims a trillion values
                header = np.lib.format.header_data_from_array_1_0(array)
                header["shape"] = (10**12,)
                head = io.BytesIO()
                np.lib.format.write_array_header_1_0(head, header)
                raw = head.getvalue() + array.tobytes()
            archive.writestr(f"{name}.npy", raw)
    with pytest.raises(LabelsFileError, match="declares shape"):
        load_labels(path)


def test_pure_self_play_labels_ask_no_hand_written_bot(monkeypatch):
    """selfplay-search against its own base network, blunders kept: the heuristic is never asked."""
    import agents.bots.heuristic.decide
    import agents.bots.search.agent

    pure = "selfplay-search:worlds=32,steps=3000"
    expected = label(pure, [2], games=2, seed=5, jobs=1, progress=False, how=Labelling(keep_blunders=True),
                     field="selfplay-2p")  # fmt: skip
    for module in (agents.bots.search.agent, agents.bots.heuristic.decide):
        monkeypatch.setattr(module, "heuristic_scores", _refuse)
    monkeypatch.setattr(expert, "without_blunder", _refuse)
    again = label(pure, [2], games=2, seed=5, jobs=1, progress=False, how=Labelling(keep_blunders=True),
                  field="selfplay-2p")  # fmt: skip
    assert len(again) == len(expected) > 0 and np.array_equal(again.actions, expected.actions)
    # the field plays the other seat: against the heuristic the same deals give other games
    other = label(pure, [2], games=2, seed=5, jobs=1, progress=False, how=Labelling(keep_blunders=True))
    assert len(other) != len(expected) or not np.array_equal(other.actions, expected.actions)


def _refuse(*_args, **_kwargs):
    raise AssertionError("a hand-written bot was asked")
