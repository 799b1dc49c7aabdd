"""A Gymnasium vector env of Gubs self-play on the compiled engine: ``num_envs`` games, one learner in each.

>>> import gymnasium as gym
>>> import gubs_env  # registers Gubs-v0
>>> envs = gym.make_vec("Gubs-v0", num_envs=4, vectorization_mode="vector_entry_point", num_players=[2, 3])
>>> obs, info = envs.reset(seed=0)
>>> obs.shape, info["action_mask"].shape
((4, 512), (4, 356))
>>> obs, reward, terminated, truncated, info = envs.step(info["action_mask"].argmax(axis=1))

Each game is what one :class:`~gubs_env.envs.selfplay.SelfPlayEnv` plays: a learner at one seat (drawn at every
episode, or fixed), opponents at the others, and a step that plays the opponents until the learner decides again.
The games are the rows of one :class:`~gubs_env.fast.FastGames` batch, driven by the compiled self-play loop
(:mod:`gubs_env.fast.selfplay`): forced moves, random opponents and new episodes are played inside compiled code,
and Python is asked only for the opponents that live there, each once per round for all the games waiting on it.

**Opponents.** ``opponents="random"`` (uniform over the legal ids, compiled, each opponent seeded per episode from
the episode's generator exactly as ``SelfPlayEnv`` seeds its ``RandomOpponent``), or a *batched opponent*: any
callable ``opponent(observations, masks) -> ids`` taking float32 ``(k, 512)`` observations and int8 ``(k, 356)``
masks of the ``k`` games waiting on it and returning ``k`` legal ids. An opponent that keeps state per game or
seat may instead define ``act_batch(observations, masks, games, slots)``, which is called in its place with the
games' indices and their opponent slots (slot ``j`` sits ``j + 1`` seats clockwise from the learner).
``pick_opponents(game, num_players)``, when given, is called at the start of every episode of every game and
returns that episode's ``num_players - 1`` opponents, clockwise from the learner (``"random"`` or batched
opponents): opponent pools and snapshots plug in there (``agents/training/sb3/fast_vec_env.py`` does). A decision with
a single legal id is played for an opponent without asking it, as ``SelfPlayEnv`` does.

**The action mask** comes in ``info["action_mask"]`` (``(num_envs, 356)``, bool by default, int8 with
``mask_dtype="int8"``, which AgileRL's DQN needs) from ``reset`` and every ``step``, and from
:meth:`GubsVectorEnv.action_masks`; the observation is the plain 512-vector.

**Autoreset.** ``autoreset_mode`` is ``AutoresetMode.NEXT_STEP`` (Gymnasium's default) or ``SAME_STEP``;
``DISABLED`` is not supported. NEXT_STEP: the step that ends an episode returns its last observation, and the next
step starts the next episode (that game's action is ignored, its reward is 0 and its flags False); in between the
game's mask allows every id. SAME_STEP: the step that ends an episode returns the next episode's first
observation; the last one is in ``info["final_obs"]`` and the end's details in ``info["final_info"]``.

**Rewards and infos** are ``SelfPlayEnv``'s: 0 until the end, then +1 for a win and -1 for a loss, 0 on a
truncation. ``info["learner_seat"]``; at an episode's end ``scores`` (int ``(num_envs, 6)``), ``winners`` (bool
``(num_envs, 6)``) and ``learner_seat`` (the ended episode's), with Gymnasium's ``_name`` masks (under
``final_info`` in SAME_STEP).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gubs_env.encoding.action_table import NUM_ACTIONS
from gubs_env.encoding.observation import OBS_SIZE
from gubs_env.engine import IllegalActionError
from gubs_env.engine.cards import MAX_PLAYERS
from gubs_env.engine.players import TableSizes
from gubs_env.engine.positions.serialize import brief
from gubs_env.envs import masks
from gubs_env.fast import SelfPlayTables
from gubs_env.fast.selfplay import CALLER_SEAT, RANDOM_SEAT, WAITS_EPISODE, WAITS_OPPONENT, SelfPlayLoop

RANDOM = "random"
"""The compiled uniformly random opponent."""

BatchOpponent = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``(observations[k, 512], masks[k, 356]) -> ids[k]``: one legal id per game waiting on this opponent."""
Opponent = str | BatchOpponent
"""``"random"`` or a batched opponent."""
OpponentPicker = Callable[[int, int], Sequence[Opponent]]
"""``(game, num_players) -> the episode's num_players - 1 opponents``, clockwise from the learner."""

