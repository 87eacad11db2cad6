"""``cardrl zoo add CHECKPOINT --name NAME`` and ``cardrl zoo list``: the maintainer's commands of the model zoo
(:mod:`cardrl.zoo.catalog`; docs/strength.md, "The zoo").

``zoo add`` exports a DMC checkpoint as float16 safetensors (float32 when fp16's moves agree with fp32's on fewer
than 99.9% of the seeded positions, :func:`~cardrl.algorithms.export.export_fp16_checked`), evaluates it against
random play and each of the game's rule agents (``--eval-deals`` deals, or matches for GuanDan) and, when the zoo
already has an entry of that name, against it; it writes the card (how the checkpoint was trained, from its run
directory: command, frames, training time, machine, date) and puts the entry in. An existing entry is replaced only
when the successor is measured stronger: the 95% interval of its mean against the current entry (ADP; GuanDan:
points per deal) lies above 0. Otherwise it refuses, saying the figures, and the zoo is left as it was.
Layer 8: this module exports with the algorithms' loaders; the CLI runs it.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cardrl.zoo.catalog import (CARD_FILE, CARD_MARKDOWN, MAX_ZOO_BYTES, WHOLE_GAME_SUFFIX, ZOO_ROOT, entry_game,
                                entry_names, weight_files, zoo_entries, zoo_weight_bytes)
from cardrl.zoo.strength import Strength, evaluate_against, rule_opponents, strength_of, write_result

__all__ = ["add_zoo_arguments", "main_zoo", "check_zoo", "add_entry", "write_card", "training_record",
           "successor_is_stronger", "AddOutcome"]


def add_zoo_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``cardrl zoo``'s subcommands; returns ``add``'s parser (the one that loads a checkpoint)."""
    from cardrl.args import path_arg

    sub = parser.add_subparsers(dest="zoo_command", required=True)
    add = sub.add_parser("add", help="export a DMC checkpoint into the zoo after measuring it (replaces an entry "
                                     "only when measured stronger than it)")
    add.add_argument("checkpoint", type=path_arg, metavar="CHECKPOINT",
                     help="a cardrl DMC checkpoint (a run's RUN_DIR/checkpoint; the run directory gives the card's "
                          "command, frames, hours, machine and date)")
    add.add_argument("--name", required=True, choices=entry_names(), help="the entry: a game, or the whole game")
    add.add_argument("--eval-deals", type=int, default=1000,
                     help="deals (matches for GuanDan) of each evaluation (default: 1000)")
    add.add_argument("--seed", type=int, default=0, help="seed of the evaluation deals (default: 0)")
    add.add_argument("--workers", type=int, default=1, help="Ray tasks at a time in the evaluations (0: this "
                                                            "process; default: 1)")
    add.add_argument("--zoo-dir", type=path_arg, default=None,
                     help="the zoo to add to (default: the package's own, cardrl/zoo)")
    listing = sub.add_parser("list", help="the zoo's entries and their strength")
    listing.add_argument("--markdown", action="store_true", help="print the table of docs/strength.md")
    listing.add_argument("--zoo-dir", type=path_arg, default=None, help="the zoo to list (default: the package's)")
    return add


def _root(args: argparse.Namespace) -> Path:
    return Path(args.zoo_dir) if args.zoo_dir is not None else ZOO_ROOT


def check_zoo(args: argparse.Namespace) -> None:
    """What ``cardrl zoo`` checks before it exports or plays anything (ValueError naming what is wrong)."""
    if args.zoo_command != "add":
        return
    if args.eval_deals < 1:
        raise ValueError(f"--eval-deals {args.eval_deals}: needs at least 1")
    if args.workers < 0:
        raise ValueError(f"--workers {args.workers}: needs 0 or more")
    if not Path(args.checkpoint).is_dir():
        raise FileNotFoundError(f"{args.checkpoint}: no such checkpoint directory")
    if args.name.endswith(WHOLE_GAME_SUFFIX):
        raise ValueError(f"--name {args.name}: the whole game's bidding networks are not exported yet "
                         "(docs/export.md); the zoo takes card-play agents")
    from cardrl.checkpoint_trust import warn_if_untrusted

    warn_if_untrusted(args.checkpoint, "cardrl zoo add")  # exporting it unpickles its state


