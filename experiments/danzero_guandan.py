"""DanZero (Lu et al. 2023): DMC on GuanDan with DanZero's settings, a `ray job submit` entry.

One shared MLP Q-network (4 x 512 tanh) over DanZero's 513-dim state + 54-dim action, RMSprop lr 1e-3 on batches of
32,768 samples (DanZero+ Table IV), the actor-Q clip of their learner (lambda 0.65; see
cardrl.algorithms.dmc.admc: OADMCDou's ratio clip, the form of DanZero's code, with gamma = 0.65),
whole matches as episodes with every deal's samples labelled by that deal's +3/+2/+1 points. Runs on whatever Ray
it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/danzero_guandan.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted. On a laptop, lr 1e-3 with DanZero's batch takes long per update, and
with small batches (``--frames-per-update 3200``) lr 1e-3 is unstable here (Q-values oscillate to -8 and the tanh
layers saturate); use ``--lr 1e-4`` there (what tests/test_dmc_learning.py does).
"""

import sys

from cardrl.algorithms.dmc.optimizers import DANZERO_OPTIMIZER_FLAGS
from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "guandan", "--algo", "dmc", "--model", "mlp", *DANZERO_OPTIMIZER_FLAGS,
                   "--q-clip", "admc", "--admc-gamma", "0.65",
                   "--frames-per-update", "32768",
                   "--out", "runs/danzero_guandan", *sys.argv[1:]]))
