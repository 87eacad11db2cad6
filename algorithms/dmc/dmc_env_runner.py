"""The DMC EnvRunner: many games in lock-step, every legal move scored in one batched forward pass.

Deep Monte-Carlo as in DouZero (Zha et al. 2021; DouZero+ section III; Luo & Tan 2024, Algorithm 1): an actor plays
whole games epsilon-greedily with the current Q-networks; when a game ends, every (state, action) a player chose is
labelled with that player's final return (Monte-Carlo target, no bootstrapping). This runner keeps
``num_envs_per_env_runner`` PettingZoo envs going at once; at each tick it groups the waiting players by module,
draws epsilon, scores every legal move of every game that chooses greedily in one forward pass per module,
takes the argmax, and steps.
Finished games emit compact samples per module: ``obs`` (int8, exact for the integer features: 0/1, counts, -1),
``action`` (uint8 card vector), ``target`` (float32) and, when the learner reads it (``q_clip="admc"``), ``actor_q``
(float32, the actor's Q of the chosen move).

Only the moves chosen greedily need Q-values: a position with a single legal move (a forced pass: about a third of
DouDiZhu's positions) or an epsilon draw is not scored unless the learner reads the actor's Q, so the forward pass,
which is most of an actor's time (docs/architecture.md, "Where an actor's time goes"), covers the greedy choices
only. With ``gpu_inference`` the Q-modules live on the runner's GPU and the batched scoring runs there.

With ``bidding`` (DouDiZhu's whole game, AlphaDou) the games bid first: each decision goes to the network of its
bidding position or of its role (:mod:`~cardrl.algorithms.dmc.bidding`), the bids of a deal where all passed are
labelled 0 when the engine deals again, and bidding explores at its own scheduled rate.
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict

import numpy as np
import torch

from cardrl.agents.q_agent import TIE_TOLERANCE, greedy_index
from cardrl.algorithms.common.env_runner import LockstepEnvRunner, SegmentLabels
from cardrl.algorithms.dmc.bfloat16_scoring import BFloat16Scorers
from cardrl.algorithms.dmc.bidding import SeatDecisions, WholeGameDecisions, is_bid_module
from cardrl.algorithms.dmc.centering import SeatReturnMean
from cardrl.algorithms.dmc.coach import COACH, COACH_HANDS, COACH_SIDE, rejects
from cardrl.algorithms.dmc.fixed_opponent import FixedOpponent, rule_options
from cardrl.algorithms.dmc.oracle import ORACLE, apply_lambda, oracle_block
from cardrl.features.deals import winning_side


def score_legal_moves(module, obs: np.ndarray, actions: list[np.ndarray],
                      blocks: dict[str, np.ndarray] | None = None) -> list[np.ndarray]:
    """Q-values of every legal move of U waiting positions in one forward pass.

    ``obs`` (U, D) flat observations, ``actions[u]`` (n_u, 54) the action features of position u's legal moves,
    ``blocks`` the Q-network's input blocks by name, (U, size) each (absent: zeros, as in evaluation); returns one
    array of n_u Q-values per position.
    """
    q, counts = score_flat(module, obs, actions, blocks)
    return np.split(q, np.cumsum(counts)[:-1])


def score_flat(module, obs: np.ndarray, actions: list[np.ndarray],
               blocks: dict[str, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`score_legal_moves` without the split: the Q-values of all moves in one array (float32, position by
    position) and the number of moves of each position."""
    counts = np.fromiter((len(a) for a in actions), dtype=np.int64, count=len(actions))
    index = np.repeat(np.arange(len(actions)), counts)
    q = module.score(torch.from_numpy(np.asarray(obs, dtype=np.float32)),
                     torch.from_numpy(np.concatenate(actions).astype(np.float32, copy=False)),
                     torch.from_numpy(index),
                     {k: torch.from_numpy(np.asarray(v, dtype=np.float32)) for k, v in (blocks or {}).items()})
    return q.float().cpu().numpy(), counts


