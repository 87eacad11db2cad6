"""DanZero (Lu et al. 2023): DMC on GuanDan with DanZero's settings, a `ray job submit` entry.

One shared MLP Q-network (4 x 512 tanh) over DanZero's 513-dim state + 54-dim action, RMSProp lr 1e-3 on batches of
32,768 samples (DanZero+ Table IV) with the update of the authors' learner, TF1's RMSPropOptimizer (decay 0.9,
epsilon 1e-5, mean square from ones: cardrl.algorithms.dmc.optimizers), the actor-Q clip of their learner (lambda
0.65; see cardrl.algorithms.dmc.admc: OADMCDou's ratio clip, the form of DanZero's code, with gamma = 0.65), whole
matches as episodes with every deal's samples labelled by that deal's +3/+2/+1 points (DanZero has no match reward;
DanZero+'s DMC with it is experiments/danzero_plus_guandan.py). Runs on whatever Ray it finds, else an embedded local
one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/danzero_guandan.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (a later flag overrides the ones below). Measured on 2 cores (figures in
docs/papers.md, DanZero): at DanZero's batch, 5 minutes, torch's RMSprop at lr 1e-3 diverged within a few updates
(every Q near -8) and TF1's did not (Q within +-0.2, barely moved after 22 updates); with small batches
(``--frames-per-update 3200``), 4 minutes, torch's RMSprop at lr 1e-3 diverged (every Q near +12, -2.6 points per deal
against random), TF1's at lr 1e-3 kept Q inside the reward range but had not learned yet (-2.6), and torch's at
lr 1e-4 (what tests/test_dmc_learning.py uses) reached +2.0. For short runs on a laptop add ``--frames-per-update
3200 --optimizer rmsprop --rmsprop-alpha 0.99 --lr 1e-4``.
"""

import sys

from cardrl.algorithms.dmc.optimizers import DANZERO_OPTIMIZER_FLAGS
from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "guandan", "--algo", "dmc", "--model", "mlp", *DANZERO_OPTIMIZER_FLAGS,
                   "--q-clip", "admc", "--admc-gamma", "0.65",
                   "--frames-per-update", "32768",
                   "--out", "runs/danzero_guandan", *sys.argv[1:]]))
