"""The small DMC configs the DMC tests build: DouDiZhu, one process unless runners are asked for, 8 games per
runner, 128 frames per update."""

from __future__ import annotations

from cardrl.algorithms.dmc.dmc import DMCConfig


def small_dmc_config(num_env_runners: int = 0, *, seed: int = 3, **training) -> DMCConfig:
    """A small DouDiZhu DMC config; ``training`` goes to ``.training`` (``frames_per_update`` 128 unless given)."""
    return (DMCConfig().game("doudizhu")
            .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=8, rollout_fragment_length=100)
            .training(**{"frames_per_update": 128, **training})
            .debugging(seed=seed))
