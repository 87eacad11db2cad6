"""D+ODMC (Luo & Tan 2024, section 4.3 and Table 4): DouZero's DMC with Minimum Combination Search pruning.

The actor scores and picks only the legal moves kept by eq. 2 (K_i <= K_min + N/n + d); everything else is DouZero's
DMC. A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/odmc_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (e.g. ``--prune-slack 3`` for a fixed slack).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--prune", "mcs", "--out", "runs/odmc_doudizhu",
                   *sys.argv[1:]]))
