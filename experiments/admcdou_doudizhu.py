"""ADMCDou (OADMCDou's ablation, Luo et al. 2024, Sec. 5.2, Fig. 4b-c): DouZero's DMC with the ADMC loss (eq. 2-5)
only.

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/admcdou_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--q-clip", "admc", "--out", "runs/admcdou_doudizhu",
                   *sys.argv[1:]]))
