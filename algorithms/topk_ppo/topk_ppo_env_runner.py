"""The top-k PPO EnvRunner: many games in lock-step; the frozen DMC network scores every legal move in one batched
pass, the PPO policy picks among the k best in another.

At each tick (DanZero+, Zhao, Lu, Zhao, Zhou, Li 2024, Sec. IV-D and Fig. 5):

1. every game's player to move, its legal moves and its observation (the DMC's features) are gathered and grouped by
   module (DouDiZhu: one per role; Big2 and GuanDan: one shared);
2. per module, one no-grad forward pass of the frozen candidate model scores all legal moves of all waiting
   positions (:func:`cardrl.algorithms.dmc.dmc_env_runner.score_legal_moves`); each position keeps its k best
   (:func:`~cardrl.algorithms.topk_ppo.candidates.topk_candidates`, ties as DMC breaks them), padded with -1;
3. per module, one forward pass of the policy gives the masked logits and the value; a slot is sampled from the
   categorical distribution (the authors' actors sample too) and its move is played.

A position with a single legal move is played without asking either network and leaves no sample, as the authors'
client does. When a deal ends (GuanDan) or a game ends (DouDiZhu, Big2) and its payoffs are final
(:class:`~cardrl.algorithms.common.env_runner.SegmentLabels`; with GuanDan's match bonus, at the match's end), each
player's decisions of that deal become one GAE trajectory (:func:`~cardrl.algorithms.topk_ppo.gae.gae`): reward 0
except the deal's payoff (times the seat's target scale, DouDiZhu's landlord 0.5) on its last decision, done there.
DanZero+'s match reward (``match_bonus``) is added once, to each player's last decision of the match, as the authors'
PPO actor adds it (``actor_torch/actor.py``: ``rewards[-1] += 1`` or ``-= 1`` at the match's end), not to every deal
as DMC's targets get it (``env.segment_bonus`` is the part of each deal's payoff to move).
Samples are per-module arrays; observations and candidates are stored as int8 (exact for the built-in features).
Time spent in candidate scoring (step 2) is measured for the throughput figures.
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np
import torch

from cardrl.algorithms.common.env_runner import LockstepEnvRunner, SegmentLabels
from cardrl.algorithms.common.game_defaults import target_scales
from cardrl.algorithms.dmc.dmc_env_runner import score_legal_moves
from cardrl.algorithms.topk_ppo.candidates import candidate_block, topk_candidates
from cardrl.algorithms.topk_ppo.gae import gae
from cardrl.algorithms.topk_ppo.level_a import level_a_counters
from cardrl.algorithms.topk_ppo.topk_ppo_rl_module import (
    ACTION_DIST_INPUTS, ACTION_LOGP, ACTIONS, ADVANTAGES, CANDIDATE_MASK, CANDIDATES, EMBEDDINGS, EXTRA_STATE, OBS,
    VALUE_TARGETS, VF_PREDS)

REWARDS = "rewards"
DONES = "dones"  # 1 on a player's last decision of a deal (GAE's episode boundary)
CANDIDATE_IDS = "candidate_ids"  # the action ids of the candidates (-1 for padding); for inspection and tests


class TopKPPOEnvRunner(LockstepEnvRunner):
    """EnvRunner of :class:`~cardrl.algorithms.topk_ppo.topk_ppo.TopKPPO` (module docstring)."""

    seeds_torch = True  # the policy's slot is sampled with torch

    def __init__(self, *, config, **kwargs):
        super().__init__(config=config, **kwargs)
        self.k = int(config.k)
        self.target_scale = target_scales(self.env)
        self.level_a = config.uses_level_a()
        self.gamma, self.lambda_ = float(config.gamma), float(config.lambda_)
        self._deal_all()
        self._timers = dict.fromkeys(("scoring", "policy"), 0.0)

    def _reset(self, i: int) -> None:
        self.envs[i].reset(seed=int(self._rng.integers(2**62)))
        self._labels[i] = SegmentLabels()
        self._episode_sums[i] = {}

    # ---- sampling ------------------------------------------------------------------------------------------------
    @torch.no_grad()
    def sample(self, *, num_frames: int | None = None, weights=None, weights_seq_no: int = 0, **kwargs) -> dict:
        """Play until at least ``num_frames`` frames have their advantages; returns per-module arrays and timings.

        ``weights`` (a module state, or a Ray object ref to one) is loaded first when newer than ours.
        """
        self.load_weights(weights, weights_seq_no)
        target = int(num_frames or self.config.train_batch_size)
        self._timers = dict.fromkeys(self._timers, 0.0)
        start = time.perf_counter()
        out: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        frames = decisions = 0
        while frames < target:
            done, made = self._tick(out)
            frames += done
            decisions += made
        batch = {mid: {k: np.concatenate(v) for k, v in cols.items()} for mid, cols in out.items()}
        self.num_env_steps_sampled_lifetime += frames
        return {"batch": batch, "frames": frames, "decisions": decisions,
                "seconds": time.perf_counter() - start, "scoring_seconds": self._timers["scoring"],
                "policy_seconds": self._timers["policy"], "weights_seq_no": self._weights_seq_no,
                "episodes": self._pop_episode_returns()}

    def _tick(self, out) -> tuple[int, int]:
        """One move in every game; returns (frames that got their advantages, decisions sampled)."""
        waiting = defaultdict(list)  # module id -> [(env index, agent, obs, legal)]
        frames = 0
        for i, env in enumerate(self.envs):
            agent = env.agent_selection
            legal = env.legal_moves()
            if len(legal) == 1:  # no choice: played without a sample (the authors' client does not ask the model)
                frames += self._step(i, agent, int(legal[0]), out)
                continue
            waiting[self.agent_to_module[agent]].append((i, agent, env.observation_vector(agent), legal))
        made = 0
        for mid, items in waiting.items():
            module = self.module[mid]
            t0 = time.perf_counter()
            features = [self.envs[i].action_features(legal) for i, _, _, legal in items]
            obs = np.stack([it[2] for it in items])
            q_lists = score_legal_moves(module.candidate_model, obs, features)
            blocks = []
            for (i, _, _, legal), q, feats in zip(items, q_lists, features):
                game = self.envs[i].game
                order = topk_candidates(q, self.k, lambda g=game, ids=legal: g.move_strength(ids))
                cands, mask = candidate_block(feats, order, self.k)
                ids = np.full(self.k, -1, dtype=np.int64)
                ids[: len(order)] = legal[order]
                blocks.append((cands, mask, ids))
            t1 = time.perf_counter()
            extra = np.stack([level_a_counters(self.envs[i].game, self.envs[i].game.current_player) if self.level_a
                              else np.zeros(0, dtype=np.int8) for i, _, _, _ in items])
            batch = {OBS: torch.from_numpy(obs.astype(np.float32)),
                     EXTRA_STATE: torch.from_numpy(extra.astype(np.float32)),
                     CANDIDATES: torch.from_numpy(np.stack([b[0] for b in blocks])),
                     CANDIDATE_MASK: torch.from_numpy(np.stack([b[1] for b in blocks]))}
            fwd = module.forward_exploration(batch)
            values = module.compute_values(batch, embeddings=fwd[EMBEDDINGS]).numpy()
            dist = torch.distributions.Categorical(logits=fwd[ACTION_DIST_INPUTS])
            slots = dist.sample()
            logps = dist.log_prob(slots).numpy()
            slots = slots.numpy()
            self._timers["scoring"] += t1 - t0
            self._timers["policy"] += time.perf_counter() - t1
            for n, (i, agent, ob, legal) in enumerate(items):
                cands, mask, ids = blocks[n]
                slot = int(slots[n])
                frame = (ob, extra[n], cands, mask, ids, slot, float(logps[n]), float(values[n]))
                self._labels[i].add(agent, frame)
                frames += self._step(i, agent, int(ids[slot]), out)
                made += 1
        return frames, made

    def _step(self, i: int, agent: str, action: int, out) -> int:
        """Step game ``i``; turn the decisions of every deal whose payoffs became final into GAE samples."""
        env = self.envs[i]
        env.step(action)
        frames = 0
        sums = self._episode_sums[i]
        labelled = self._labels[i].after_step(env)
        # DanZero+'s match reward: each deal's payoff holds the +-1 (segment_bonus); PPO gets it once, on the match's
        # last decision of each player, as the authors' actors add it (all deals are labelled together at its end)
        bonus = env.segment_bonus if labelled else None
        last = {a: n for n, (a, trajectory, _) in enumerate(labelled) if trajectory}
        for n, (a, trajectory, ret) in enumerate(labelled):
            sums[a] = sums.get(a, 0.0) + ret
            if trajectory:
                seat_bonus = float(bonus[env.possible_agents.index(a)])
                reward = ret - seat_bonus + (seat_bonus if last[a] == n else 0.0)
                self._emit(out[self.agent_to_module[a]], trajectory, reward * self.target_scale.get(a, 1.0))
                frames += len(trajectory)
        if all(env.terminations.values()) or all(env.truncations.values()):
            self._episode_returns.append(dict(sums))
            self._reset(i)
        return frames

    def _emit(self, cols, trajectory: list, reward: float) -> None:
        n = len(trajectory)
        rewards = np.zeros(n, dtype=np.float32)
        rewards[-1] = reward
        dones = np.zeros(n, dtype=np.float32)
        dones[-1] = 1.0
        values = np.array([t[7] for t in trajectory], dtype=np.float32)
        advantages, targets = gae(rewards, values, dones, self.gamma, self.lambda_)
        cols[OBS].append(np.stack([t[0] for t in trajectory]).astype(np.int8))
        cols[EXTRA_STATE].append(np.stack([t[1] for t in trajectory]).astype(np.int8))
        cols[CANDIDATES].append(np.stack([t[2] for t in trajectory]).astype(np.int8))
        cols[CANDIDATE_MASK].append(np.stack([t[3] for t in trajectory]))
        cols[CANDIDATE_IDS].append(np.stack([t[4] for t in trajectory]))
        cols[ACTIONS].append(np.array([t[5] for t in trajectory], dtype=np.int64))
        cols[ACTION_LOGP].append(np.array([t[6] for t in trajectory], dtype=np.float32))
        cols[VF_PREDS].append(values)
        cols[REWARDS].append(rewards)
        cols[DONES].append(dones)
        cols[ADVANTAGES].append(advantages)
        cols[VALUE_TARGETS].append(targets)
