"""B+OMODMC (Luo & Tan 2024, Table 5): B+OM with ODMC's Minimum Combination Search pruning (eq. 2).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/omodmc_big2.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "big2", "--algo", "dmc", "--opponent-model", "luo_tan", "--prune", "mcs", "--out",
                   "runs/omodmc_big2", *sys.argv[1:]]))
