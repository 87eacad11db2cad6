"""Top-k PPO (DanZero+) as an RLlib ``Algorithm`` on the new API stack: a frozen DMC network proposes its k best
legal moves, and PPO learns to choose among them.

DanZero+ (Y. Zhao, Y. Lu, J. Zhao, W. Zhou, H. Li, "DanZero+: Dominating the GuanDan Game through Reinforcement
Learning", 2024), Sec. IV-D, Fig. 5, Table I: a policy over GuanDan's whole action space is infeasible on the learner
(the batch would have to span every legal move of every state), so "the pre-trained model [DMC] is used to filter out
some actions with the highest Q-values", and PPO selects among those k. Table V (k = 2) gives the defaults
(:class:`~cardrl.algorithms.topk_ppo.settings.TopKPPOSettings`); Table III compares k = 2, 3, 5. The same algorithm
runs on DouDiZhu and Big2 with their own DMC checkpoints (no paper tried these).

One iteration (:meth:`TopKPPO.training_step`), synchronous as PPO is:

1. the newest weights go to every :class:`~cardrl.algorithms.topk_ppo.topk_ppo_env_runner.TopKPPOEnvRunner` with its
   sample request; together they return ``train_batch_size`` decisions with their GAE advantages (deals that end
   later are kept for the next iteration, so a few samples are one update old: their stored log-probabilities make
   the ratio exact, as on the authors' asynchronous actors);
2. :class:`~cardrl.algorithms.topk_ppo.topk_ppo_learner.TopKPPOTorchLearner` takes up to ``num_epochs`` gradient steps
   per module over the batch (whole-batch steps by default), stopping a module once its approximate KL exceeds
   ``kl_stop``.

The config reuses RLlib's PPOConfig (``lr``, ``gamma``, ``lambda_``, ``clip_param``, ``vf_loss_coeff``,
``entropy_coeff``, ``num_epochs``, ``minibatch_size``, ``train_batch_size``, ``grad_clip``) and the learner RLlib's
PPOTorchLearner (its entropy schedule); the GAE is computed on the runners (see :mod:`.gae` for why RLlib's GAE
connector does not fit). The frozen DMC network is read from ``dmc_checkpoint`` (a cardrl DMC algorithm checkpoint of
the same game; another game's is refused), rides inside each policy module (``candidate_model``) and so in every
checkpoint of this algorithm.
"""

from __future__ import annotations

import math
import time
from collections import deque

import numpy as np
import ray
from ray.rllib.algorithms.ppo.ppo import PPO
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

from cardrl.algorithms.common.checkpoint_identity import LAYOUT_KEYS
from cardrl.algorithms.common.checkpoint_state import (IdentityCheckedState, identity_problems,
                                                        read_checkpoint_state)
from cardrl.algorithms.common.metrics import mean_returns
from cardrl.algorithms.common.modules import learner_module_state, modules_by_agent
# not part of this module's API (import them from their owner): checkpoints written while the policy mappings were
# defined here pickled their config's policy_mapping_fn under this module's name, and load through these names
# (PICKLED_NAMES in tests/test_public_names.py)
from cardrl.algorithms.common.policy_mapping import one_module_per_seat, one_shared_module  # noqa: F401
from cardrl.algorithms.topk_ppo.topk_ppo_config import TopKPPOConfigBase
from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import (
    ACTION_LOGP, ACTIONS, ADVANTAGES, CANDIDATE_MASK, CANDIDATES, EXTRA_STATE, OBS, VALUE_TARGETS)

__all__ = ["TopKPPOConfig", "TopKPPO", "read_counters"]

COUNTERS = "topk_ppo_counters"
_TRAIN_COLUMNS = (OBS, EXTRA_STATE, CANDIDATES, CANDIDATE_MASK, ACTIONS, ACTION_LOGP, ADVANTAGES, VALUE_TARGETS)


