"""Oracle guiding's schedule length swept (OADMCDou, Luo et al. 2024, eq. 1): lambda from 1 to 0 over 1M, 5M or
20M frames trained, lengths for a short budget (the paper's is 20 days at 100,236,906 pairs a day, about 2.0e9:
``OADMCDOU_ORACLE_FRAMES`` in cardrl.algorithms.dmc.schedules).

A thin entry point over ``cardrl tune doudizhu --space experiments/spaces/oracle_length.json`` (docs/tune.md): every
option of ``cardrl tune`` is accepted and wins over the defaults here. Locally (a 2-core machine: two trials at
once, sampling in each trial's process) and on a cluster:

    python experiments/tune_oracle_length.py --stop-time 20m --eval-every 2m --num-env-runners 0
    ray job submit --address http://HEAD:8265 --working-dir experiments -- python tune_oracle_length.py --stop-time 2h \\
        --eval-every 10m --num-env-runners 8 --metric-against rule

The table, ``results.json``/``results.csv``, ``adp_vs_swept.png`` and the best trial's checkpoint land in
``runs/tune_oracle_length``.
"""

from pathlib import Path

from cardrl.algorithms.dmc.tune import run_space

if __name__ == "__main__":
    raise SystemExit(run_space("doudizhu", Path(__file__).resolve().parent / "spaces" / "oracle_length.json",
                               "runs/tune_oracle_length"))
