"""``cardrl bench learning GAME``: which DMC variant learns fastest, per frame and per minute, on the same seeds.

Each named variant (:data:`VARIANTS`, the presets table's variants: plain DMC and the papers' methods as ``cardrl
train`` flags, cardrl/preset_table.py) is trained from each seed to the same frame budget, each (variant, seed) pair
in its own run directory ``OUT/VARIANT/seedS`` by its own ``cardrl train --resume`` process: a benchmark stopped at
any point (``--hours``, Ctrl-C, a lost session) continues from each run's latest checkpoint when the same command is
given again, and no process lives longer than one run. A variant that continues another's run (``topk_ppo``: top-k
PPO over a DMC) is two processes (:func:`stages`): the other variant to half the budget in
``OUT/VARIANT/seedS/start``, then this one from its checkpoint for the rest; its curve is the two joined, frames and
minutes counted from the start's. Every run evaluates its greedy networks at the same frame milestones
(``--eval-every-frames``) on the same seeded deals (``--seed`` of the evaluation, sides swapped) against the same
baselines (the game's random and rule agents by default), and its evaluation time is kept out of its training time.

The report (``results.json``, ``learning.md``, ``learning.png`` in ``OUT``) takes the runs as the unit
(:mod:`cardrl.bench.learning_report`, :mod:`cardrl.bench.run_stats`, rliable): per variant, baseline and milestone
(frames trained; minutes of training between runs on one machine, each run's ``machine.json``) the mean over runs
with a bootstrap interval over runs; each variant against the reference variant (``--reference``, by default the
first): the probability of improvement and the difference of means with their intervals, and the runs per variant
that would tell them apart; each run's time to its first evaluation above 0 with the median and range over runs;
frames/s of training alone (median over runs). Scores of one run are ADP (DouDiZhu; Big2: cards; GuanDan: points)
per deal; a run's deal-level interval says only whether that evaluation lies above 0.

A benchmark outlives the machine it runs on with ``--keep DIR`` (a directory to commit, e.g. under docs/): each
finished run's evaluation records (its ``progress.jsonl`` cut to the evaluations and the final record, a few KB) and
its ``config.json`` are copied to ``DIR/VARIANT/seedS`` as it finishes, the report is written there too, and a run
found finished there counts as finished: the same command on a fresh machine trains only the runs still to do (a run
stopped half-way, whose checkpoint stayed on the old machine, starts again).

Benchmarks report; they assert nothing about which variant wins (tests check the arithmetic on synthetic curves).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.bench.common import machine_description
from cardrl.bench.learning_format import format_learning, plot_learning
from cardrl.bench.learning_report import (MACHINE, compare, machine_label, median_of, read_run, record_machine,
                                          summarise)
from cardrl.games.registry import get_game
from cardrl.preset_table import Preset
from cardrl.presets import START_SHARE, variants
from cardrl.run_dir import CHECKPOINT, CONFIG, PROGRESS, read_progress
from cardrl.atomic_file import replace_text

__all__ = ["VARIANTS", "DEFAULT_VARIANTS", "Stage", "stages", "variants_for", "stage_spec", "train_argv",
           "run_learning", "keep_run", "read_benchmark_run", "join_stages", "write_report", "variant_flags"]

# ---- the variants: the presets table's rows marked variant=True (cardrl/preset_table.py) --------------------------
# a variant is a preset: its cardrl train flags, its paper, the games it applies to
VARIANTS: dict[str, Preset] = variants()
DEFAULT_VARIANTS = ("dmc", "dmc_centred")  # plain DMC and the dip's remedy (docs/learning.md, "The dip")


START_DIR = "start"  # the first stage's directory inside a run that continues another variant's


def _applies(variant: Preset, game: str) -> bool:
    return variant.applies_to(game) and (variant.starts_from is None
                                         or VARIANTS[variant.starts_from[0]].applies_to(game))


def variants_for(game: str) -> list[str]:
    """The variants that apply to ``game``, in table order."""
    return [name for name, v in VARIANTS.items() if _applies(v, game)]


@dataclass(frozen=True)
class Stage:
    """One ``cardrl train`` process of a (variant, seed) run: ``variant``'s flags to ``frames`` frames in the run
    directory's ``subdir`` ("": the run directory itself), after ``offset`` frames of the stages before it (its
    milestones count from there)."""

    variant: str
    subdir: str
    frames: int
    offset: int


def stages(variant: str, frames: int) -> list[Stage]:
    """The processes of one run of ``variant`` to ``frames``: the variant itself, or for one that continues another's
    run (its preset's ``starts_from``), that one to :data:`START_SHARE` of the budget in ``start/``, then this one
    from its checkpoint for the rest."""
    starts_from = VARIANTS[variant].starts_from
    if starts_from is None:
        return [Stage(variant, "", frames, 0)]
    first = max(1, int(frames * START_SHARE))
    return [Stage(starts_from[0], START_DIR, first, 0), Stage(variant, "", frames - first, first)]


def variant_flags(name: str, game: str, frames: int) -> list[str]:
    """The ``cardrl train`` flags of variant ``name`` for a budget of ``frames`` (oracle guiding anneals over
    ``ORACLE_SHARE`` of it); ValueError if it does not apply."""
    if name not in VARIANTS:
        raise ValueError(f"unknown variant {name!r}; variants: {', '.join(VARIANTS)}")
    variant = VARIANTS[name]
    if not _applies(variant, game):
        raise ValueError(f"variant {name!r} does not apply to {game}; {game}'s variants: "
                         f"{', '.join(variants_for(game))}")
    return variant.flags(frames)  # an opponent model's encoder, where it is not the game's default, cardrl train picks


def run_directory(out: Path, variant: str, seed: int) -> Path:
    return Path(out) / variant / f"seed{seed}"


def _read_stage(out: Path, keep: Path | None, variant: str, seed: int, stage: Stage) -> dict[str, Any]:
    """One stage as :func:`read_run` reads it from ``out``, or its kept copy in ``keep`` where that one is finished
    and the one in ``out`` is not (a benchmark continued on another machine)."""
    run = read_run(run_directory(out, variant, seed) / stage.subdir, stage.frames)
    if not run["done"] and keep is not None:
        kept = read_run(run_directory(keep, variant, seed) / stage.subdir, stage.frames)
        if kept["done"]:
            return kept
    return run


def join_stages(parts: Sequence[tuple[Stage, dict[str, Any]]]) -> dict[str, Any]:
    """One run read from its stages' runs: each stage's milestones after its ``offset``, its frames and training
    seconds after those of the stages before it; done when every stage is; the last stage's matches."""
    if len(parts) == 1:
        return parts[0][1]
    joined: dict[str, Any] = {"evals": {}, "frames": 0, "train_s": 0.0, "frames_per_s": None, "done": True,
                              "matches": None, "machine": None}
    for stage, run in parts:
        for milestone, point in run["evals"].items():
            joined["evals"][stage.offset + milestone] = {
                **point, "frames_trained": joined["frames"] + point["frames_trained"],
                "train_s": joined["train_s"] + point["train_s"]}
        joined["frames"] += run["frames"]
        joined["train_s"] += run["train_s"]
        joined["done"] = joined["done"] and run["done"]
        joined["matches"] = run["matches"]
        joined["machine"] = machine_label([joined["machine"], run["machine"]])
    if joined["train_s"] > 0:
        joined["frames_per_s"] = joined["frames"] / joined["train_s"]
    return joined


def read_benchmark_run(out: Path, keep: Path | None, variant: str, seed: int, frames: int) -> dict[str, Any]:
    """A (variant, seed) run as :func:`read_run` reads it, its stages joined (:func:`join_stages`), each stage from
    ``out`` or, where only that one is finished, from ``keep``."""
    return join_stages([(stage, _read_stage(out, keep, variant, seed, stage)) for stage in stages(variant, frames)])


def keep_run(run: Path, kept: Path) -> Path:
    """Copy finished run ``run``'s evaluation records (every record with an evaluation, and the final one: all that
    :func:`read_run` needs), its ``config.json`` and ``machine.json`` to directory ``kept``; returns it."""
    records = [r for r in read_progress(run, torn_last_line=True) if "eval" in r or r.get("final")]
    if not any(r.get("final") for r in records):
        raise ValueError(f"{run} has no final record: only a finished run is kept")
    kept.mkdir(parents=True, exist_ok=True)
    replace_text(kept / PROGRESS, "".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    for name in (CONFIG, MACHINE):
        if (run / name).is_file():
            shutil.copyfile(run / name, kept / name)
    return kept


def _final_matches_apply(game: str, algo: str) -> bool:
    """Whether ``cardrl train GAME --algo ALGO`` ends with whole matches (``--final-matches``, a run option of DMC
    alone; the benchmark imports no driver: tests/test_layers.py)."""
    return get_game(game).protocol.unit == "match" and algo == "dmc"


def stage_spec(game: str, variant: str, seed: int, *, frames: int, eval_every_frames: int, eval_deals: int,
               against: Sequence[str], out: Path, num_env_runners: int = 1, extra: Sequence[str] = (),
               stage: int = 0) -> RunSpec:
    """The run of one (variant, seed) pair's ``stage`` (:func:`stages`): the variant's flags, resumable, evaluated by
    frames only, ``extra`` flags last (``--train-args``); a stage that continues the one before it starts from that
    one's checkpoint. ValueError naming a flag ``cardrl train`` refuses."""
    run_stages = stages(variant, frames)
    this = run_stages[stage]
    flags = variant_flags(this.variant, game, this.frames)
    directory = run_directory(out, variant, seed) / this.subdir
    if stage > 0:
        flag = VARIANTS[variant].starts_from[1]
        flags += [flag, str(run_directory(out, variant, seed) / run_stages[stage - 1].subdir / CHECKPOINT)]
    if stage < len(run_stages) - 1 and _final_matches_apply(game, VARIANTS[this.variant].algo):
        flags += ["--final-matches", "0"]  # a stage another continues: its end is not the run's
    return RunSpec.from_flags(game, [
        "--algo", VARIANTS[this.variant].algo, *flags, "--seed", str(seed), "--stop-frames", str(this.frames),
        "--eval-every", "0", "--eval-every-frames", str(eval_every_frames), "--eval-deals", str(eval_deals),
        "--eval-against", *against, "--checkpoint-every", "5m", "--num-env-runners", str(num_env_runners),
        "--out", str(directory), "--resume", *extra])


def train_argv(game: str, variant: str, seed: int, **stage: Any) -> list[str]:
    """The ``cardrl train`` arguments of one (variant, seed) run's stage: :func:`stage_spec`'s command line."""
    return ["train", game, *stage_spec(game, variant, seed, **stage).flags()]


# ---- running ---------------------------------------------------------------------------------------------------------
def write_report(out: Path, keep: Path | None, game: str, variants: Sequence[str], seeds: Sequence[int], frames: int,
                 against: Sequence[str], command: str, reference: str | None = None) -> tuple[dict[str, Any], str]:
    """Read every run, write learning.md, results.json and learning.png (in ``out``, and in ``keep`` where given);
    returns the figures (``variants``: :func:`summarise`'s, ``comparisons``: :func:`compare`'s against
    ``reference``, by default the first variant) and the markdown."""
    reference = reference or variants[0]
    runs = {v: {s: read_benchmark_run(out, keep, v, s, frames) for s in seeds} for v in variants}
    summary = summarise(runs, against)
    comparisons = compare(summary, reference)
    machine = machine_description()
    date = time.strftime("%Y-%m-%d")
    text = format_learning(summary, comparisons, game=game, against=against, frames=frames, reference=reference,
                           command=command, machine=machine, date=date)
    (out / "learning.md").write_text(text)
    figures = {"game": game, "frames": frames, "against": list(against), "seeds": list(seeds), "command": command,
               "machine": machine, "date": date, "reference": reference, "variants": summary,
               "comparisons": comparisons}
    (out / "results.json").write_text(json.dumps(figures, indent=1, default=str))
    plot_learning(runs, summary, against, out / "learning.png", f"{game}: each run faint, the mean over runs with "
                  "its bootstrap interval")
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for name in ("learning.md", "results.json", "learning.png"):
            shutil.copyfile(out / name, keep / name)
    return figures, text


def run_learning(game: str, variants: Sequence[str], seeds: Sequence[int], *, frames: int, eval_every_frames: int,
                 eval_deals: int, against: Sequence[str], out: Path, keep: str | Path | None = None,
                 hours: float | None = None, report_only: bool = False, num_env_runners: int = 1,
                 extra: Sequence[str] = (), command: str = "", reference: str | None = None,
                 say=print) -> dict[str, Any]:
    """Train every (variant, seed) run not yet at ``frames`` (seed by seed, so that a partial benchmark has every
    variant on its first seeds), then write the report. ``hours`` bounds this invocation: a run still going then is
    stopped (its latest checkpoint resumes it next time). ``keep``: where finished runs are kept (module docstring)."""
    out, keep = Path(out), (Path(keep) if keep is not None else None)
    out.mkdir(parents=True, exist_ok=True)
    for v in variants:
        variant_flags(v, game, frames)  # every name checked before anything runs
    deadline = time.time() + hours * 3600 if hours else None
    _keep_finished(out, keep, variants, seeds, frames, say)  # those that finished before --keep was given
    started = {(s, v): read_benchmark_run(out, keep, v, s, frames) for s in seeds for v in variants}
    todo = [key for key, run in started.items() if not run["done"]]  # seed by seed
    if not report_only:
        say(f"learning benchmark {game}: {len(variants)} variant(s) x {len(seeds)} seed(s) to {frames:,} frames; "
            f"{len(todo)} run(s) to go, out {out}" + (f", finished runs kept in {keep}" if keep else ""), flush=True)
        rates: list[float] = []
        for k, (seed, variant) in enumerate(todo):
            if deadline is not None and time.time() >= deadline:
                say(f"--hours reached: {len(todo) - k} run(s) left; the same command continues them", flush=True)
                break
            before = started[seed, variant]["frames"]
            left_frames = sum(frames - started[key]["frames"] for key in todo[k:])
            eta = f", ETA {left_frames / median_of(rates) / 60:.0f} min of training" if rates else ""
            say(f"== run {k + 1}/{len(todo)}: {variant} seed {seed}"
                + (f" (resuming at {before:,} frames)" if before else "") + eta, flush=True)
            code = _train_stages(game, variant, seed, frames, out, keep, deadline, say,
                                 eval_every_frames=eval_every_frames, eval_deals=eval_deals, against=against,
                                 num_env_runners=num_env_runners, extra=extra)
            run = read_benchmark_run(out, keep, variant, seed, frames)
            if run["frames_per_s"]:
                rates.append(run["frames_per_s"])
            _keep_finished(out, keep, [variant], [seed], frames, say)
            write_report(out, keep, game, variants, seeds, frames, against, command, reference)
            if code != 0 and not (deadline is not None and time.time() >= deadline):
                raise RuntimeError(f"run {variant} seed {seed} failed (exit {code}); its log is above, its directory "
                                   f"{run_directory(out, variant, seed)}; the same command resumes it")
    figures, text = write_report(out, keep, game, variants, seeds, frames, against, command, reference)
    say(text, flush=True)
    say(f"report: {out / 'learning.md'}, {out / 'results.json'}, {out / 'learning.png'}"
        + (f" (and in {keep})" if keep else ""), flush=True)
    return figures


def _train_stages(game: str, variant: str, seed: int, frames: int, out: Path, keep: Path | None,
                  deadline: float | None, say, **argv: Any) -> int:
    """Train the stages of one (variant, seed) run that are not finished, in order; the exit code of the last one
    started (0 when none was needed). A finished stage is trained again in ``out`` where the next one still has to
    start from its checkpoint and only its kept records (no checkpoint) are left."""
    run_stages = stages(variant, frames)
    for i, stage in enumerate(run_stages):
        directory = run_directory(out, variant, seed) / stage.subdir
        if _read_stage(out, keep, variant, seed, stage)["done"]:
            later = run_stages[i + 1:]
            needed = bool(later) and not _read_stage(out, keep, variant, seed, later[0])["done"]
            if not needed or (read_run(directory, stage.frames)["done"] and (directory / CHECKPOINT).is_dir()):
                continue
            say(f"{stage.variant} to {stage.frames:,} frames again in {directory}: the next stage starts from its "
                f"checkpoint, which its kept records do not have", flush=True)
        if deadline is not None and time.time() >= deadline:
            return 0
        if len(run_stages) > 1:
            say(f"-- stage {i + 1}/{len(run_stages)}: {stage.variant} to {stage.frames:,} frames in {directory}",
                flush=True)
        argv_i = train_argv(game, variant, seed, frames=frames, out=out, stage=i, **argv)
        record_machine(directory, read_run(directory, stage.frames)["frames"])
        code = _run_child([sys.executable, "-m", "cardrl.cli", *argv_i], deadline)
        if code != 0 or not read_run(directory, stage.frames)["done"]:
            return code
    return 0


def _keep_finished(out: Path, keep: Path | None, variants: Sequence[str], seeds: Sequence[int], frames: int,
                   say) -> None:
    """Keep (:func:`keep_run`) every stage of these runs that is finished in ``out`` and not yet in ``keep``."""
    if keep is None:
        return
    for seed in seeds:
        for variant in variants:
            for stage in stages(variant, frames):
                run = run_directory(out, variant, seed) / stage.subdir
                kept = run_directory(keep, variant, seed) / stage.subdir
                if read_run(run, stage.frames)["done"] and not read_run(kept, stage.frames)["done"]:
                    say(f"kept: {keep_run(run, kept)}", flush=True)


def _sigint_default() -> None:
    """In the child before it runs: SIGINT back to its default. A benchmark started in the background (``nohup ...
    &``) inherits SIGINT ignored, and so would its runs, which then could not be stopped at ``--hours``' deadline
    but by the SIGTERM a minute later."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _run_child(argv: list[str], deadline: float | None) -> int:
    """Run one training process; at ``deadline`` send it SIGINT, then SIGTERM (its checkpoints resume it)."""
    child = subprocess.Popen(argv, start_new_session=True, preexec_fn=_sigint_default)
    try:
        while True:
            try:
                return child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                if deadline is not None and time.time() >= deadline:
                    os.killpg(child.pid, signal.SIGINT)
                    try:
                        return child.wait(timeout=60)
                    except subprocess.TimeoutExpired:
                        os.killpg(child.pid, signal.SIGTERM)
                        return child.wait()
    except BaseException:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait()
        raise
