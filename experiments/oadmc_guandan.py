"""Oracle guiding and ADMC on GuanDan (beyond the papers: OADMCDou's options with DanZero's settings; ADMC with
DanZero's 0.65; lambda falls over OADMCDou's DouDiZhu length, 2.0e9 frames: give ``--oracle 1:0:FRAMES`` for a shorter
budget).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/oadmc_guandan.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.algorithms.dmc.optimizers import DANZERO_OPTIMIZER_FLAGS
from cardrl.algorithms.dmc.schedules import OADMCDOU_ORACLE
from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "guandan", "--algo", "dmc", "--model", "mlp", *DANZERO_OPTIMIZER_FLAGS,
                   "--frames-per-update",
                   "32768", "--oracle", OADMCDOU_ORACLE, "--q-clip", "admc", "--admc-gamma", "0.65", "--out",
                   "runs/oadmc_guandan", *sys.argv[1:]]))
