"""What DMC's and top-k PPO's env runners share: many games of one card game in lock-step on one runner, each seat's
module, seeded deals, and the frames of each scoring segment waiting for their return (:class:`SegmentLabels`).

:class:`LockstepEnvRunner` builds that state; a subclass adds its own (epsilon, the candidate model, ...), then deals
every game (its ``_reset(i)``), and implements ``sample``.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import torch

from cardrl.algorithms.card_env_runner import CardGameEnvRunner
from cardrl.algorithms.common.policy_mapping import agent_to_module

__all__ = ["LockstepEnvRunner", "SegmentLabels"]


class SegmentLabels:
    """The frames of one game waiting for their Monte-Carlo return, by scoring segment.

    A segment is the episode for DouDiZhu and Big2 (rewards come only at the end) and one deal for GuanDan matches
    (DanZero labels each deal's samples with that deal's points). The env says how many segments have ended
    (``segments_done``), what each paid per seat (``segment_payoffs(k)``) and whether those payoffs are final
    (``segment_payoffs_final``): with DanZero+'s match bonus a GuanDan deal's label, its points plus +-1 for the
    match's winner, is known only when the match ends, so the deal's frames wait until then. Every seat gets its
    return, also one that never moved in a segment (a DouDiZhu landlord may go out with one 20-card move).
    """

    def __init__(self):
        self.trajectories: dict[str, list] = defaultdict(list)  # agent -> frames of the running segment
        self.seen = 0  # segments ended
        self.pending: list[tuple[int, dict[str, list]]] = []  # ended segments whose payoffs are not final yet

    def add(self, agent: str, frame) -> None:
        self.trajectories[agent].append(frame)

    def after_step(self, env) -> list[tuple[str, list, float]]:
        """``(agent, frames, return)`` of every seat of every segment whose payoffs became final with this step."""
        segments = env.segments_done
        if segments != self.seen:
            self.pending.append((self.seen, self.trajectories))
            self.trajectories = defaultdict(list)
            self.seen = segments
        out = []
        if self.pending and env.segment_payoffs_final:
            for k, trajectories in self.pending:
                payoffs = env.segment_payoffs(k)
                out += [(a, trajectories.get(a, []), float(payoffs[seat])) for seat, a in enumerate(env.possible_agents)]
            self.pending = []
        return out


class LockstepEnvRunner(CardGameEnvRunner):
    """``num_envs_per_env_runner`` games of the config's game, a random generator seeded by (seed, worker index), the
    inference-only modules (eval mode) and each game's :class:`SegmentLabels` and return sums."""

    seeds_torch = False  # whether torch's generator is seeded from the runner's (a policy that samples with torch)

    def __init__(self, *, config, **kwargs):
        super().__init__(config=config, **kwargs)
        torch.set_num_threads(1)  # one torch thread per Ray worker (docs/architecture.md, "RLlib facts")
        self.num_envs = int(config.num_envs_per_env_runner)
        base_seed = config.seed if config.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        self._rng = np.random.default_rng([base_seed, self.worker_index or 0])
        if self.seeds_torch:
            torch.manual_seed(int(self._rng.integers(2**31)))
        self.envs = [config.make_env() for _ in range(self.num_envs)]
        self.env = self.envs[0]
        self.agent_to_module = agent_to_module(config.policy_mapping_fn, self.env.possible_agents)
        self.module = config.get_multi_rl_module_spec(inference_only=True).build()
        self.module.foreach_module(lambda mid, m: m.eval())
        self._weights_seq_no = 0
        self._labels = [SegmentLabels() for _ in range(self.num_envs)]
        self._episode_sums: list[dict] = [{} for _ in range(self.num_envs)]
        self._episode_returns: list[dict] = []

    def _deal_all(self) -> None:
        """Deal every game (the subclass's ``_reset``)."""
        for i in range(self.num_envs):
            self._reset(i)

    def _reset(self, i: int) -> None:
        raise NotImplementedError
