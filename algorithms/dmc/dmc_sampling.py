"""How :class:`~cardrl.algorithms.dmc.dmc.DMC` samples: one sample request in flight per remote env runner, each
carrying the newest weights, so that runners sample while the learner updates; replies go into each module's bounded
buffer (:meth:`DMCSampling._ingest`).

With ``deterministic`` (``cardrl train --deterministic``) sampling and learning take turns instead
(:meth:`DMCSampling._collect_in_order`): one request to each healthy runner with the current weights, every reply
waited for and ingested in the runners' order, the driver sampling nothing; what the runners play then depends on the
seed alone (their deals and exploration), never on which reply came first.

Fault tolerance (docs/operations.md): an env runner that dies is restarted by Ray (``restart_failed_env_runners``) and
brought back by :meth:`DMCSampling.restore_env_runners` with the learner's current weights and a fresh seed; its
sample request in flight is lost (``env_runner_samples_lost``).
"""

from __future__ import annotations

import time

import numpy as np
import ray

from cardrl.algorithms.common.modules import learner_module_state

__all__ = ["DMCSampling", "SAMPLE_TAG"]

SAMPLE_TAG = "dmc_sample"  # the tag of DMC's sample requests to remote env runners


class DMCSampling:
    """The sampling half of :class:`~cardrl.algorithms.dmc.dmc.DMC` (module docstring); DMC's ``setup`` makes the
    buffers, the counters (:class:`~cardrl.algorithms.dmc.counters.DMCCounters`) and the stats it uses."""

    def _weights(self):
        """The learner's current weights, put in Ray's object store once per update when runners are remote."""
        if self._weights_ref is None:
            state = learner_module_state(self.learner_group)
            self._weights_ref = ray.put(state) if self.env_runner_group.num_remote_env_runners() else state
        return self._weights_ref

    def _collect(self) -> list[dict]:
        """Samples that are ready. With remote runners every healthy runner is handed a new request (with the newest
        weights) as soon as its last one returns, so runners keep sampling while the learner updates.

        A runner that died is marked unhealthy by RLlib when its request fails (its request is lost and counted in
        ``env_runner_samples_lost``); the others go on sampling, and it is handed requests again once
        :meth:`restore_env_runners` brought it back (RLlib calls that before every training step; here too when no
        runner is left)."""
        kwargs = {"weights": self._weights(), "weights_seq_no": self.counters.weights_seq_no,
                  "schedules": self.config.schedule_values(self.counters.frames_trained)}
        group = self.env_runner_group
        if group.num_remote_env_runners() == 0:
            return [self.env_runner.sample(**kwargs)]
        if self.config.deterministic:
            return self._collect_in_order(kwargs)
        results: list[dict] = []
        timeout = 0.0
        while True:
            ready = group.fetch_ready_async_reqs(tags=SAMPLE_TAG, timeout_seconds=timeout)
            for runner_id, result in ready:
                self._in_flight[runner_id] = max(0, self._in_flight.get(runner_id, 0) - 1)
                if result is not None:  # None: replies to RLlib's own state syncs
                    results.append(result)
            healthy = group.healthy_env_runner_ids()
            for runner_id in [r for r in self._in_flight if r not in healthy]:  # died with requests in flight
                self.counters.env_runner_samples_lost += self._in_flight.pop(runner_id)
            for runner_id in healthy:
                sent = group.foreach_env_runner_async("sample", tag=SAMPLE_TAG, kwargs=kwargs,
                                                      remote_worker_ids=[runner_id])
                self._in_flight[runner_id] = self._in_flight.get(runner_id, 0) + sent
            if results:
                return results
            if not healthy:
                self._wait_for_env_runners()
            if self.config.driver_sample_frames > 0 and self.env_runner is not None:
                # nothing ready: the driver's core would idle until a remote sample comes; it plays a little itself
                results.append(self.env_runner.sample(num_frames=self.config.driver_sample_frames, **kwargs))
                timeout = 0.0
                continue
            timeout = 0.05

    def _collect_in_order(self, kwargs: dict) -> list[dict]:
        """``deterministic``: one sample request to every healthy remote runner, all with the same weights; the
        replies once every runner answered (or died: its request is lost and counted), in the order of the runners'
        ids. Nothing is in flight between two calls, so the learner's updates fall between the same samples in every
        run. (A runner that dies and is restarted is reseeded: a run with a failure is not the run without one.)"""
        group = self.env_runner_group
        healthy = sorted(group.healthy_env_runner_ids())
        if not healthy:
            self._wait_for_env_runners()
            return []
        for runner_id in healthy:
            sent = group.foreach_env_runner_async("sample", tag=SAMPLE_TAG, kwargs=kwargs,
                                                  remote_worker_ids=[runner_id])
            self._in_flight[runner_id] = self._in_flight.get(runner_id, 0) + sent
        waiting = {r for r in healthy if self._in_flight.get(r)}
        replies: dict[int, dict] = {}
        while waiting:
            for runner_id, result in group.fetch_ready_async_reqs(tags=SAMPLE_TAG, timeout_seconds=0.05):
                self._in_flight[runner_id] = max(0, self._in_flight.get(runner_id, 0) - 1)
                if result is not None:  # None: replies to RLlib's own state syncs
                    replies[runner_id] = result
                    waiting.discard(runner_id)
            alive = set(group.healthy_env_runner_ids())
            for runner_id in sorted(waiting - alive):  # died with its request in flight
                self.counters.env_runner_samples_lost += self._in_flight.pop(runner_id, 0)
                waiting.discard(runner_id)
        return [replies[r] for r in sorted(replies)]

    def _wait_for_env_runners(self) -> None:
        """Every remote runner is down: wait until Ray restarted one (and bring it back), or fail saying why."""
        cfg = self.config
        count = self.env_runner_group.num_remote_env_runners()
        if not cfg.restart_failed_env_runners:
            raise RuntimeError(f"all {count} DMC env runner(s) failed and restart_failed_env_runners is False, so "
                               f"nothing samples: turn it on (DMCConfig().fault_tolerance(restart_failed_env_runners="
                               f"True), the default) to have Ray restart them")
        deadline = time.time() + cfg.env_runner_restore_timeout_s
        while time.time() < deadline:
            restored = self.restore_env_runners(self.env_runner_group)
            if restored:
                self._make_on_env_runners_recreated_callbacks(config=cfg, env_runner_group=self.env_runner_group,
                                                              restored_env_runner_indices=restored)
                return
            time.sleep(0.2)
        raise RuntimeError(f"all {count} DMC env runner(s) failed and none came back within "
                           f"env_runner_restore_timeout_s={cfg.env_runner_restore_timeout_s:g}s (restarts so far: "
                           f"{self.counters.env_runner_restarts}; at most max_num_env_runner_restarts="
                           f"{cfg.max_num_env_runner_restarts} per runner)")

    def _runner_entropy(self, *extra: int) -> list[int]:
        """The seed material of reseeded runners: (seed, frames trained, *extra); each runner adds its index."""
        seed = self.config.seed if self.config.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        return [int(seed), int(self.counters.frames_trained), *map(int, extra)]

    def restore_env_runners(self, env_runner_group) -> list[int]:
        """Bring back the runners Ray restarted: each gets the learner's current weights (with their sequence
        number, so that weight lag stays meaningful) and a seed of its own (seed, frames trained, restarts), so that
        a restarted runner does not replay the deals it played before. The evaluation runner group is RLlib's."""
        if env_runner_group is not self.env_runner_group:
            return super().restore_env_runners(env_runner_group)
        restored = env_runner_group.probe_unhealthy_env_runners()
        if not restored:
            return []
        self._counters["total_num_restored_workers"] += len(restored)
        counters = self.counters
        counters.env_runner_restarts += len(restored)
        weights, seq = self._weights(), counters.weights_seq_no
        entropy = self._runner_entropy(counters.env_runner_restarts)

        def sync(runner) -> None:
            runner.load_weights(weights, seq)
            runner.reseed(entropy)

        env_runner_group.foreach_env_runner(sync, remote_worker_ids=restored, local_env_runner=False,
                                            timeout_seconds=self.config.env_runner_restore_timeout_s)
        for runner_id in restored:
            self._in_flight[runner_id] = 0
        return restored

    def _reseed_runners(self) -> None:
        """Reseed every runner from (seed, frames trained): a restored run does not replay the original's deals."""
        entropy = self._runner_entropy()
        self.env_runner_group.foreach_env_runner(lambda runner: runner.reseed(entropy), local_env_runner=True)

    def _ingest(self, result: dict) -> None:
        """Add a runner's sample reply to the modules' buffers and the counters."""
        made_at = time.time()
        counters, stats = self.counters, self.stats
        for mid, cols in result["batch"].items():
            self._buffers[mid].add(cols, result["weights_seq_no"], made_at)
            stats.module_frames_sampled[mid] += len(next(iter(cols.values())))
        counters.frames_sampled += result["frames"]
        counters.episodes += len(result["episodes"])
        counters.deals += result.get("deals", 0)
        stats.recent_returns.extend(result["episodes"])
        stats.lags.append(counters.weights_seq_no - result["weights_seq_no"])
        pruning = result.get("pruning")
        if pruning:
            stats.prune_counts[0] += pruning[0]
            stats.prune_counts[1] += pruning[1]
        if result.get("target_baselines"):  # the newest runner's word per seat (runners agree to a few hundredths)
            stats.target_baselines.update(result["target_baselines"])
        coach = result.get("coach")
        if coach:
            stats.coach_counts[0] += coach[0]
            stats.coach_counts[1] += coach[1]
