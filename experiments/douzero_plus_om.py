"""DouZero+ with its opponent model (Zhao et al. 2022, Sec. IV-A, Fig. 6): DouZero's network reads the predicted
next player's cards per rank.

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/douzero_plus_om.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--opponent-model", "douzero_plus", "--out",
                   "runs/douzero_plus_om", *sys.argv[1:]]))
