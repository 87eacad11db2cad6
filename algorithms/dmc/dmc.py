"""Deep Monte-Carlo (DouZero) as an RLlib ``Algorithm`` on the new API stack.

DouZero (Zha et al. 2021), restated in DouZero+ (Zhao et al. 2022, "DouZero+: Improving DouDizhu AI by Opponent
Modeling and Coach-guided Learning", section III) and Luo & Tan 2024 (Algorithm 1): actors play whole games
epsilon-greedily (epsilon 0.01) with Q(s, a); every chosen (s, a) is labelled with the player's final return G;
learners minimise (Q(s, a) - G)^2 with RMSprop (lr 1e-4, alpha 0.99, eps 1e-5) and gradient clipping 40. One network
per DouDiZhu seat with DouZero's features, as DouZero; one shared network with seat identity in the features for
Luo & Tan's unified features ("a single model that can be applied to all players", their Appendix C), Big2 and
GuanDan (``module_mapping`` chooses either).

Data flow (docs/architecture.md): :class:`~cardrl.algorithms.dmc.dmc_env_runner.DMCEnvRunner` actors play many games
at once and return compact per-module samples; the driver keeps one sample request in flight per runner, each
carrying the newest weights, so sampling and learning overlap and a runner's weights lag the learner by at most the
updates made while one request ran (reported as ``weight_lag``). Each module is updated as soon as its own bounded
buffer holds a batch, on its newest frames (:mod:`cardrl.algorithms.dmc.buffers`); the age of what each update trains
on (``data_age_updates``, ``data_age_s``), the frames dropped (``frames_dropped``) and the buffers' size
(``buffer_frames``, ``buffer_mb``) are reported every iteration.

Deterministic mode (``deterministic``, ``cardrl train --deterministic``; docs/usage.md): sampling and learning take
turns: one sample request to every runner with the current weights, the replies taken in the runners' order
(:meth:`DMCSampling._collect_in_order`), then the updates they make ready, the driver sampling nothing. The deals and
the exploration come from the runners' generators seeded by (seed, runner index), the initial weights from torch's
generator seeded by RLlib from the seed, the buffers serve their newest frames (no sampling), and the learners
compute with torch's deterministic kernels and one thread. A seed then fixes the run's records (all but their timing
fields) and weights however busy the machine.

Fault tolerance (docs/operations.md): an env runner that dies is restarted by Ray (``restart_failed_env_runners``,
on by default) and brought back by :meth:`DMC.restore_env_runners` with the learner's current weights and a fresh
seed; what is lost is that runner's sample request in flight and its unfinished games (``env_runner_samples_lost``
counts the requests, ``env_runner_restarts`` the restarts, ``env_runners_healthy`` the runners sampling now).
Checkpoints written by :meth:`DMC.save_to_path` end with a completion marker (``cardrl_checkpoint.json``, listing
every file and its size) that :meth:`DMC.restore_from_path` checks. The frame buffers are not saved: a restored
run starts with empty buffers (at most ``buffer_frames`` frames per module sampled but not trained are lost), and
its runners are reseeded from (seed, frames trained) so that it does not replay the deals of the run it continues.

One concern per file, as RLlib's ``algorithms/ppo``: ``dmc_config.py`` (the config) and ``dmc_checks.py`` (its
checks), this file (the algorithm: one iteration and its metrics), ``dmc_sampling.py`` (sample requests, fault
tolerance), ``checkpointing.py`` (checkpoints) and ``counters.py`` (the counters they share: ``DMC.counters``,
saved with checkpoints, and ``DMC.stats``), ``dmc_learner.py``, ``dmc_rl_module.py``, ``dmc_env_runner.py``.
"""

from __future__ import annotations

import time

import numpy as np
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, LEARNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

from cardrl.algorithms.common.metrics import mean_returns
from cardrl.algorithms.common.modules import modules_by_agent, modules_by_id
# not part of this module's API (import them from their owner): checkpoints written while the policy mappings were
# defined here pickled their config's policy_mapping_fn under this module's name, and load through these names
# (PICKLED_NAMES in tests/test_public_names.py)
from cardrl.algorithms.common.policy_mapping import one_module_per_seat, one_shared_module  # noqa: F401
from cardrl.algorithms.dmc.buffers import FrameBuffer
from cardrl.algorithms.dmc.checkpointing import DMCCheckpointing
from cardrl.algorithms.dmc.coach import COACH
from cardrl.algorithms.dmc.counters import DMCCounters, DMCStats
from cardrl.algorithms.dmc.dmc_config import DMCConfigBase
from cardrl.algorithms.dmc.dmc_sampling import DMCSampling

