"""DMC on Big2 with Luo & Tan's unified features and decision network, neither opponent model nor pruning: the base
that B+OM, B+ODMC and B+OMODMC (Luo & Tan 2024, Table 5) add to. A `ray job submit` entry.

This is not BigZero, the Table 5 baseline (Chow et al., "BigZero" in Luo & Tan's tables, whose BigZero* is "the same
code as BigZero" trained for 30 days): BigZero trains DouZero's network (an LSTM over the recent moves and six linear
layers) on a Big2 encoding of its own (a 559-value state and move vector, a (4, 208) move history), which cardrl does
not implement. Here one Q-network is shared by the four seats (their identity bits are in the unified features,
Table 14): Luo & Tan's decision model (Table 3, the default Q-network of the unified features; ``--model
douzero_lstm`` for DouZero's network on these features) with DouZero's hyperparameters. Runs on whatever Ray it
finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/luo_tan_dmc_big2.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted.
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "big2", "--algo", "dmc", "--out", "runs/luo_tan_dmc_big2", *sys.argv[1:]]))
