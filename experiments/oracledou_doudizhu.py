"""OracleDou (OADMCDou's ablation, Luo et al. 2024, Sec. 5.2, Fig. 4a): oracle guiding, lambda linear from 1 to 0, then
0 (their first 20 of 30 days; here 1e9 frames: give --oracle 1:0:FRAMES for your budget).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/oracledou_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--oracle", "1:0:1000000000", "--out",
                   "runs/oracledou_doudizhu", *sys.argv[1:]]))
