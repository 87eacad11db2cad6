"""Does a learned bidder beat the rule bidder on DouDiZhu's whole game? (AlphaDou, "AlphaDou: High-Performance
End-to-End Doudizhu AI Integrating Bidding", 2024, Sec. 3; docs/bidding.md "To run".)

Per seed, each step resumable (its results are files under ``--out``):

1. ``train``: ``cardrl train --preset alphadou_doudizhu --seed S --stop-frames F --resume`` in ``OUT/seedS``, its own
   process: a run stopped at any point (``--hours``, Ctrl-C, a lost session) continues from its latest checkpoint
   when the same command is given again.
2. ``evaluate`` the run's final checkpoint X on the same seeded whole-game duplicate deals (6 games a deal, each side
   alone in every seat; :func:`cardrl.eval.whole_game.run_whole_game`):

   - ``bidder``: ``checkpoint:X`` against ``checkpoint:X+bidder=rule``: the same card-play networks, the learned
     bidder against the rule bidder (the same network and budget for both);
   - ``agent``: ``checkpoint:X`` against ``rule`` (the rule agent with its rule bidder).

   Each gives ADP and WP with 95% t-intervals over deals and, per side, the bidding statistics (landlord rate, win
   rate and ADP as landlord and as peasant, mean winning bid, redeal rate), written to ``OUT/seedS/COMPARISON.json``
   with the per-deal samples.
3. ``report``: per comparison each seed's row and the pool over seeds (:func:`pool`: the per-deal samples of every
   seed in one t-interval, the bidding counts summed), in ``OUT/report.md`` and ``OUT/report.json``.

Run: ``python experiments/bidding_learned_vs_rule.py`` (3 seeds, 2,000,000 frames each, 1,000 deals; how long it
took on one machine: docs/benchmarks.md), ``--report-only`` for the report of the runs as they are. It reports; it
asserts nothing about which bidder wins.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np

from cardrl.bench.common import machine_description
from cardrl.bench.learning import _run_child
from cardrl.bench.learning_report import median_of, read_run
from cardrl.eval.stats import mean_interval
from cardrl.eval.whole_game import BiddingStats

__all__ = ["COMPARISONS", "train_argv", "evaluate_seed", "pool", "stats_dict", "format_report", "run", "main"]

PRESET = "alphadou_doudizhu"
DEFAULT_FRAMES = 2_000_000
DEFAULT_DEALS = 1_000
# comparison name -> (what it asks, side B's spec given side A's checkpoint spec)
COMPARISONS = {
    "bidder": ("the learned bidder vs the rule bidder, the same card-play networks", "{a}+bidder=rule"),
    "agent": ("the whole-game DMC agent vs the rule agent with its rule bidder", "rule"),
}
_RATES = ("landlord_rate", "landlord_win_rate", "peasant_win_rate", "redeal_rate")


def seed_dir(out: Path, seed: int) -> Path:
    return Path(out) / f"seed{seed}"


def train_argv(seed: int, frames: int, out: Path, extra: Sequence[str] = ()) -> list[str]:
    """The ``cardrl train`` arguments of one seed's run: the preset, resumable, evaluated at its end only (its own
    whole-game evaluation against random play and the rule agent, 200 deals)."""
    return ["train", "--preset", PRESET, "--seed", str(seed), "--stop-frames", str(frames), "--eval-every", "0",
            "--eval-against", "random", "rule", "--checkpoint-every", "5m", "--out", str(seed_dir(out, seed)),
            "--resume", *extra]


# ---- evaluation ------------------------------------------------------------------------------------------------------
def stats_dict(stats: BiddingStats) -> dict[str, Any]:
    """A side's counts and means, with its rates (None where there was nothing to count)."""
    out: dict[str, Any] = asdict(stats)
    for name in _RATES:
        value = getattr(stats, name)
        out[name] = None if np.isnan(value) else float(value)
    return {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in out.items()}


def _stats_of(record: dict[str, Any]) -> BiddingStats:
    names = {f.name for f in fields(BiddingStats)}
    return BiddingStats(**{k: (float("nan") if v is None else v) for k, v in record.items() if k in names})


