"""RLlib's own PPO on DouDiZhu with the action-masking module (cardrl.algorithms.masked_ppo): the policy-gradient
baseline, with RLlib's PPO defaults (``cardrl train doudizhu --algo ppo --help``); a `ray job submit` entry.

    python experiments/ppo_doudizhu.py --stop-time 1h --num-env-runners 4

Every option of ``cardrl train`` is accepted. Evaluate with ``cardrl eval doudizhu --a ppo:runs/ppo_doudizhu/checkpoint --b rule``.
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "doudizhu", "--algo", "ppo", "--eval-against", "rule", "--out", "runs/ppo_doudizhu", *sys.argv[1:]]))
