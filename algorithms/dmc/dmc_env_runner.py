"""The DMC EnvRunner: many games in lock-step, every legal move scored in one batched forward pass.

Deep Monte-Carlo as in DouZero (Zha et al. 2021; DouZero+ section III; Luo & Tan 2024, Algorithm 1): an actor plays
whole games epsilon-greedily with the current Q-networks; when a game ends, every (state, action) a player chose is
labelled with that player's final return (Monte-Carlo target, no bootstrapping). This runner keeps
``num_envs_per_env_runner`` PettingZoo envs going at once; at each tick it groups the waiting players by module,
scores every legal move of every waiting game in one forward pass per module, picks epsilon-greedily, and steps.
Finished games emit compact samples per module: ``obs`` (int8, exact for the integer features: 0/1, counts, -1),
``action`` (uint8 card vector), ``target`` and ``actor_q`` (float32).
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np
import torch
from ray.rllib.core import COMPONENT_RL_MODULE
from ray.rllib.env.env_runner import EnvRunner
from ray.rllib.utils.checkpoints import Checkpointable
from ray.rllib.utils.metrics import NUM_ENV_STEPS_SAMPLED_LIFETIME

from cardrl.agents.q_agent import greedy_index

WEIGHTS_SEQ_NO = "weights_seq_no"


def score_legal_moves(module, obs: np.ndarray, actions: list[np.ndarray]) -> list[np.ndarray]:
    """Q-values of every legal move of U waiting positions in one forward pass.

    ``obs`` (U, D) flat observations, ``actions[u]`` (n_u, 54) the action features of position u's legal moves;
    returns one array of n_u Q-values per position.
    """
    counts = [len(a) for a in actions]
    index = np.repeat(np.arange(len(actions)), counts)
    q = module.score(torch.from_numpy(np.asarray(obs, dtype=np.float32)),
                     torch.from_numpy(np.concatenate(actions).astype(np.float32)), torch.from_numpy(index))
    return np.split(q.cpu().numpy(), np.cumsum(counts)[:-1])


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


class DMCEnvRunner(EnvRunner, Checkpointable):
    """EnvRunner for :class:`~cardrl.algorithms.dmc.dmc.DMC` (see module docstring)."""

    def __init__(self, *, config, **kwargs):
        super().__init__(config=config, **kwargs)
        torch.set_num_threads(1)  # one torch thread per Ray worker (docs/architecture.md, "RLlib facts")
        self.num_envs = int(config.num_envs_per_env_runner)
        self.epsilon = float(config.epsilon)
        base_seed = config.seed if config.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        self._rng = np.random.default_rng([base_seed, self.worker_index or 0])
        self.envs = [config.make_env() for _ in range(self.num_envs)]
        self.env = self.envs[0]
        self.agent_to_module = {a: config.policy_mapping_fn(a, None) for a in self.env.possible_agents}
        self.target_scale = config.target_scales()
        self.module = config.get_multi_rl_module_spec(inference_only=True).build()
        self.module.foreach_module(lambda mid, m: m.eval())
        self._weights_seq_no = 0
        self._labels = [SegmentLabels() for _ in range(self.num_envs)]
        self._episode_sums: list[dict] = [{} for _ in range(self.num_envs)]
        for i in range(self.num_envs):
            self._reset(i)
        self._episode_returns: list[dict] = []
        self._episodes_done = 0
        self.pruner = None
        if getattr(config, "prune", None) == "mcs":  # ODMC (Luo & Tan 2024, eq. 2)
            from cardrl.search.prune import MCSPruner

            self.pruner = MCSPruner(config.prune_slack, config.prune_extra)

    # ---- sampling ------------------------------------------------------------------------------
    def _reset(self, i: int) -> None:
        self.envs[i].reset(seed=int(self._rng.integers(2**62)))
        self._labels[i] = SegmentLabels()
        self._episode_sums[i] = {}

    @torch.no_grad()
    def sample(self, *, num_frames: int | None = None, weights=None, weights_seq_no: int = 0, **kwargs) -> dict:
        """Play until at least ``num_frames`` labelled frames are done; returns per-module arrays.

        ``weights`` (a module state, or a Ray object ref to one) is loaded first when newer than ours, so a
        sample request carries the learner's latest weights and weight lag stays bounded by one request.
        """
        if weights is not None:
            self.set_state({COMPONENT_RL_MODULE: weights, WEIGHTS_SEQ_NO: weights_seq_no})
        target = int(num_frames or self.config.rollout_fragment_length)
        start = time.perf_counter()
        out: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        frames = steps = 0
        prune_before = (self.pruner.legal_seen, self.pruner.kept) if self.pruner else (0, 0)
        while frames < target:
            frames += self._tick(out)
            steps += 1
        batch = {mid: {k: np.concatenate(v) for k, v in cols.items()} for mid, cols in out.items()}
        self.num_env_steps_sampled_lifetime += frames
        return {
            "batch": batch,
            "frames": frames,
            "seconds": time.perf_counter() - start,
            "weights_seq_no": self._weights_seq_no,
            "episodes": self._pop_episode_returns(),
            "pruning": ((self.pruner.legal_seen - prune_before[0], self.pruner.kept - prune_before[1])
                        if self.pruner else None),
        }

    def _tick(self, out) -> int:
        """One move in every game; returns the number of frames labelled by games that ended."""
        waiting = defaultdict(list)  # module id -> [(env index, agent, obs, legal)]
        for i, env in enumerate(self.envs):
            agent = env.agent_selection
            legal = env.legal_moves()
            if self.pruner is not None:  # ODMC: choose (greedy and epsilon alike) among the kept moves only
                legal = self.pruner(env.unwrapped.game, legal)
            obs = env.observation_vector(agent)
            waiting[self.agent_to_module[agent]].append((i, agent, obs, legal))
        frames = 0
        for mid, items in waiting.items():
            features = [self.envs[i].action_features(legal) for i, _, _, legal in items]
            q_lists = score_legal_moves(self.module[mid], np.stack([it[2] for it in items]), features)
            for (i, agent, ob, legal), q, feats in zip(items, q_lists, features):
                if len(legal) > 1 and self._rng.random() < self.epsilon:
                    j = int(self._rng.integers(len(legal)))
                else:
                    game = self.envs[i].game
                    j = greedy_index(q, lambda g=game, ids=legal: g.move_strength(ids))
                self._labels[i].add(agent, (ob, feats[j], float(q[j])))
                frames += self._step(i, agent, int(legal[j]), out)
        return frames

    def _step(self, i: int, agent: str, action: int, out) -> int:
        """Step game ``i``; label the frames of every segment whose payoffs became final (:class:`SegmentLabels`)."""
        env = self.envs[i]
        env.step(action)
        frames = 0
        sums = self._episode_sums[i]
        for a, trajectory, ret in self._labels[i].after_step(env):
            sums[a] = sums.get(a, 0.0) + ret
            if not trajectory:
                continue
            cols = out[self.agent_to_module[a]]
            cols["obs"].append(np.stack([t[0] for t in trajectory]).astype(np.int8))  # small ints: 0/1, counts, -1
            cols["action"].append(np.stack([t[1] for t in trajectory]).astype(np.uint8))
            cols["target"].append(np.full(len(trajectory), ret * self.target_scale.get(a, 1.0), dtype=np.float32))
            cols["actor_q"].append(np.array([t[2] for t in trajectory], dtype=np.float32))
            frames += len(trajectory)
        if all(env.terminations.values()) or all(env.truncations.values()):
            self._episode_returns.append(dict(sums))
            self._episodes_done += 1
            self._reset(i)
        return frames

    def _pop_episode_returns(self) -> list[dict]:
        out, self._episode_returns = self._episode_returns, []
        return out

    # ---- EnvRunner / Checkpointable API ----------------------------------------------------------
    def get_spaces(self):
        return {mid: (self.env.observation_space(a), self.env.action_space(a))
                for a, mid in self.agent_to_module.items()}

    def assert_healthy(self):
        assert self.envs and self.module is not None, "DMCEnvRunner has no envs or no module"

    def get_metrics(self):
        return self.metrics.reduce()

    def get_state(self, components=None, *, not_components=None, **kwargs):
        state = {NUM_ENV_STEPS_SAMPLED_LIFETIME: self.num_env_steps_sampled_lifetime}
        if self._check_component(COMPONENT_RL_MODULE, components, not_components):
            state[COMPONENT_RL_MODULE] = self.module.get_state(
                components=self._get_subcomponents(COMPONENT_RL_MODULE, components),
                not_components=self._get_subcomponents(COMPONENT_RL_MODULE, not_components), **kwargs)
            state[WEIGHTS_SEQ_NO] = self._weights_seq_no
        return state

    def set_state(self, state):
        if COMPONENT_RL_MODULE in state:
            seq = state.get(WEIGHTS_SEQ_NO, 0)
            if seq == 0 or seq > self._weights_seq_no:
                module_state = state[COMPONENT_RL_MODULE]
                if not isinstance(module_state, dict):  # an ObjectRef
                    import ray

                    module_state = ray.get(module_state)
                self.module.set_state(module_state)
            if seq > 0:
                self._weights_seq_no = seq
        if NUM_ENV_STEPS_SAMPLED_LIFETIME in state:
            self.num_env_steps_sampled_lifetime = state[NUM_ENV_STEPS_SAMPLED_LIFETIME]

    def get_ctor_args_and_kwargs(self):
        return ((), {"config": self.config})

    def get_checkpointable_components(self):
        return [(COMPONENT_RL_MODULE, self.module)]

    def stop(self):
        for env in self.envs:
            env.close()
