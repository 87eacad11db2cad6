"""DanZero+ (Zhao, Lu, Zhao, Zhou, Li 2024): DMC on GuanDan with Table IV's settings and the match reward, the DMC
model top-k PPO starts from (experiments/topk_ppo_guandan_k*.py); a `ray job submit` entry.

As experiments/danzero_guandan.py (one shared 4 x 512 tanh MLP over the 513-dim state + 54-dim action, epsilon 0.01,
batches of 32,768, TF1's RMSProp at lr 1e-3 as the authors' learner), plus Sec. IV-B's global reward: +1 / -1 for
the won / lost match added to every deal's samples of the match (``--match-bonus``; each deal's frames are labelled
with that deal's points plus the bonus once the match ends). The loss is plain MSE (eq. 6); Table IV still lists
lambda 0.65, but the authors' DanZero+ learner has the clip commented out (docs/papers.md, "Readings we chose").
Runs on whatever Ray it finds, else an embedded local one:

    ray job submit --address http://127.0.0.1:8265 -- python experiments/danzero_plus_guandan.py --stop-time 1h \\
        --num-env-runners 150 --gpu

Every option of ``cardrl train`` is accepted (a later flag overrides the ones below; on a laptop,
``--frames-per-update 3200`` updates more often).
"""

import sys

from cardrl.algorithms.dmc.optimizers import DANZERO_OPTIMIZER_FLAGS
from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "guandan", "--algo", "dmc", "--model", "mlp", *DANZERO_OPTIMIZER_FLAGS,
                   "--frames-per-update", "32768", "--match-bonus",
                   "--out", "runs/danzero_plus_guandan", *sys.argv[1:]]))