def greedy_choices(q: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~cardrl.agents.q_agent.greedy_index` of many positions at once: ``q`` holds the Q-values of every
    position's moves one position after the other (``counts[u]`` moves of position u, each >= 1). Returns the index of
    the first highest Q within each position and whether the position has a tie (another Q within the relative
    ``TIE_TOLERANCE`` of the highest), where greedy_index would break the tie by the moves' strength."""
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    seg = np.repeat(np.arange(len(counts)), counts)
    best = np.maximum.reduceat(q, starts)
    positions = np.arange(len(q))
    first = np.minimum.reduceat(np.where(q == best[seg], positions, len(q)), starts) - starts
    best64 = best.astype(np.float64)
    threshold = best64 - TIE_TOLERANCE * np.maximum(1.0, np.abs(best64))
    ties = np.add.reduceat((q >= threshold[seg]).astype(np.int64), starts) > 1
    return first, ties


def gpus_available() -> float:
    """GPUs the env runners could get: the Ray cluster's when Ray is running, else this machine's."""
    import ray

    if ray.is_initialized():
        return float(ray.cluster_resources().get("GPU", 0.0))
    return float(torch.cuda.device_count())


def gpu_share_per_runner(config) -> float:
    """The GPUs each env runner gets with ``gpu_inference``: ``num_gpus_per_env_runner``, or when it is left at 0
    1 / (number of runners), so that every runner gets a share of one GPU (set it to give them more)."""
    return float(config.num_gpus_per_env_runner or 0) or 1.0 / max(1, int(config.num_env_runners))


def gpu_inference_problems(config) -> list[str]:
    """Why ``gpu_inference=True`` can not run with ``config`` (empty: it can): there is no GPU, or the runners'
    shares (:func:`gpu_share_per_runner`) need more GPUs than there are."""
    have = gpus_available()
    if have <= 0:
        return ["gpu_inference=True puts the env runners' Q-networks on a GPU, but there is none here (Ray cluster "
                "or this machine: 0 GPUs); drop gpu_inference (the runners then score on their CPU)"]
    runners, share = max(1, int(config.num_env_runners)), gpu_share_per_runner(config)
    if runners * share > have:
        return [f"gpu_inference=True with {runners} env runner(s) x {share:g} GPU needs {runners * share:g} GPU(s), "
                f"but there are {have:g}"]
    return []


def aux_labeller(config, game):
    """``labels(game, seat) -> {column: array}`` of the auxiliary heads the config turns on (the opponent models'
    targets, read off the true state: :mod:`cardrl.features.labels`), or None when there is none."""
    if getattr(config, "opponent_model", None) is None:
        return None
    from cardrl.algorithms.dmc.opponent_model import OM_CARDS, OM_K, OM_NEXT_COUNTS
    from cardrl.features import labels

    if config.opponent_model == "douzero_plus":
        return lambda g, seat: {OM_NEXT_COUNTS: labels.next_player_rank_counts(g, seat)}
    of_seat = labels.OpponentLabels(config.game_spec.make_search(game), labels.k_classes(game))

    def luo_tan(g, seat):
        cards, ks = of_seat(g, seat)
        return {OM_CARDS: cards, OM_K: ks}

    return luo_tan


class DMCEnvRunner(LockstepEnvRunner):
    """EnvRunner for :class:`~cardrl.algorithms.dmc.dmc.DMC` (see module docstring)."""

    def __init__(self, *, config, **kwargs):
        super().__init__(config=config, **kwargs)
        self.epsilon = float(config.epsilon)
        self.decisions = SeatDecisions(self.agent_to_module)
        self.bid_epsilon = 0.0
        if getattr(config, "bidding", False):  # the whole game: bidding, then card play (bidding.py)
            # the games bid; self.env keeps the roles as agents (RLlib's spaces, the modules' names)
            self.envs = [config.make_env(bidding=True) for _ in range(self.num_envs)]
            self.decisions = WholeGameDecisions(config.bid_networks)
            self.bid_epsilon = config.bid_epsilon_schedule().value(0)
            self._redeals = [0] * self.num_envs
        self.target_scale = config.target_scales()
        self.target_baseline = (SeatReturnMean(config.target_baseline_rate)
                                if getattr(config, "target_baseline", None) == "seat_mean" else None)
        self.device = torch.device("cpu")
        if getattr(config, "deterministic", False):  # the same scores, and so the same moves, from the same weights
            torch.use_deterministic_algorithms(True)
        if getattr(config, "gpu_inference", False):  # DMCConfig.validate() refused it where there is no GPU
            if not torch.cuda.is_available():
                raise RuntimeError("gpu_inference=True but this env runner sees no GPU (torch.cuda.is_available() "
                                   "is False): give the runners GPUs (num_gpus_per_env_runner) or drop the option")
            self.device = torch.device("cuda")
            self.module.foreach_module(lambda mid, m: m.to(self.device))
        # bfloat16 scoring (actor_precision): the products under autocast, by copies whose weights are already
        # bfloat16 (bfloat16_scoring.py: the same Q-values, no cast per call); the runner's own modules stay float32
        bf16 = getattr(config, "actor_precision", "float32") == "bfloat16"
        self.autocast = torch.autocast(self.device.type, dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
        self.bf16_scorers = BFloat16Scorers(lambda mid: self.module[mid]) if bf16 else None
        # the learner reads the actor's Q only with ADMC (OADMCDou eq. 2); else moves chosen without Q go unscored
        self.score_every_move = getattr(config, "q_clip", None) == "admc"
        # oracle guiding (OADMCDou eq. 1) and the coach (DouZero+): their scheduled values come with each request
        self.oracle_mode = config.oracle_mode if getattr(config, "oracle", None) is not None else None
        self.oracle_lambda = 0.0
        self.coach = self.module[COACH] if getattr(config, "coach", False) else None
        self.coach_beta = 0.0
        self._coach_counts = [0, 0]  # deals rejected, accepted since the last sample reply
        self._coach_hands: list = [None] * self.num_envs  # each game's first deal as the coach read it
        protocol = config.game_spec.protocol
        self._scored = tuple(protocol.scored_seats(k) for k in range(len(protocol.arrangements)))
        self.fixed = (FixedOpponent(config.fixed_opponent, config.game_name, rule_options(config),
                                    protocol.arrangements, self.num_envs, seed=self.worker_index or 0)
                      if getattr(config, "fixed_opponent", None) else None)
        self._deal_all()
        self._episodes_done = 0
        self._deals_done = 0  # scoring segments (deals) ended since the last sample reply: the progress line's deals
        self.pruner = None
        if getattr(config, "prune", None) == "mcs":  # ODMC (Luo & Tan 2024, eq. 2)
            from cardrl.search.prune import MCSPruner

            self.pruner = MCSPruner(config.prune_slack, config.prune_extra)
        self.aux_labels = aux_labeller(config, self.env.game)

    def _weights_loaded(self) -> None:
        if self.bf16_scorers is not None:
            self.bf16_scorers.weights_changed()

    def reseed(self, entropy: list[int]) -> None:
        """Draw deals (and exploration) from ``default_rng([*entropy, worker index])`` from now on and deal every game
        again (the unfinished games' frames are dropped): what :class:`~cardrl.algorithms.dmc.dmc.DMC` does to a
        restarted runner and to every runner of a restored run, so that neither replays deals already played."""
        self._rng = np.random.default_rng([*map(int, entropy), self.worker_index or 0])
        for i in range(self.num_envs):
            self._reset(i)

    # ---- sampling ------------------------------------------------------------------------------
    def _reset(self, i: int) -> None:
        """Deal game ``i``; with the coach, deal again while it predicts a side wins with probability above
        1 - beta (DouZero+, Sec. IV-B; at most 100 tries, then the last deal is played)."""
        env = self.envs[i]
        for _ in range(100):
            seed = int(self._rng.integers(2**62))
            env.reset(seed=seed)
            if self.coach is None:
                break
            hands = self.coach.encode_deal(self.config.game_spec, env.game)
            if not rejects(self.coach.probabilities(hands), self.coach_beta):
                self._coach_counts[1] += 1
                break
            self._coach_counts[0] += 1
        if self.coach is not None:
            self._coach_hands[i] = self.coach.encode_deal(self.config.game_spec, env.game)
        if self.fixed is not None:
            self.fixed.new_episode(i, seed)
        self._labels[i] = SegmentLabels()
        self._episode_sums[i] = {}
        if self.decisions.bidding:
            self._redeals[i] = 0

    @torch.inference_mode()
    def sample(self, *, num_frames: int | None = None, weights=None, weights_seq_no: int = 0, **kwargs) -> dict:
        """Play until at least ``num_frames`` labelled frames are done; returns per-module arrays.

        ``weights`` (a module state, or a Ray object ref to one) is loaded first when newer than ours, so a
        sample request carries the learner's latest weights and weight lag stays bounded by one request.
        """
        self.load_weights(weights, weights_seq_no)
        schedules = kwargs.get("schedules") or {}
        self.oracle_lambda = float(schedules.get("oracle_lambda", self.oracle_lambda))
        self.coach_beta = float(schedules.get("coach_beta", self.coach_beta))
        self.bid_epsilon = float(schedules.get("bid_epsilon", self.bid_epsilon))
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
            "deals": self._pop_deals(),
            "pruning": ((self.pruner.legal_seen - prune_before[0], self.pruner.kept - prune_before[1])
                        if self.pruner else None),
            "coach": self._pop_coach_counts(),
            "target_baselines": self.target_baseline.baselines() if self.target_baseline is not None else None,
        }

    def _pop_coach_counts(self) -> tuple[int, int] | None:
        if self.coach is None:
            return None
        out, self._coach_counts = tuple(self._coach_counts), [0, 0]
        return out

    def _tick(self, out) -> int:
        """One move in every game; returns the number of frames labelled by games that ended.

        Per module: the waiting positions' observations, the epsilon draws, then one batched forward pass over the
        legal moves of the positions that choose greedily (of all positions when the actor's Q is kept), then the
        steps, in the order of the games. Which module decides, and what it reads, is ``self.decisions``'s
        (bidding.py: the seat's module, or in the whole game the bidding position's or the role's).
        """
        waiting: dict[str, list] = defaultdict(list)  # module id -> [(env index, agent, legal)]
        fixed = []  # the games where the fixed opponent moves (fixed_opponent.py)
        for i, env in enumerate(self.envs):
            agent = env.agent_selection
            if self.fixed is not None and self.fixed.plays(i, env.game.current_player):
                fixed.append((i, agent))
                continue
            legal = env.legal_moves()
            if self.pruner is not None and self.decisions.card_play(env):  # ODMC: choose among the kept moves
                legal = self.pruner(env.unwrapped.game, legal)
            waiting[self.decisions.module(env, agent)].append((i, agent, legal))
        frames = 0
        for mid, items in waiting.items():
            frames += self._tick_module(mid, items, out)
        for i, agent in fixed:
            frames += self._step(i, agent, self.fixed.act(i, self.envs[i].game), out)
        return frames

    def _tick_module(self, mid: str, items: list, out) -> int:
        """The waiting positions of module ``mid``: choose (epsilon-greedy, one forward pass) and step each."""
        rng = self._rng
        bidding = is_bid_module(mid) and self.decisions.bidding
        epsilon = self.bid_epsilon if bidding else self.epsilon
        envs = [self.envs[i] for i, _, _ in items]
        obs = [self.decisions.observation(env, agent) for env, (_, agent, _) in zip(envs, items)]
        blocks = [self.decisions.blocks(env) for env in envs]
        if self.oracle_mode is not None and not bidding:  # the other hands times lambda (OADMCDou eq. 1)
            for env, b in zip(envs, blocks):
                b[ORACLE] = apply_lambda(oracle_block(env.game, env.game.current_player), self.oracle_lambda,
                                         self.oracle_mode, rng)
        choice = [-1] * len(items)  # the chosen move's index in legal; -1: greedy, to be scored
        for k, (_, _, legal) in enumerate(items):
            if len(legal) == 1:
                choice[k] = 0
            elif rng.random() < epsilon:
                choice[k] = int(rng.integers(len(legal)))
        scored = [k for k in range(len(items)) if self.score_every_move or choice[k] < 0]
        feats: dict[int, np.ndarray] = {}
        actor_q: dict[int, float] = {}
        if scored:
            for k in scored:
                feats[k] = self.decisions.action_features(envs[k], items[k][2])
            names = blocks[scored[0]].keys()
            with self.autocast:
                scorer = self.module[mid] if self.bf16_scorers is None else self.bf16_scorers[mid]
                q, counts = score_flat(scorer, np.stack([obs[k] for k in scored]),
                                       [feats[k] for k in scored],
                                       {n: np.stack([blocks[k][n] for k in scored]) for n in names} or None)
            first, ties = greedy_choices(q, counts)
            start = 0
            for k, n, j, tie in zip(scored, counts.tolist(), first.tolist(), ties.tolist()):
                if choice[k] < 0:
                    if tie and not bidding:  # equal Q-values: greedy_index breaks the tie by the moves' strength
                        game, legal = envs[k].game, items[k][2]
                        j = greedy_index(q[start:start + n], lambda g=game, ids=legal: g.move_strength(ids))
                    choice[k] = j
                actor_q[k] = float(q[start + choice[k]])
                start += n
        frames = 0
        for k, ((i, agent, legal), env) in enumerate(zip(items, envs)):
            j = choice[k]
            feat = feats[k][j] if k in feats else self.decisions.action_features(env, legal[j:j + 1])[0]
            extras = self.aux_labels(env.game, env.game.current_player) if self.aux_labels else {}
            self._labels[i].add(agent, (obs[k], feat, actor_q.get(k, 0.0), {**extras, **blocks[k]}, mid))
            frames += self._step(i, agent, int(legal[j]), out)
        return frames

    def _emit(self, out, agent: str, trajectory: list, ret: float) -> int:
        """The frames of ``agent`` in one segment, labelled with its return ``ret``, into each frame's module."""
        by_module: dict[str, list] = defaultdict(list)
        for t in trajectory:
            by_module[t[4]].append(t)
        for mid, frames in by_module.items():
            cols = out[mid]
            cols["obs"].append(np.stack([t[0] for t in frames]).astype(np.int8))  # small ints: 0/1, counts, -1
            cols["action"].append(np.stack([t[1] for t in frames]).astype(np.uint8))
            target = ret * self.target_scale.get(self.decisions.scale_key(agent, mid), 1.0)
            if self.target_baseline is not None:  # centred on the seat's running mean (centering.py)
                target = self.target_baseline.centre(agent, target)
            cols["target"].append(np.full(len(frames), target, dtype=np.float32))
            if self.score_every_move:
                cols["actor_q"].append(np.array([t[2] for t in frames], dtype=np.float32))
            for key in frames[0][3]:
                cols[key].append(np.stack([t[3][key] for t in frames]))
        return len(trajectory)

    def _redealt(self, i: int, out) -> int:
        """Everyone passed and the engine dealt again: the bidding frames so far are labelled 0 (AlphaDou)."""
        game = self.envs[i].game
        if game.redeals == self._redeals[i]:
            return 0
        self._redeals[i] = game.redeals
        labels = self._labels[i]
        trajectories, labels.trajectories = labels.trajectories, defaultdict(list)
        return sum(self._emit(out, a, trajectory, 0.0) for a, trajectory in trajectories.items())

    def _step(self, i: int, agent: str, action: int, out) -> int:
        """Step game ``i``; label the frames of every segment whose payoffs became final (:class:`SegmentLabels`)."""
        env = self.envs[i]
        env.step(action)
        frames = self._redealt(i, out) if self.decisions.bidding else 0
        sums = self._episode_sums[i]
        seen = self._labels[i].seen
        for a, trajectory, ret in self._labels[i].after_step(env):
            sums[a] = sums.get(a, 0.0) + ret
            if trajectory:
                frames += self._emit(out, a, trajectory, ret)
        self._deals_done += self._labels[i].seen - seen
        if self._coach_hands[i] is not None and env.segments_done >= 1:  # the coach's label: who won the deal
            side = winning_side(env.segment_payoffs(0), self._scored)
            if side is not None:
                out[COACH][COACH_HANDS].append(self._coach_hands[i][None])
                out[COACH][COACH_SIDE].append(np.array([side], dtype=np.int8))
            self._coach_hands[i] = None
        if all(env.terminations.values()) or all(env.truncations.values()):
            self._episode_returns.append(dict(sums))
            self._episodes_done += 1
            self._reset(i)
        return frames

    def _pop_deals(self) -> int:
        out, self._deals_done = self._deals_done, 0
        return out
