"""Learning parity with DouZero per frame: our DMC and DouZero's own trainer, the same frames, the same evaluation.

Three steps, each resumable (results are files under ``--out``):

1. ``train``: a trainer (``ours``: cardrl's DMC with DouZero's settings, 1 env runner x 64 games; ``douzero``: the
   ``douzero`` package's trainer, 1 actor on CPU, its defaults) runs to ``--frames`` and leaves the three
   Q-networks at each checkpoint frame count in DouZero's file format
   (``<out>/<trainer>_seed<S>/<frames>/{landlord,landlord_down,landlord_up}.ckpt``); the frames actually reached
   are recorded. DouZero's trainer runs in a child process that saves the networks once after each checkpoint frame
   count and resumes from its ``model.tar`` after a kill (experiments/douzero_trainer.py); a run of ours is all or
   nothing.
2. ``evaluate``: every checkpoint is loaded into cardrl's Q-modules (DouZero's networks load as they are) and
   played greedily against random play and RLCard's rule agent on the same seeded deals, sides swapped
   (:func:`cardrl.eval.lockstep.evaluate_scorer`: team points, DouZero's ``evaluate.py`` unit).
3. ``report``: the curves side by side: per frame count, each run's ADP with its 95% interval, and per trainer the
   mean over runs with its bootstrap interval over runs (runs as the unit: :mod:`cardrl.bench.run_stats`).

Run: ``python experiments/parity_douzero.py all --seeds 1 2 3 --frames 2000000`` (``all`` evaluates each run as it
finishes; how long the trainers took on one machine: docs/benchmarks.md), or the steps one by one, e.g. ``python
experiments/parity_douzero.py train --trainer douzero --seed 1``.

Across machines: a run's results are its small files, ``reached.json`` and ``eval_<deals>_<seed>.json`` in each
checkpoint folder; the networks (``*.ckpt``, about 6 MB each) and ``trainer/`` are not needed again once evaluated.
With ``--out docs/learning/parity_douzero``, whose ``.gitignore`` keeps the json and the report only, committing it
carries the finished runs to a fresh machine: the same command there skips them (their ``reached.json``) and trains
the rest.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

if not __package__:  # run as ``python experiments/parity_douzero.py``: experiments/ imports from the checkout's root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from experiments import douzero_trainer  # noqa: E402

ROLES = ("landlord", "landlord_down", "landlord_up")
CHECKPOINTS = (250_000, 500_000, 1_000_000, 1_500_000, 2_000_000)
BASELINES = ("random", "rlcard")


def run_dir(out: Path, trainer: str, seed: int) -> Path:
    return out / f"{trainer}_seed{seed}"


# ---- training: ours ------------------------------------------------------------------------------------------------
def train_ours(out: Path, seed: int, frames: int, checkpoints: list[int]) -> None:
    import ray
    import torch

    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.ray_start import LOCAL, start_ray

    root = run_dir(out, "ours", seed)
    todo = [c for c in checkpoints if c <= frames]
    if all((root / str(c) / "reached.json").is_file() for c in todo):
        print(f"ours seed {seed}: every checkpoint is there", flush=True)
        return  # a run is all or nothing: an interrupted one starts over (its checkpoints are one run's)
    start_ray(2, address=LOCAL)  # timed against DouZero's trainer on this machine: always a local Ray
    config = (DMCConfig().game("doudizhu")
              .env_runners(num_env_runners=1, num_envs_per_env_runner=64)
              .debugging(seed=seed))
    algo = config.build_algo()
    start = time.time()
    try:
        trained = 0
        for target in todo:
            while trained < target:
                result = algo.train()
                trained = int(result["frames_trained"])
            modules = algo.q_modules()
            folder = root / str(target)
            folder.mkdir(parents=True, exist_ok=True)
            for role in ROLES:
                torch.save(modules[role].state_dict(), folder / f"{role}.ckpt")
            (folder / "reached.json").write_text(json.dumps({"frames": trained, "seconds": time.time() - start,
                                                             "data_age_updates": result.get("data_age_updates"),
                                                             "frames_dropped": result.get("frames_dropped")}))
            print(f"ours seed {seed}: checkpoint at {trained:,} frames ({time.time() - start:.0f} s)", flush=True)
    finally:
        algo.stop()
        ray.shutdown()


# ---- training: DouZero's trainer (experiments/douzero_trainer.py) -----------------------------------------------------
def train_douzero(out: Path, seed: int, frames: int, checkpoints: list[int]) -> None:
    """DouZero's trainer to ``frames``, resumable (:func:`experiments.douzero_trainer.run`), then each checkpoint's
    networks copied in DouZero's file format with the frames and training seconds they were saved at."""
    root = run_dir(out, "douzero", seed)
    todo = [c for c in checkpoints if c <= frames]
    if all((root / str(c) / "reached.json").is_file() for c in todo):
        print(f"douzero seed {seed}: every checkpoint is there", flush=True)
        return
    weights, saved, seconds = douzero_trainer.run(root, seed, frames, todo, label=f"douzero seed {seed}")
    for target in todo:
        reached = next((f for f in saved if f >= target), None)
        if reached is None:
            raise RuntimeError(f"DouZero's trainer left no checkpoint at or after {target} frames (saved: {saved})")
        folder = root / str(target)
        folder.mkdir(parents=True, exist_ok=True)
        for role in ROLES:
            shutil.copy(weights / f"{role}_weights_{reached}.ckpt", folder / f"{role}.ckpt")
        (folder / "reached.json").write_text(json.dumps({"frames": reached, "seconds": seconds[str(reached)]}))
        print(f"douzero seed {seed}: checkpoint at {reached:,} frames", flush=True)
    shutil.rmtree(weights, ignore_errors=True)  # model.tar and the other weights: not needed


