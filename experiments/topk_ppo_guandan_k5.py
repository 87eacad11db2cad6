"""DanZero+ "PPO model (5)" (Zhao, Lu, Zhao, Zhou, Li 2024, Table III): top-k PPO on GuanDan with k = 5 candidates
from a frozen DanZero DMC network and Table V's settings (the defaults of ``cardrl train --algo topk-ppo``); a
`ray job submit` entry.

Needs a GuanDan DMC checkpoint (default: experiments/danzero_plus_guandan.py's, DanZero+'s DMC with the match
reward, runs/danzero_plus_guandan/checkpoint):

    python experiments/topk_ppo_guandan_k5.py --dmc-checkpoint runs/danzero_plus_guandan/checkpoint --stop-time 1h \\
        --num-env-runners 40

Every option of ``cardrl train`` is accepted (a later flag overrides the ones below). Table III's protocol, two model
seats against two rule-agent seats over whole matches, and PPO against its own DMC:

    cardrl eval guandan --a topk-ppo:runs/topk_ppo_guandan_k5/checkpoint --b rule
    cardrl eval guandan --a topk-ppo:runs/topk_ppo_guandan_k5/checkpoint --b checkpoint:runs/danzero_plus_guandan/checkpoint

Paper: 70.28 / 54.60 / 78.06 % match wins against their baselines 1, 2, 4 and 38.45 % against DanZero (their competition bots
are not available here). With DanZero+'s match reward (``--match-bonus``): +1 / -1 for the won / lost match on each player's last
decision of the match, as the authors' PPO actor adds it (Sec. IV-B; docs/papers.md, "Readings we chose").
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "guandan", "--algo", "topk-ppo", "--k", "5", "--dmc-checkpoint",
                   "runs/danzero_plus_guandan/checkpoint", "--match-bonus", "--eval-against", "rule", "--out", "runs/topk_ppo_guandan_k5",
                   *sys.argv[1:]]))
