"""Opponent models: auxiliary networks that predict what a player cannot see, whose predictions feed the Q-network.

Two published models, each an ``nn.Module`` inside a DMC Q-module (``model_config["opponent_model"]``), with its
loss as a named function the learner adds to the Q loss (docs/architecture.md, "extension points" b and a):

- :class:`LuoTanOpponentModel`, Luo & Tan 2024, Sec. 4.2, Table 2, Fig. 2(b): from the player's state and move
  history (its own LSTM; all four 128-dim outputs, so 540 + 4 x 128 = 1,052 inputs with the unified features) an MLP
  1024-512-512-512-512 and, per player slot, one logit per hidden-card bit (their FC1..FC54: one 512 -> 1 head per
  card, here one linear layer of all of them, which is the same function) and a K distribution (their 20-way
  FC55). Slots are seat-relative (:mod:`cardrl.features.labels`): 4 slots x (54 + 20) = 296 outputs (their
  "hidden features", Table 14); the player's own slot and the slots a game lacks are zeros in the Q input and have no
  loss. The paper gives no loss: each of its heads gets its own term, a binary cross-entropy per card bit and a
  cross-entropy on K, averaged over the heads (so each card head weighs as much as the K head; ``card_weight`` and
  ``k_weight`` scale the two kinds, 1 : 1 by default), see :func:`luo_tan_loss`. Its linear layers start from He
  initialisation (the paper gives none): with PyTorch's default the deep ReLU trunk passes almost nothing of its
  input at first, and under DouZero's optimizer the card heads stayed at the base rate (docs/papers.md, "Does the
  opponent model learn?").
- :class:`DouZeroPlusOpponentModel`, Zhao et al. 2022 (DouZero+), Sec. IV-A, Fig. 3 (results: Fig. 6), details
  from the authors' public code: the next player's number of cards of each of 15 ranks (13 heads 512 -> 256 -> 5
  and 2 joker heads 512 -> 5) over its own LSTM (162 -> 128) of DouZero's history and the state (319 / 430) through
  4 x 512 ReLU layers; counts above what the other players hold together get a logit of -1e7 (their "legal label");
  the 75 probabilities join DouZero's Q input. Loss: cross-entropy, mean over the 15 heads
  (:func:`douzero_plus_loss`).

In both, the Q-network reads the predictions detached: no Q gradient flows into the opponent model (the public
DouZero+ code does so; Luo & Tan are silent, and detaching keeps the two losses apart).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

import torch
from torch import nn

__all__ = ["LuoTanOpponentModel", "DouZeroPlusOpponentModel", "build_opponent_model", "luo_tan_loss",
           "douzero_plus_loss", "opponent_model_loss", "heldout_report", "random_play_positions", "OM_CARDS", "OM_K",
           "OM_NEXT_COUNTS", "OM_CARD_LOGITS", "OM_K_LOGITS", "OM_COUNT_LOGITS", "OPPONENT_MODELS", "ILLEGAL_LOGIT"]

# batch columns (labels shipped by the env runner) and forward outputs
OM_CARDS = "om_cards"  # (B, slots, card_dim) uint8: the other players' hidden-card bits
OM_K = "om_k"  # (B, slots) int8: their K, -1 where a slot has no label
OM_NEXT_COUNTS = "om_next_counts"  # (B, 15) int8: DouZero+: the next player's cards per rank
OM_CARD_LOGITS = "om_card_logits"
OM_K_LOGITS = "om_k_logits"
OM_COUNT_LOGITS = "om_count_logits"
ILLEGAL_LOGIT = -1e7  # DouZero+'s "legal label": counts no other player can hold
OPPONENT_MODELS = ("luo_tan", "douzero_plus")


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


class LuoTanOpponentModel(nn.Module):
    """Luo & Tan's opponent model (module docstring). ``forward(state, history)`` returns the card and K logits;
    :meth:`decision_features` the probabilities the Q-network reads (``hidden_dim`` values)."""

    def __init__(self, state_dim: int, history_shape: tuple[int, int] | None, card_dim: int, k_classes: int,
                 players: int, slots: int = 4, lstm_hidden: int = 128,
                 hidden_sizes: tuple[int, ...] = (1024, 512, 512, 512, 512)):
        super().__init__()
        if players > slots:
            raise ValueError(f"{players} players do not fit {slots} opponent-model slots")
        self.card_dim, self.k_classes, self.slots, self.players = card_dim, k_classes, slots, players
        self.lstm = None
        in_dim = state_dim
        if history_shape is not None:
            self.lstm = nn.LSTM(history_shape[1], lstm_hidden, batch_first=True)
            in_dim += history_shape[0] * lstm_hidden
        self.trunk = _mlp([in_dim, *hidden_sizes])
        self.card_head = nn.Linear(hidden_sizes[-1], slots * card_dim)
        self.k_head = nn.Linear(hidden_sizes[-1], slots * k_classes)
        valid = torch.zeros(slots)
        valid[1:players] = 1.0  # the other players' slots; slot 0 is the player itself
        self.register_buffer("valid_slots", valid, persistent=False)
        for layer in (*self.trunk, self.card_head, self.k_head):
            if isinstance(layer, nn.Linear):
                nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
                nn.init.zeros_(layer.bias)

    @property
    def hidden_dim(self) -> int:
        return self.slots * (self.card_dim + self.k_classes)

    def forward(self, state: torch.Tensor, history: torch.Tensor | None) -> dict[str, torch.Tensor]:
        x = state
        if self.lstm is not None:
            out, _ = self.lstm(history)
            x = torch.cat([state, out.flatten(1)], dim=-1)
        h = self.trunk(x)
        n = state.shape[0]
        return {OM_CARD_LOGITS: self.card_head(h).view(n, self.slots, self.card_dim),
                OM_K_LOGITS: self.k_head(h).view(n, self.slots, self.k_classes)}

    def decision_features(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        """``(N, hidden_dim)``: per slot the card probabilities then the K distribution; zeros for the player's own
        slot and the slots the game lacks."""
        cards = torch.sigmoid(out[OM_CARD_LOGITS])
        k = torch.softmax(out[OM_K_LOGITS], dim=-1)
        valid = self.valid_slots.to(cards.dtype)[None, :, None]
        return torch.cat([cards * valid, k * valid], dim=-1).flatten(1)


class DouZeroPlusOpponentModel(nn.Module):
    """DouZero+'s next-player model (module docstring). ``forward(state, history)`` returns masked count logits
    ``(N, 15, 5)``; :meth:`decision_features` their 75 probabilities."""

    RANKS, CLASSES = 15, 5
    OTHERS = slice(54, 108)  # DouZero's state: the other hands' cards (thermometer) follow the own hand

    def __init__(self, state_dim: int, history_shape: tuple[int, int], lstm_hidden: int = 128, hidden: int = 512,
                 layers: int = 4):
        super().__init__()
        self.lstm = nn.LSTM(history_shape[1], lstm_hidden, batch_first=True)
        self.trunk = _mlp([state_dim + lstm_hidden] + [hidden] * layers)
        self.rank_heads = nn.ModuleList(nn.Sequential(nn.Linear(hidden, 256), nn.ReLU(), nn.Linear(256, 5))
                                        for _ in range(13))
        self.joker_heads = nn.ModuleList(nn.Linear(hidden, 5) for _ in range(2))
        self.register_buffer("classes", torch.arange(self.CLASSES), persistent=False)

    @property
    def hidden_dim(self) -> int:
        return self.RANKS * self.CLASSES

    def legal_counts(self, state: torch.Tensor) -> torch.Tensor:
        """``(N, 15)``: the most cards of each rank the next player can hold (what the others hold together)."""
        others = state[:, self.OTHERS]
        return torch.cat([others[:, :52].reshape(-1, 13, 4).sum(-1), others[:, 52:]], dim=-1)

    def forward(self, state: torch.Tensor, history: torch.Tensor) -> dict[str, torch.Tensor]:
        out, _ = self.lstm(history)
        h = self.trunk(torch.cat([out[:, -1, :], state], dim=-1))
        logits = torch.stack([head(h) for head in (*self.rank_heads, *self.joker_heads)], dim=1)
        illegal = self.classes[None, None, :] > self.legal_counts(state)[:, :, None]
        return {OM_COUNT_LOGITS: logits.masked_fill(illegal, ILLEGAL_LOGIT)}

    def decision_features(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return torch.softmax(out[OM_COUNT_LOGITS], dim=-1).flatten(1)


def build_opponent_model(config: Mapping[str, Any], state_dim: int, history_shape: tuple[int, int] | None) -> nn.Module:
    """The opponent model of ``model_config["opponent_model"]`` (``kind`` and its sizes) for a Q-module's inputs."""
    kind = config.get("kind")
    if kind == "luo_tan":
        return LuoTanOpponentModel(state_dim, history_shape, int(config["card_dim"]), int(config["k_classes"]),
                                   int(config["players"]), int(config.get("slots", 4)))
    if kind == "douzero_plus":
        if history_shape is None:
            raise ValueError("the DouZero+ opponent model reads DouZero's move history; these features have none")
        return DouZeroPlusOpponentModel(state_dim, history_shape)
    raise ValueError(f"opponent model {kind!r} is unknown; allowed: {OPPONENT_MODELS}")


