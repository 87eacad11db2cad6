"""Top-k PPO on Big2 (k = 2, DanZero+'s Table V settings; no paper tried it): PPO over the two best moves of a
frozen Big2 DMC network; a `ray job submit` entry.

Needs a Big2 DMC checkpoint (default: experiments/luo_tan_dmc_big2.py's, runs/luo_tan_dmc_big2/checkpoint):

    python experiments/topk_ppo_big2.py --dmc-checkpoint runs/luo_tan_dmc_big2/checkpoint --stop-time 1h \\
        --num-env-runners 8

Every option of ``cardrl train`` is accepted (a later flag overrides the ones below). The policy reads the DMC's own
features (Luo & Tan's unified features, one shared policy) with an LSTM of its own over their move history. Evaluate with
``cardrl eval big2 --a topk-ppo:runs/topk_ppo_big2/checkpoint --b rule``.
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "big2", "--algo", "topk-ppo", "--k", "2", "--dmc-checkpoint",
                   "runs/luo_tan_dmc_big2/checkpoint",
                   "--eval-against", "rule", "--out", "runs/topk_ppo_big2", *sys.argv[1:]]))
