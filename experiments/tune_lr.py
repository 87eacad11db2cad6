"""DMC's learning rate drawn log-uniformly in [1e-5, 1e-3] (DouZero: 1e-4; DanZero: 1e-3), six trials, ASHA
stopping the laggards.

A thin entry point over ``cardrl tune doudizhu --space experiments/spaces/lr_sampled.json`` (docs/tune.md): every
option of ``cardrl tune`` is accepted and wins over the defaults here. Locally (a 2-core machine: two trials at
once, sampling in each trial's process) and on a cluster:

    python experiments/tune_lr.py --stop-time 20m --eval-every 2m --num-env-runners 0
    ray job submit --address http://HEAD:8265 --working-dir experiments -- python tune_lr.py --stop-time 2h \\
        --eval-every 10m --num-env-runners 8 --metric-against rule

The table, ``results.json``/``results.csv``, ``adp_vs_swept.png`` and the best trial's checkpoint land in
``runs/tune_lr``.
"""

from pathlib import Path

from cardrl.algorithms.dmc.tune import run_space

if __name__ == "__main__":
    raise SystemExit(run_space("doudizhu", Path(__file__).resolve().parent / "spaces" / "lr_sampled.json",
                               "runs/tune_lr"))
