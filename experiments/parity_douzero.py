"""Learning parity with DouZero per frame: our DMC and DouZero's own trainer, the same frames, the same evaluation.

Three steps, each resumable (results are files under ``--out``):

1. ``train``: a trainer (``ours``: cardrl's DMC with DouZero's settings, 1 env runner x 64 games; ``douzero``: the
   ``douzero`` package's trainer, 1 actor on CPU, its defaults) runs to ``--frames`` and leaves the three
   Q-networks at each checkpoint frame count in DouZero's file format
   (``<out>/<trainer>_seed<S>/<frames>/{landlord,landlord_down,landlord_up}.ckpt``). DouZero's trainer saves by
   time; here its save interval is driven by the frames it has logged, so it saves at the first check (every 5 s,
   about 2,000 frames) after each checkpoint frame count; the frames actually reached are recorded. Its run is
   resumable: the trainer also saves its ``model.tar`` every 10 minutes, and an interrupted run goes on from there
   (DouZero's own ``--load_model``); a run of ours (about 25 min) is all or nothing.
2. ``evaluate``: every checkpoint is loaded into cardrl's Q-modules (DouZero's networks load as they are) and
   played greedily against random play and RLCard's rule agent on the same seeded deals, sides swapped
   (:func:`cardrl.eval.lockstep.evaluate_scorer`: team points, DouZero's ``evaluate.py`` unit).
3. ``report``: the curves side by side: per frame count, each run's ADP with its 95% interval, and per trainer the
   mean over runs with its bootstrap interval over runs (runs as the unit: :mod:`cardrl.bench.run_stats`).

Run: ``python experiments/parity_douzero.py all --seeds 1 2 3 --frames 2000000`` (about 25 min per run of ours
and 90 min per run of DouZero's on 2 cores, plus evaluation; ``all`` evaluates each run as it finishes), or the steps
one by one, e.g. ``python experiments/parity_douzero.py train --trainer douzero --seed 1``.

Across machines: a run's results are its small files, ``reached.json`` and ``eval_<deals>_<seed>.json`` in each
checkpoint folder; the networks (``*.ckpt``, about 6 MB each) and ``trainer/`` are not needed again once evaluated.
With ``--out docs/learning/parity_douzero``, whose ``.gitignore`` keeps the json and the report only, committing it
carries the finished runs to a fresh machine: the same command there skips them (their ``reached.json``) and trains
the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

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


# ---- training: DouZero's trainer -------------------------------------------------------------------------------------
SAVE_MINUTES = 10.0  # DouZero's trainer saves its model.tar this often: an interrupted run resumes from it


def _saved_frames(weights: Path) -> list[int]:
    """Frame counts at which DouZero's trainer saved the three networks (``landlord_up`` is written last)."""
    return sorted({int(p.stem.rsplit("_", 1)[1]) for p in weights.glob("landlord_up_weights_*.ckpt")})


class DouZeroFlags(argparse.Namespace):
    """DouZero's flags, whose ``save_interval`` (minutes; its trainer reads it every 5 s) is 0, save now, once the
    frames its trainer logged passed the next checkpoint not saved yet (``pending``, in the trainer's process only),
    else ``SAVE_MINUTES``: its ``model.tar`` (networks, optimisers, frames), from which an interrupted run resumes."""

    pending: list[int] = []
    weights: Path | None = None

    @property
    def save_interval(self):
        weights = DouZeroFlags.weights
        pending = DouZeroFlags.pending
        while pending and weights is not None and _saved_frames(weights)[-1:] >= [pending[0]]:
            pending.pop(0)
        if pending and _logged_frames(weights / "logs.csv" if weights else None) >= pending[0]:
            return 0.0
        return SAVE_MINUTES

    @save_interval.setter
    def save_interval(self, value):
        pass