# ---- evaluation ------------------------------------------------------------------------------------------------------
def evaluate(out: Path, deals: int, eval_seed: int, runs: str = "*_seed*") -> None:
    """Evaluate every checkpoint of the run directories ``out/<runs>`` not yet evaluated with these deals."""
    import torch

    from cardrl.agents.rlcard_rule import RLCardRuleAgent
    from cardrl.agents.random_agent import RandomAgent
    from cardrl.algorithms.dmc.agent_loaders import load_douzero_checkpoints
    from cardrl.algorithms.dmc.dmc_env_runner import score_legal_moves
    from cardrl.eval.lockstep import evaluate_scorer

    torch.set_num_threads(1)
    baselines = {"random": lambda slot: RandomAgent(11), "rlcard": lambda slot: RLCardRuleAgent(13)}
    for folder in sorted(out.glob(f"{runs}/*")):
        if not (folder / "reached.json").is_file():
            continue
        result_file = folder / f"eval_{deals}_{eval_seed}.json"
        if result_file.is_file():
            continue
        missing = [role for role in ROLES if not (folder / f"{role}.ckpt").is_file()]
        if missing:  # a run carried from another machine by its json files alone
            print(f"{folder.relative_to(out)}: not evaluated with {deals} deals, seed {eval_seed}: its networks "
                  f"({', '.join(missing)}) are not here; train the run again in a fresh --out to evaluate it anew",
                  flush=True)
            continue
        modules = load_douzero_checkpoints(folder)
        score = (lambda m: (lambda agent, obs, actions: score_legal_moves(m[agent], obs, actions)))(modules)
        results = {}
        for name, make in baselines.items():
            start = time.time()
            results[name] = evaluate_scorer(score, make, "doudizhu", deals=deals, seed=eval_seed, per_deal=True)
            print(f"{folder.relative_to(out)} vs {name}: {results[name]['adp']:+.2f} "
                  f"[{results[name]['adp_low']:+.2f}, {results[name]['adp_high']:+.2f}] ({time.time() - start:.0f} s)",
                  flush=True)
        result_file.write_text(json.dumps(results))


