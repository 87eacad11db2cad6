"""BigZero (Luo & Tan 2024, Table 5 baseline; DouZero's DMC applied to Big2): a `ray job submit` entry.

One Q-network shared by the four seats (their identity bits are in Luo & Tan's unified features, Table 14): Luo &
Tan's decision model (Table 3, the default Q-network of the unified features; no opponent model here, ``--model
douzero_lstm`` for DouZero's network) with DouZero's hyperparameters. Runs on whatever Ray it finds, else an
embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/dmc_big2.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted.
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "big2", "--algo", "dmc", "--out", "runs/dmc_big2", *sys.argv[1:]]))