def _summary(pair_scores: np.ndarray, pair_wins: np.ndarray) -> dict[str, Any]:
    lo, hi = mean_interval(pair_scores)
    wlo, whi = mean_interval(pair_wins)
    return {"deals": int(len(pair_scores)), "adp": float(pair_scores.mean()), "adp_low": lo, "adp_high": hi,
            "wp": float(pair_wins.mean()), "wp_low": wlo, "wp_high": whi}


def evaluate_seed(checkpoint: Path, comparison: str, deals: int, deal_seed: int, workers: int) -> dict[str, Any]:
    """One comparison (:data:`COMPARISONS`) of the checkpoint, on ``deals`` whole-game deals of ``deal_seed``."""
    from cardrl.eval.whole_game import run_whole_game

    a = f"checkpoint:{checkpoint}"
    b = COMPARISONS[comparison][1].format(a=a)
    result = run_whole_game(a, b, deals, seed=deal_seed, num_workers=workers)
    t = result.tournament
    pair_scores, pair_wins = t.pair_scores, t.wins.mean(axis=1)
    return {"comparison": comparison, "a": a, "b": b, "deal_seed": deal_seed, **_summary(pair_scores, pair_wins),
            "a_stats": stats_dict(result.stats(0)), "b_stats": stats_dict(result.stats(1)),
            "pair_scores": pair_scores.tolist(), "pair_wins": pair_wins.tolist()}


