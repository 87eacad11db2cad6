"""B+ODMC (Luo & Tan 2024, section 4.3 and Table 5): BigZero's DMC with Minimum Combination Search pruning.

The actor scores and picks only the legal moves kept by eq. 2 (K_i <= K_min + N/n + d, N = 13); one shared
network for the four seats. A `ray job submit` entry (embedded local Ray when none is found):

    ray job submit --address http://127.0.0.1:8265 -- python experiments/odmc_big2.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted.
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "big2", "--algo", "dmc", "--prune", "mcs", "--out", "runs/odmc_big2", *sys.argv[1:]]))
