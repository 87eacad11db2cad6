"""The coach's beta cap swept (DouZero+, Zhao et al. 2022, Sec. IV-B): DouZero+'s beta schedule stopped at 0.10,
0.20 or its own 0.30.

A thin entry point over ``cardrl tune doudizhu --space experiments/spaces/coach_beta.json`` (docs/tune.md): every
option of ``cardrl tune`` is accepted and wins over the defaults here. Locally (a 2-core machine: two trials at
once, sampling in each trial's process) and on a cluster:

    python experiments/tune_coach_beta.py --stop-time 20m --eval-every 2m --num-env-runners 0
    ray job submit --address http://HEAD:8265 --working-dir experiments -- python tune_coach_beta.py --stop-time 2h \\
        --eval-every 10m --num-env-runners 8 --metric-against rule

The table, ``results.json``/``results.csv``, ``adp_vs_swept.png`` and the best trial's checkpoint land in
``runs/tune_coach_beta``.
"""

from pathlib import Path

from cardrl.algorithms.dmc.tune import run_space

if __name__ == "__main__":
    raise SystemExit(run_space("doudizhu", Path(__file__).resolve().parent / "spaces" / "coach_beta.json",
                               "runs/tune_coach_beta"))
