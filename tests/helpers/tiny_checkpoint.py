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

    from cardrl.algorithms.dmc.dmc_rl_module import DOUZERO_ROLE_DIMS, dmc_module_spec

    torch.manual_seed(seed)
    multi = dmc_module_spec("douzero_lstm", DOUZERO_ROLE_DIMS, {"hidden_sizes": [32]}).build()
    multi.save_to_path(str(root / "learner_group" / "learner" / "rl_module"))
    (root / "algorithm_state.pkl").write_bytes(pickle.dumps({"dmc_counters": COUNTERS}))
    return root