# ---- losses and metrics ------------------------------------------------------------------------------------------
def luo_tan_loss(out: Mapping[str, torch.Tensor], cards: torch.Tensor, k: torch.Tensor, card_weight: float = 1.0,
                 k_weight: float = 1.0) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """The mean over Luo & Tan's heads of their losses, over the slots with a label (``k >= 0``): per slot,
    ``(card_weight x sum over the C card bits of their binary cross-entropy + k_weight x cross-entropy of K) / (C + 1)``
    (Table 2 has one head per card and one for K; each head's loss counts once). With a mean over the bits instead,
    the K head would outweigh each card head C-fold and the shared trunk would serve K alone. Also the accuracy
    metrics (per-bit log-loss and accuracy; K exact and within one)."""
    logits, k_logits = out[OM_CARD_LOGITS], out[OM_K_LOGITS]
    valid = k >= 0
    if not valid.any():
        raise ValueError("an opponent-model batch without any labelled slot")
    bits = cards.to(logits.dtype)[valid]
    card_loss = nn.functional.binary_cross_entropy_with_logits(logits[valid], bits)
    k_true = k[valid].long()
    k_valid = k_logits[valid]
    k_loss = nn.functional.cross_entropy(k_valid, k_true)
    with torch.no_grad():
        k_pred = k_valid.argmax(-1)
        metrics = {"om_card_logloss": card_loss.detach(),
                   "om_card_accuracy": ((logits[valid] > 0).to(bits.dtype) == bits).float().mean(),
                   "om_k_loss": k_loss.detach(),
                   "om_k_accuracy": (k_pred == k_true).float().mean(),
                   "om_k_within_1": ((k_pred - k_true).abs() <= 1).float().mean()}
    heads = logits.shape[-1] + 1
    return (card_weight * card_loss * (heads - 1) + k_weight * k_loss) / heads, metrics


