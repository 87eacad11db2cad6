"""DMC on the whole game of DouDiZhu: bidding decisions in the same Deep Monte-Carlo loop as card play (AlphaDou,
"AlphaDou: High-Performance End-to-End Doudizhu AI Integrating Bidding", 2024, Sec. 3; docs/bidding.md).

What a decision of a whole game is, for the env runner (:class:`WholeGameDecisions`; :class:`SeatDecisions` is the
fixed-landlord game's):

- a bidding decision is taken by the bidding Q-network of its position in the turn order (``bid_0`` .. ``bid_2``,
  AlphaDou's three bidding positions; ``bid_networks="shared"``: one ``bid`` network) over
  :func:`~cardrl.features.bidding.bid_state` and the candidate bid's one-hot; its target is the deal's payoff of the
  bidder's final role (bid x 2^bombs, twice that for the landlord), 0 when everyone passed and the deal was dealt again;
- a card-play decision is taken by the network of the seat's role (DouZero's three) over DouZero's features and the
  input block :data:`~cardrl.features.bidding.BID_BLOCK` (who bid what, the final bid); its target is DouZero's, the
  role's payoff with the landlord's halved (``target_scales``).

:class:`BidEpsilon` is the bidding exploration's schedule (AlphaDou: 0.3 decaying to 0.03).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardrl.features.bidding import (BID_ACTION_DIM, BID_BLOCK, BID_BLOCK_DIM, BID_MODULE_PREFIX, BID_STATE_DIM,
                                     bid_action_features, bid_block_of_game, bid_module_id, bid_state_of_game)

__all__ = ["SeatDecisions", "WholeGameDecisions", "BidEpsilon", "parse_bid_epsilon", "bid_module_ids",
           "bidding_problems", "bid_module_specs", "card_play_input_blocks", "is_bid_module", "DEFAULT_BID_EPSILON", "DEFAULT_BID_HIDDEN_SIZES"]

DEFAULT_BID_EPSILON = "0.3:0.03:10000000"
DEFAULT_BID_HIDDEN_SIZES = (256, 256, 256)


@dataclass(frozen=True)
class BidEpsilon:
    """The bidding decisions' exploration rate by frames trained: ``start`` linear to ``end`` at ``frames``, then
    ``end`` (AlphaDou: 0.3 to 0.03)."""

    start: float = 0.3
    end: float = 0.03
    frames: int = 10_000_000

    def problems(self) -> list[str]:
        def number(x) -> bool:
            return isinstance(x, (int, float)) and not isinstance(x, bool)

        rates = [f"bid_epsilon {name}={x!r} must lie in [0, 1]" for name, x in vars(self).items()
                 if name != "frames" and not (number(x) and 0.0 <= x <= 1.0)]
        frames_ok = isinstance(self.frames, int) and not isinstance(self.frames, bool) and self.frames >= 1
        return rates + ([] if frames_ok else [f"bid_epsilon frames={self.frames!r} must be a positive int (frames "
                                              f"trained)"])

    def value(self, frames_trained: int) -> float:
        t = min(1.0, max(0.0, frames_trained / self.frames))
        return float(self.start + t * (self.end - self.start))


def parse_bid_epsilon(text: str) -> BidEpsilon:
    """``"START:END:FRAMES"`` -> :class:`BidEpsilon`; ValueError naming the form otherwise."""
    parts = str(text).split(":")
    try:
        if len(parts) == 3:
            return BidEpsilon(float(parts[0]), float(parts[1]), int(float(parts[2])))
    except ValueError:
        pass
    raise ValueError(f"bid_epsilon is START:END:FRAMES (the bidding exploration rate from START to END, linear in "
                     f"frames trained), e.g. {DEFAULT_BID_EPSILON}; got {text!r}")


def is_bid_module(module_id: str) -> bool:
    return module_id == BID_MODULE_PREFIX or module_id.startswith(BID_MODULE_PREFIX + "_")


def bid_module_ids(per_position: bool) -> list[str]:
    return sorted({bid_module_id(p, per_position) for p in range(3)})


def bid_module_specs(bid_networks: str, hidden_sizes, inference_only: bool) -> dict:
    """RLModuleSpecs of the bidding Q-networks: ReLU MLPs over [bid state 72 | candidate bid 4]."""
    from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
    from cardrl.algorithms.dmc.q_module import RoleDims

    dims = RoleDims(BID_STATE_DIM, None, BID_ACTION_DIM)
    ids = bid_module_ids(bid_networks == "per_position")
    config = {"hidden_sizes": tuple(hidden_sizes or DEFAULT_BID_HIDDEN_SIZES), "activation": "relu"}
    return dict(dmc_module_spec("mlp", dict.fromkeys(ids, dims), config, inference_only=inference_only)
                .rl_module_specs)


def card_play_input_blocks() -> dict[str, int]:
    """The card-play networks' input block that carries the bidding."""
    return {BID_BLOCK: BID_BLOCK_DIM}


