"""The coach network on Big2 (beyond the papers: DouZero+'s deal filter, P(seat wins) over the four seats).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/coach_big2.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "big2", "--algo", "dmc", "--coach", "--out", "runs/coach_big2", *sys.argv[1:]]))
