"""A tiny real DMC checkpoint for DouDiZhu: DouZero's three Q-networks (hidden size 32, seeded, untrained) saved the
way a run saves them, with the counters the ``checkpoint:`` loader reads; loading it goes through the real loader."""

from __future__ import annotations

import pickle
from pathlib import Path

PLAIN = {"prune": None, "prune_slack": "paper", "prune_extra": 0.0, "oracle": None, "oracle_mode": "scale"}
COUNTERS = {"game": "doudizhu_v0", "q_model": "douzero_lstm", "kickers": "douzero", "play_options": PLAIN}


def save_doudizhu_checkpoint(root: Path, seed: int = 1) -> Path:
    """Write the checkpoint to ``root`` and return it (the spec is ``checkpoint:ROOT``)."""
    import torch

    from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
    from cardrl.algorithms.dmc.q_module import DOUZERO_ROLE_DIMS

    torch.manual_seed(seed)
    multi = dmc_module_spec("douzero_lstm", DOUZERO_ROLE_DIMS, {"hidden_sizes": [32]}).build()
    multi.save_to_path(str(root / "learner_group" / "learner" / "rl_module"))
    (root / "algorithm_state.pkl").write_bytes(pickle.dumps({"dmc_counters": COUNTERS}))
    return root


def save_doudizhu_bidding_checkpoint(root: Path, seed: int = 1) -> Path:
    """A whole-game (bidding) checkpoint: the card-play networks read the bid block, and AlphaDou's three bidding
    networks ``bid_0`` .. ``bid_2`` (hidden size 16, untrained); its agent bids (``checkpoint:ROOT``)."""
    import torch
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from cardrl.algorithms.dmc.bidding import bid_module_specs, card_play_input_blocks
    from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
    from cardrl.algorithms.dmc.q_module import DOUZERO_ROLE_DIMS

    torch.manual_seed(seed)
    card_play = dmc_module_spec("douzero_lstm", DOUZERO_ROLE_DIMS,
                                {"hidden_sizes": [32], "input_blocks": card_play_input_blocks()})
    specs = {**card_play.rl_module_specs, **bid_module_specs("per_position", [16], False)}
    MultiRLModuleSpec(rl_module_specs=specs).build().save_to_path(str(root / "learner_group" / "learner" / "rl_module"))
    (root / "algorithm_state.pkl").write_bytes(pickle.dumps({"dmc_counters": {**COUNTERS, "bidding": True}}))
    return root


def save_doudizhu_opponent_model_checkpoint(root: Path, seed: int = 1) -> Path:
    """DouZero's three Q-networks (hidden size 32) each with Luo & Tan's opponent model (its paper sizes), seeded and
    untrained: what ``cardrl export --format safetensors`` rebuilds in plain torch (``checkpoint:ROOT``)."""
    import torch

    from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
    from cardrl.algorithms.dmc.q_module import DOUZERO_ROLE_DIMS
    from cardrl.features.labels import card_label_dim, k_classes
    from cardrl.games.registry import get_game

    engine = get_game("doudizhu").make_engine()
    om = {"kind": "luo_tan", "card_dim": card_label_dim(engine), "k_classes": k_classes(engine), "players": 3}
    torch.manual_seed(seed)
    multi = dmc_module_spec("douzero_lstm", DOUZERO_ROLE_DIMS, {"hidden_sizes": [32], "opponent_model": om}).build()
    multi.save_to_path(str(root / "learner_group" / "learner" / "rl_module"))
    counters = {**COUNTERS, "opponent_model": "luo_tan"}
    (root / "algorithm_state.pkl").write_bytes(pickle.dumps({"dmc_counters": counters}))
    return root
