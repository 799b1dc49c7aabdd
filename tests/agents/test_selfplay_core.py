"""The native backend: whole games with every seat's decisions, forced ones skipped, the advantages, the gradient
agreement, the one evaluation's matches, and its runs through the one loop."""

import csv
import json
from dataclasses import replace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.bots.model_file import PolicyWeights
from agents.training import ConfigError, PoolConfig, RunSetupError, TrainingConfig, train
from agents.training.core.config import DEFAULTS, NativeSettings
from agents.training.core.diagnostics import cosine
from agents.training.core.evaluation import CURVE, DealSet, greedy, match
from agents.training.core.games import Batch, SelfPlayGames
from agents.training.core.seating import Seating
from agents.training.native.learner import ActorCritic, Learner, advantages, gradient_agreement, linear_layers
from gubs_env.encoding.id_table import ReferenceTable
from gubs_env.engine.cards import MAX_PLAYERS
from tests.helpers import FLOAT32


def every_seat_the_policy(games: int, players, pool: PoolConfig | None = None) -> SelfPlayGames:
    """Games whose every seat the policy plays (the seating's pure self-play), or the pool's players."""
    return SelfPlayGames(Seating(games, pool or PoolConfig(), seed=0), players)


def dealt(table: SelfPlayGames, seeds: np.ndarray, policy_seats: np.ndarray | None = None) -> SelfPlayGames:
    table.deal(seeds.astype(np.uint64), np.zeros(len(seeds), dtype=np.int64) if policy_seats is None else policy_seats)
    return table


