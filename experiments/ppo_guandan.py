"""RLlib's own PPO on GuanDan with the action-masking module (cardrl.algorithms.masked_ppo): the policy-gradient
baseline, with RLlib's PPO defaults (``cardrl train guandan --algo ppo --help``); a `ray job submit` entry.

    python experiments/ppo_guandan.py --stop-time 1h --num-env-runners 4

Every option of ``cardrl train`` is accepted. Evaluate with ``cardrl eval guandan --a ppo:runs/ppo_guandan/checkpoint --b rule``.

GuanDan's observations carry a 135,179-entry action mask each (135 KB a step in RLlib's episodes): keep
``--train-batch-size`` moderate on small machines.
"""

import sys

from cardrl.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", "guandan", "--algo", "ppo", "--eval-against", "rule", "--out", "runs/ppo_guandan", *sys.argv[1:]]))