__all__ = ["DMC", "DMCConfig"]


class DMC(DMCSampling, DMCCheckpointing, Algorithm):
    """Deep Monte-Carlo on RLlib (see the module docstring; DouZero, Zha et al. 2021)."""

    @classmethod
    def get_default_config(cls) -> DMCConfig:
        return DMCConfig()

    def setup(self, config) -> None:
        super().setup(config)
        self._module_ids = sorted(self.config.get_multi_rl_module_spec().rl_module_specs)
        # every Q-module trains on frames_per_update frames; the coach (DouZero+) on coach_batch games, the bidding
        # networks (whole game) on bid_frames_per_update
        self._batch_sizes = {m: self.config.module_batch_size(m) for m in self._module_ids}
        capacity = self.config.buffer_capacity()
        self._buffers = {m: FrameBuffer(capacity if self._batch_sizes[m] == self.config.frames_per_update
                                        else 2 * self._batch_sizes[m]) for m in self._module_ids}
        self.counters = DMCCounters()  # the run's totals: saved with checkpoints (checkpointing.py)
        self.stats = DMCStats.of_modules(self._module_ids)  # this process's tallies and windows, for the metrics
        self._weights_ref = None
        # fault tolerance: sample requests in flight per remote runner id
        self._in_flight: dict[int, int] = {}
        self.run_info: dict = {}  # what a driver (train.py) saves with the checkpoint: elapsed time, milestones

    @property
    def frames_trained(self) -> int:
        """Frames the Q-networks have trained on, since the run began (a restored run included)."""
        return self.counters.frames_trained

    # ---- play ------------------------------------------------------------------------------------
    def q_modules(self) -> dict:
        """CPU copies of the learner's current Q-networks, keyed by env agent (works with local, remote and
        GPU learners); e.g. for :class:`~cardrl.agents.q_agent.QAgent`."""
        return modules_by_agent(self.config, self.learner_group, self.config.game_agents)

    def bid_modules(self) -> dict:
        """CPU copies of the current bidding Q-networks by module id (``bid_0`` .. ``bid_2`` or ``bid``; empty
        without bidding): with :meth:`q_modules`, a :class:`~cardrl.agents.q_agent.QAgent` of the whole game."""
        from cardrl.algorithms.dmc.bidding import bid_module_ids

        if not self.config.bidding:
            return {}
        ids = bid_module_ids(self.config.bid_networks == "per_position")
        return modules_by_id(self.config, self.learner_group, ids)

    def scorer(self):
        """``score(agent, obs, actions, blocks=None)`` over the current Q-networks (CPU copies), for
        :func:`cardrl.eval.lockstep.evaluate_scorer`; ``blocks`` are the input blocks of the positions (absent: zeros,
        the deployable agent). How the trained agent plays (its pruning, its oracle block): :meth:`play_options`."""
        from cardrl.algorithms.dmc.dmc_env_runner import score_legal_moves

        modules = self.q_modules()
        return lambda agent, obs, actions, blocks=None: score_legal_moves(modules[agent], obs, actions, blocks)

    def play_options(self):
        """The training options that change how the agent plays, at the frames trained so far (ODMC's pruning, the
        oracle schedule): :class:`~cardrl.algorithms.dmc.play_options.PlayOptions`."""
        from cardrl.algorithms.dmc.play_options import PlayOptions

        return PlayOptions.of_config(self.config, self.counters.frames_trained)

    # ---- one iteration ---------------------------------------------------------------------------
    def training_step(self) -> None:
        """Update every module whose buffer holds a batch, as soon as it does (DouZero's per-position learners),
        on its newest ``frames_per_update`` frames; sample until one does. The runners get the new weights with
        their next sample request (:meth:`_collect`). The updates depend on the samples' order alone, so with
        ``deterministic`` (samples in a fixed order) they fall at the same points in every run."""
        updates = 0
        while updates < self.config.updates_per_iteration:
            ready = [m for m in self._module_ids if len(self._buffers[m]) >= self._batch_sizes[m]]
            if not ready:
                for result in self._collect():
                    self._ingest(result)
                continue
            updates += self._update(ready) > 0  # a coach-only update does not count as one of the iteration's
            self._sync_weights()
        self.metrics.log_dict(self._iteration_metrics(), reduce=None, window=1)

    def _update(self, ready: list[str]) -> int:
        """One learner update of the ready modules on their buffers' newest frames; returns the Q-modules' frames."""
        taken = {m: self._buffers[m].take(self._batch_sizes[m], self.counters.weights_seq_no) for m in ready}
        frames = sum(self._batch_sizes[m] for m in ready if m != COACH)  # the coach's rows are games
        batch = MultiAgentBatch({m: SampleBatch(t.columns) for m, t in taken.items()}, env_steps=frames)
        learner_results = self.learner_group.update(
            batch=batch, timesteps={NUM_ENV_STEPS_SAMPLED_LIFETIME: self.counters.frames_sampled})
        self.metrics.aggregate(learner_results, key=LEARNER_RESULTS)
        self.counters.frames_trained += frames
        for m, t in taken.items():
            self.stats.module_updates[m] += 1
            if m != COACH:
                self.stats.ages.append((t.age_updates, t.age_seconds))
        return frames

    def _sync_weights(self) -> None:
        """A new version of the weights: every runner loads it with its next sample request (``weights_seq_no``)."""
        self.counters.weights_seq_no += 1
        self._weights_ref = None

    def _iteration_metrics(self) -> dict:
        """What an iteration reports beside the learner's results: progress, throughput, the runners' health, the
        papers' options' values and the buffers' state."""
        counters, stats = self.counters, self.stats
        elapsed = max(time.time() - stats.start, 1e-9)
        metrics = {"frames_trained": counters.frames_trained, "frames_sampled": counters.frames_sampled,
                   "episodes": counters.episodes, "deals": counters.deals,
                   "frames_trained_per_s": (counters.frames_trained - stats.counted_from[0]) / elapsed,
                   "episodes_per_s": (counters.episodes - stats.counted_from[1]) / elapsed,
                   **self._runner_metrics(), **self._option_metrics(), **self._buffer_metrics(),
                   "module_updates": dict(stats.module_updates),
                   "module_frames_sampled": dict(stats.module_frames_sampled)}
        returns = mean_returns(stats.recent_returns)
        if returns:
            metrics[ENV_RUNNER_RESULTS] = {"mean_return": returns}
        return metrics

    def _runner_metrics(self) -> dict:
        """Remote runners' restarts, requests lost and runners sampling now; the weights' lag behind the learner."""
        metrics = {}
        if self.env_runner_group.num_remote_env_runners():
            metrics = {"env_runner_restarts": self.counters.env_runner_restarts,
                       "env_runner_samples_lost": self.counters.env_runner_samples_lost,
                       "env_runners_healthy": self.env_runner_group.num_healthy_remote_env_runners()}
        if self.stats.lags:
            metrics["weight_lag"] = float(np.mean(self.stats.lags))
        return metrics

    def _option_metrics(self) -> dict:
        """ODMC's pruning ratio, the oracle's lambda, the coach's beta and rejections, each seat's target baseline."""
        cfg, stats, metrics = self.config, self.stats, {}
        if stats.prune_counts[0]:
            metrics["pruning_ratio"] = 1.0 - stats.prune_counts[1] / stats.prune_counts[0]
        schedules = cfg.schedule_values(self.counters.frames_trained)
        if cfg.oracle is not None:
            metrics["oracle_lambda"] = schedules["oracle_lambda"]
        if cfg.coach:
            metrics["coach_beta"] = schedules["coach_beta"]
        metrics.update({f"target_baseline_{agent}": value for agent, value in stats.target_baselines.items()})
        if cfg.coach and sum(stats.coach_counts):
            metrics["coach_rejection_rate"] = stats.coach_counts[0] / sum(stats.coach_counts)
            metrics["coach_deals_rejected"] = stats.coach_counts[0]
        return metrics

    def _buffer_metrics(self) -> dict:
        """The age of what the last updates trained on, the frames dropped and the buffers' size."""
        metrics = {}
        if self.stats.ages:
            ages = np.array(self.stats.ages)
            metrics["data_age_updates"] = float(ages[:, 0].mean())
            metrics["data_age_s"] = float(ages[:, 1].mean())
        buffers = self._buffers.values()
        return {**metrics, "frames_dropped": sum(b.dropped for b in buffers),
                "buffer_frames": sum(len(b) for b in buffers), "buffer_mb": sum(b.nbytes for b in buffers) / 2**20}


class DMCConfig(DMCConfigBase):
    """Configuration of :class:`DMC`: :class:`~cardrl.algorithms.dmc.dmc_config.DMCConfigBase`'s options (and its
    example), building :class:`DMC`."""

    def __init__(self, algo_class=None):
        super().__init__(algo_class=algo_class or DMC)
