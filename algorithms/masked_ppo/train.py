"""``cardrl train GAME --algo ppo``: RLlib's own PPO with the action-masking module on ``cardrl/<game>_v0``.

The same run loop as top-k PPO (:func:`cardrl.algorithms.topk_ppo.train.train_loop`: progress lines,
``progress.jsonl``, TensorBoard scalars, periodic evaluation against baselines, checkpoints) and the same
``config.json`` (:mod:`cardrl.algorithms.run_files`); the options are
:class:`~cardrl.algorithms.masked_ppo.settings.PPOSettings` (RLlib's PPO defaults). Flags shared with other algorithms
(``--lr``, ``--hidden-sizes``, ...) take PPO's defaults unless given.
"""

from __future__ import annotations

from pathlib import Path

from cardrl.algorithms.dmc.train import env_config_from_args
from cardrl.algorithms.topk_ppo.train import _init_ray, settings_from_args, train_loop


def build_config(args, given: set[str]):
    """RLlib's PPOConfig of a ``cardrl train --algo ppo`` command line."""
    from cardrl.algorithms.masked_ppo.masked_ppo import masked_ppo_config
    from cardrl.algorithms.masked_ppo.settings import PPOSettings

    settings = settings_from_args(args, PPOSettings, given)
    return (masked_ppo_config(args.game, env_config_from_args(args), **settings)
            .env_runners(num_env_runners=args.num_env_runners)
            .learners(num_learners=args.num_learners, num_gpus_per_learner=1 if args.gpu else 0)
            .debugging(seed=args.seed))


def _record(result: dict) -> tuple[dict, str]:
    learners = {m: s for m, s in result.get("learners", {}).items() if isinstance(s, dict) and "policy_loss" in s}
    runners = result.get("env_runners", {})
    frames = int(runners.get("num_env_steps_sampled_lifetime", 0) or 0)  # all trained on, within the iteration
    record = {"frames_trained": frames, "episodes": int(runners.get("num_episodes_lifetime", 0) or 0),
              "policy_loss": {m: float(s["policy_loss"]) for m, s in learners.items()},
              "vf_loss": {m: float(s.get("vf_loss", 0)) for m, s in learners.items()},
              "entropy": {m: float(s.get("entropy", 0)) for m, s in learners.items()}}
    line = (f"steps {frames:,} | episodes {record['episodes']:,} | pi loss "
            + ", ".join(f"{m} {v:+.3f}" for m, v in sorted(record["policy_loss"].items())))
    return record, line


def run_training(args, given: set[str]) -> int:
    """``cardrl train GAME --algo ppo``."""
    from cardrl.algorithms.masked_ppo.checkpoints import MaskedPPOAgent
    from cardrl.algorithms.masked_ppo.masked_ppo import agent_to_module
    from cardrl.algorithms.masked_ppo.settings import PPOSettings
    from cardrl.algorithms.run_files import run_dir, write_config

    _init_ray(args)
    config = build_config(args, given)
    out = run_dir(args)
    out.mkdir(parents=True, exist_ok=True)
    write_config(out, args, config, PPOSettings, settings_from_args(args, PPOSettings, given), agent_kind="ppo")
    algo = config.build_algo()
    if args.restore:
        algo.restore_from_path(str(Path(args.restore).resolve()))
        print(f"restored from {args.restore}", flush=True)
    mapping = agent_to_module(args.game)

    def agent():
        return MaskedPPOAgent({a: algo.get_module(m) for a, m in mapping.items()}, args.game,
                              features=(config.env_config or {}).get("features"))

    title = (f"training RLlib's PPO (masked action-embedding module) on {args.game}: {args.num_env_runners} env "
             f"runner(s), run dir {out}")
    return train_loop(algo, args, out, title, _record, agent)
