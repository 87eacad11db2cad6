"""Does the opponent model learn? A short CPU run with an opponent model, then its predictions on held-out deals
against the baselines it must beat (issue: opponent models; Luo & Tan 2024, Sec. 4.2; DouZero+, Sec. IV-A).

For Luo & Tan's model: the hidden-card log-loss and accuracy against a prior that knows the unseen cards and how many
each player holds (hypergeometric; what a player can know without modelling play), the log-loss of a weaker prior that
knows only how many cards each player holds, and the K accuracy against always guessing the most frequent K; for
DouZero+'s: the per-rank count accuracy and log-loss against the same prior. Prints one JSON line per checkpoint.

    python experiments/om_learning.py --game big2 --frames 300000
    python experiments/om_learning.py --game doudizhu --features unified --frames 300000
    python experiments/om_learning.py --game doudizhu --opponent-model douzero_plus --frames 300000
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def run(game: str, opponent_model: str, frames: int, features: str | None, report_every: int, deals: int,
        seed: int, frames_per_update: int | None = None) -> list[dict]:
    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.algorithms.dmc.opponent_model import heldout_report
    from cardrl.ray_start import start_ray

    env = {"features": features} if features else {}
    options = {"match": False} if game == "guandan" else {}
    start_ray(2)
    config = (DMCConfig().game(game, **env, **options).env_runners(num_env_runners=1)
              .training(opponent_model=opponent_model,
                        **({"frames_per_update": frames_per_update} if frames_per_update else {}))
              .debugging(seed=seed))
    algo = config.build_algo()
    out, start, trained, next_report = [], time.time(), 0, 0
    try:
        while True:
            if trained >= next_report:
                report = heldout_report(algo.q_modules(), game, deals=deals, options=options, features=features)
                report.update(game=game, opponent_model=opponent_model, frames_trained=trained,
                              minutes=round((time.time() - start) / 60, 1))
                print(json.dumps(report), flush=True)
                out.append(report)
                next_report += report_every
            if trained >= frames:
                return out
            trained = int(algo.train()["frames_trained"])
    finally:
        algo.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="big2")
    parser.add_argument("--opponent-model", default="luo_tan", choices=["luo_tan", "douzero_plus"])
    parser.add_argument("--features", default=None)
    parser.add_argument("--frames", type=int, default=300_000)
    parser.add_argument("--report-every", type=int, default=100_000)
    parser.add_argument("--deals", type=int, default=50, help="held-out deals per report")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--frames-per-update", type=int, default=None,
                        help="frames per learner update (default DMC's, as DouZero: 3,200); fewer gives the model more "
                             "updates per frame in a short run")
    args = parser.parse_args(argv)
    run(args.game, args.opponent_model, args.frames, args.features, args.report_every, args.deals, args.seed,
        args.frames_per_update)
    return 0


if __name__ == "__main__":
    sys.exit(main())
