"""The env runner's bfloat16 copies of its Q-modules (``actor_precision="bfloat16"``).

A runner with ``actor_precision="bfloat16"`` scores moves under ``torch.autocast(bfloat16)``. Autocast rounds the
float32 weights of every matrix product (``linear``, the LSTM) to bfloat16 at every call: at the row counts of one
tick (tens to hundreds of candidate moves) that cast costs about as much as the product, and the first layer's
weight, sliced into its observation and action columns, is never cached (docs/performance.md, "Runner weights in
bfloat16"). So the runner scores with a copy of each Q-module whose ``nn.Linear`` and ``nn.LSTM`` weights are held
in bfloat16, refreshed once per weight update, still under autocast. Autocast rounds exactly those weights to
bfloat16 and leaves a tensor that already is bfloat16 as it is, so the copy's Q-values are the autocast ones bit for
bit (a test compares them on every network DMC builds); the runner's own modules, which it reports and checkpoints,
stay float32.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch
from torch import nn

# the layers whose every use autocast computes in bfloat16: their weights rounded once instead of at every call
BFLOAT16_LAYERS = (nn.Linear, nn.LSTM)


def bfloat16_copy(module: nn.Module) -> nn.Module:
    """A copy of ``module`` with the parameters and buffers of its :data:`BFLOAT16_LAYERS` in bfloat16 (the rest as
    they are), for scoring under ``torch.autocast(bfloat16)`` without gradients."""
    twin = copy.deepcopy(module)
    for layer in twin.modules():
        if isinstance(layer, BFLOAT16_LAYERS):
            layer.to(torch.bfloat16)
    twin.requires_grad_(False)
    return twin


class BFloat16Scorers:
    """``scorers[module_id]``: the bfloat16 copy of ``source(module_id)``, made on first use and refreshed from the
    source (float32 to bfloat16 by ``load_state_dict``'s copy, the rounding autocast does) on the first use after
    :meth:`weights_changed`."""

    def __init__(self, source: Callable[[str], nn.Module]):
        self._source = source
        self._copies: dict[str, nn.Module] = {}
        self._stale: set[str] = set()

    def weights_changed(self) -> None:
        """The source modules' weights were set: every copy is refreshed before it scores again."""
        self._stale = set(self._copies)

    def __getitem__(self, module_id: str) -> nn.Module:
        twin = self._copies.get(module_id)
        if twin is None:
            twin = self._copies[module_id] = bfloat16_copy(self._source(module_id))
        elif module_id in self._stale:
            with torch.inference_mode():  # the copy may have been made in inference mode (the runner's sampling)
                twin.load_state_dict(self._source(module_id).state_dict())
            self._stale.discard(module_id)
        return twin
