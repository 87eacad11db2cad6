"""ODMC's pruning slack swept (Luo & Tan 2024, eq. 2 and Tables 6-7: the slack N/n + d trades pruned moves
against kept good ones): D+ODMC with ``prune_extra`` 0, 1, 2, 3 added to the paper's slack.

A thin entry point over ``cardrl tune doudizhu --space experiments/spaces/odmc_slack.json`` (docs/tune.md): every
option of ``cardrl tune`` is accepted and wins over the defaults here. Locally (a 2-core machine: two trials at
once, sampling in each trial's process) and on a cluster:

    python experiments/tune_odmc_slack.py --stop-time 20m --eval-every 2m --num-env-runners 0
    ray job submit --address http://HEAD:8265 --working-dir experiments -- python tune_odmc_slack.py --stop-time 2h \\
        --eval-every 10m --num-env-runners 8 --metric-against rule

The table, ``results.json``/``results.csv``, ``adp_vs_swept.png`` and the best trial's checkpoint land in
``runs/tune_odmc_slack``.
"""

from pathlib import Path

from cardrl.algorithms.dmc.tune import run_space

if __name__ == "__main__":
    raise SystemExit(run_space("doudizhu", Path(__file__).resolve().parent / "spaces" / "odmc_slack.json",
                               "runs/tune_odmc_slack"))