class SeatDecisions:
    """The fixed-landlord game: each env agent's module, the env's observation and action features."""

    bidding = False

    def __init__(self, agent_to_module: dict[str, str]):
        self.agent_to_module = agent_to_module

    def module(self, env, agent: str) -> str:
        return self.agent_to_module[agent]

    def observation(self, env, agent: str) -> np.ndarray:
        return env.observation_vector(agent)

    def action_features(self, env, legal: np.ndarray) -> np.ndarray:
        return env.action_features(legal)

    def blocks(self, env) -> dict[str, np.ndarray]:
        return {}

    def card_play(self, env) -> bool:
        return True

    def scale_key(self, agent: str, module_id: str) -> str:
        """The key of a frame's target scale: the env agent."""
        return agent


class WholeGameDecisions(SeatDecisions):
    """DouDiZhu with bidding (module docstring): the module of a decision follows the phase, the bidding position or
    the role; the observation is the bid state or DouZero's features of the role."""

    bidding = True

    def __init__(self, bid_networks: str = "per_position"):
        super().__init__({})
        self.per_position = bid_networks == "per_position"

    def card_play(self, env) -> bool:
        return env.game.phase != "bid"

    def module(self, env, agent: str) -> str:
        game = env.game
        if game.phase == "bid":
            return bid_module_id(len(game.bids), self.per_position)
        return game.role(game.current_player)

    def observation(self, env, agent: str) -> np.ndarray:
        game = env.game
        if game.phase == "bid":
            return bid_state_of_game(game, game.current_player)
        return env.features.encode(game, game.current_player)

    def action_features(self, env, legal: np.ndarray) -> np.ndarray:
        game = env.game
        if game.phase == "bid":
            return bid_action_features(np.asarray(legal) - game.num_moves)
        return env.features.action_features(game, legal)

    def blocks(self, env) -> dict[str, np.ndarray]:
        if env.game.phase == "bid":
            return {}
        return {BID_BLOCK: bid_block_of_game(env.game)}

    def scale_key(self, agent: str, module_id: str) -> str:
        """The module: DouZero's role scales for the card-play networks, none (1) for the bidding networks, which
        compare becoming the landlord (twice the stake) with staying a peasant."""
        return module_id


def bidding_problems(config) -> list[str]:
    """What is wrong with a DMC config's whole-game options (empty: nothing; each option within the bounds its
    DMCSettings field declares, checked before); the options that do not compose with bidding are refused here, each
    with its reason (docs/bidding.md)."""
    bid_options = {"bid_networks": "per_position", "bid_epsilon": DEFAULT_BID_EPSILON, "bid_hidden_sizes": None,
                   "bid_frames_per_update": None}
    if (config.env_config or {}).get("bidding") and not config.bidding:
        return ["env_config has bidding=True but DMC's bidding option is off: the whole game is DMC's option, set "
                "it with DMCConfig().game('doudizhu', bidding=True) or .training(bidding=True) (cardrl train "
                "--bidding)"]
    if not config.bidding:
        changed = [name for name, default in bid_options.items() if getattr(config, name) != default]
        return [f"{'/'.join(changed)} set but bidding is off: set bidding=True (cardrl train --bidding)"] if changed \
            else []
    spec = config.game_spec
    if "bidding" not in spec.rule_options:
        return [f"bidding=True: {spec.name} has no bidding phase; the whole game with bidding is DouDiZhu's"]
    out = []
    features = (config.env_config or {}).get("features") or spec.default_features
    if features != spec.default_features:
        out.append(f"bidding=True trains one card-play network per role over {spec.default_features} features; "
                   f"features={features!r} is not supported with bidding")
    if config.module_mapping == "shared":
        out.append("bidding=True trains one card-play network per role (the landlord's state differs from a "
                   "peasant's); module_mapping='shared' is not supported with bidding")
    refused = {"opponent_model": "the opponent models' labels are not wired into the whole game yet",
               "coach": "the coach judges a deal by its fixed landlord at seat 0, unknown before the bidding",
               "target_baseline": "seat_mean centres a seat's returns, but with bidding a seat plays every role"}
    out += [f"bidding=True does not compose with {name}={getattr(config, name)!r}: {why}"
            for name, why in refused.items() if getattr(config, name)]
    try:
        out += parse_bid_epsilon(config.bid_epsilon).problems()
    except ValueError as err:
        out.append(str(err))
    return out
