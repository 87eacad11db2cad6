"""Top-k PPO on DouDiZhu (k = 2, DanZero+'s Table V settings; no paper tried it): PPO over the two best moves of a
frozen DouDiZhu DMC network; a `ray job submit` entry.

Needs a DouDiZhu DMC checkpoint (default: experiments/dmc_doudizhu.py's, runs/dmc_doudizhu/checkpoint):

    python experiments/topk_ppo_doudizhu.py --dmc-checkpoint runs/dmc_doudizhu/checkpoint --stop-time 1h --num-env-runners 8

Every option of ``cardrl train`` is accepted (a later flag overrides the ones below). The policy reads the DMC's own
features (DouZero's features, one policy per role) with an LSTM of its own over their move history. Evaluate with
``cardrl eval doudizhu --a topk-ppo:runs/topk_ppo_doudizhu/checkpoint --b rule``.
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "topk-ppo", "--k", "2", "--dmc-checkpoint", "runs/dmc_doudizhu/checkpoint",
                   "--eval-against", "rule", "--out", "runs/topk_ppo_doudizhu", *sys.argv[1:]]))