class TopKPPO(IdentityCheckedState, PPO):
    """Top-k PPO (see the module docstring; DanZero+, Zhao et al. 2024, Sec. IV-D)."""

    COUNTERS_KEY = COUNTERS

    @classmethod
    def get_default_config(cls) -> TopKPPOConfig:
        return TopKPPOConfig()

    def setup(self, config) -> None:
        super().setup(config)
        weights = self.config.candidate_weights()

        def load(learner, weights=weights):
            import torch

            for mid, state in weights.items():
                learner.module[mid].candidate_model.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()})
            return True

        _on_learners(self.learner_group, load)
        self._module_ids = sorted(self.config.policy_model_configs())
        self._weights_seq_no = 1
        self._frames_sampled = 0
        self._frames_trained = 0
        self._episodes = 0
        self._start = time.time()
        self._sample_seconds = 0.0
        self._scoring_seconds = 0.0
        self._policy_seconds = 0.0
        self._recent_returns: deque = deque(maxlen=1000)
        self.run_info: dict = {}  # what the run loop saves with a checkpoint for --resume: elapsed time, milestones

    # ---- sampling ------------------------------------------------------------------------------------------------
    def _weights(self):
        state = learner_module_state(self.learner_group)
        return ray.put(state) if self.env_runner_group.num_remote_env_runners() else state

    def _sample(self) -> list[dict]:
        kwargs = {"weights": self._weights(), "weights_seq_no": self._weights_seq_no}
        remote = self.env_runner_group.num_remote_env_runners()
        if remote == 0:
            return [self.env_runner.sample(num_frames=self.config.train_batch_size, **kwargs)]
        per_runner = math.ceil(self.config.train_batch_size / remote)
        return self.env_runner_group.foreach_env_runner("sample", local_env_runner=False,
                                                        kwargs={"num_frames": per_runner, **kwargs})

    # ---- one iteration -------------------------------------------------------------------------------------------
    def training_step(self) -> None:
        cfg = self.config
        results = self._sample()
        columns: dict[str, dict[str, list]] = {}
        for result in results:
            for mid, cols in result["batch"].items():
                for key in _TRAIN_COLUMNS:
                    columns.setdefault(mid, {}).setdefault(key, []).append(cols[key])
            self._frames_sampled += result["frames"]
            self._episodes += len(result["episodes"])
            self._recent_returns.extend(result["episodes"])
            self._sample_seconds += result["seconds"]
            self._scoring_seconds += result["scoring_seconds"]
            self._policy_seconds += result["policy_seconds"]
        batches = {mid: SampleBatch({k: np.concatenate(v) for k, v in cols.items()}) for mid, cols in columns.items()}
        frames = sum(len(b) for b in batches.values())

        _on_learners(self.learner_group, lambda learner: learner.reset_kl_stop())
        active = set(batches)
        steps = dict.fromkeys(batches, 0)
        for _ in range(cfg.num_epochs):
            learner_results = self.learner_group.update(
                batch=MultiAgentBatch({m: batches[m] for m in sorted(active)}, env_steps=frames),
                minibatch_size=cfg.minibatch_size, num_epochs=1,
                shuffle_batch_per_epoch=cfg.minibatch_size is not None and cfg.shuffle_batch_per_epoch,
                timesteps={NUM_ENV_STEPS_SAMPLED_LIFETIME: self._frames_sampled})
            self.metrics.aggregate(learner_results, key=LEARNER_RESULTS)
            stopped = set().union(*_on_learners(self.learner_group, lambda learner: learner.kl_stopped()))
            for m in active - stopped:
                steps[m] += 1
            active -= stopped
            if not active:
                break
        self._frames_trained += frames
        self._weights_seq_no += 1
        self._log_metrics(steps)

    def _log_metrics(self, steps: dict) -> None:
        elapsed = max(time.time() - self._start, 1e-9)
        values = {"frames_sampled": self._frames_sampled, "frames_trained": self._frames_trained,
                  "episodes": self._episodes, "frames_per_s": self._frames_sampled / elapsed,
                  "sampling_frames_per_s": self._frames_sampled / max(self._sample_seconds, 1e-9),
                  "candidate_scoring_share": self._scoring_seconds / max(self._sample_seconds, 1e-9),
                  "policy_forward_share": self._policy_seconds / max(self._sample_seconds, 1e-9)}
        values["epochs_taken"] = dict(steps)
        returns = mean_returns(self._recent_returns)
        if returns:
            values[ENV_RUNNER_RESULTS] = {"mean_return": returns}
        self.metrics.log_dict(values, reduce=None, window=1)

    # ---- play ----------------------------------------------------------------------------------------------------
    def policy_modules(self) -> dict:
        """CPU copies of the current policy modules (frozen DMC inside), keyed by env agent."""
        return modules_by_agent(self.config, self.learner_group, self.config.game_spec.agents)

    def agent(self, greedy: bool = False, seed: int = 0):
        """A :class:`~cardrl.algorithms.topk_ppo.agent.TopKPPOAgent` playing the current policy."""
        from cardrl.algorithms.topk_ppo.agent import TopKPPOAgent

        return TopKPPOAgent(self.policy_modules(), self.config.game_name, features=self.config.features_name(),
                            options=self.config.rule_options(), greedy=greedy, seed=seed)

    # ---- checkpoints ---------------------------------------------------------------------------------------------
    def get_state(self, components=None, *, not_components=None, **kwargs):
        state = super().get_state(components, not_components=not_components, **kwargs)
        state[COUNTERS] = {"frames_sampled": self._frames_sampled, "frames_trained": self._frames_trained,
                           "episodes": self._episodes, "weights_seq_no": self._weights_seq_no,
                           "run_info": dict(self.run_info), **self.config.identity()}
        return state

    def _check_identity(self, counters: dict | None, where: str) -> None:
        if not counters:
            raise ValueError(f"{where} is not a cardrl top-k PPO checkpoint (it has no top-k PPO state)")
        identity = self.config.identity()
        # checkpoints written before the layout was recorded are read as having today's (the "older" defaults)
        diffs = identity_problems(identity, counters, {k: identity[k] for k in LAYOUT_KEYS})
        if diffs:
            raise ValueError(f"{where} does not match this top-k PPO config (" + "; ".join(diffs) + ")")

    def _restore_counters(self, counters: dict) -> None:
        self._frames_sampled = counters["frames_sampled"]
        self._frames_trained = counters["frames_trained"]
        self._episodes = counters["episodes"]
        self._weights_seq_no = counters["weights_seq_no"]
        self.run_info = dict(counters.get("run_info") or {})  # checkpoints written before it: a fresh clock


def _on_learners(learner_group, fn) -> list:
    """``fn(learner)`` on every learner (the local one or the remote ones); their results."""
    return [r.get() for r in learner_group.foreach_learner(fn)]


def read_counters(path) -> dict | None:
    """The top-k PPO counters and identity saved in an algorithm checkpoint directory (None if it has none)."""
    return read_checkpoint_state(path).get(COUNTERS)


class TopKPPOConfig(TopKPPOConfigBase):
    """Configuration of :class:`TopKPPO`: :class:`~cardrl.algorithms.topk_ppo.topk_ppo_config.TopKPPOConfigBase`'s
    options, building :class:`TopKPPO`."""

    def __init__(self, algo_class=None):
        super().__init__(algo_class=algo_class or TopKPPO)
