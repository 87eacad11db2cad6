"""DMC's options: defaults and help in one place.

:class:`DMCSettings` is the single source of DMC's hyperparameters: :class:`~cardrl.algorithms.dmc.dmc.DMCConfig`
takes its defaults from it and ``cardrl train`` builds its flags (name, type, default, help) from it, so the CLI,
the Python API and the docs cannot drift apart. What a run does around the algorithm (stopping, evaluation,
checkpoints) is :class:`~cardrl.algorithms.training.settings.RunSettings`, beside the option machinery. This module
imports neither Ray nor torch, so ``cardrl --help`` is fast.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from cardrl.algorithms.dmc.centering import TARGET_BASELINES
from cardrl.algorithms.training.settings import option
from cardrl.args import float_in, non_negative_int, positive_float, positive_int

__all__ = ["DMCSettings", "parse_slack", "Q_MODELS", "OPPONENT_MODELS", "OPTIMIZERS",
           "MODULE_MAPPINGS", "OM_GRAD_CLIPS", "COACH_INPUTS", "BID_NETWORKS"]

Q_MODELS = ("douzero_lstm", "luo_tan", "mlp")
OPTIMIZERS = ("rmsprop", "rmsprop_tf1", "rmsprop_corrected")
OPPONENT_MODELS = ("luo_tan", "douzero_plus")
MODULE_MAPPINGS = ("shared", "per_agent")
OM_GRAD_CLIPS = ("separate", "joint")
COACH_INPUTS = ("ranks", "kinds")
BID_NETWORKS = ("per_position", "shared")


def parse_slack(text: str) -> str | float:
    """ODMC's slack: ``"paper"`` (N/n + d of eq. 2) or a number."""
    if text == "paper":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"slack must be 'paper' or a number, got {text!r}") from None


parse_slack.allowed = "'paper' or a number"


