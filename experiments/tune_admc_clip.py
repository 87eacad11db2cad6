"""ADMC's clip range swept (OADMCDou, Luo et al. 2024, eq. 2-5; DanZero's 'range of clip Q' is 0.65): DMC with
``q_clip='admc'`` and ``admc_gamma`` 0.1, 0.2, 0.35, 0.65.

A thin entry point over ``cardrl tune doudizhu --space experiments/spaces/admc_clip.json`` (docs/tune.md): every
option of ``cardrl tune`` is accepted and wins over the defaults here. Locally (a 2-core machine: two trials at
once, sampling in each trial's process) and on a cluster:

    python experiments/tune_admc_clip.py --stop-time 20m --eval-every 2m --num-env-runners 0
    ray job submit --address http://HEAD:8265 --working-dir experiments -- python tune_admc_clip.py --stop-time 2h \\
        --eval-every 10m --num-env-runners 8 --metric-against rule

The table, ``results.json``/``results.csv``, ``adp_vs_swept.png`` and the best trial's checkpoint land in
``runs/tune_admc_clip``.
"""

from pathlib import Path

from cardrl.algorithms.dmc.tune import run_space

if __name__ == "__main__":
    raise SystemExit(run_space("doudizhu", Path(__file__).resolve().parent / "spaces" / "admc_clip.json",
                               "runs/tune_admc_clip"))
