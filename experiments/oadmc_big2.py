"""Oracle guiding and ADMC on Big2 (beyond the papers: OADMCDou's options with Luo & Tan's Big2 setting;
lambda falls over OADMCDou's DouDiZhu length, 2.0e9 frames: give ``--oracle 1:0:FRAMES`` for a shorter budget).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/oadmc_big2.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.algorithms.dmc.schedules import OADMCDOU_ORACLE
from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "big2", "--algo", "dmc", "--oracle", OADMCDOU_ORACLE, "--q-clip", "admc", "--out",
                   "runs/oadmc_big2", *sys.argv[1:]]))
