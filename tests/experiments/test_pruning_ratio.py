"""experiments/pruning_ratio.py (Luo & Tan Tables 6-7): the measurement runs and its rows are consistent."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[2] / "experiments" / "pruning_ratio.py"


@pytest.fixture(scope="module")
def pruning_ratio():
    spec = importlib.util.spec_from_file_location("pruning_ratio", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game, policy", [("doudizhu", "random"), ("big2", "mcs-greedy"),
                                          ("doudizhu", "random-kept")])
def test_pruning_ratio_rows(pruning_ratio, game, policy):
    result = pruning_ratio.measure(game, plays=300, policy=policy)
    assert result["plays"] >= 300 and len(result["kept"]) == len(result["legal"]) == 6
    ratios = [1 - k / n for k, n in zip(result["kept"], result["legal"])]
    assert all(0.0 <= r < 1.0 for r in ratios)
    if policy != "random-kept":  # one pass: a wider slack never keeps fewer moves
        assert result["kept"] == sorted(result["kept"]) and ratios[0] > 0
    table = pruning_ratio.report(result)
    assert table.count("\n| ") == 6 + 1 and "paper" in table


def test_unknown_policy_is_refused(pruning_ratio):
    with pytest.raises(ValueError, match="allowed"):
        pruning_ratio.measure("doudizhu", plays=10, policy="oracle")
