"""DouZero+ with its coach network (Zhao et al. 2022, Sec. IV-B, V-C, Fig. 7): deals dealt again when the coach
predicts a side wins with probability above 1 - beta (beta 0 .. 0.30 by learner step).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/coach_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--coach", "--out", "runs/coach_doudizhu", *sys.argv[1:]]))
