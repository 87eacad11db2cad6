"""cardrl's envs in another RLlib project: RLlib's PPO with RLlib's own action-masking example module
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``), nothing of cardrl's own
algorithms involved.

    python experiments/rllib_action_masking.py big2 --iterations 5
    python experiments/rllib_action_masking.py guandan --env-config '{"match": false}' --hidden 64 --train-batch-size 500

``register_cardrl_envs()`` registers ``cardrl/doudizhu_v0``, ``cardrl/big2_v0`` and ``cardrl/guandan_v0``, whose
observations follow RLlib's convention: ``Dict(observations=Box(D), action_mask=Box(0.0, 1.0, (N,), float32))``, 1.0
for a legal action (``cardrl.envs.rllib``). The action spaces are large (DouDiZhu N = 27,472, Big2 19,899, GuanDan
135,179), and the example module has a dense ``hidden x N`` policy head and stores N logits per step (plus the N-float
mask): with GuanDan, keep ``--hidden`` and ``--train-batch-size`` small, or use cardrl's own PPO module
(``cardrl train guandan --algo ppo``), which scores the legal actions only.
"""

from __future__ import annotations

import argparse
import json
import os

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from cardrl.algorithms.common.game_defaults import default_module_mapping
from cardrl.envs.rllib import register_cardrl_envs
from cardrl.games.registry import get_game
from cardrl.ray_start import start_ray


def ppo_config(game: str, env_config: dict | None = None, hidden: int = 256, train_batch_size: int = 4000,
               minibatch_size: int = 128, num_epochs: int = 30, num_env_runners: int = 0) -> PPOConfig:
    """RLlib's PPO with RLlib's action-masking module on ``cardrl/<game>_v0``."""
    register_cardrl_envs()
    spec = get_game(game)
    # DouDiZhu: a network per role (the landlord's and the peasants' observations differ); Big2, GuanDan: one shared.
    module_of = {agent: agent if default_module_mapping(spec) == "per_agent" else "shared" for agent in spec.agents}
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [hidden, hidden]})
    return (
        PPOConfig()
        # RLlib's env pre-check steps with random actions, ignoring the mask: turn it off for masked envs.
        .environment(f"cardrl/{spec.env_name}", env_config=dict(env_config or {}), disable_env_checking=True)
        .multi_agent(policies=set(module_of.values()),
                     policy_mapping_fn=lambda agent_id, episode=None, **kw: module_of[agent_id])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: module for m in set(module_of.values())}))
        # episodes_to_numpy=False: RLlib's multi-agent runner would otherwise convert a turn-based episode at a cost
        # quadratic in its length (docs/architecture.md, "RLlib facts").
        .env_runners(num_env_runners=num_env_runners, episodes_to_numpy=False)
        .training(train_batch_size=train_batch_size, minibatch_size=min(minibatch_size, train_batch_size),
                  num_epochs=num_epochs)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=["doudizhu", "big2", "guandan"])
    parser.add_argument("--iterations", type=int, default=1, help="PPO iterations (default 1)")
    parser.add_argument("--env-config", type=json.loads, default={}, help="the env's options as JSON, e.g. "
                        "'{\"match\": false}' (GuanDan: one deal per episode)")
    parser.add_argument("--hidden", type=int, default=256, help="units of the module's two hidden layers (256)")
    parser.add_argument("--train-batch-size", type=int, default=4000, help="env steps per iteration (4000)")
    parser.add_argument("--minibatch-size", type=int, default=128, help="samples per gradient step (128)")
    parser.add_argument("--num-epochs", type=int, default=30, help="passes over each train batch (30)")
    parser.add_argument("--num-env-runners", type=int, default=0, help="remote env runners (0: sample locally)")
    args = parser.parse_args(argv)

    start_ray(os.cpu_count() or 2)  # the cluster of RAY_ADDRESS, else a local Ray (never a stale `ray start` record)
    algo = ppo_config(args.game, args.env_config, args.hidden, args.train_batch_size, args.minibatch_size,
                      args.num_epochs, args.num_env_runners).build_algo()
    try:
        for i in range(args.iterations):
            result = algo.train()
            losses = {m: float(s["policy_loss"]) for m, s in result["learners"].items() if "policy_loss" in s}
            steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            print(f"iteration {i + 1}: {steps:,} env steps, policy loss "
                  + ", ".join(f"{m} {v:+.4f}" for m, v in sorted(losses.items())), flush=True)
    finally:
        algo.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
