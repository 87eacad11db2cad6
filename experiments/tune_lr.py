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

from __future__ import annotations

import sys
from pathlib import Path

from cardrl.cli import main as cardrl_main

SPACE = Path(__file__).resolve().parent / "spaces" / "lr_sampled.json"


def main(argv: list[str] | None = None) -> int:
    return cardrl_main(["tune", "doudizhu", "--space", str(SPACE), "--out", "runs/tune_lr",
                        *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
