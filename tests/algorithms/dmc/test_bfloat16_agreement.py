"""``actor_precision="bfloat16"``: the env runner scores moves under ``torch.autocast(cpu, bfloat16)`` with float32
weights. On a trained network (the zoo's DouDiZhu agent, loaded into the Q-module DMC trains) the bfloat16 scores
choose the float32 scores' move on nearly every seeded position: the rate is measured here and stated in
docs/performance.md ("bfloat16 runners")."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardrl.agents.q_agent import QAgent
from cardrl.eval.agreement import agreement, positions
from cardrl.games.registry import get_game
from cardrl.zoo.catalog import entry_dir, read_card

POSITIONS = 1_000
MIN_AGREEMENT = 0.97  # measured 98.3% on the 2M-frame OMODMC entry (AMD EPYC), 97.9% on the 24M unified one (Intel Xeon)


class _BFloat16Scoring(QAgent):
    """The same Q-modules, every product in bfloat16: what DMCEnvRunner does with actor_precision="bfloat16"."""

    def q_values(self, view, legal_moves) -> np.ndarray:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return super().q_values(view, legal_moves)


@pytest.fixture(scope="module")
def zoo_modules():
    """The zoo DouDiZhu agent's weights (float16 on disk) in float32 Q-modules built as DMC builds them."""
    from safetensors.torch import load_file

    from cardrl.algorithms.dmc.train import build_config
    from cardrl.algorithms.training.run_spec import RunSpec

    flags = read_card("doudizhu")["training"]["command"].split()
    assert flags[flags.index("--features") + 1] == "unified"  # the zoo's DouDiZhu network: Luo & Tan's features
    model = ["--opponent-model", flags[flags.index("--opponent-model") + 1]] if "--opponent-model" in flags else []
    spec = RunSpec.from_flags("doudizhu", ["--features", "unified", *model])
    multi = build_config(spec, say=lambda *_: None).get_multi_rl_module_spec().build()
    tensors = {k: v.float() for k, v in load_file(str(entry_dir("doudizhu") / "shared.fp16.safetensors")).items()}
    multi["shared"].load_state_dict(tensors)
    return {agent: multi["shared"] for agent in get_game("doudizhu").agents}


def test_bfloat16_scoring_chooses_the_float32_move_on_seeded_positions(zoo_modules):
    agents = {"fp32": QAgent(zoo_modules, "doudizhu", features="unified"),
              "bf16": _BFloat16Scoring(zoo_modules, "doudizhu", features="unified")}
    rates, _ = agreement(agents, "fp32", "doudizhu", {}, POSITIONS, seed=0)
    assert rates["bf16"] >= MIN_AGREEMENT, f"bfloat16 chose the float32 move on {rates['bf16']:.2%} of {POSITIONS:,}"
    print(f"bfloat16 agreement with float32: {rates['bf16']:.2%} of {POSITIONS:,} seeded positions")


def test_bfloat16_scores_differ_from_float32_only_by_rounding(zoo_modules):
    """Not a vacuous agreement: the bfloat16 Q-values are not the float32 ones, only close to them."""
    fp32 = QAgent(zoo_modules, "doudizhu", features="unified")
    bf16 = _BFloat16Scoring(zoo_modules, "doudizhu", features="unified")
    gaps = []
    for view, legal in positions("doudizhu", {}, 50, seed=1):
        ids = np.asarray(legal, dtype=np.int64)
        a, b = fp32.q_values(view, ids), bf16.q_values(view, ids)
        np.testing.assert_allclose(b, a, rtol=0.05, atol=0.05)
        gaps.append(np.abs(a - b).max())
    assert max(gaps) > 0
