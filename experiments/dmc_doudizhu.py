"""DouZero's DMC on DouDiZhu (Zha et al. 2021; Luo & Tan 2024 Table 4 baseline "DouZero"): a `ray job submit` entry.

Runs on whatever Ray it finds (``RAY_ADDRESS`` or ``ray job submit``'s cluster), else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/dmc_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (this file only fixes the game and the algorithm).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", *sys.argv[1:]]))
