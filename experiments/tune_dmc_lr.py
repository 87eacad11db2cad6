"""DMC's learning rate and exploration on a grid (DouZero: lr 1e-4, epsilon 0.01; DanZero: lr 1e-3).

A thin entry point over ``cardrl tune doudizhu --space experiments/spaces/lr.json`` (docs/tune.md): every
option of ``cardrl tune`` is accepted and wins over the defaults here. Locally (a 2-core machine: two trials at
once, sampling in each trial's process) and on a cluster:

    python experiments/tune_dmc_lr.py --stop-time 20m --eval-every 2m --num-env-runners 0
    ray job submit --address http://HEAD:8265 --working-dir experiments -- python tune_dmc_lr.py --stop-time 2h \\
        --eval-every 10m --num-env-runners 8 --metric-against rule

The table, ``results.json``/``results.csv``, ``adp_vs_swept.png`` and the best trial's checkpoint land in
``runs/tune_dmc_lr``.
"""

from pathlib import Path

from cardrl.algorithms.dmc.tune import run_space

if __name__ == "__main__":
    raise SystemExit(run_space("doudizhu", Path(__file__).resolve().parent / "spaces" / "lr.json",
                               "runs/tune_dmc_lr"))