def lowest_legal(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A deterministic policy: the highest legal id below a number read from the observation."""
    pick = (obs.sum(axis=1) * 1000).astype(np.int64)
    ids = np.array([legal[p % len(legal)] for p, legal in zip(pick, (np.flatnonzero(m) for m in masks), strict=True)])
    return ids, np.zeros(len(ids), np.float32), np.zeros(len(ids), np.float32)


def replay_on_reference(players: int, seed: int) -> tuple[list[float], dict[int, int], int]:
    """The same game on the readable engine: forced ids played, the others by ``lowest_legal``."""
    table = ReferenceTable(players, seed)
    asked: dict[int, int] = {}
    decisions = 0
    while not table.over:
        mask = table.action_mask()
        seat = table.actor
        legal = np.flatnonzero(mask)
        decisions += 1
        if len(legal) == 1:
            table.step(int(legal[0]))
            continue
        asked[seat] = asked.get(seat, 0) + 1
        obs = table.observation(seat)[None, :].astype(np.float32)
        table.step(int(lowest_legal(obs, mask[None, :])[0][0]))
    winners = set(table.winners())
    truncated = table.truncated
    rewards = [0.0 if truncated else (1.0 if s in winners else -1.0) for s in range(players)]
    return rewards, asked, decisions


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_forced_decisions_are_played_without_samples_and_every_outcome_is_the_reference_engines(players):
    seeds = np.arange(100, 106, dtype=np.uint64)
    batch = dealt(every_seat_the_policy(len(seeds), players), seeds).play(lowest_legal)
    assert batch.masks.sum(axis=1).min() >= 2  # no sample is a forced decision
    total_decisions = 0
    for slot, seed in enumerate(seeds):
        rewards, asked, decisions = replay_on_reference(players, int(seed))
        total_decisions += decisions
        assert batch.seat_rewards[slot, :players].tolist() == rewards
        for seat in range(players):
            mine = batch.trajectory == slot * MAX_PLAYERS + seat
            assert mine.sum() == asked.get(seat, 0)
            assert np.all(batch.returns[mine] == rewards[seat])  # each sample's return is its seat's outcome
            if mine.any():
                assert batch.last[mine].tolist() == [False] * (mine.sum() - 1) + [True]
    assert batch.decisions == total_decisions


def test_one_batch_mixes_table_sizes_slot_by_slot():
    players = np.array([2, 3, 4, 5, 6, 2])
    batch = dealt(every_seat_the_policy(6, players), np.arange(6)).play(lowest_legal)
    assert np.all(batch.seat < players[batch.game])
    for slot, n in enumerate(players):
        assert set(batch.seat[batch.game == slot].tolist()) == set(range(n))
        assert np.all(batch.seat_rewards[slot, n:] == 0)


def test_heuristic_seats_make_no_samples():
    table = every_seat_the_policy(4, 2, PoolConfig(p_heuristic=1.0))
    batch = dealt(table, np.arange(4), np.ones(4, dtype=np.int64)).play(lowest_legal)
    assert len(batch) > 0 and set(batch.seat.tolist()) == {1}


def tiny_batch(
    values: list[float], returns: list[float], trajectory: list[int], moves: list[int] | None = None, games: int = 1
) -> Batch:
    n = len(values)
    traj = np.array(trajectory)
    last = np.zeros(n, bool)
    for t in set(trajectory):
        last[np.flatnonzero(traj == t)[-1]] = True
    return Batch(
        obs=np.zeros((n, 512), np.float32),
        masks=np.ones((n, 356), np.int8),
        actions=np.zeros(n, np.int64),
        log_probs=np.zeros(n, np.float32),
        values=np.array(values, np.float32),
        trajectory=traj,
        moves=np.arange(n) if moves is None else np.array(moves, np.int64),
        returns=np.array(returns, np.float32),
        last=last,
        games=games,
        decisions=n,
        policy_decisions=n,
        seat_rewards=np.zeros((games, MAX_PLAYERS), np.float32),
        rewards=np.zeros(n, np.float32),
    )


def test_advantages_are_the_outcome_minus_the_value_at_lambda_1_and_gae_below_it():
    # two trajectories interleaved: seat 0 (ids 0) with values .1, .2, .3 and outcome +1; seat 1 with -1
    batch = tiny_batch([0.1, 0.5, 0.2, 0.3, -0.4], [1, -1, 1, 1, -1], [0, 1, 0, 0, 1])
    assert advantages(batch, batch.values, lam=1.0) == pytest.approx([0.9, -1.5, 0.8, 0.7, -0.6], **FLOAT32)
    lam = 0.5
    a3 = 1 - 0.3
    a2 = 0.3 - 0.2 + lam * a3
    a0 = 0.2 - 0.1 + lam * a2
    b4 = -1 + 0.4
    b1 = -0.4 - 0.5 + lam * b4
    assert advantages(batch, batch.values, lam=lam) == pytest.approx([a0, b1, a2, a3, b4], **FLOAT32)


def random_tensors(rows: int, seed: int) -> dict[str, torch.Tensor]:
    rng = np.random.default_rng(seed)
    obs = (rng.random((rows, 512)) < 0.05).astype(np.float32)
    masks = (rng.random((rows, 356)) < 0.1).astype(np.int8)
    masks[:, 0] = 1
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    return {"obs": torch.from_numpy(obs), "masks": torch.from_numpy(masks), "actions": torch.from_numpy(actions)}


def test_gradient_agreement_is_1_for_identical_halves_and_about_0_for_noise():
    model = ActorCritic((32,))
    half = random_tensors(300, 0)
    # games 2k and 2k + 1 hold the same sample, one after the other: both halves have the same gradient
    doubled = {k: torch.repeat_interleave(v, 2, dim=0) for k, v in half.items()}
    game = np.arange(600)
    adv = torch.randn(300, generator=torch.Generator().manual_seed(1))
    assert gradient_agreement(model, doubled, game, torch.repeat_interleave(adv, 2)) == pytest.approx(1.0, abs=1e-5)
    # independent positions and advantages with no signal in them: unrelated directions
    noise = random_tensors(4000, 2)
    game = np.arange(4000)
    adv = torch.randn(4000, generator=torch.Generator().manual_seed(3))
    assert abs(gradient_agreement(model, noise, game, adv)) < 0.15
    assert cosine(torch.zeros(3), torch.ones(3)) == 0.0


def test_the_entropy_bonus_decays_linearly_then_stays():
    config = TrainingConfig(ent_coef=0.03, ent_coef_end=0.01, ent_decay=100).resolved()
    assert [config.entropy_at(s) for s in (0, 50, 100, 1000)] == pytest.approx([0.03, 0.02, 0.01, 0.01])
    constant = TrainingConfig(backend="sb3", ent_coef=0.05).resolved()
    assert constant.ent_coef_end == 0.05 and constant.entropy_at(10**9) == 0.05


def native_learner(**changes) -> Learner:
    """A learner of a small native network."""
    return Learner(TrainingConfig(backend="native", **{"hidden": (16,), **changes}).resolved())


def policy_of(learner: Learner) -> PolicyWeights:
    return PolicyWeights(tuple(linear_layers(learner.model.actor)), "tanh")


def test_the_learner_samples_legal_ids_and_the_evaluation_plays_its_actor_greedily():
    learner = native_learner()
    t = random_tensors(200, 4)
    obs, masks = t["obs"].numpy(), t["masks"].numpy()
    ids, log_probs, _ = learner.decide(obs, masks)
    assert np.all(masks[np.arange(200), ids] == 1) and np.all(log_probs <= 0)
    chosen, _, _ = greedy(policy_of(learner))(obs, masks)
    logits = learner.model.actor(torch.from_numpy(obs)).detach().numpy()
    assert np.array_equal(chosen, np.argmax(np.where(masks != 0, logits, -np.inf), axis=1))


def test_seat_rotated_matches_play_the_same_deals_every_time():
    policy = policy_of(native_learner())
    first = match(policy, "heuristic", 2, 40, DealSet("test", 7))
    again = match(policy, "heuristic", 2, 40, DealSet("test", 7))
    assert first.result == again.result and np.array_equal(first.won, again.won)
    assert first.result.games == 40 and 0 <= first.result.wins <= 40 and first.result.deals == 20
    assert match(policy, "random", 3, 10, CURVE).result.games == 12  # rounded up to whole deals
    assert match(policy, "gubs-net", 2, 4, CURVE).result.games == 4  # any agent spec sits at the other seats


def test_the_curves_luck_adjustment_replays_the_games_the_batch_played():
    from agents.evaluate.luck import LuckEstimator, LuckSettings

    policy = policy_of(native_learner())
    table = SelfPlayGames(Seating(6, PoolConfig(p_heuristic=1.0), seed=0), 3, record=False)
    table.deal(np.arange(6, dtype=np.uint64) + 50, np.zeros(6, dtype=np.int64))
    history: list[list[int]] = [[] for _ in range(6)]
    batch = table.play(greedy(policy), history=history)
    estimator = LuckEstimator(LuckSettings(worlds=2))
    for slot, ids in enumerate(history):
        measured = estimator.game(3, 50 + slot, ids)
        assert list(measured.results) == [float(r > 0) for r in batch.seat_rewards[slot, :3]]
    plain = match(policy, "heuristic", 2, 20, DealSet("test", 7)).result
    adjusted = match(policy, "heuristic", 2, 20, DealSet("test", 7), adjust_luck=LuckSettings(worlds=2)).result
    assert (adjusted.wins, adjusted.games) == (plain.wins, plain.games) and plain.adjusted is None
    assert adjusted.adjusted is not None and adjusted.luck is not None


SMALL = dict(
    envs=8, eval_every=3000, eval_games=20, final_games=4, checkpoint_every=1, hidden=(32,), batch_size=512, threads=1
)
"""A native run small enough for a test; one torch thread, since the updates are compared to the bit and must not
depend on what else keeps the cores busy."""


def small_config(**changes) -> TrainingConfig:
    return TrainingConfig(**{**SMALL, **changes})


def read_rows(path):
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


PROGRESS_START = ["timesteps", "iterations", "seconds", "entropy", "approx_kl", "clip_fraction"]


def test_a_run_writes_its_diagnostics_and_curve_and_resumes_where_its_checkpoint_left_off(tmp_path, capsys):
    out = tmp_path / "run"
    first = train(small_config(steps=4000), out=out, progress=False)
    assert "median grad_cosine over the last half of the updates" in capsys.readouterr().out
    progress = read_rows(out / "progress.csv")
    assert list(progress[0])[: len(PROGRESS_START)] == PROGRESS_START and len(progress) >= 2
    measured = [float(r["grad_cosine"]) for r in progress[:: NativeSettings().agreement_every]]
    assert all(r["grad_cosine"] == "" for i, r in enumerate(progress) if i % NativeSettings().agreement_every)
    assert all(-1 <= value <= 1 for value in measured)
    assert (out / "learning_curve.png").read_bytes().startswith(b"\x89PNG") and first.model == out / "policy.npz"
    evaluation = read_rows(out / "eval.csv")
    assert {r["opponent"] for r in evaluation} == {"heuristic", "random"} and evaluation[0]["timesteps"] == "0"
    assert first.gain is not None and -1 <= first.gain.low <= first.gain.mean <= first.gain.high <= 1
    assert json.loads((out / "run.json").read_text())["backend"] == "native"
    assert first.opponent_seat_shares == {"self": 1.0}
    # rows written after the last checkpoint are dropped on resume, then done again
    with (out / "progress.csv").open("a") as f:
        f.write(f"{first.timesteps + 10**9}," + ",".join(["0"] * (len(progress[0]) - 1)) + "\n")
    second = train(small_config(steps=first.timesteps + 2000), out=out, resume=True, progress=False)
    assert second.timesteps > first.timesteps
    steps = [int(r["timesteps"]) for r in read_rows(out / "progress.csv")]
    assert steps == sorted(steps) and max(steps) == second.timesteps


def test_a_resumed_run_goes_on_as_if_it_had_never_stopped(tmp_path):
    whole = train(small_config(steps=3000), out=tmp_path / "whole", progress=False)
    train(small_config(steps=1500), out=tmp_path / "cut", progress=False)
    resumed = train(small_config(steps=3000), out=tmp_path / "cut", resume=True, progress=False)
    assert resumed.timesteps == whole.timesteps
    assert (tmp_path / "cut" / "policy.npz").read_bytes() == (tmp_path / "whole" / "policy.npz").read_bytes()


def test_a_new_run_drops_what_a_start_killed_before_its_first_commit_left(tmp_path):
    clean = train(small_config(steps=1500), out=tmp_path / "clean", progress=False)
    out = tmp_path / "restarted"  # a start killed by a signal (no clean-up) after its first rows, before a commit
    out.mkdir()
    (out / "progress.csv").write_text(",".join(PROGRESS_START) + "\n" + "512," * 5 + "0\n")
    header = "timesteps,players,opponent,deals,games,win_rate,low,high,seconds"
    (out / "eval.csv").write_text(f"{header}\n0,2,random,curve,2,1,0,1,0\n")
    (out / "checkpoint-000000512.pt").write_bytes(b"uncommitted")
    train(small_config(steps=1500), out=out, progress=False)
    for log in ("progress.csv", "eval.csv"):
        steps = [r["timesteps"] for r in read_rows(out / log)]
        assert steps == [r["timesteps"] for r in read_rows(tmp_path / "clean" / log)], log
    state = json.loads((out / "run.json").read_text())
    assert sorted(path.name for path in out.glob("checkpoint-*")) == [state["checkpoint"]]
    assert state["timesteps"] == clean.timesteps


def test_a_run_resumed_with_a_new_step_size_steps_with_it(tmp_path):
    def saved_step_size(out) -> float:
        checkpoint = json.loads((out / "run.json").read_text())["checkpoint"]
        saved = torch.load(out / checkpoint, weights_only=True)
        return saved["optimizer"]["param_groups"][0]["lr"]

    out = tmp_path / "run"
    train(small_config(steps=1500), out=out, progress=False)
    assert saved_step_size(out) == small_config().resolved().learning_rate
    train(small_config(steps=3000, learning_rate=1e-5), out=out, resume=True, progress=False)
    assert saved_step_size(out) == 1e-5
    steps = [float(row["learning_rate"]) for row in read_rows(out / "progress.csv")]
    assert steps[0] == small_config().resolved().learning_rate and steps[-1] == 1e-5


def test_a_run_from_a_trained_network_learns_with_the_end_value_of_the_entropy_bonus(tmp_path):
    fresh = tmp_path / "fresh"
    train(small_config(steps=1500), out=fresh, progress=False)
    bonuses = {float(row["entropy_coef"]) for row in read_rows(fresh / "progress.csv")}
    end = DEFAULTS["native"]["ent_coef_end"]
    assert max(bonuses) > end  # a fresh network's bonus starts high and falls
    config = TrainingConfig(backend="native", init=str(fresh / "policy.npz"), steps=1500, **SMALL)
    train(config, out=tmp_path / "on", progress=False)
    bonuses = {float(row["entropy_coef"]) for row in read_rows(tmp_path / "on" / "progress.csv")}
    assert bonuses == {end}


def test_a_run_can_draw_its_curve_with_the_luck_adjusted_rates(tmp_path):
    out = tmp_path / "run"
    train(small_config(eval_adjust_luck=True, steps=1), out=out, progress=False)
    evaluation = read_rows(out / "eval.csv")
    assert all(float(r["adjusted_low"]) <= float(r["adjusted"]) <= float(r["adjusted_high"]) for r in evaluation)
    assert (out / "learning_curve.png").read_bytes().startswith(b"\x89PNG")


def test_runs_are_deterministic_by_seed(tmp_path):
    a = train(small_config(steps=2000), out=tmp_path / "a", progress=False)
    b = train(small_config(steps=2000), out=tmp_path / "b", progress=False)
    assert (tmp_path / "a" / "policy.npz").read_bytes() == (tmp_path / "b" / "policy.npz").read_bytes()
    assert a.timesteps == b.timesteps


def test_measuring_the_agreement_on_fewer_updates_changes_nothing_else(tmp_path):
    every = train(
        small_config(steps=7000, native=NativeSettings(agreement_every=1)), out=tmp_path / "a", progress=False
    )
    fewer = train(
        small_config(steps=7000, native=NativeSettings(agreement_every=3)), out=tmp_path / "b", progress=False
    )
    assert (tmp_path / "a" / "policy.npz").read_bytes() == (tmp_path / "b" / "policy.npz").read_bytes()
    assert every.timesteps == fewer.timesteps
    all_rows, some_rows = read_rows(tmp_path / "a" / "progress.csv"), read_rows(tmp_path / "b" / "progress.csv")
    assert len(all_rows) == len(some_rows) >= 4
    for update, (a, b) in enumerate(zip(all_rows, some_rows, strict=True)):
        assert b["grad_cosine"] == (a["grad_cosine"] if update % 3 == 0 else "")
        assert {k: v for k, v in a.items() if k not in ("grad_cosine", "seconds")} == {
            k: v for k, v in b.items() if k not in ("grad_cosine", "seconds")
        }


def test_a_run_folder_is_refused_when_it_does_not_match_or_already_holds_a_run(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(RunSetupError, match="no checkpoint in"):
        train(out=out, resume=True, progress=False)
    train(small_config(steps=500), out=out, progress=False)
    with pytest.raises(RunSetupError, match="already holds a run"):
        train(small_config(steps=500), out=out, progress=False)
    with pytest.raises(RunSetupError, match="keeps its own hidden"):
        train(small_config(steps=900, hidden=(16,)), out=out, resume=True, progress=False)
    checkpoint = next(out.glob("checkpoint-*.pt"))
    checkpoint.write_bytes(b"not a checkpoint")
    with pytest.raises(RunSetupError, match="does not match the SHA-256 digest"):
        train(out=out, resume=True, progress=False)


def test_a_folder_of_the_old_self_play_recipe_is_named_and_never_loaded(tmp_path):
    (tmp_path / "state.json").write_text("{}")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(RunSetupError, match="a run of an older layout: it resumes with the trainer of commit 5a46385"):
        train(out=tmp_path, resume=True, progress=False)
    with pytest.raises(RunSetupError, match="already holds a run"):
        train(small_config(steps=1), out=tmp_path, progress=False)


def test_the_pools_fixed_bots_take_their_seats_and_the_learner_keeps_one_seat_a_game(tmp_path):
    pool = {"p_heuristic": 0.5, "p_random": 0.25, "self_share": 1.0}
    config = TrainingConfig(backend="native", envs=40, hidden=(16,), batch_size=512, eval_games=4, pool=pool)
    result = train(replace(config, players=(3,), steps=1, every_seat=False), out=tmp_path / "r", progress=False)
    shares = result.opponent_seat_shares
    assert set(shares) == {"heuristic", "random", "self"} and sum(shares.values()) == pytest.approx(1)
    assert abs(shares["heuristic"] - 0.5) < 0.2 and abs(shares["random"] - 0.25) < 0.2


def test_a_native_warm_start_fits_the_policy_to_the_teachers_games(tmp_path, capsys):
    train(replace(small_config(steps=1), imitate_games=0), out=tmp_path / "none", progress=False)
    config = TrainingConfig(backend="native", envs=8, hidden=(32,), batch_size=512, eval_games=4, imitate_games=6)
    train(replace(config, steps=1), out=tmp_path / "warm", progress=False)
    printed = capsys.readouterr().out
    assert "imitated" in printed and "heuristic-tuned decisions from 6 games" in printed


@pytest.mark.parametrize(
    ("bad", "refused"),
    [
        (dict(players=(1,)), "players"),
        (dict(envs=0), "envs"),
        (dict(eval_opponents=("ppo-9p",)), "eval_opponents"),
        (dict(pool={"self_share": 1.5}), "self_share"),
        (dict(native={"clip": 1.5}), "clip"),
    ],
)
def test_bad_settings_are_one_line_errors(bad, refused):
    with pytest.raises(ConfigError, match=refused) as error:
        TrainingConfig(backend="native", **bad)
    assert "\n" not in str(error.value)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["players", "envs", "seed", "native", "every_seat", "skip_forced", "luck_returns", "luck_worlds", "x"]
        ),
        json_values,
    ),
    st.dictionaries(
        st.sampled_from(["clip", "max_grad_norm", "agreement_every", "value_coef", "normalize_values", "y"]),
        json_values,
    ),
)
def test_a_native_run_file_from_a_stranger_is_a_config_or_a_one_line_error(top, native):
    data = TrainingConfig(backend="native").to_json()
    data["native"].update(native)
    data.update(top)
    try:
        config = TrainingConfig.from_json(json.loads(json.dumps(data)))
    except ConfigError as error:
        assert "\n" not in str(error)
    else:
        assert config.backend == "native" and isinstance(config.native, NativeSettings)


class Killed(BaseException):
    """A simulated kill: not an Exception, so nothing on the way catches it."""


@pytest.mark.parametrize("point", ["checkpoint-file", "run-json"])
def test_a_native_run_killed_at_a_commit_resumes_to_the_run_it_would_have_been(tmp_path, monkeypatch, point):
    import agents.training.core.runs as runs

    whole = train(small_config(steps=4000, checkpoint_every=1500), out=tmp_path / "whole", progress=False)

    def crash(name: str, timesteps: int) -> None:
        if name == point and timesteps >= 3000:  # the second commit: the first one is there to resume from
            raise Killed

    monkeypatch.setattr(runs, "crash_point", crash)
    with pytest.raises(Killed):
        train(small_config(steps=4000, checkpoint_every=1500), out=tmp_path / "cut", progress=False)
    monkeypatch.undo()
    resumed = train(small_config(steps=4000, checkpoint_every=1500), out=tmp_path / "cut", resume=True, progress=False)
    assert resumed.timesteps == whole.timesteps
    assert (tmp_path / "cut" / "policy.npz").read_bytes() == (tmp_path / "whole" / "policy.npz").read_bytes()
    state = json.loads((tmp_path / "cut" / "run.json").read_text())
    assert [p.name for p in (tmp_path / "cut").glob("checkpoint*")] == [state["checkpoint"]]
    rows = read_rows(tmp_path / "cut" / "eval.csv")
    keys = [(r["timesteps"], r["opponent"]) for r in rows]
    assert len(keys) == len(set(keys)) and keys == [
        (r["timesteps"], r["opponent"]) for r in read_rows(tmp_path / "whole" / "eval.csv")
    ]
