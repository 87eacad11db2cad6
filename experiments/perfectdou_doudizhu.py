"""PerfectDou (OADMCDou's ablation, Luo et al. 2024, Sec. 5.2, Fig. 4a): oracle guiding with lambda fixed at 1 (the
other players' hands always in the Q input).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/perfectdou_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--oracle", "1:1:1", "--out", "runs/perfectdou_doudizhu",
                   *sys.argv[1:]]))
