"""``cardrl bench limits GAME``: where a DMC variant's time goes, against what one core of this machine can do.

For each variant (a preset of the learning benchmark, :data:`cardrl.bench.learning.VARIANTS`), DMC is built in this
process with its env runner and its learner here (:func:`cardrl.bench.scale_measure.build_dmc`), and per role:

1. **work per frame**: the floating-point operations of the networks, counted while the role runs its own code:
   matrix products by torch's ``FlopCounterMode`` (forward and, in the learner, backward, as autograd runs them), and
   each LSTM by its shapes (torch's CPU LSTM is one fused operator the counter does not see:
   :func:`lstm_flops`). The env runner's work is its scoring of every candidate move (forward only); the learner's
   one update of every module (forward, backward; the optimizer's elementwise work is not counted);
2. **achieved rate**: frames per CPU-second of the role alone (:func:`~cardrl.bench.scale_measure.measure_runner`,
   :func:`~cardrl.bench.scale_measure.measure_learner`) and the GFLOP/s that makes;
3. **the core's peak on the same shapes** (:func:`core_peaks`): one thread, a matrix product of the role's batch
   rows by a 512 x 512 layer (DouZero's hidden width) and an LSTM of the role's history shape, forward (runner) or
   forward and backward (learner), at their best over a few repeats;
4. **the limit**: the frames per CPU-second the role would reach if its network ran at those peaks and nothing else
   cost time (env steps, features, labels, RLlib), and the achieved rate's share of it.

The two-core line puts the roles together as DMC runs them on two cores, with one env runner (the default) and
with two (:func:`two_core_rate`), from the achieved rates and at the limit. docs/performance.md explains the table.
"""

from __future__ import annotations

import argparse
import time
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

__all__ = ["lstm_flops", "count_flops", "core_peaks", "role_limits", "bench_limits", "format_limits",
           "two_core_rate", "add_limits_arguments", "main_bench_limits", "check_limits", "DEFAULT_LIMIT_VARIANTS",
           "HIDDEN"]

DEFAULT_LIMIT_VARIANTS = ("dmc", "omodmc")
HIDDEN = 512  # DouZero's hidden width: the matrix product the peak is measured on
_PEAK_REPEATS = 5
_COUNTED_SAMPLES = 4  # sample replies whose scoring is counted: the candidates per decision vary along a deal


def lstm_flops(rows: int, steps: int, inputs: int, hidden: int, *, backward: bool, input_grad: bool = False) -> int:
    """Floating-point operations of a one-layer LSTM over ``rows`` sequences of ``steps`` steps: forward, the four
    gates' products ``2 * 4H * (I + H)`` per step and row; backward adds the weight gradients (as many again), the
    gradient through the recurrence (``2 * 4H * H``) and, when the input needs one, the input's (``2 * 4H * I``).
    Elementwise gate arithmetic is not counted (as torch's counter does not count it for a linear layer's bias)."""
    gates = 4 * hidden
    forward = 2 * gates * (inputs + hidden) * steps * rows
    if not backward:
        return forward
    return forward + forward + 2 * gates * hidden * steps * rows + (2 * gates * inputs * steps * rows if input_grad
                                                                     else 0)


@contextmanager
def count_flops(modules: Sequence[Any], *, backward: bool) -> Iterator[dict[str, Any]]:
    """Counts the floating-point work of ``modules`` (torch modules) while the body runs: ``"matmul"`` (torch's
    FlopCounterMode), ``"lstm"`` (:func:`lstm_flops`, from a forward hook on each ``nn.LSTM``), the LSTM shapes
    seen (``"lstm_shapes"``: rows, steps, inputs, hidden) and the rows of each hidden layer's product
    (``"hidden_rows"``: ``nn.Linear`` layers ``HIDDEN`` wide in). Filled in when the body ends."""
    from torch import nn
    from torch.utils.flop_counter import FlopCounterMode

    counts: dict[str, Any] = {"matmul": 0, "lstm": 0, "lstm_shapes": [], "hidden_rows": []}

    def on_linear(layer: nn.Linear, args: tuple, _output: Any) -> None:
        if layer.in_features == HIDDEN:
            counts["hidden_rows"].append(int(args[0].reshape(-1, HIDDEN).shape[0]))

    def on_lstm(layer: nn.LSTM, args: tuple, _output: Any) -> None:
        x = args[0]
        rows, steps = (x.shape[0], x.shape[1]) if layer.batch_first else (x.shape[1], x.shape[0])
        shape = (int(rows), int(steps), layer.input_size, layer.hidden_size)
        counts["lstm_shapes"].append(shape)
        counts["lstm"] += lstm_flops(*shape, backward=backward, input_grad=bool(x.requires_grad))

    hooks = [m.register_forward_hook(on_lstm if isinstance(m, nn.LSTM) else on_linear)
             for module in modules for m in module.modules() if isinstance(m, (nn.LSTM, nn.Linear))]
    mode = FlopCounterMode(display=False)
    try:
        with mode:
            yield counts
    finally:
        for hook in hooks:
            hook.remove()
    counts["matmul"] = int(mode.get_total_flops())


