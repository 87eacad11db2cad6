"""DouZero+ with its opponent model and its coach network together (Zhao et al. 2022, Sec. V-D, Fig. 8).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/om_coach_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--opponent-model", "douzero_plus", "--coach", "--out",
                   "runs/om_coach_doudizhu", *sys.argv[1:]]))