def pool(per_seed: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The seeds' evaluations of one comparison as one sample: ADP and WP over every seed's deals with their
    t-intervals (between-seed spread included), each side's bidding counts summed and their means weighted by
    games (:meth:`BiddingStats.__add__`)."""
    if not per_seed:
        raise ValueError("pool needs at least one seed's evaluation")
    scores = np.concatenate([np.asarray(r["pair_scores"], dtype=np.float64) for r in per_seed])
    wins = np.concatenate([np.asarray(r["pair_wins"], dtype=np.float64) for r in per_seed])
    out: dict[str, Any] = {"seeds": len(per_seed), **_summary(scores, wins)}
    for side in ("a_stats", "b_stats"):
        total = _stats_of(per_seed[0][side])
        for r in per_seed[1:]:
            total = total + _stats_of(r[side])
        out[side] = stats_dict(total)
    return out


# ---- the report ---------------------------------------------------------------------------------------------------
def _number(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def _row(label: str, r: dict[str, Any]) -> str:
    a, b = r["a_stats"], r["b_stats"]
    return (f"| {label} | {r['deals']} | {r['adp']:+.3f} [{r['adp_low']:+.3f}, {r['adp_high']:+.3f}] | "
            f"{r['wp']:.3f} [{r['wp_low']:.3f}, {r['wp_high']:.3f}] | "
            + " | ".join(f"{_number(s['landlord_rate'], '.3f')} | {_number(s['landlord_win_rate'], '.3f')} | "
                         f"{_number(s['landlord_adp'], '+.2f')} | {_number(s['peasant_win_rate'], '.3f')} | "
                         f"{_number(s['peasant_adp'], '+.2f')}" for s in (a, b))
            + f" | {_number(a['mean_bid'], '.2f')} / {_number(b['mean_bid'], '.2f')} | "
              f"{_number(a['redeal_rate'], '.3f')} |")


def format_report(results: dict[str, Any]) -> str:
    """The markdown report: per comparison a table of each seed and the pool."""
    lines = [f"# The learned bidder vs the rule bidder (whole game, {results['preset']})", "",
             f"{results['date']}, {results['machine']}; {len(results['seeds'])} seed(s) x {results['frames']:,} "
             f"frames, {results['deals']:,} whole-game duplicate deals per evaluation (6 games a deal), deal seed "
             f"{results['deal_seed']}. Command: `{results['command']}`", "",
             "ADP and WP of side A with 95% t-intervals over deals (pooled: over every seed's deals); per side the "
             "landlord rate (1/3 is an even share), the win rate and ADP as landlord and as peasant; the mean "
             "winning bid (A / B) and the rate of games with a redeal.", ""]
    for name, (question, _) in COMPARISONS.items():
        runs = results["comparisons"].get(name) or {}
        per_seed = runs.get("per_seed")
        if not per_seed:
            continue
        first = next(iter(per_seed.values()))
        lines += [f"## {name}: {question}", "", f"A = `{first['a']}`, B = `{first['b']}` (per seed)", "",
                  "| seed | deals | ADP (A) | WP (A) | A landlord rate | A as landlord WP | ADP | A as peasant WP | "
                  "ADP | B landlord rate | B as landlord WP | ADP | B as peasant WP | ADP | mean bid A / B | "
                  "redeal rate |", "|---|" + "---:|" * 15]
        lines += [_row(str(seed), r) for seed, r in per_seed.items()]
        if runs.get("pooled"):
            lines.append(_row(f"pooled ({runs['pooled']['seeds']} seeds)", runs["pooled"]))
        lines.append("")
    if results.get("training"):
        lines += ["Training: " + "; ".join(f"seed {s}: {t['frames']:,} frames in {t['train_s'] / 60:.1f} min"
                                           for s, t in results["training"].items()), ""]
    return "\n".join(lines)


# ---- running ---------------------------------------------------------------------------------------------------------
def _evaluation_path(out: Path, seed: int, comparison: str) -> Path:
    return seed_dir(out, seed) / f"{comparison}.json"


def _evaluated(out: Path, seed: int, comparison: str, deals: int, deal_seed: int, frames: int) -> dict | None:
    path = _evaluation_path(out, seed, comparison)
    if not path.is_file():
        return None
    record = json.loads(path.read_text())
    same = (record.get("deals"), record.get("deal_seed"), record.get("frames")) == (deals, deal_seed, frames)
    return record if same else None


def write_report(out: Path, seeds: Sequence[int], frames: int, deals: int, deal_seed: int, command: str) -> str:
    """Read every seed's evaluations and write report.md and report.json; returns the markdown."""
    comparisons = {}
    for name in COMPARISONS:
        per_seed = {s: r for s in seeds if (r := _evaluated(out, s, name, deals, deal_seed, frames))}
        comparisons[name] = {"per_seed": per_seed, "pooled": pool(list(per_seed.values())) if per_seed else None}
    training = {s: {"frames": run["frames"], "train_s": run["train_s"], "done": run["done"]}
                for s in seeds if (run := read_run(seed_dir(out, s), frames))["frames"]}
    results = {"preset": PRESET, "seeds": list(seeds), "frames": frames, "deals": deals, "deal_seed": deal_seed,
               "command": command, "machine": machine_description(), "date": time.strftime("%Y-%m-%d"),
               "training": training, "comparisons": comparisons}
    text = format_report(results)
    (out / "report.md").write_text(text)
    slim = {**results, "comparisons": {n: {"pooled": c["pooled"], "per_seed": {
        s: {k: v for k, v in r.items() if k not in ("pair_scores", "pair_wins")} for s, r in c["per_seed"].items()}}
        for n, c in comparisons.items()}}
    (out / "report.json").write_text(json.dumps(slim, indent=1))
    return text


def _train(out: Path, seeds: Sequence[int], frames: int, extra: Sequence[str], deadline: float | None,
           say) -> bool:
    """Train every seed's run not yet at ``frames``; False when ``deadline`` stopped it."""
    todo = [s for s in seeds if not read_run(seed_dir(out, s), frames)["done"]]
    rates: list[float] = []
    for k, seed in enumerate(todo):
        if deadline is not None and time.time() >= deadline:
            return False
        left = sum(frames - read_run(seed_dir(out, s), frames)["frames"] for s in todo[k:])
        eta = f", ETA {left / median_of(rates) / 60:.0f} min of training" if rates else ""
        say(f"== training seed {seed} ({k + 1}/{len(todo)}) to {frames:,} frames{eta}", flush=True)
        code = _run_child([sys.executable, "-m", "cardrl.cli", *train_argv(seed, frames, out, extra)], deadline)
        run = read_run(seed_dir(out, seed), frames)
        if run["frames_per_s"]:
            rates.append(run["frames_per_s"])
        if code != 0 and not (deadline is not None and time.time() >= deadline):
            raise RuntimeError(f"training seed {seed} failed (exit {code}); its log is above, its directory "
                               f"{seed_dir(out, seed)}; the same command resumes it")
    return all(read_run(seed_dir(out, s), frames)["done"] for s in seeds)


def _evaluate(out: Path, seeds: Sequence[int], frames: int, deals: int, deal_seed: int, workers: int, say) -> None:
    """Evaluate every comparison of every trained seed not evaluated yet, with an ETA from the ones done."""
    todo = [(s, c) for s in seeds for c in COMPARISONS if _evaluated(out, s, c, deals, deal_seed, frames) is None
            and read_run(seed_dir(out, s), frames)["done"]]
    took: list[float] = []
    for k, (seed, comparison) in enumerate(todo):
        eta = f", ETA {np.mean(took) * (len(todo) - k) / 60:.0f} min" if took else ""
        say(f"== evaluating seed {seed}: {comparison} on {deals:,} deals ({k + 1}/{len(todo)}){eta}", flush=True)
        began = time.time()
        record = evaluate_seed(seed_dir(out, seed) / "checkpoint", comparison, deals, deal_seed, workers)
        record["frames"] = frames
        took.append(time.time() - began)
        say(f"   ADP {record['adp']:+.3f} [{record['adp_low']:+.3f}, {record['adp_high']:+.3f}], "
            f"{took[-1]:.0f} s", flush=True)
        _evaluation_path(out, seed, comparison).write_text(json.dumps(record))


def run(out: Path, seeds: Sequence[int], *, frames: int, deals: int, deal_seed: int = 100, workers: int = 0,
        hours: float | None = None, report_only: bool = False, extra: Sequence[str] = (), command: str = "",
        say=print) -> str:
    """Train, evaluate and report (module docstring); ``hours`` bounds this invocation (the same command
    continues). Returns the report's markdown."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if not report_only:
        deadline = time.time() + hours * 3600 if hours else None
        say(f"{machine_description()}\n{PRESET}: {len(seeds)} seed(s) x {frames:,} frames, {deals:,} deals per "
            f"evaluation, out {out}", flush=True)
        trained = _train(out, seeds, frames, extra, deadline, say)
        if not trained and deadline is not None and time.time() >= deadline:
            say("--hours reached: the same command continues", flush=True)
        else:
            _evaluate(out, seeds, frames, deals, deal_seed, workers, say)
    text = write_report(out, seeds, frames, deals, deal_seed, command)
    say(text + f"\nreport: {out / 'report.md'}, {out / 'report.json'}", flush=True)
    return text


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="training seeds (default 1 2 3)")
    p.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help=f"frames per run (default {DEFAULT_FRAMES:,})")
    p.add_argument("--deals", type=int, default=DEFAULT_DEALS,
                   help=f"whole-game deals per evaluation, 6 games each (default {DEFAULT_DEALS:,})")
    p.add_argument("--deal-seed", type=int, default=100, help="seed of the evaluation deals (default 100)")
    p.add_argument("--workers", type=int, default=0, help="Ray workers of each evaluation (0: in this process)")
    p.add_argument("--out", default="runs/bidding_learned_vs_rule", help="the experiment's directory")
    p.add_argument("--hours", type=float, default=None, help="stop training after this many hours (resumable)")
    p.add_argument("--report-only", action="store_true", help="write the report from the results as they are")
    p.add_argument("--train-args", default="", help="more cardrl train flags for every run, one quoted string")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    for name, value in (("--frames", args.frames), ("--deals", args.deals)):
        if value < 1:
            raise SystemExit(f"{name} must be >= 1, got {value}")
    if not args.seeds or len(set(args.seeds)) != len(args.seeds) or min(args.seeds) < 0:
        raise SystemExit(f"--seeds must be distinct seeds >= 0, got {args.seeds}")
    words = list(sys.argv[1:] if argv is None else argv)
    command = "python experiments/bidding_learned_vs_rule.py " + " ".join(
        shlex.quote(a) for a in words if a != "--report-only")
    run(Path(args.out), args.seeds, frames=args.frames, deals=args.deals, deal_seed=args.deal_seed,
        workers=args.workers, hours=args.hours, report_only=args.report_only, extra=shlex.split(args.train_args),
        command=command.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
