"""OracleDou (OADMCDou's ablation, Luo et al. 2024, Sec. 5.2, Fig. 4a): oracle guiding, lambda linear from 1 to 0, then
0 over their first 20 of 30 days: 20 x 100,236,906 state-action pairs a day = 2,004,738,120 frames
(``OADMCDOU_ORACLE_FRAMES`` in cardrl.algorithms.dmc.schedules); give ``--oracle 1:0:FRAMES`` for a shorter budget.

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/oracledou_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.algorithms.dmc.schedules import OADMCDOU_ORACLE
from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--oracle", OADMCDOU_ORACLE, "--out",
                   "runs/oracledou_doudizhu", *sys.argv[1:]]))