def douzero_plus_loss(out: Mapping[str, torch.Tensor], counts: torch.Tensor) -> tuple[torch.Tensor, dict]:
    """Cross-entropy of the next player's count of each rank, mean over the 15 heads; per-rank accuracy."""
    logits = out[OM_COUNT_LOGITS]
    target = counts.long()
    loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))
    with torch.no_grad():
        metrics = {"om_count_loss": loss.detach(), "om_count_accuracy": (logits.argmax(-1) == target).float().mean()}
    return loss, metrics


def opponent_model_loss(kind: str, out: Mapping[str, torch.Tensor], batch: Mapping[str, torch.Tensor],
                        card_weight: float = 1.0, k_weight: float = 1.0) -> tuple[torch.Tensor, dict]:
    """The auxiliary loss of an opponent model of ``kind`` on a train batch (its labels as batch columns)."""
    if kind == "luo_tan":
        return luo_tan_loss(out, batch[OM_CARDS], batch[OM_K], card_weight, k_weight)
    return douzero_plus_loss(out, batch[OM_NEXT_COUNTS])


# ---- held-out evaluation -------------------------------------------------------------------------------------------
def random_play_positions(engine, deals: int, seed: int) -> Iterator[int]:
    """Plays ``deals`` deals of uniformly random legal moves on ``engine`` (deal ``d`` from seed ``seed + d``) and
    yields, at each position, the seat about to move; the engine holds that position until the next item."""
    import numpy as np

    rng = np.random.default_rng(seed)
    for d in range(deals):
        engine.reset(seed + d)
        while not engine.is_over:
            yield engine.current_player
            engine.step(int(rng.choice(engine.legal_moves())))


def heldout_report(modules: Mapping[str, nn.Module], game: str, deals: int = 50, seed: int = 12345,
                   options: Mapping | None = None, features: str | None = None) -> dict[str, float]:
    """An opponent model's predictions on held-out deals (random play from their own seeds), against the baselines
    it must beat: for ``luo_tan`` the hidden-card log-loss and accuracy against :func:`cardrl.features.labels.
    hidden_card_prior` (which knows the unseen cards and how many each player holds) and the log-loss of the weaker
    :func:`~cardrl.features.labels.hand_size_prior` (which knows only how many), and the K accuracy
    against the majority class of the held-out labels; for ``douzero_plus`` the per-rank count accuracy and log-loss
    against the same prior's count distribution. ``modules`` maps the game's agents to Q-modules with the opponent
    model (DouDiZhu with DouZero's features: one per role)."""
    from cardrl.games.registry import get_game

    spec = get_game(game)
    model = next(iter(modules.values())).opponent_model
    luo_tan = isinstance(model, LuoTanOpponentModel)
    inputs, targets = _heldout_positions(spec, model if luo_tan else None, deals, seed, options, features)
    out, rows = _heldout_predictions(modules, inputs, targets)
    return _luo_tan_scores(out, rows) if luo_tan else _douzero_plus_scores(out, rows)


