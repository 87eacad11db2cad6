"""Learning check (slow): in a short CPU run of DMC with Luo & Tan's opponent model on Big2, the model learns.

On held-out deals (random play, seeds of their own) the hidden-card log-loss must fall clearly below that of a prior
that knows how many cards each other player holds (:func:`cardrl.features.labels.hand_size_prior`), and the K
accuracy must be clearly above always guessing the most frequent K. Training stops as soon as both hold, or at
``MAX_FRAMES``. Whether it comes near the stronger prior that also knows which cards are unseen is reported (printed),
not asserted: that takes longer runs (docs/papers.md, "does the opponent model learn?").
"""

import json
import os
import time

import pytest

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.opponent_model import heldout_report

MAX_FRAMES = int(os.environ.get("CARDRL_OM_LEARNING_MAX_FRAMES", 1_200_000))
CHECK_EVERY = 150_000
MARGIN = 0.02  # log-loss (nats per bit) and accuracy


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_the_opponent_model_learns_hidden_cards_and_k_in_a_short_run(ray_local):
    # more updates per frame than DouZero's 3,200 frames a batch, so the model gets enough updates in minutes
    config = (DMCConfig().game("big2").env_runners(num_env_runners=1)
              .training(opponent_model="luo_tan", frames_per_update=800).debugging(seed=0))
    algo = config.build_algo()
    start, frames, next_check, reports = time.time(), 0, CHECK_EVERY, []
    try:
        while frames < MAX_FRAMES:
            frames = int(algo.train()["frames_trained"])
            if frames < next_check:
                continue
            next_check += CHECK_EVERY
            report = heldout_report(algo.q_modules(), "big2", deals=30)
            reports.append({"frames": frames, "minutes": round((time.time() - start) / 60, 1),
                            **{k: round(v, 4) if isinstance(v, float) else v for k, v in report.items()}})
            print(json.dumps(reports[-1]), flush=True)
            if (report["card_logloss"] < report["hand_size_card_logloss"] - MARGIN
                    and report["k_accuracy"] > report["k_majority_accuracy"] + MARGIN):
                break
    finally:
        algo.stop()
    last = reports[-1]
    assert last["card_logloss"] < last["hand_size_card_logloss"] - MARGIN, reports
    assert last["k_accuracy"] > last["k_majority_accuracy"] + MARGIN, reports