def _best_seconds(run, repeats: int = _PEAK_REPEATS) -> float:
    run()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        run()
        best = min(best, time.process_time() - t0)
    return max(best, 1e-9)


def core_peaks(rows: int, lstm_shape: tuple[int, int, int, int] | None, *, backward: bool) -> dict[str, float]:
    """GFLOP/s one thread of this machine reaches on the role's shapes: ``rows`` x 512 by 512 x 512 (forward; with
    ``backward`` also both gradients) and the LSTM of ``lstm_shape`` (rows, steps, inputs, hidden), if any."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        layer = torch.nn.Linear(HIDDEN, HIDDEN)
        x = torch.randn(rows, HIDDEN, requires_grad=backward)

        def matmul() -> None:
            y = layer(x)
            if backward:
                y.sum().backward()

        mm_flops = 2 * rows * HIDDEN * HIDDEN * (3 if backward else 1)
        with torch.set_grad_enabled(backward):
            peaks = {"matmul_gflops": mm_flops / _best_seconds(matmul) / 1e9}
            if lstm_shape is not None:
                n, steps, inputs, hidden = lstm_shape
                lstm = torch.nn.LSTM(inputs, hidden, batch_first=True)
                seq = torch.randn(n, steps, inputs)

                def recur() -> None:
                    out, _ = lstm(seq)
                    if backward:
                        out.sum().backward()

                peaks["lstm_gflops"] = lstm_flops(n, steps, inputs, hidden, backward=backward) / _best_seconds(
                    recur) / 1e9
        return peaks
    finally:
        torch.set_num_threads(threads)


def _modules(multi) -> list[Any]:
    return [multi[mid] for mid in multi.keys()]


def _role_row(flops: dict[str, Any], frames: int, rate: float, peaks: dict[str, float]) -> dict[str, Any]:
    """One role's row: work per frame, achieved and limit frames per CPU-second, their ratio."""
    matmul, lstm = flops["matmul"] / frames, flops["lstm"] / frames
    seconds = matmul / (peaks["matmul_gflops"] * 1e9) + (lstm / (peaks["lstm_gflops"] * 1e9) if lstm else 0.0)
    limit = 1.0 / seconds if seconds > 0 else float("inf")
    return {"matmul_flops_per_frame": matmul, "lstm_flops_per_frame": lstm, "frames_per_cpu_s": rate,
            "achieved_gflops": (matmul + lstm) * rate / 1e9, **peaks, "limit_frames_per_cpu_s": limit,
            "share_of_limit": rate / limit}


def _mean_rows(rows: list[int], default: int) -> int:
    return max(1, int(round(sum(rows) / len(rows)))) if rows else default


def role_limits(algo, seconds: float, frames_per_update: int) -> dict[str, Any]:
    """The runner's and the learner's rows (module docstring) for a built DMC ``algo``."""
    from cardrl.bench.scale_measure import fill_buffers, measure_learner, measure_runner

    runner = algo.env_runner
    run = measure_runner(algo, seconds)
    with count_flops(_modules(runner.module), backward=False) as runner_flops:
        runner_frames = sum(runner.sample()["frames"] for _ in range(_COUNTED_SAMPLES))
    learner = algo.learner_group._learner
    learn = measure_learner(algo, run["samples"], seconds, frames_per_update)
    fill_buffers(algo, run["samples"], frames_per_update)  # the counted step updates every module once, no sampling
    with count_flops(_modules(learner.module), backward=True) as learner_flops:
        algo.training_step()
    learn_frames = frames_per_update * learn["modules"]
    runner_rows = _mean_rows(runner_flops["hidden_rows"], 256)  # candidate moves scored per forward
    shapes = runner_flops["lstm_shapes"]
    runner_lstm = (_mean_rows([s[0] for s in shapes], 1), *shapes[0][1:]) if shapes else None  # observations
    learner_lstm = learner_flops["lstm_shapes"][0] if learner_flops["lstm_shapes"] else None
    runner_peaks = core_peaks(runner_rows, runner_lstm, backward=False)
    learner_peaks = core_peaks(frames_per_update, learner_lstm, backward=True)
    rows = {"runner": _role_row(runner_flops, runner_frames, run["r1"], runner_peaks),
            "learner": _role_row(learner_flops, learn_frames, learn["learner"], learner_peaks)}
    rows["runner"]["rows_per_forward"] = runner_rows
    rows["runner"]["observations_per_forward"] = runner_lstm[0] if runner_lstm else None
    rows["learner"]["rows_per_update"] = frames_per_update
    return rows


def two_core_rate(runner: float, learner: float, runners: int) -> float:
    """Frames/s of DMC on two cores with ``runners`` env runners of ``runner`` frames per CPU-second each and one
    learner of ``learner`` (one torch thread each): no process is faster than its one core, and together they share
    two, ``min(runners * runner, learner, 2 / (1/runner + 1/learner))``."""
    return min(runners * runner, learner, 2.0 / (1.0 / runner + 1.0 / learner))