def _heldout_positions(spec, luo_tan_model, deals: int, seed: int, options, features) -> tuple[dict, dict]:
    """agent -> [(state, history)] of the held-out positions, and agent -> their labels and the prior (the luo_tan
    model's labels when ``luo_tan_model`` is given, else DouZero+'s)."""
    import numpy as np
    from scipy.stats import hypergeom

    from cardrl.features import labels

    engine = spec.make_engine(**dict(options or {}))
    encoder = spec.make_features(features)
    search = spec.make_search(engine) if luo_tan_model is not None else None
    inputs: dict[str, list] = {}
    targets: dict[str, list] = {}
    for seat in random_play_positions(engine, deals, seed):
        agent = spec.agents[seat]
        inputs.setdefault(agent, []).append(encoder.split(encoder.encode(engine, seat), agent))
        if luo_tan_model is not None:
            bits, mask = labels.hidden_card_labels(engine, seat)
            k = labels.min_combination_labels(engine, seat, search, luo_tan_model.k_classes)
            targets.setdefault(agent, []).append((bits, mask, k, labels.hidden_card_prior(engine, seat),
                                                   labels.hand_size_prior(engine, seat)))
        else:
            held = engine.cards_held()
            unseen = held.sum(axis=0) - held[seat]
            per_rank = np.concatenate([unseen[:52].reshape(13, 4).sum(axis=1), unseen[52:]])
            prior = hypergeom.pmf(np.arange(5)[None, :], unseen.sum(), per_rank[:, None],
                                  held[(seat + 1) % len(held)].sum())  # the next hand: a draw of the unseen
            targets.setdefault(agent, []).append((labels.next_player_rank_counts(engine, seat), prior))
    return inputs, targets


def _heldout_predictions(modules, inputs: dict, targets: dict) -> tuple[dict[str, torch.Tensor], list[tuple]]:
    """The opponent models' outputs on every position, agent after agent, and the positions' targets in that order."""
    import numpy as np

    outputs: list[dict[str, torch.Tensor]] = []
    rows: list[tuple] = []
    with torch.no_grad():
        for agent, items in inputs.items():
            state = torch.as_tensor(np.stack([x[0] for x in items]), dtype=torch.float32)
            history = None if items[0][1] is None else torch.as_tensor(np.stack([x[1] for x in items]),
                                                                       dtype=torch.float32)
            outputs.append(modules[agent].opponent_model(state, history))
            rows += targets[agent]
    return {key: torch.cat([o[key] for o in outputs]) for key in outputs[0]}, rows


_EPS = 1e-7


def _luo_tan_scores(out: dict[str, torch.Tensor], rows: list[tuple]) -> dict[str, float]:
    import numpy as np

    bits = np.stack([r[0] for r in rows]).astype(np.float64)
    mask = np.stack([r[1] for r in rows])
    k = np.stack([r[2] for r in rows]).astype(np.int64)
    prior = np.clip(np.stack([r[3] for r in rows]), _EPS, 1 - _EPS)
    sizes = np.clip(np.stack([r[4] for r in rows]), _EPS, 1 - _EPS)
    p = torch.sigmoid(out[OM_CARD_LOGITS]).numpy().astype(np.float64).clip(_EPS, 1 - _EPS)

    def logloss(q):
        return float(-(bits * np.log(q) + (1 - bits) * np.log(1 - q))[mask].mean())

    k_true, k_pred = k[mask], out[OM_K_LOGITS].argmax(-1).numpy()[mask]
    majority = np.bincount(k_true).argmax()
    return {"positions": len(rows), "card_logloss": logloss(p), "prior_card_logloss": logloss(prior),
            "hand_size_card_logloss": logloss(sizes),
            "card_accuracy": float(((p > 0.5) == (bits > 0.5))[mask].mean()),
            "prior_card_accuracy": float(((prior > 0.5) == (bits > 0.5))[mask].mean()),
            "k_accuracy": float((k_pred == k_true).mean()), "k_within_1": float((abs(k_pred - k_true) <= 1).mean()),
            "k_majority_accuracy": float((k_true == majority).mean()), "k_majority_class": int(majority)}


def _douzero_plus_scores(out: dict[str, torch.Tensor], rows: list[tuple]) -> dict[str, float]:
    import numpy as np

    counts = np.stack([r[0] for r in rows]).astype(np.int64)
    prior = np.stack([r[1] for r in rows])
    probs = torch.softmax(out[OM_COUNT_LOGITS], -1).numpy()

    def count_logloss(q):
        return float(-np.log(np.take_along_axis(q, counts[..., None], -1).clip(_EPS)).mean())

    return {"positions": len(rows), "count_accuracy": float((probs.argmax(-1) == counts).mean()),
            "prior_count_accuracy": float((prior.argmax(-1) == counts).mean()),
            "count_logloss": count_logloss(probs), "prior_count_logloss": count_logloss(prior)}