def _douzero_child(savedir: str, seed: int, frames: int, checkpoints: list[int], resume: bool) -> None:
    """Body of the child process: DouZero's ``train(flags)`` with its save interval driven by logged frames, resumed
    from its ``model.tar`` (its own ``--load_model``) when ``resume``."""
    import git
    import torch

    from douzero.dmc import file_writer
    from douzero.dmc.arguments import parser
    from douzero.dmc.dmc import train

    def no_repository(*args, **kwargs):
        raise git.InvalidGitRepositoryError("not recorded")

    # DouZero's log writer records the git branch of the working directory, and fails on a detached HEAD (a CI
    # checkout, a git worktree); the branch says nothing about DouZero's run.
    file_writer.git = argparse.Namespace(Repo=no_repository, InvalidGitRepositoryError=git.InvalidGitRepositoryError)
    torch.manual_seed(seed)
    np.random.seed(seed)
    DouZeroFlags.weights = Path(savedir) / "parity"
    DouZeroFlags.pending = sorted(checkpoints)
    flags = parser.parse_args(["--actor_device_cpu", "--training_device", "cpu", "--num_actors", "1",
                               "--xpid", "parity", "--savedir", savedir, "--total_frames", str(frames + 200_000)]
                              + (["--load_model"] if resume else []), namespace=DouZeroFlags())
    train(flags)


def _log_columns(first_line: str) -> list[str]:
    """The columns of DouZero's logs.csv, from its first line: "# frames,..."."""
    return first_line.strip().lstrip("# ").split(",")


def _line_frames(line: str, columns: list[str]) -> int | None:
    """The frame count of one logs.csv line, or None for a line cut short or not a record."""
    parts = line.split(",")
    col = columns.index("frames")
    return int(parts[col]) if len(parts) == len(columns) and parts[col].strip().isdigit() else None


def _logged_frames(logs: Path | None) -> int:
    """The last frame count DouZero's trainer logged (its logs.csv: one line per learner step)."""
    if logs is None or not logs.is_file():
        return 0
    with logs.open("rb") as f:
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 4096))
        lines = f.read().decode(errors="ignore").splitlines()
    columns = _log_columns(logs.open().readline())
    if "frames" not in columns:
        return 0
    for line in reversed(lines):
        if (frames := _line_frames(line, columns)) is not None:
            return frames
    return 0


def _resumable_frames(weights: Path) -> int | None:
    """The frames of DouZero's ``model.tar`` in ``weights``, or None where there is none or it does not load (a run
    killed while saving it): that run starts over."""
    import torch

    try:
        return int(torch.load(weights / "model.tar", map_location="cpu", weights_only=False)["frames"])
    except Exception:  # noqa: BLE001 - any unreadable file means: start over
        return None


def _cut_log(logs: Path, frames: int) -> None:
    """Drop the lines DouZero's trainer logged after the ``model.tar`` it resumes from (it appends to the file, and
    the save interval reads its last line)."""
    if not logs.is_file():
        return
    lines = logs.read_text().splitlines()
    columns = _log_columns(lines[0])
    kept = [lines[0]] + [line for line in lines[1:] if (f := _line_frames(line, columns)) is not None and f <= frames]
    logs.write_text("\n".join(kept) + "\n")


def _stop_orphan(pid_file: Path) -> None:
    """Stop the DouZero trainer an earlier attempt left running (its process group outlives a killed parent)."""
    if not pid_file.is_file():
        return
    pid = int(pid_file.read_text())
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return
    if b"_douzero_child" in cmdline:
        print(f"stopping DouZero's trainer left running by an earlier attempt (pid {pid})", flush=True)
        os.killpg(pid, signal.SIGKILL)
        time.sleep(1)


