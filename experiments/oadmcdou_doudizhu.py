"""OADMCDou (Luo et al. 2024, Table 1): oracle guiding (lambda 1 -> 0, then 0) and ADMC (eq. 2-5).

Lambda falls over the paper's 20 days at its 100,236,906 state-action pairs a day: 2,004,738,120 frames
(``OADMCDOU_ORACLE_FRAMES`` in cardrl.algorithms.dmc.schedules). For a shorter budget give ``--oracle 1:0:FRAMES``
(e.g. two thirds of your frames, as the paper's 20 of 30 days); the flag given last wins.

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/oadmcdou_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.algorithms.dmc.schedules import OADMCDOU_ORACLE
from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--oracle", OADMCDOU_ORACLE, "--q-clip", "admc", "--out",
                   "runs/oadmcdou_doudizhu", *sys.argv[1:]]))