def bench_limits(game: str, variants: Sequence[str], seconds: float) -> dict[str, Any]:
    """Each variant's rows and its two-core line, measured here (a local Ray of this command's own)."""
    import ray

    from cardrl.algorithms.dmc.train import build_config
    from cardrl.algorithms.training.run_spec import RunSpec
    from cardrl.bench.learning import variant_flags
    from cardrl.bench.scale_measure import build_dmc

    result: dict[str, Any] = {"game": game, "seconds": seconds, "variants": {}}
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        for name in variants:
            print(f"measuring {name} on {game}: runner, then learner, {seconds:g} s each, then the core's peaks",
                  flush=True)
            spec = RunSpec.from_flags(game, variant_flags(name, game, 1_000_000))
            config = build_config(spec, say=lambda *_: None).debugging(seed=0)
            algo = build_dmc(config)
            try:
                rows = role_limits(algo, seconds, int(config.frames_per_update))
            finally:
                algo.stop()
            rows["two_cores"] = {
                f"{kind}_{runners}_runners": two_core_rate(rows["runner"][f"{kind}_per_cpu_s"],
                                                           rows["learner"][f"{kind}_per_cpu_s"], runners)
                for kind in ("frames", "limit_frames") for runners in (1, 2)}
            result["variants"][name] = rows
    finally:
        if started:
            ray.shutdown()
    return result


def format_limits(result: dict[str, Any]) -> str:
    """The table as printed (one block per variant)."""
    lines = [f"limits of DMC on {result['game']}: per role, network work per frame and frames per CPU-second, "
             "achieved against the core's peak on the same shapes (one thread)",
             f"{'variant':<10} {'role':<8} {'MFLOP/frame':>18} {'frames/CPU-s':>12} {'GFLOP/s':>8} "
             f"{'peak mm|lstm':>13} {'limit f/CPU-s':>13} {'share':>6}"]
    for name, rows in result["variants"].items():
        for role in ("runner", "learner"):
            r = rows[role]
            work = f"{r['matmul_flops_per_frame'] / 1e6:.2f}+{r['lstm_flops_per_frame'] / 1e6:.2f} lstm"
            peak = f"{r['matmul_gflops']:.0f}|{r.get('lstm_gflops', 0.0):.0f}"
            lines.append(f"{name:<10} {role:<8} {work:>18} {r['frames_per_cpu_s']:>12,.0f} "
                         f"{r['achieved_gflops']:>8.1f} {peak:>13} {r['limit_frames_per_cpu_s']:>13,.0f} "
                         f"{r['share_of_limit']:>6.0%}")
        two = rows["two_cores"]
        lines.append(f"{name:<10} 2 cores, 1 | 2 env runners: {two['frames_1_runners']:,.0f} | "
                     f"{two['frames_2_runners']:,.0f} frames/s from the roles' rates, "
                     f"{two['limit_frames_1_runners']:,.0f} | {two['limit_frames_2_runners']:,.0f} at the limit")
    return "\n".join(lines)


def add_limits_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    from cardrl.args import positive_float
    from cardrl.games.registry import game_names

    parser.add_argument("game", choices=game_names(), help="the game to measure")
    parser.add_argument("--variants", nargs="+", default=list(DEFAULT_LIMIT_VARIANTS), metavar="VARIANT",
                        help="learning-benchmark variants to measure (default: dmc omodmc)")
    parser.add_argument("--seconds", type=positive_float, default=20.0,
                        help="timed seconds per role (default 20)")
    parser.add_argument("--json-out", default=None, metavar="PATH",
                        help="also write every figure printed, with the command, the UTC date, the machine and its "
                             "load averages at start and end, to this JSON file (cardrl.bench.json_out)")
    return parser


def main_bench_limits(args: argparse.Namespace) -> int:
    """``cardrl bench limits GAME``: print the table; with ``--json-out``, also write it as JSON
    (:mod:`cardrl.bench.json_out`). Returns 0."""
    from cardrl.bench.common import machine_description
    from cardrl.bench.json_out import BenchClock, bench_command, prepare_json_out, write_json_out

    check_limits(args)
    if args.json_out:
        prepare_json_out(args.json_out)
    clock = BenchClock()
    print(machine_description(), flush=True)
    result = bench_limits(args.game, args.variants, args.seconds)
    text = format_limits(result)
    print(text, flush=True)
    if args.json_out:
        figures = {name: {role: rows[role] for role in ("runner", "learner", "two_cores")}
                   for name, rows in result["variants"].items()}
        path = write_json_out(args.json_out, clock.record("limits", bench_command("limits", args), figures, result,
                                                          text))
        print(f"json: {path}", flush=True)
    return 0


def check_limits(args: argparse.Namespace) -> None:
    """ValueError naming a variant that does not apply to the game (and the ones that do)."""
    from cardrl.bench.learning import variant_flags

    for name in args.variants:
        variant_flags(name, args.game, 1_000_000)
