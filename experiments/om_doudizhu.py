"""D+OM (Luo & Tan 2024, Sec. 4.2 and Table 4): DouDiZhu with their unified features, decision model (Table 3) and
opponent model (Table 2).

A `ray job submit` entry that runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/om_doudizhu.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (``cardrl train --help``).
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "dmc", "--features", "unified", "--opponent-model", "luo_tan",
                   "--out", "runs/om_doudizhu", *sys.argv[1:]]))