def main_zoo(args: argparse.Namespace) -> int:
    """``cardrl zoo add|list``; exit status 1 when ``add`` refuses a successor that is not measured stronger."""
    check_zoo(args)
    if args.zoo_command == "list":
        return _list(_root(args), args.markdown)
    outcome = add_entry(args.checkpoint, args.name, _root(args), count=args.eval_deals, seed=args.seed,
                        workers=args.workers, command=shlex.join(["cardrl", "zoo", *sys.argv[2:]])
                        if sys.argv[1:2] == ["zoo"] else None, say=print)
    print(outcome.message)
    return 0 if outcome.added else 1


def _list(root: Path, markdown: bool) -> int:
    from cardrl.zoo.card import card_markdown, zoo_table_markdown

    if markdown:
        print(zoo_table_markdown(root), end="")
        return 0
    for name in zoo_entries(root):
        print(card_markdown(name, root))
    print(f"weights together: {zoo_weight_bytes(root) / 1e6:.2f} MB (at most {MAX_ZOO_BYTES / 1e6:.0f} MB)")
    return 0


# ---- the card --------------------------------------------------------------------------------------------------
def _progress_at(run_dir: Path, frames: int | None) -> dict:
    """The run's last progress record at or before ``frames`` (the checkpoint's): a run stopped after its last
    checkpoint has trained on past it, and those frames are not in the checkpoint."""
    from cardrl.run_dir import read_progress

    records = read_progress(run_dir) if (run_dir / "progress.jsonl").is_file() else []
    if frames is not None:
        records = [r for r in records if r.get("frames_trained", 0) <= frames]
    return records[-1] if records else {}


def _machines(run_dir: Path) -> str | None:
    file = run_dir / "machine.json"
    if not file.is_file():
        return None
    segments = json.loads(file.read_text()).get("segments") or []
    machines = list(dict.fromkeys(s.get("machine") for s in segments if s.get("machine")))
    return "; ".join(machines) or None


def training_record(checkpoint: str | Path, frames: int | None) -> dict[str, Any]:
    """How the checkpoint was trained, read from its run directory (the checkpoint's parent, when it holds a
    ``config.json``): the command, frames (the checkpoint's, ``frames``, when known), training seconds, machine and
    date; what is not recorded is None."""
    checkpoint = Path(checkpoint).resolve()
    run_dir = checkpoint.parent
    config = json.loads((run_dir / "config.json").read_text()) if (run_dir / "config.json").is_file() else {}
    last = _progress_at(run_dir, frames)
    stamp = next((f for f in (checkpoint / "cardrl_checkpoint.json", checkpoint) if f.exists()), checkpoint)
    date = datetime.fromtimestamp(stamp.stat().st_mtime, timezone.utc).date().isoformat()
    return {"command": config.get("command"), "algo": config.get("algo"),
            "frames": last.get("frames_trained") if frames is None else frames, "train_seconds": last.get("train_s"),
            "machine": _machines(run_dir), "date": date, "source_checkpoint": _relative(checkpoint)}


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def write_card(directory: str | Path, name: str, training: dict, record: dict, command: str) -> dict:
    """Write ``card.json`` into an entry's directory and return it (``CARD.md`` is written once it is in the zoo)."""
    from cardrl.agents.exported import cardrl_version

    title = _title(training, record)
    card = {"format_version": 1, "name": name, "game": record["game"], "title": title,
            "training": training,
            "export": {"precision": record["precision"], "fp16_check": record.get("fp16_check"),
                       "features": record.get("features"), "play": record.get("play")},
            "added": {"command": command, "date": datetime.now(timezone.utc).date().isoformat(),
                      "cardrl_version": cardrl_version()}}
    (Path(directory) / CARD_FILE).write_text(json.dumps(card, indent=1) + "\n")
    return card


def _title(training: dict, record: dict) -> str:
    """What the agent is, from its export: the algorithm, the network, the opponent model, the pruning."""
    source, play = record.get("source") or {}, record.get("play") or {}
    models = sorted({n.get("opponent_model") for n in record["networks"].values()} - {None})
    parts = [(training.get("algo") or "dmc").upper(), f"{source.get('q_model')} network" if source.get("q_model") else None,
             *(f"{m} opponent model" for m in models), "MCS pruning (ODMC)" if play.get("prune") == "mcs" else None]
    return ", ".join(p for p in parts if p)


def write_card_markdown(name: str, root: Path) -> Path:
    from cardrl.zoo.card import card_markdown

    file = root / name / CARD_MARKDOWN
    file.write_text(card_markdown(name, root))
    return file