# ---- report ----------------------------------------------------------------------------------------------------------
def report(out: Path, deals: int, eval_seed: int) -> str:
    from cardrl.bench.run_stats import mean_over_runs

    rows: dict[tuple[str, int], dict] = {}
    for result_file in sorted(out.glob(f"*_seed*/*/eval_{deals}_{eval_seed}.json")):
        folder = result_file.parent
        trainer, seed = folder.parent.name.rsplit("_seed", 1)
        reached = json.loads((folder / "reached.json").read_text())["frames"]
        rows[(trainer, int(seed), int(folder.name))] = {"reached": reached, **json.loads(result_file.read_text())}
    lines = [f"DMC learning parity, DouDiZhu: ADP (team points, sides swapped, {deals} deals, seed {eval_seed}) "
             f"against each baseline; 95% t-intervals", ""]
    for baseline in BASELINES:
        lines += [f"against {baseline}:", "",
                  "| frames | trainer | runs: ADP [95% interval] | mean over runs [95% bootstrap interval over runs] |",
                  "|---:|---|---|---|"]
        for target in sorted({k[2] for k in rows}):
            for trainer in ("douzero", "ours"):
                runs = [(k[1], rows[k]) for k in sorted(rows) if k[0] == trainer and k[2] == target]
                if not runs:
                    continue
                cells = [f"s{s} {r[baseline]['adp']:+.2f} [{r[baseline]['adp_low']:+.2f}, "
                         f"{r[baseline]['adp_high']:+.2f}] @{r['reached'] / 1e6:.2f}M" for s, r in runs]
                over = mean_over_runs([r[baseline]["adp"] for _, r in runs])
                lines.append(f"| {target / 1e6:.2f}M | {trainer} | {'; '.join(cells)} | {over['mean']:+.2f} "
                             f"[{over['low']:+.2f}, {over['high']:+.2f}] ({over['runs']} runs) |")
        lines.append("")
    lines += _first_above_zero_table(rows)
    text = "\n".join(lines)
    (out / f"report_{deals}_{eval_seed}.md").write_text(text + "\n")
    return text


def _first_above_zero_table(rows: dict[tuple[str, int, int], dict]) -> list[str]:
    """Per trainer and baseline: each run's first checkpoint whose interval lies above 0 (the papers' "time to ADP >
    0"), the median over runs (a run that never got there counts as later than every one that did:
    :func:`~cardrl.bench.run_stats.time_to_threshold`), and how many runs ended below 0 (interval) at their last
    checkpoint."""
    from cardrl.bench.learning_report import first_above_zero
    from cardrl.bench.run_stats import time_to_threshold

    lines = ["frames to the first checkpoint whose interval lies above 0 (per run; median over runs, a run that never "
             "got there counting as the last):", "",
             "| trainer | baseline | per run | median | runs below 0 at their last checkpoint |",
             "|---|---|---|---|---|"]
    for trainer in ("douzero", "ours"):
        seeds = sorted({k[1] for k in rows if k[0] == trainer})
        if not seeds:
            continue
        for baseline in BASELINES:
            firsts, below = [], 0
            for seed in seeds:
                points = [{"frames": k[2], **rows[k][baseline]} for k in sorted(rows) if k[:2] == (trainer, seed)]
                firsts.append(first_above_zero(points))
                below += points[-1]["adp_high"] < 0
            cells = "; ".join(f"s{s} " + (f"{f['frames'] / 1e6:.2f}M" if f else "not yet")
                              for s, f in zip(seeds, firsts))
            middle = time_to_threshold([f["frames"] if f else None for f in firsts])["median"]
            lines.append(f"| {trainer} | {baseline} | {cells} | "
                         f"{'not yet' if middle is None else f'{middle / 1e6:.2f}M'} | {below} of {len(seeds)} |")
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["train", "evaluate", "report", "all"])
    parser.add_argument("--trainer", choices=["ours", "douzero"], nargs="+", default=["ours", "douzero"])
    parser.add_argument("--seeds", "--seed", type=int, nargs="+", default=[1, 2, 3], dest="seeds")
    parser.add_argument("--frames", type=int, default=2_000_000)
    parser.add_argument("--checkpoints", type=int, nargs="+", default=list(CHECKPOINTS))
    parser.add_argument("--out", default="runs/parity_douzero")
    parser.add_argument("--deals", type=int, default=1000, help="evaluation deals (each played with sides swapped)")
    parser.add_argument("--eval-seed", type=int, default=2024)
    args = parser.parse_args(argv)
    out = Path(args.out)
    if args.step in ("train", "all"):
        for seed in args.seeds:
            for trainer in args.trainer:
                (train_ours if trainer == "ours" else train_douzero)(out, seed, args.frames, args.checkpoints)
                if args.step == "all":  # each run evaluated as it finishes: a session cut short keeps its results
                    evaluate(out, args.deals, args.eval_seed, runs=run_dir(Path(), trainer, seed).name)
    if args.step == "evaluate":
        evaluate(out, args.deals, args.eval_seed)
    if args.step in ("report", "all"):
        print(report(out, args.deals, args.eval_seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
