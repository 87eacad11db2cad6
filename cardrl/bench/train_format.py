"""How ``cardrl bench train`` prints its result (:mod:`cardrl.bench.train`): the table, the notes under it and the
summary lines (the ratio to DouZero's trainer, the variant's ratio to the first run)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from cardrl.bench.common import header_lines

__all__ = ["variant_name", "summary_lines", "format_bench_train", "print_bench_train"]

# How a variant's single option reads when off, for its ratio line ("prune=mcs vs no pruning"); else "plain DMC".
_OPTION_OFF = {"prune": "no pruning", "opponent_model": "no opponent model", "bidding": "a fixed landlord"}



def variant_name(options: Mapping[str, Any]) -> str:
    """A variant's name from its options, sorted by name: ``"opponent_model=luo_tan, prune=mcs"``."""
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items()))


def summary_lines(result: dict[str, Any]) -> list[str]:
    """``["vs douzero: R.Rx frames/s"]`` (ours over DouZero's frames trained per second) when DouZero was
    measured, then the variant's ratio to plain DMC when there was one, e.g. ``"prune=mcs vs no pruning: 0.98x
    frames/s (pruning ratio 12.7%)"`` or ``"opponent_model=luo_tan vs no opponent model: 0.80x frames/s"``."""
    lines = []
    run = result.get("ours_variant")
    if run and run["settings"].get("preset"):
        ratio = run["frames_per_s"] / result["ours"]["frames_per_s"]
        lines.append(f"{run['settings']['preset']} vs {result['ours']['settings'].get('preset') or 'plain DMC'}: "
                     f"{ratio:.2f}x frames/s")
    elif run:
        options = run["settings"]["options"]
        off = _OPTION_OFF.get(next(iter(options)), "plain DMC") if len(options) == 1 else "plain DMC"
        ratio = run["frames_per_s"] / result["ours"]["frames_per_s"]
        pruning = (f" (pruning ratio {100 * (run.get('pruning_ratio') or 0):.1f}%)"
                   if options.get("prune") else "")
        lines.append(f"{variant_name(options)} vs {off}: {ratio:.2f}x frames/s{pruning}")
    peer = result["peers"].get("douzero", {})
    if not peer.get("frames_per_s", 0) > 0:
        return lines
    return [f"vs douzero: {result['ours']['frames_per_s'] / peer['frames_per_s']:.1f}x frames/s"] + lines


def _settings_ours(s: dict[str, Any]) -> str:
    model = f", q_model {s['q_model']}" if s.get("q_model") else ""
    if s.get("features"):
        model += f", features {s['features']}"
    precisions = (s.get("actor_precision", "float32"), s.get("learner_precision", "float32"))
    in_flight = s.get("sample_requests_in_flight", 1)
    if precisions != ("float32", "float32") or in_flight != 1:
        model += f", actor {precisions[0]}, learner {precisions[1]}, {in_flight} request(s) in flight"
    return (f"{s['num_env_runners']} env runner(s) x {s['num_envs_per_env_runner']} games, fragment "
            f"{s['rollout_fragment_length']}, {s['frames_per_update']} frames/update, driver samples "
            f"{s.get('driver_sample_frames', 0)} frames while idle, ray num_cpus={s['ray_num_cpus']}{model}")


def _trainer_ours(run: dict[str, Any]) -> str:
    """The table's name of one of our runs: ``cardrl DMC``, ``cardrl ODMC (prune=mcs)``, ``cardrl DMC
    (opponent_model=luo_tan)``."""
    options = run["settings"].get("options") or {}
    if run["settings"].get("preset"):
        return f"cardrl {run['settings']['preset']}"
    algo = "ODMC" if options.get("prune") else "DMC"
    return f"cardrl {algo} ({variant_name(options)})" if options else f"cardrl {algo}"


def _note_ours(run: dict[str, Any]) -> str:
    return (f"{_trainer_ours(run)}: setup = start {run['startup_s']:.1f} s + build {run['build_s']:.1f} s + first "
            f"update {run['first_update_s']:.1f} s; sampled {run['frames_sampled_per_s']:,.0f} frames/s, "
            f"{run['episodes']:,} episodes, {run['iterations']} iterations, {run['updates']} module updates "
            f"({run['rate_method']}), weight lag {_fmt_lag(run['weight_lag'])}; window {run['window_s']:.1f} s")


def _settings_douzero(s: dict[str, Any]) -> str:
    return (f"{s['num_actors']} actor(s) on cpu, learner cpu, batch {s['batch_size']} x unroll "
            f"{s['unroll_length']}, {s['num_threads']} learner threads/position")


def _fmt_lag(lag: float | None) -> str:
    return "-" if lag is None else f"{lag:.2f}"


def format_bench_train(result: dict[str, Any]) -> str:
    """The table of :func:`bench_train`, the machine first (summary lines excluded)."""
    runs = [result["ours"]] + ([result["ours_variant"]] if result.get("ours_variant") else [])
    rows = [("trainer", "frames/s", "setup s", "frames", "settings")]
    rows += [(_trainer_ours(run), f"{run['frames_per_s']:,.0f}", f"{run['setup_s']:.1f}",
              f"{run['frames_trained']:,}", _settings_ours(run["settings"])) for run in runs]
    notes = [_note_ours(run) for run in runs]
    for name, peer in result["peers"].items():
        if "skipped" in peer:
            rows.append((name, "-", "-", "-", f"skipped: {peer['skipped']}"))
            continue
        rows.append((f"{name} {peer.get('version', '')}".strip(), f"{peer['frames_per_s']:,.0f}",
                     f"{peer['setup_s']:.1f}", f"{peer['frames_trained']:,}", _settings_douzero(peer["settings"])))
        notes.append(f"{name}: {peer['updates']} position updates in the window ({peer['rate_method']}); its own "
                     f"log lines (5 s each, after its first update) average {peer['logged_fps_mean']:,.0f} fps "
                     f"({peer['logged_lines']} lines)")
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    title = (f"cardrl bench train {result['game']}: {result['seconds']:g} s timed window per trainer, after setup "
             f"(launch to first update, the warm-up)")
    lines = header_lines(title, result.get("machine") or f"{result['cpus']} cpus", result.get("load_before"))
    for r in rows:
        lines.append("  ".join([r[0].ljust(widths[0])] + [r[i].rjust(widths[i]) for i in (1, 2, 3)] + [r[4]]))
    lines += ["", *notes]
    return "\n".join(lines)


def print_bench_train(result: dict[str, Any]) -> None:
    """Print the table and the summary lines of :func:`bench_train`'s result."""
    print(result["table"])
    for line in result["summary"]:
        print(line)
    sys.stdout.flush()
