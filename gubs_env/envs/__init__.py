"""RL environments over the engine: PettingZoo AEC (``env``, ``raw_env``) and the encodings they use."""

from gubs_env.envs.action_table import NUM_ACTIONS, decode, encode
from gubs_env.envs.gubs_aec import env, raw_env
from gubs_env.envs.observation import LAYOUT, OBS_SIZE

__all__ = ["LAYOUT", "NUM_ACTIONS", "OBS_SIZE", "decode", "encode", "env", "raw_env"]
