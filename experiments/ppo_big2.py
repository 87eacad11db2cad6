"""RLlib's own PPO on Big2 with the action-masking module (cardrl.algorithms.masked_ppo): the policy-gradient
baseline, with RLlib's PPO defaults (``cardrl train big2 --algo ppo --help``); a `ray job submit` entry.

    python experiments/ppo_big2.py --stop-time 1h --num-env-runners 4

Every option of ``cardrl train`` is accepted. Evaluate with ``cardrl eval big2 --a ppo:runs/ppo_big2/checkpoint --b rule``.
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "big2", "--algo", "ppo", "--eval-against", "rule", "--out", "runs/ppo_big2", *sys.argv[1:]]))