@dataclass
class DMCSettings:
    """Deep Monte-Carlo's options (DouZero's values as defaults; Zha et al. 2021, Sec. 4 and the public code)."""

    epsilon: float = option(0.01, "exploration rate of the actors' epsilon-greedy (DouZero: 0.01)",
                            type=float_in(0.0, 1.0))
    lr: float = option(1e-4, "RMSprop learning rate (DouZero: 1e-4; DanZero: 1e-3)", type=positive_float)
    optimizer: str = option("rmsprop", "the Q-networks' optimizer: rmsprop (torch's: mean square from zero, eps "
                                       "outside the square root; DouZero) or rmsprop_tf1 (TF1's RMSPropOptimizer: "
                                       "mean square from ones, eps inside the square root; DanZero's learner, with "
                                       "--rmsprop-alpha 0.9, TF1's decay) or rmsprop_corrected (torch's with the "
                                       "mean square divided by 1 - alpha^t, as Adam corrects it: Adam with beta1 0; "
                                       "not from the papers, docs/learning.md)", choices=OPTIMIZERS)
    rmsprop_alpha: float = option(0.99, "RMSprop smoothing constant, TF1's decay (DouZero: 0.99; DanZero: 0.9)",
                                  type=float_in(0.0, 1.0, high_open=True))
    rmsprop_eps: float = option(1e-5, "RMSprop epsilon (DouZero and DanZero: 1e-5)", type=positive_float)
    grad_clip: float | None = option(40.0, "gradient clipping by global norm, per module (DouZero: 40; None in "
                                           "Python: no clipping)", type=positive_float)
    frames_per_update: int = option(3200, "frames per learner update of each module (DouZero: 32 unrolls x 100)",
                                    type=positive_int)
    buffer_frames: int | None = option(None, "frames each module's buffer holds at most: updates train on the "
                                             "newest, the oldest beyond this are dropped (default: 2 x "
                                             "frames-per-update)", type=positive_int)
    q_model: str | None = option(None, "Q-network: douzero_lstm (DouZero's LSTM + 5x512), luo_tan (Luo & Tan's "
                                       "decision model, Table 3) or mlp (DanZero's 4x512 tanh) (default: the one "
                                       "made for the features: douzero_lstm for DouZero's, luo_tan for the unified "
                                       "features of big2, mlp for guandan)", choices=Q_MODELS, flag="model")
    opponent_model: str | None = option(None, "opponent model whose predictions join the Q input: luo_tan (Luo & "
                                              "Tan 2024: every other player's cards and minimum combination K; "
                                              "unified or GuanDan features) or douzero_plus (DouZero+: the next "
                                              "player's cards per rank; DouZero's features)",
                                        choices=OPPONENT_MODELS)
    om_loss_weight: float = option(1.0, "weight of the opponent model's loss beside the Q loss",
                                   type=float_in(0.0))
    om_card_weight: float = option(1.0, "luo_tan: weight of each card head's binary cross-entropy in its loss (the "
                                        "mean over its heads: one per card bit, one for K)",
                                   type=float_in(0.0))
    om_k_weight: float = option(1.0, "luo_tan: weight of the K head's cross-entropy in its loss",
                                type=float_in(0.0))
    om_grad_clip: str = option("separate", "how grad-clip bounds a module with an opponent model: separate (the Q "
                                           "network's and the opponent model's gradients each clipped to its own "
                                           "global norm, as DouZero+'s code) or joint (one global norm over both)",
                               choices=OM_GRAD_CLIPS)
    module_mapping: str | None = option(None, "which Q-network plays each seat: shared (one network for every seat, "
                                              "which tells seats apart by the identity bits of its features: Luo & "
                                              "Tan's unified features, Big2, GuanDan) or per_agent (one network per "
                                              "seat: DouZero) (default: the game's for the features: per_agent for "
                                              "DouDiZhu with DouZero's features, shared otherwise)",
                                        choices=MODULE_MAPPINGS)
    hidden_sizes: tuple[int, ...] | None = option(None, "hidden layer sizes of the Q-network (default: the "
                                                        "model's paper sizes)", type=positive_int, nargs="+")
    prune: str | None = option(None, "ODMC: prune the actor's legal moves by Minimum Combination Search (Luo & Tan "
                                     "2024, eq. 2)", choices=("mcs",))
    prune_slack: str | float = option("paper", "ODMC slack: 'paper' (N/n + d of eq. 2) or a fixed number",
                                      type=parse_slack)
    prune_extra: float = option(0.0, "ODMC: added to the paper's slack", type=float_in(0.0))
    q_clip: str | None = option(None, "the Q loss's clip: admc (OADMCDou eq. 2-5: the ratio to the actor's Q "
                                      "clipped to 1 +- admc-gamma, then to the game's reward range) or range (eq. 4 "
                                      "alone: the reward range)", choices=("admc", "range"))
    admc_gamma: float = option(0.2, "ADMC's gamma: the learner's Q stays within 1 +- gamma of the actor's Q (OADMCDou "
                                    "gives no value; 0.2 as PPO's clip; DanZero's 'range of clip Q' is 0.65; "
                                    "below 1, so that 1 - gamma stays above 0)",
                               type=float_in(0.0, 1.0, low_open=True, high_open=True))
    admc_q_floor: float = option(1.0, "ADMC: the clip window around an actor's Q is at least gamma x this wide "
                                      "(the ratio is meaningless near Q = 0)",
                                 type=positive_float)
    actor_q_clip: float | None = option(None, "deprecated: use --q-clip admc --admc-gamma LAMBDA (OADMCDou clips "
                                              "the ratio of the learner's to the actor's Q; DanZero's code the "
                                              "actor's to the learner's, old_q / values)",
                                        type=float)
    oracle: str | None = option(None, "oracle guiding (OADMCDou eq. 1): the other players' hands join the Q input "
                                      "times lambda, START:END:FRAMES (linear in frames trained, then END), e.g. "
                                      "1.0:0.0:20000000; 1:1:1 keeps lambda at 1 (PerfectDou)")
    oracle_mode: str = option("scale", "oracle lambda as a scale of the hands (the paper's equation) or as the "
                                       "probability of showing them (bernoulli)", choices=("scale", "bernoulli"))
    coach: bool = option(False, "DouZero+'s coach network: deal again when it predicts a side wins with probability "
                                "above 1 - beta (beta by learner step: 0, then 0.10 .. 0.30)")
    coach_input: str = option("ranks", "what the coach reads of a card: ranks (DouZero+: its rank, 3..2 and the "
                                       "jokers, as DouZero's card value; each seat its own Embedding(31, 256); drops "
                                       "suits, which Big2 and GuanDan have) or kinds (each of the 54 card kinds: "
                                       "DouDiZhu's rank x copy, Big2's and GuanDan's rank x suit; one Embedding(55, "
                                       "256) for every seat)", choices=COACH_INPUTS)
    coach_beta: tuple | None = option(None, "the coach's beta schedule ((learner step, beta), ...) (default: "
                                            "DouZero+'s)", cli=False)
    coach_step_frames: int = option(3200, "frames per learner step of the coach's beta schedule (DouZero+: 3,200)",
                                    type=positive_int)
    coach_lr: float = option(1e-4, "the coach's Adam learning rate (DouZero+: 1e-4)", type=positive_float)
    coach_batch: int = option(128, "games per coach update (DouZero+: 128)", type=positive_int)
    gpu_inference: bool = option(False, "env runners score their games' moves on a GPU (each runner asks for a "
                                        "fraction of one: num_gpus_per_env_runner, default 1 / runners); pays with "
                                        "many games per runner (docs/architecture.md, 'GPU inference'); refused "
                                        "where there is no GPU")
    actor_precision: str = option("float32", "precision of the env runners' scoring forward pass: float32 (as "
                                             "DouZero's actors) or bfloat16 (faster matrix products on CPUs with "
                                             "AVX512-BF16 or AMX, and on GPUs: docs/benchmarks.md; moves whose Q-values differ by "
                                             "less than about 1 in 100 may be ordered differently); the learner is "
                                             "float32 either way", choices=("float32", "bfloat16"))
    learner_precision: str = option("float32", "precision of the learner's forward pass: float32 (as DouZero's "
                                               "learner) or bfloat16 (its matrix products and LSTM under "
                                               "torch.autocast, 2-3x faster on CPUs with AMX: docs/performance.md; "
                                               "the weights, gradients, optimizer state and losses stay float32)",
                                    choices=("float32", "bfloat16"))
    driver_sample_frames: int = option(200, "with remote env runners, the driver (where the learner runs) plays "
                                            "this many frames with its own env runner whenever no remote sample is "
                                            "ready, instead of waiting idle (its gain: docs/benchmarks.md; 0: "
                                            "never; not with --deterministic, which samples on the env runners "
                                            "only)", type=non_negative_int)
    deterministic: bool = option(False, "sampling and updates take turns in a fixed order: one sample request to "
                                        "every healthy env runner with the current weights, all waited for and "
                                        "ingested in the runners' order, no driver sampling; torch's "
                                        "deterministic algorithms and one thread in every learner. A seed then "
                                        "fixes the run (its records but for the timing fields, its weights) "
                                        "whatever else the machine runs; slower, as sampling and learning no longer "
                                        "overlap. cardrl train's --deterministic (a run option) sets it",
                                 cli=False)
    fixed_opponent: str | None = option(None, "train against a fixed opponent: this agent spec (as cardrl eval's: "
                                              "rule, rule-control, mcs-greedy, random, weights:DIR, ...) plays one "
                                              "side of every game, the Q-networks the other, which turns over the "
                                              "game's evaluation arrangements episode by episode; only the learning "
                                              "side's decisions are frames (a diagnostic: fixed_opponent.py)")
    num_envs_per_env_runner: int = option(64, "games each env runner plays in lock-step", type=positive_int,
                                          section="env_runners")
    rollout_fragment_length: int = option(800, "frames per sample request to an env runner", type=positive_int,
                                          section="env_runners")
    max_requests_in_flight_per_env_runner: int = option(
        1, "sample requests queued at each env runner: with more than one a runner starts its next request while "
           "the learner updates instead of idling (on 2 cores with bfloat16 runners: docs/performance.md); each "
           "request carries the weights of when it was sent, so the runners' weight lag grows with the queue",
        type=positive_int, section="env_runners", flag="sample_requests_in_flight")
    updates_per_iteration: int = option(1, "learner updates per algo.train() call",
                                        type=positive_int)
    target_baseline: str | None = option(None, "centre each seat's targets on a running mean of its returns "
                                               "(seat_mean; not from the papers: cardrl's remedy for plain DMC's early "
                                               "dip, docs/learning.md) (default: none, as DouZero)",
                                         choices=TARGET_BASELINES)
    target_baseline_rate: float = option(0.01, "target_baseline: the running mean's rate per deal",
                                         type=float_in(0.0, 1.0, low_open=True))
    bidding: bool = option(False, "the whole game of DouDiZhu: the landlord is decided by bidding, learned by "
                                  "bidding Q-networks in the same DMC loop (AlphaDou; docs/bidding.md)")
    bid_networks: str = option("per_position", "bidding Q-networks: per_position (one per position in the turn "
                                               "order, AlphaDou's three) or shared (one, reading the position)",
                               choices=BID_NETWORKS)
    bid_epsilon: str = option("0.3:0.03:10000000", "bidding: the exploration rate of bidding decisions, "
                                                   "START:END:FRAMES linear in frames trained (AlphaDou: 0.3 to "
                                                   "0.03; the frames are cardrl's choice, docs/bidding.md)")
    bid_frames_per_update: int | None = option(None, "bidding: frames per learner update of each bidding network "
                                                     "(default: frames-per-update / 16, at least 32: a deal has one "
                                                     "first-position bid and about 21 landlord moves, so bid_0 then "
                                                     "updates about as often as the landlord network)",
                                               type=positive_int)
    bid_hidden_sizes: tuple[int, ...] | None = option(None, "bidding: hidden layer sizes of the bidding Q-networks' "
                                                            "ReLU MLP (default: 256 256 256)", type=positive_int,
                                                     nargs="+")
    target_scale: dict | None = option(None, "agent -> factor from its payoff to its DMC target (default: the "
                                             "game's; DouDiZhu's landlord 0.5)", cli=False)
