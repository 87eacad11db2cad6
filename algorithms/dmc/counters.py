"""DMC's counters in an algorithm checkpoint: the key of DMC's counters and identity (game, network, frames trained,
the play options) in the algorithm state, and their reader. Below both the checkpoint loaders and the evaluation's
play options, which read them."""

from __future__ import annotations

from cardrl.algorithms.common.checkpoint_state import read_checkpoint_state

__all__ = ["DMC_COUNTERS", "read_checkpoint_counters"]

DMC_COUNTERS = "dmc_counters"  # the algorithm state's key of DMC's counters and identity (DMC.get_state)


def read_checkpoint_counters(path) -> dict | None:
    """The DMC counters and identity (game, network) saved in an algorithm checkpoint directory."""
    return read_checkpoint_state(path).get(DMC_COUNTERS)