_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
_SEED_BOUND = 2**31


class GubsVectorEnv(VectorEnv):
    """``num_envs`` self-play games of Gubs, one learner each, stepped together on the compiled engine.

    Args:
        num_envs: how many games.
        num_players: one table size (2 to 6) for every game, or a list of sizes (or a
            :class:`~gubs_env.engine.players.TableSizes`) that cycles over the games (game ``i`` plays
            ``num_players[i % len(num_players)]``).
        opponents: ``"random"`` or one batched opponent for every opponent seat (see the module's docstring).
        pick_opponents: ``None``, or a callable choosing each episode's opponents (then ``opponents`` is unused).
        learner_seat: a seat for the learner in every episode (below every table size), or ``None`` to draw it at
            each episode, as ``SelfPlayEnv`` does.
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (the default) or ``SAME_STEP`` (or their values as strings).
        on_illegal: what a learner's id that is in the action space but not legal does: ``"lose"`` (the default
            of every env of the project: that episode ends with reward -1 and ``info["illegal_action"]``, as in
            ``SelfPlayEnv`` and the PettingZoo env) or ``"raise"`` (the engine's ``IllegalActionError``, nothing
            changes).
        threads: threads of the compiled loop (results never depend on it).
        mask_dtype: the dtype of the learners' masks: ``"bool"`` (the default, as Gymnasium and sb3-contrib
            use) or ``"int8"`` (AgileRL's DQN computes ``1 - mask``, which a bool tensor refuses).
        **rule_options: engine rule options for every game.

    Raises:
        ValueError: a bad count, table size, opponent, seat, mode or rule option.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 8,
        num_players: int | Sequence[int] | TableSizes = 2,
        opponents: Opponent = RANDOM,
        pick_opponents: OpponentPicker | None = None,
        learner_seat: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        on_illegal: str = "lose",
        threads: int = 1,
        mask_dtype: str = "bool",
        **rule_options: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, not {brief(num_envs)}")
        sizes = TableSizes.of(num_players)
        mode = _mode(autoreset_mode)
        if type(on_illegal) is not str or on_illegal not in ("lose", "raise"):
            raise ValueError(f"on_illegal must be 'raise' or 'lose', not {brief(on_illegal)}")
        if not (opponents == RANDOM if isinstance(opponents, str) else _batched(opponents)):
            raise ValueError(f"opponents must be 'random' or a batched opponent (a callable), not {brief(opponents)}")
        if pick_opponents is not None and not callable(pick_opponents):
            raise ValueError(f"pick_opponents must be None or a callable, not {brief(pick_opponents)}")
        if learner_seat is not None and (
            isinstance(learner_seat, bool) or not isinstance(learner_seat, int) or not 0 <= learner_seat < min(sizes)
        ):
            raise ValueError(f"learner_seat must be None or a seat of every table, not {brief(learner_seat)}")
        self.mask_dtype = masks.mask_dtype(mask_dtype)
        """The numpy dtype of the learners' masks."""
        self.num_envs = num_envs
        self.core = SelfPlayTables(num_envs, sizes, threads=threads, rule_options=rule_options)
        """The self-play core whose games these are: each game's table size, stream of games, seat and deal."""
        self.num_players = self.core.players
        self.games = self.core.games
        self.loop = SelfPlayLoop(self.core)
        self.loop.fixed_seat.fill(-1 if learner_seat is None else learner_seat)
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.on_illegal = on_illegal
        self.render_mode = None
        self.single_observation_space = spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._same_step = mode == AutoresetMode.SAME_STEP
        self._picker = pick_opponents
        self._callers: list[BatchOpponent] = []
        self._caller_index: dict[int, int] = {}
        """Every batched opponent in play, by ``id``: what ``_caller_of`` indexes (the list keeps them alive)."""
        self._caller_of = np.zeros((num_envs, MAX_PLAYERS - 1), dtype=np.int64)
        if pick_opponents is None and not isinstance(opponents, str):
            self.loop.kinds.fill(CALLER_SEAT)
            self._caller_of.fill(self._index_of(opponents))
        self._random_seeds = np.random.default_rng()
        """Seeds of the random opponents ``pick_opponents`` chooses (reseeded by ``reset(seed=...)``)."""
        self._masks = np.zeros((num_envs, NUM_ACTIONS), dtype=bool)
        self._awaiting = np.zeros(num_envs, dtype=bool)
        """NEXT_STEP: the games whose episode ended at the last step, to start at the next."""
        self._actions = np.full(num_envs, -1, dtype=np.int64)
        self._starts = np.zeros(num_envs, dtype=np.int8)
        self._started = False

    # --- the VectorEnv interface -------------------------------------------------------------------

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode in every game.

        Args:
            seed: ``None`` (go on with the games' generators; the first reset seeds them from the OS), an int
                (game ``i`` is seeded with ``seed + i``, as Gymnasium's vector envs do), or one int per game.
                Game ``i`` seeded with ``s`` plays what ``SelfPlayEnv.reset(seed=s)`` plays.
            options: unused.

        Raises:
            ValueError: a bad seed; nothing changes.
        """
        seeds = self._seeds(seed)
        self._started = True
        rows = np.arange(self.num_envs)
        if seeds is not None:
            self.core.seed_streams(rows, seeds)
            self._random_seeds = np.random.default_rng([int(seeds[0]), 3])
        self._awaiting.fill(False)
        self.loop.clear_ends()
        self._actions.fill(-1)
        self._starts.fill(1)
        self._assign_opponents(rows)
        self._play()
        return self.games.obs.copy(), {"learner_seat": self.loop.learner.copy(), "action_mask": self._mask_copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply each game's learner action, play its opponents until the learner decides again (or it ends).

        Args:
            actions: ``num_envs`` integer ids of the action space (a numpy array of an integer dtype, or a list).

        Raises:
            RuntimeError: before the first ``reset``.
            ValueError: ``actions`` is not ``num_envs`` integer ids from 0 to 355; nothing changes.
            IllegalActionError: (a ``ValueError``) with ``on_illegal="raise"``, an id that is not legal now; the
                message names the first such game; nothing changes.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        ids = self._checked(actions)
        resetting = self._awaiting.copy()
        ids[resetting] = -1  # NEXT_STEP: these games start their next episode; their action is ignored
        illegal = self.loop.illegal(np.maximum(ids, 0), resetting)
        if illegal.any() and self.on_illegal == "raise":
            self.games.step(ids)  # raises the engine's error naming the first game; nothing changes
            raise IllegalActionError("an action is not legal")  # not reached: the check above raises
        self.loop.clear_ends()
        if illegal.any():
            self._lose(illegal)
            ids[illegal] = -1
        restart = resetting | (illegal & self._same_step)
        self._actions[:] = ids
        self._starts[:] = restart
        self._assign_opponents(np.flatnonzero(restart))
        self._play()
        return self._results(illegal)

    def action_masks(self) -> np.ndarray:
        """The learners' legal ids as ``(num_envs, 356)`` of ``mask_dtype`` (the last ``info["action_mask"]``)."""
        return self._mask_copy()

    @property
    def learner_seat(self) -> np.ndarray:
        """Per game, the learner's seat in its current episode (int64, read it, do not write it)."""
        return self.loop.learner

    # --- playing ----------------------------------------------------------------------------------

    def _play(self) -> None:
        """Run the compiled loop, asking the Python-side opponents between runs, until every game waits."""
        loop, actions, starts = self.loop, self._actions, self._starts
        autoreset = self._same_step and self._picker is None
        while True:
            loop.run(actions, starts, seed_randoms=self._picker is None, autoreset=autoreset)
            asked = np.flatnonzero(loop.status == WAITS_OPPONENT)
            fresh = np.flatnonzero(loop.status == WAITS_EPISODE) if self._same_step else asked[:0]
            if not asked.size and not fresh.size:
                break
            actions.fill(-1)
            starts.fill(0)
            if asked.size:
                self._ask(asked)
            if fresh.size:
                self._assign_opponents(fresh)
                starts[fresh] = 1
        np.not_equal(self.games.mask, 0, out=self._masks)

    def _ask(self, rows: np.ndarray) -> None:
        """Each batched opponent once, for all the games in ``rows`` waiting on it; their ids into ``_actions``."""
        slots = self.loop.waiting_slot[rows]
        callers = self._caller_of[rows, slots]
        first = callers[0]
        groups = [first] if (callers == first).all() else np.unique(callers).tolist()
        for index in groups:
            members = rows if len(groups) == 1 else rows[callers == index]
            opponent = self._callers[int(index)]
            observations, masks = self.games.obs[members], self.games.mask[members]
            if hasattr(opponent, "act_batch"):
                chosen = opponent.act_batch(observations, masks, members, self.loop.waiting_slot[members])
            else:
                chosen = opponent(observations, masks)
            self._actions[members] = _checked_choice(chosen, masks, opponent)

    def _assign_opponents(self, rows: np.ndarray) -> None:
        """With ``pick_opponents``: the next episode's opponents of the games in ``rows``."""
        if self._picker is None:
            return
        for i in rows.tolist():
            wanted = int(self.num_players[i]) - 1
            chosen = list(self._picker(i, wanted + 1))
            if len(chosen) != wanted:
                raise ValueError(f"pick_opponents gave {len(chosen)} opponents for game {i}, which needs {wanted}")
            for slot, opponent in enumerate(chosen):
                if isinstance(opponent, str) and opponent == RANDOM:
                    self.loop.kinds[i, slot] = RANDOM_SEAT
                    self.loop.seed_opponent(i, slot, int(self._random_seeds.integers(_SEED_BOUND)))
                elif _batched(opponent):
                    self.loop.kinds[i, slot] = CALLER_SEAT
                    self._caller_of[i, slot] = self._index_of(opponent)
                else:
                    raise ValueError(
                        f"pick_opponents gave {brief(opponent)}: an opponent is 'random' or a batched opponent"
                    )

    def _index_of(self, opponent: Any) -> int:
        """The index of a batched opponent in ``_callers`` (added when new; those no game plays are let go)."""
        index = self._caller_index.get(id(opponent))
        if index is not None:
            return index
        if len(self._callers) >= 64 + self.num_envs * (MAX_PLAYERS - 1):
            self._forget_unused_callers()
        self._caller_index[id(opponent)] = len(self._callers)
        self._callers.append(opponent)
        return len(self._callers) - 1

    def _forget_unused_callers(self) -> None:
        """Keep only the batched opponents some game's seat still plays (snapshots come and go in a long run)."""
        seats = np.arange(MAX_PLAYERS - 1) < (self.num_players[:, None] - 1)
        used = sorted(set(self._caller_of[seats & (self.loop.kinds == CALLER_SEAT)].tolist()))
        renumber = np.zeros(len(self._callers), dtype=np.int64)
        renumber[used] = np.arange(len(used))
        self._callers = [self._callers[k] for k in used]
        self._caller_index = {id(c): k for k, c in enumerate(self._callers)}
        self._caller_of = renumber[self._caller_of]

    # --- results ----------------------------------------------------------------------------------

    def _lose(self, illegal: np.ndarray) -> None:
        """``on_illegal="lose"``: the games in ``illegal`` end now, lost, seen as they are."""
        loop, rows = self.loop, np.flatnonzero(illegal)
        loop.ended[rows] = True
        loop.reward[rows] = -1.0
        loop.terminated[rows] = True
        loop.final_obs[rows] = self.games.obs[rows]
        loop.final_scores[rows] = self.games.scores(rows)[rows]
        loop.final_winners[rows] = False
        loop.final_learner[rows] = loop.learner[rows]

    def _results(self, illegal: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        loop = self.loop
        ended = loop.ended.copy()
        observations = self.games.obs.copy()
        if not self._same_step:
            self._awaiting[:] = ended
            observations[ended] = loop.final_obs[ended]
        infos: dict[str, Any] = {"learner_seat": loop.learner.copy(), "action_mask": self._mask_copy()}
        if ended.any():
            final = {
                "scores": loop.final_scores.copy(),
                "winners": loop.final_winners.copy(),
                "learner_seat": loop.final_learner.copy(),
            }
            if illegal.any():
                final["illegal_action"] = illegal
            final.update({"_" + key: ended for key in list(final)})
            if self._same_step:
                infos.update(final_obs=loop.final_obs.copy(), _final_obs=ended, final_info=final, _final_info=ended)
            else:
                infos.update(final)
        return observations, loop.reward.copy(), loop.terminated.copy(), loop.truncated.copy(), infos

    def _mask_copy(self) -> np.ndarray:
        learners = self._masks.astype(self.mask_dtype)  # a copy, in the dtype asked for
        learners[self._awaiting] = True  # NEXT_STEP: the ignored action of a game about to start again
        return learners

    # --- checks -----------------------------------------------------------------------------------

    def _checked(self, actions: Any) -> np.ndarray:
        """The learners' actions as a new int64 array of ids of the action space, or a ValueError."""
        array = actions if isinstance(actions, np.ndarray) else np.asarray(actions) if _listlike(actions) else None
        if array is None or array.shape != (self.num_envs,) or array.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} integer ids, not {brief(actions)}")
        if ((array < 0) | (array >= NUM_ACTIONS)).any():
            raise ValueError(f"an action is an int id from 0 to {NUM_ACTIONS - 1}")
        return array.astype(np.int64)

    def _seeds(self, seed: Any) -> np.ndarray | None:
        """``reset``'s seed as one uint64 seed per game, or None."""
        if seed is None:
            return None
        if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 and seed + self.num_envs <= 2**64:
            return np.arange(seed, seed + self.num_envs, dtype=np.uint64)
        values = list(seed) if isinstance(seed, (list, tuple, np.ndarray)) else None
        if (
            values is None
            or len(values) != self.num_envs
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 2**64 for v in values)
        ):
            raise ValueError(f"seed must be None, an int >= 0 or {self.num_envs} ints >= 0, not {brief(seed)}")
        return np.array([int(v) for v in values], dtype=np.uint64)


def _batched(value: Any) -> bool:
    """Whether ``value`` can be asked as a batched opponent (a callable, or an object with ``act_batch``)."""
    return callable(value) or callable(getattr(value, "act_batch", None))


def _listlike(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _mode(value: Any) -> AutoresetMode:
    """An autoreset mode this env supports, from the enum or its string value."""
    for mode in _MODES:
        if value is mode or (type(value) is str and value == mode.value):
            return mode
    raise ValueError(f"autoreset_mode must be AutoresetMode.NEXT_STEP or SAME_STEP, not {brief(value)}")


def _checked_choice(chosen: Any, masks: np.ndarray, opponent: Any) -> np.ndarray:
    """An opponent's ids, checked: one legal id per game it was asked for (the compiled loop trusts them)."""
    ids = np.asarray(chosen)
    k = masks.shape[0]
    if ids.shape != (k,) or ids.dtype.kind not in "iu" or ((ids < 0) | (ids >= NUM_ACTIONS)).any():
        raise ValueError(f"the opponent {brief(opponent)} must return {k} integer ids, not {brief(chosen)}")
    ids = ids.astype(np.int64)
    if not masks[np.arange(k), ids].all():
        raise ValueError(f"the opponent {brief(opponent)} chose an id that is not legal")
    return ids
