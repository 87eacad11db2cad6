"""The options of RLlib's own PPO on cardrl envs (``cardrl train GAME --algo ppo``): RLlib's PPO defaults, except the
KL penalty (off: the masked module stores no per-step logits) and the network of the masked module.

Like :class:`~cardrl.algorithms.dmc.settings.DMCSettings`, :class:`PPOSettings` is the single source of the defaults and
help; ``cardrl train`` builds its flags from it. No Ray or torch is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.algorithms.training.settings import option
from cardrl.args import float_in, positive_float, positive_int

__all__ = ["PPOSettings"]


@dataclass
class PPOSettings:
    """RLlib's PPO (ray 2.60 defaults) with :class:`~cardrl.algorithms.masked_ppo.masked_ppo_rl_module.
    MaskedActionEmbeddingModule`."""

    lr: float = option(5e-5, "Adam learning rate (RLlib PPO default 5e-5)", type=positive_float)
    gamma: float = option(0.99, "discount (RLlib default 0.99)", type=float_in(0.0, 1.0))
    lambda_: float = option(1.0, "GAE lambda (RLlib PPO default 1.0)", type=float_in(0.0, 1.0),
                           flag="gae-lambda")
    clip_param: float = option(0.3, "PPO clip (RLlib PPO default 0.3)", type=positive_float)
    vf_loss_coeff: float = option(1.0, "value loss weight (RLlib PPO default 1.0)",
                                  type=float_in(0.0))
    entropy_coeff: float = option(0.0, "entropy bonus weight (RLlib PPO default 0)",
                                  type=float_in(0.0))
    num_epochs: int = option(30, "passes over each train batch (RLlib PPO default 30)", type=positive_int)
    minibatch_size: int | None = option(128, "samples per gradient step (RLlib PPO default 128)",
                                       type=positive_int)
    train_batch_size: int = option(4000, "agent steps per iteration (RLlib PPO default 4000)",
                                   type=positive_int)
    grad_clip: float | None = option(None, "gradient clipping by global norm (RLlib default: none)",
                                      type=positive_float)
    hidden_sizes: tuple[int, ...] = option((256, 256), "trunk of the masked module (RLlib's default fcnet 256 256)",
                                           type=positive_int, nargs="+")
    embedding_dim: int = option(64, "size of the learned action embeddings of the masked head",
                                 type=positive_int)
    num_envs_per_env_runner: int = option(1, "envs each env runner steps (RLlib default 1)", type=positive_int,
                                          section="env_runners")
