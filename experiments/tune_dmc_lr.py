"""A Ray Tune sweep over DMC's learning rate and exploration (DouZero defaults: lr 1e-4, epsilon 0.01).

    python experiments/tune_dmc_lr.py --frames 2000000 --num-env-runners 4
    ray job submit --address http://HEAD:8265 -- python experiments/tune_dmc_lr.py --frames 50000000 \\
        --num-env-runners 40

Each trial is one DMC Algorithm (a Tune Trainable); results land in Tune's storage (``--storage``) with RLlib's
metrics (``frames_trained``, ``learners/<seat>/q_loss``, ``env_runners/mean_return/<seat>``, ``weight_lag``).
"""

from __future__ import annotations

import argparse
import os


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2_000_000, help="frames trained per trial")
    parser.add_argument("--num-env-runners", type=int, default=1)
    parser.add_argument("--num-envs-per-env-runner", type=int, default=64)
    parser.add_argument("--frames-per-update", type=int, default=3200)
    parser.add_argument("--lr", type=float, nargs="+", default=[1e-4, 3e-4, 1e-3])
    parser.add_argument("--epsilon", type=float, nargs="+", default=[0.01])
    parser.add_argument("--storage", default=os.path.abspath("runs/tune_dmc"))
    args = parser.parse_args(argv)

    import ray
    from ray import tune

    from cardrl.algorithms.dmc.dmc import DMC, DMCConfig

    if not ray.is_initialized():
        ray.init(address=os.environ.get("RAY_ADDRESS"))
    config = (DMCConfig().game("doudizhu")
              .env_runners(num_env_runners=args.num_env_runners,
                           num_envs_per_env_runner=args.num_envs_per_env_runner)
              .training(frames_per_update=args.frames_per_update,
                        lr=tune.grid_search(args.lr), epsilon=tune.grid_search(args.epsilon)))
    tuner = tune.Tuner(DMC, param_space=config,
                       run_config=tune.RunConfig(stop={"frames_trained": args.frames}, storage_path=args.storage))
    results = tuner.fit()
    for result in results:
        metrics = result.metrics or {}
        print(f"lr {result.config['lr']:g} epsilon {result.config['epsilon']:g}: "
              f"frames {metrics.get('frames_trained')}, losses "
              + ", ".join(f"{k} {v['q_loss']:.3f}" for k, v in sorted(metrics.get("learners", {}).items())
                          if isinstance(v, dict) and "q_loss" in v))
    return 0 if not results.errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
