"""Learning check (slow): a short CPU run of DMC beats the random agent with a 95% interval above zero."""

import json
import os
import time

import pytest

from cardrl.algorithms.dmc.agent import evaluate_vs_random
from cardrl.algorithms.dmc.dmc import DMCConfig

FRAMES = int(os.environ.get("CARDRL_LEARNING_FRAMES", 900_000))


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_short_dmc_run_beats_random(ray_local, tmp_path):
    config = (DMCConfig().game("doudizhu")
              .env_runners(num_env_runners=1, num_envs_per_env_runner=64)
              .debugging(seed=0))
    algo = config.build_algo()
    start = time.time()
    try:
        frames = 0
        while frames < FRAMES:
            frames = algo.train()["frames_trained"]
        seconds = time.time() - start
        result = evaluate_vs_random(algo.q_modules(), deals=1000, seed=12345)
    finally:
        algo.stop()
    print(json.dumps({"frames": frames, "train_seconds": round(seconds, 1), **result}))
    # Both sides beat random: the trained landlord scores more than a random landlord does against random
    # peasants (about -0.44 per side), and the duplicate ADP's interval lies above zero.
    assert result["adp_low"] > 0, result
    assert result["landlord"] > -0.2 and result["peasants"] > 0.6, result
