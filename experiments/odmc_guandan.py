"""G+ODMC (beyond the papers): DanZero's DMC on GuanDan with Luo & Tan's Minimum Combination Search pruning.

DanZero's settings (experiments/danzero_guandan.py) plus ODMC's eq. 2 on the card plays: the actor scores and picks
only the legal moves with K_i <= K_min + N/n + d, N = 108/4 = 27, n the fewest cards of a player still in the deal,
K the exact wild-card search of cardrl/search/guandan_mcs.py; tribute and return decisions are never pruned. A
`ray job submit` entry (embedded local Ray when none is found):

    ray job submit --address http://127.0.0.1:8265 -- python experiments/odmc_guandan.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (later options win, e.g. ``--optimizer rmsprop --rmsprop-alpha 0.99
--lr 1e-4 --frames-per-update 3200`` on a laptop: experiments/danzero_guandan.py says why).
"""

import sys

from cardrl.algorithms.dmc.optimizers import DANZERO_OPTIMIZER_FLAGS
from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "guandan", "--algo", "dmc", "--model", "mlp", *DANZERO_OPTIMIZER_FLAGS,
                   "--q-clip", "admc", "--admc-gamma", "0.65",
                   "--frames-per-update", "32768", "--prune", "mcs",
                   "--out", "runs/odmc_guandan", *sys.argv[1:]]))