def train_douzero(out: Path, seed: int, frames: int, checkpoints: list[int]) -> None:
    """DouZero's trainer to ``frames``, resumable: an interrupted run goes on from its last ``model.tar`` (at most
    ``SAVE_MINUTES`` of training lost; DouZero's replay buffers, a few batches, are refilled by the restored
    networks), and ``timing.json`` adds up the training seconds of every attempt."""
    root = run_dir(out, "douzero", seed)
    todo = [c for c in checkpoints if c <= frames]
    if all((root / str(c) / "reached.json").is_file() for c in todo):
        print(f"douzero seed {seed}: every checkpoint is there", flush=True)
        return
    savedir = (root / "trainer").resolve()
    weights = savedir / "parity"
    _stop_orphan(root / "trainer.pid")
    timing_file = root / "timing.json"
    resumed = _resumable_frames(weights) if timing_file.is_file() else None
    if resumed is None:
        shutil.rmtree(savedir, ignore_errors=True)
        savedir.mkdir(parents=True)
        timing = {"seconds_before": 0.0, "saved": {}}
    else:
        _cut_log(weights / "logs.csv", resumed)
        timing = json.loads(timing_file.read_text())
        print(f"douzero seed {seed}: resuming DouZero's trainer from its model.tar at {resumed:,} frames "
              f"({timing['seconds_before'] / 60:.0f} min trained before)", flush=True)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    start = time.time()
    cmd = [sys.executable, str(Path(__file__).resolve()), "_douzero_child", "--savedir", str(savedir),
           "--seed", str(seed), "--frames", str(frames), "--checkpoints", *map(str, todo)]
    cmd += ["--resume"] if resumed is not None else []

    def record_timing() -> None:
        for f in _saved_frames(weights):
            if str(f) not in timing["saved"]:
                mtime = (weights / f"landlord_up_weights_{f}.ckpt").stat().st_mtime
                timing["saved"][str(f)] = timing["seconds_before"] + max(0.0, mtime - start)
        timing_file.write_text(json.dumps({**timing, "seconds_before": timing["seconds_before"] + time.time() - start}))

    # DouZero's trainer does not exit by itself once done (its actor processes keep it alive): stop it when every
    # checkpoint is on disk.
    with (root / "trainer.log").open("a") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        (root / "trainer.pid").write_text(str(proc.pid))
        try:
            while proc.poll() is None and _saved_frames(weights)[-1:] < [max(todo)]:
                record_timing()
                time.sleep(10)
            time.sleep(10)  # let the last weight files be written
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            record_timing()
    saved = _saved_frames(weights)
    if not saved or saved[-1] < max(todo):
        raise RuntimeError(f"DouZero's trainer stopped (exit {proc.returncode}) before {max(todo)} frames; see "
                           f"{root / 'trainer.log'}")
    for target in todo:
        reached = next((f for f in saved if f >= target), None)
        if reached is None:
            raise RuntimeError(f"DouZero's trainer left no checkpoint at or after {target} frames (saved: {saved})")
        folder = root / str(target)
        folder.mkdir(parents=True, exist_ok=True)
        for role in ROLES:
            shutil.copy(weights / f"{role}_weights_{reached}.ckpt", folder / f"{role}.ckpt")
        (folder / "reached.json").write_text(json.dumps({"frames": reached, "seconds": timing["saved"][str(reached)]}))
        print(f"douzero seed {seed}: checkpoint at {reached:,} frames", flush=True)
    shutil.rmtree(weights, ignore_errors=True)  # model.tar and the other weights: not needed


# ---- evaluation ------------------------------------------------------------------------------------------------------
def evaluate(out: Path, deals: int, eval_seed: int, runs: str = "*_seed*") -> None:
    """Evaluate every checkpoint of the run directories ``out/<runs>`` not yet evaluated with these deals."""
    import torch

    from cardrl.agents.rlcard_rule import RLCardRuleAgent
    from cardrl.agents.random_agent import RandomAgent
    from cardrl.algorithms.dmc.checkpoints import load_douzero_checkpoints
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
    parser.add_argument("step", choices=["train", "evaluate", "report", "all", "_douzero_child"])
    parser.add_argument("--trainer", choices=["ours", "douzero"], nargs="+", default=["ours", "douzero"])
    parser.add_argument("--seeds", "--seed", type=int, nargs="+", default=[1, 2, 3], dest="seeds")
    parser.add_argument("--frames", type=int, default=2_000_000)
    parser.add_argument("--checkpoints", type=int, nargs="+", default=list(CHECKPOINTS))
    parser.add_argument("--out", default="runs/parity_douzero")
    parser.add_argument("--deals", type=int, default=1000, help="evaluation deals (each played with sides swapped)")
    parser.add_argument("--eval-seed", type=int, default=2024)
    parser.add_argument("--savedir", help=argparse.SUPPRESS)
    parser.add_argument("--resume", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.step == "_douzero_child":
        _douzero_child(args.savedir, args.seeds[0], args.frames, args.checkpoints, args.resume)
        return 0
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
