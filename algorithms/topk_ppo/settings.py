"""Top-k PPO's options: defaults (DanZero+'s Table V and its public code) and help in one place.

:class:`TopKPPOSettings` is the single source of the algorithm's hyperparameters, as
:class:`~cardrl.algorithms.dmc.settings.DMCSettings` is DMC's: :class:`~cardrl.algorithms.topk_ppo.topk_ppo.TopKPPOConfig`
takes its defaults from it and ``cardrl train GAME --algo topk-ppo`` builds its flags from it. Sources: DanZero+ (Y. Zhao,
Y. Lu, J. Zhao, W. Zhou, H. Li 2024), Table V (PPO settings for k = 2), eqs. 1-5, and the authors' learner code where
the table is silent (ratio clamp, 0.5 x MSE, Adam epsilon, 20 steps with a KL stop, gradient norm 10).
No Ray or torch is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.algorithms.training.settings import option
from cardrl.args import float_in, path_arg, positive_float, positive_int

__all__ = ["TopKPPOSettings", "PAPER_HIDDEN_SIZES"]

PAPER_HIDDEN_SIZES = (512, 512, 512, 512, 256)  # Table V "512,512,512,256"; the authors' code: 4 x 512 then 256


@dataclass
class TopKPPOSettings:
    """Top-k PPO (DanZero+ Sec. IV-D): a frozen DMC network proposes its k best legal moves, PPO picks one."""

    dmc_checkpoint: str | None = option(None, "cardrl DMC algorithm checkpoint of the same game whose frozen "
                                              "Q-network proposes the candidates (required)", type=path_arg)
    k: int = option(2, "candidates per decision: the DMC's k best legal moves (DanZero+ Table V: 2; Table III: 2, "
                       "3, 5)", type=positive_int)
    lr: float = option(1e-4, "Adam learning rate (DanZero+ Table V: 1e-4)", type=positive_float)
    adam_eps: float = option(1e-5, "Adam epsilon (DanZero+ code: 1e-5)", type=positive_float)
    gamma: float = option(0.99, "GAE gamma (Table V: 0.99)", type=float_in(0.0, 1.0))
    lambda_: float = option(0.95, "GAE lambda (Table V: 0.95)", type=float_in(0.0, 1.0),
                            flag="gae-lambda")
    clip_param: float = option(0.2, "PPO clip epsilon of eqs. 1-2 (Table V: 0.2)", type=positive_float)
    ratio_max: float = option(3.0, "the probability ratio of the unclipped term is clamped to [0, ratio_max] "
                                   "(DanZero+ code: 3; above 1 + clip-param)", type=positive_float)
    vf_loss_coeff: float = option(0.5, "c_v, weight of the value loss in eq. 5 (Table V loss weights 1, 0.5, 0.05)",
                                  type=float_in(0.0))
    vf_scale: float = option(0.5, "the value loss of eq. 4 is vf_scale x MSE (DanZero+ code: 0.5)",
                             type=float_in(0.0))
    entropy_coeff: float = option(0.05, "c_e, weight of the entropy bonus in eq. 3 (Table V: 0.05)",
                                  type=float_in(0.0))
    num_epochs: int = option(20, "passes (gradient steps, with the whole batch) over each batch at most (DanZero+ "
                                 "code: 20)", type=positive_int)
    kl_stop: float | None = option(0.015, "stop an iteration's passes once the approximate KL to the acting policy "
                                          "exceeds this (DanZero+ code: 1.5 x 0.01; 0 or none: never)",
                                   type=float_in(0.0))
    train_batch_size: int = option(2048, "frames (decisions) per iteration (Table V: batch and memory pool 2048)",
                                   type=positive_int)
    minibatch_size: int | None = option(None, "frames per gradient step (default: the whole batch, as DanZero+; at "
                                              "most train-batch-size)", type=positive_int)
    grad_clip: float = option(10.0, "gradient clipping by global norm (DanZero+ code: 10)",
                              type=positive_float)
    hidden_sizes: tuple[int, ...] = option(PAPER_HIDDEN_SIZES, "sizes of the shared tanh trunk (Table V and code: "
                                                               "512 512 512 512 256)", type=positive_int,
                                           nargs="+")
    head_hidden: int = option(128, "hidden layer of the policy and value heads (DanZero+ code: 128)",
                              type=positive_int)
    lstm_hidden: int = option(128, "LSTM over the move history, for features that have one (DouDiZhu, Big2; "
                                   "DouZero's 128)", type=positive_int)
    level_a_counters: bool | None = option(None, "add the three level-A counters to the state (DanZero+'s 516 = "
                                                 "513 + 3; default: on for GuanDan, the game that has them)",
                                           cli=False)
    num_envs_per_env_runner: int = option(32, "games each env runner plays in lock-step", type=positive_int,
                                          section="env_runners")
