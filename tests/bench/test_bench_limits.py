"""``cardrl bench limits``: the work counted per frame against hand-computed counts (each formula of the module on
small shapes), the two-core rate, the table, the option check and (slow) a real measurement end to end; no speed is
asserted."""

from __future__ import annotations

import json

import pytest
import torch

from cardrl.bench import limits
from cardrl.bench.cli import build_bench_parser, check_bench, main_bench


def test_lstm_flops_by_hand():
    # rows 3, steps 2, inputs 5, hidden 4: the four gates are a (5 + 4) -> 16 product per step and row
    forward = 2 * 16 * (5 + 4) * 2 * 3
    assert limits.lstm_flops(3, 2, 5, 4, backward=False) == forward
    recurrence = 2 * 16 * 4 * 2 * 3
    assert limits.lstm_flops(3, 2, 5, 4, backward=True) == 2 * forward + recurrence
    assert limits.lstm_flops(3, 2, 5, 4, backward=True, input_grad=True) == 2 * forward + recurrence + 2 * 16 * 5 * 6


def _net():
    torch.manual_seed(0)
    return (torch.nn.LSTM(6, 4, batch_first=True),
            torch.nn.Sequential(torch.nn.Linear(7 + 4, limits.HIDDEN), torch.nn.ReLU(),
                                torch.nn.Linear(limits.HIDDEN, 1)))


def test_count_flops_forward_matches_the_products_by_hand():
    lstm, mlp = _net()
    history, state = torch.randn(10, 3, 6), torch.randn(10, 7)
    with torch.no_grad(), limits.count_flops([lstm, mlp], backward=False) as counts:
        out, _ = lstm(history)
        mlp(torch.cat([state, out[:, -1]], dim=1))
    assert counts["matmul"] == 2 * 10 * (11 * limits.HIDDEN + limits.HIDDEN * 1)
    assert counts["lstm"] == 2 * 16 * (6 + 4) * 3 * 10
    assert counts["lstm_shapes"] == [(10, 3, 6, 4)]
    assert counts["hidden_rows"] == [10]  # the 512-wide layer saw the batch's 10 rows


def test_count_flops_training_step_matches_the_products_by_hand():
    lstm, mlp = _net()
    history, state = torch.randn(10, 3, 6), torch.randn(10, 7)
    with limits.count_flops([lstm, mlp], backward=True) as counts:
        out, _ = lstm(history)
        mlp(torch.cat([state, out[:, -1]], dim=1)).sum().backward()
    first, second = 2 * 10 * 11 * limits.HIDDEN, 2 * 10 * limits.HIDDEN
    # forward, then each layer's weight gradient and the gradient of its input (every input but the data needs one:
    # the first layer's reaches the LSTM's output)
    assert counts["matmul"] == 3 * first + 3 * second
    assert counts["lstm"] == limits.lstm_flops(10, 3, 6, 4, backward=True)


def test_count_flops_removes_its_hooks():
    lstm, mlp = _net()
    with limits.count_flops([lstm, mlp], backward=False):
        pass
    assert not lstm._forward_hooks and not any(m._forward_hooks for m in mlp.modules())


def test_two_core_rate_is_bound_by_each_process_and_the_shared_cores():
    assert limits.two_core_rate(1000.0, 4000.0, 1) == 1000.0  # one runner: its one core
    assert limits.two_core_rate(1000.0, 4000.0, 2) == pytest.approx(2 / (1 / 1000 + 1 / 4000))  # sharing 2 cores
    assert limits.two_core_rate(5000.0, 1500.0, 2) == 1500.0  # the learner's one thread


def test_core_peaks_measures_each_shape():
    peaks = limits.core_peaks(64, (8, 2, 6, 4), backward=True)
    assert set(peaks) == {"matmul_gflops", "lstm_gflops"} and all(v > 0 for v in peaks.values())
    assert set(limits.core_peaks(64, None, backward=False)) == {"matmul_gflops"}


def _row(rate: float, limit: float) -> dict:
    return {"matmul_flops_per_frame": 8e6, "lstm_flops_per_frame": 1e6, "frames_per_cpu_s": rate,
            "achieved_gflops": 9e6 * rate / 1e9, "matmul_gflops": 80.0, "lstm_gflops": 30.0,
            "limit_frames_per_cpu_s": limit, "share_of_limit": rate / limit}


def test_format_limits_prints_every_role_and_the_two_core_lines():
    rows = {"runner": _row(2000.0, 8000.0), "learner": _row(4000.0, 5000.0),
            "two_cores": {"frames_1_runners": 2000.0, "frames_2_runners": 2667.0, "limit_frames_1_runners": 5000.0,
                          "limit_frames_2_runners": 5000.0}}
    text = limits.format_limits({"game": "doudizhu", "seconds": 1.0, "variants": {"dmc": rows}})
    assert "dmc        runner" in text and "dmc        learner" in text
    assert "8.00+1.00 lstm" in text and "25%" in text and "80%" in text
    assert "2,000 | 2,667 frames/s" in text and "5,000 | 5,000 at the limit" in text


def test_unknown_variant_is_refused_naming_the_game_s_variants():
    args = build_bench_parser().parse_args(["limits", "doudizhu", "--variants", "dmc", "nope"])
    with pytest.raises(ValueError, match="unknown variant 'nope'.*omodmc"):
        check_bench(args)


@pytest.mark.slow
def test_bench_limits_end_to_end_writes_its_json(tmp_path, capsys):
    out = tmp_path / "limits.json"
    assert main_bench(["limits", "doudizhu", "--variants", "dmc", "--seconds", "1", "--json-out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "dmc        learner" in printed and "at the limit" in printed
    record = json.loads(out.read_text())
    learner = record["figures"]["dmc"]["learner"]
    # DouZero's networks: every frame's update costs the same products, whatever the machine
    assert learner["lstm_flops_per_frame"] == pytest.approx(limits.lstm_flops(1, 5, 162, 128, backward=True))
    assert record["benchmark"] == "limits" and 0 < learner["share_of_limit"]
