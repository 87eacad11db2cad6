"""OADMCDou (Luo et al. 2024, Table 1): oracle guiding (lambda 1 -> 0 over 1e9 frames, then 0; give --oracle
1:0:FRAMES for your budget) and ADMC (eq. 2-5).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/oadmcdou_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--oracle", "1:0:1000000000", "--q-clip", "admc", "--out",
                   "runs/oadmcdou_doudizhu", *sys.argv[1:]]))