# ---- adding ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AddOutcome:
    """What ``zoo add`` did: ``added`` (put in, or replaced the entry) and the line that says why."""

    added: bool
    message: str
    against_current: Strength | None = None


def successor_is_stronger(row: Strength) -> bool:
    """The replacement rule: the successor's 95% interval against the current entry lies above 0."""
    return row.low > 0


def _export(checkpoint: str | Path, staging: Path, say) -> dict:
    from cardrl.algorithms.export import export_fp16_checked

    try:
        record, check = export_fp16_checked(checkpoint, staging)
        say(f"fp16: chose fp32's move on {check.agreement:.2%} of {check.positions:,} seeded positions: kept fp16")
    except ValueError as err:
        if not str(err).startswith("--fp16 refused"):
            raise
        say(f"{err}: kept float32")
        from cardrl.agents.exported import AGENT_FILE

        record = json.loads((staging / AGENT_FILE).read_text())
    return record


def _measure(staging: Path, name: str, game: str, opponents: list[tuple[str, str]], count: int, seed: int,
             workers: int, say) -> dict[str, Strength]:
    """Evaluate the staged export against each (opponent spec, label); each result kept under ``staging/eval``."""
    rows = {}
    for spec, label in opponents:
        record = evaluate_against(f"weights:{staging}", spec, game, count, label=f"zoo:{name}", seed=seed,
                                  workers=workers)
        record["opponent"] = label
        write_result(staging, record)
        rows[label] = strength_of(record)
        say(f"  vs {label}: {rows[label].mean:+.3f} [{rows[label].low:+.3f}, {rows[label].high:+.3f}] "
            f"{rows[label].unit} ({count} x {rows[label].games // count}; {record['seconds']:.0f} s)")
    return rows


def _previous(name: str) -> str:
    """The label of the entry a successor is measured against (its result file stays with the successor)."""
    return f"previous zoo:{name}"


def add_entry(checkpoint: str | Path, name: str, root: str | Path = ZOO_ROOT, *, count: int = 1000, seed: int = 0,
              workers: int = 1, command: str | None = None, say=print) -> AddOutcome:
    """``cardrl zoo add`` (module docstring). The zoo under ``root`` is changed only when the outcome is ``added``."""
    root = Path(root)
    game = entry_game(name)
    current = zoo_entries(root).get(name)
    command = command or f"cardrl zoo add {checkpoint} --name {name} --eval-deals {count} --workers {workers}"
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.new.", dir=root))
    try:
        record = _export(checkpoint, staging, say)
        if record["game"] != game:
            raise ValueError(f"{checkpoint} plays {record['game']}; the entry {name!r} plays {game}")
        opponents = [(o, o) for o in rule_opponents(game)]
        if current is not None:
            opponents.append((f"weights:{current}", _previous(name)))
        say(f"evaluating against {', '.join(label for _, label in opponents)}:")
        rows = _measure(staging, name, game, opponents, count, seed, workers, say)
        head_to_head = rows.get(_previous(name))
        if head_to_head is not None and not successor_is_stronger(head_to_head):
            return AddOutcome(False, f"refused: against the current zoo:{name} the successor scores "
                                     f"{head_to_head.mean:+.3f} [{head_to_head.low:+.3f}, {head_to_head.high:+.3f}] "
                                     f"{head_to_head.unit} over {head_to_head.count:,} x "
                                     f"{head_to_head.games // head_to_head.count}; it replaces the entry only when "
                                     f"that interval lies above 0. The zoo is unchanged.", head_to_head)
        write_card(staging, name, training_record(checkpoint, (record.get("source") or {}).get("frames_trained")),
                   record, command)
        size = zoo_weight_bytes(root) - (0 if current is None else sum(f.stat().st_size for f in weight_files(current)))
        size += sum(f.stat().st_size for f in weight_files(staging))
        if size > MAX_ZOO_BYTES:
            return AddOutcome(False, f"refused: the zoo's weights would come to {size / 1e6:.2f} MB, over "
                                     f"{MAX_ZOO_BYTES / 1e6:.0f} MB")
        _swap_in(staging, root / name)
        write_card_markdown(name, root)
        verb = "replaced" if current is not None else "added"
        return AddOutcome(True, f"{verb} zoo:{name} ({record['precision']}; zoo weights {size / 1e6:.2f} MB)",
                          head_to_head)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_in(staging: Path, target: Path) -> None:
    """Put the staged entry at ``target``; an entry there is moved aside first and removed after."""
    old = target.with_name(f".{target.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)
