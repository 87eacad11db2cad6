"""``cardrl report RUN_DIR``: one self-contained HTML page of a training run, to share it.

The page holds what a reader needs to judge the run without its directory: the command that made it and its
options (``config.json``), the learning curves (:mod:`cardrl.eval.plot`, inlined as a base64 PNG), the latest
evaluation against each baseline with its 95% intervals and per-arrangement means (the game's evaluation protocol:
ADP over duplicate deals, points per deal and whole-match win rates where the episode is a match; Luo & Tan 2024,
Sec. 5.1; DanZero, Lu et al. 2023, Sec. V-B), when the interval first lay above 0, the history of evaluations, and
the checkpoint with the command that evaluates it. Nothing is fetched when the page is opened: no scripts, no
external style sheets, no remote images.
"""

from __future__ import annotations

import base64
import html
import json
import time
from pathlib import Path
from typing import Any

from cardrl.eval.lockstep import SCORE_FIELDS
from cardrl.eval.plot import format_count, loss_fields, loss_name, plays_matches, render_png
from cardrl.run_dir import CHECKPOINT, read_config, read_progress, run_options

__all__ = ["build_report", "write_report", "main_report"]

HISTORY_ROWS = 50  # evaluations listed in the history table (the latest ones)

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.25em; margin-top: 1.6em;
     border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.sub { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: #f6f8fa; padding: 0.7em; white-space: pre-wrap; word-break: break-all; border-radius: 4px; }
img { max-width: 100%; border: 1px solid #eee; }
.pos { color: #0a7a2f; } .neg { color: #b3261e; } .note { color: #666; font-size: 0.9em; }
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _signed(x: float) -> str:
    css = "pos" if x > 0 else "neg" if x < 0 else ""
    return f'<span class="{css}">{x:+.3f}</span>'


def _table(head: list[str] | None, rows: list[list[str]], numeric_from: int = 1) -> str:
    """An HTML table (``head=None``: no header row); cells are HTML already (escape text before)."""
    out = ["<table>"] + (["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"] if head else [])
    for row in rows:
        out.append("<tr>" + "".join(f'<td class="num">{c}</td>' if i >= numeric_from else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _kv_table(values: dict[str, Any]) -> str:
    rows = [[f"<code>{_e(k)}</code>", f"<code>{_e(json.dumps(v))}</code>"] for k, v in sorted(values.items())]
    return _table(["option", "value"], rows, numeric_from=99)


def _latest_evaluation(records: list[dict], config: dict) -> str:
    evals = [r for r in records if r.get("eval")]
    if not evals:
        return '<p class="note">No evaluation records: the run was started with <code>--eval-every 0</code> and ' \
               'stopped before its final evaluation.</p>'
    last = evals[-1]
    name = "points per deal" if plays_matches(config) else "ADP"
    labels = [k for ev in last["eval"].values() for k in ev if k not in SCORE_FIELDS]
    labels = list(dict.fromkeys(labels))
    rows = []
    played = [("", last["eval"])] + [(f" ({(last[v].get('label') or v)})", last[v]["results"])
                                     for v in ("eval_oracle", "eval_unpruned") if (last.get(v) or {}).get("results")]
    for how, results in played:
        for spec, ev in sorted(results.items()):
            rows.append([f"<code>{_e(spec)}</code>{_e(how)}", _signed(ev["adp"]),
                         f"{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}", "yes" if ev["adp_low"] > 0 else "no"]
                        + [_signed(ev[label]) if label in ev else "" for label in labels])
    deals = run_options(config).get("eval_deals")
    what = "the final evaluation" if last.get("final") else f"iteration {last.get('iteration')}"
    text = (f"<p>At {_e(what)}: {format_count(last['frames_trained'])} frames trained, "
            f"{last.get('time_s', 0) / 60:.1f} min; the agent being trained plays against each baseline on "
            f"{_e(deals) + ' ' if deals else ''}seeded deals, once per seat arrangement (side A is the trained "
            f"network; 95% Student-t interval over deals)"
            + (f", {_e(last['eval_label'])}" if last.get("eval_label") else "") + ".</p>")
    table = _table(["baseline", f"{name} (side A)", "95% interval", "interval above 0"]
                   + [f"mean {_e(label)}" for label in labels], rows)
    return text + table + _matches(records)


def _matches(records: list[dict]) -> str:
    matches = next((r["matches"] for r in reversed(records) if r.get("matches")), None)
    if not matches:
        return ""
    rows = []
    for spec, m in sorted(matches.items()):
        exact = m.get("win_rate_exact_interval") or ["", ""]
        rows.append([f"<code>{_e(spec)}</code>", str(m["matches"]), f"{m['win_rate']:.3f}",
                     f"{m['win_rate_low']:.3f}, {m['win_rate_high']:.3f}",
                     f"{exact[0]:.3f}, {exact[1]:.3f}" if exact[0] != "" else "",
                     _signed(m["points_per_deal"]),
                     f"{m['points_per_deal_low']:+.3f}, {m['points_per_deal_high']:+.3f}",
                     f"{m['deals_per_match']:.2f}"])
    return ("<p>Whole seeded matches, teams swapped (each match played twice):</p>"
            + _table(["baseline", "matches", "match win rate", "95% t-interval", "Clopper-Pearson", "points per deal",
                      "95% interval", "deals per match"], rows))


def _reached(records: list[dict], config: dict) -> str:
    reached = next((r["reached_adp_above_0"] for r in reversed(records) if "reached_adp_above_0" in r), None)
    specs = sorted({s for r in records for s in (r.get("eval") or {})})
    if not specs or reached is None:  # a run that does not track when its interval first lay above 0
        return ""
    name = "points per deal" if plays_matches(config) else "ADP"
    rows = []
    for spec in specs:
        at = (reached or {}).get(spec)
        rows.append([f"<code>{_e(spec)}</code>", format_count(at["frames_trained"]) if at else "not yet",
                     f"{at['time_s'] / 60:.1f}" if at else ""])
    return (f"<p>When the {name} interval against each baseline first lay above 0 (Luo & Tan's \"time to reach "
            f"ADP &gt; 0\", Tables 8-9):</p>" + _table(["baseline", "frames trained", "minutes"], rows))


def _history(records: list[dict]) -> str:
    evals = [r for r in records if r.get("eval")]
    if len(evals) < 2:
        return ""
    specs = sorted({s for r in evals for s in r["eval"]})
    shown = evals[-HISTORY_ROWS:]
    rows = []
    for r in shown:
        cells = []
        for spec in specs:
            ev = r["eval"].get(spec)
            cells.append(f"{_signed(ev['adp'])} [{ev['adp_low']:+.2f}, {ev['adp_high']:+.2f}]" if ev else "")
        rows.append([("final" if r.get("final") else str(r.get("iteration"))), format_count(r["frames_trained"]),
                     f"{r.get('time_s', 0) / 60:.1f}"] + cells)
    note = (f'<p class="note">The latest {len(shown)} of {len(evals)} evaluations.</p>'
            if len(shown) < len(evals) else "")
    return ("<h2>Evaluation history</h2>" + note
            + _table(["iteration", "frames", "minutes"] + [f"vs <code>{_e(s)}</code>" for s in specs], rows))


def _summary(records: list[dict], config: dict) -> str:
    iterations = [r for r in records if not r.get("final")] or records
    last = iterations[-1]
    deals = f" ({last['deals']:,} deals)" if last.get("deals") is not None else ""
    played = (f"{last.get('episodes', 0):,} matches{deals}" if plays_matches(config)
              else f"{last.get('episodes', 0):,} deals")
    rows = [["frames trained", f"{last['frames_trained']:,}"], ["iterations", str(len(iterations))],
            ["wall time", f"{records[-1].get('time_s', 0) / 60:.1f} min"], ["played by the env runners", played]]
    if last.get("frames_per_s") is not None:
        rows.append(["frames trained / s (last iteration)", f"{last['frames_per_s']:,.0f}"])
    for key in loss_fields([last]):
        losses = ", ".join(f"{_e(m)} {v:.3f}" for m, v in sorted(last[key].items()))
        rows.append([f"{_e(loss_name(key))} (last iteration)", losses])
    if last.get("driver_rss_mb"):
        rows.append(["driver memory", f"{last['driver_rss_mb']:,.0f} MB"])
    return _table(None, rows, numeric_from=99)


def _checkpoint(run: Path, config: dict) -> str:
    path = run / CHECKPOINT
    if not path.is_dir():
        return '<p class="note">No checkpoint in the run directory (the run has not reached one yet).</p>'
    written = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(path.stat().st_mtime))
    import shlex

    game = config.get("game") or "GAME"
    kind = config.get("agent_kind") or "checkpoint"  # a config.json without it is a DMC run's
    resume = config.get("command") or f"cardrl train {shlex.quote(game)} --out {shlex.quote(str(run))}"
    return (f"<p>Checkpoint: <code>{_e(path)}</code> (written {written}).</p>"
            f"<p>Evaluate it against a baseline, or resume training from it:</p>"
            f"<pre>cardrl eval {_e(game)} --a {_e(shlex.quote(f'{kind}:{path}'))} --b random\n"
            f"{_e(resume)} --restore {_e(shlex.quote(str(path)))}</pre>")


def _config(config: dict) -> str:
    if not config:
        return '<p class="note">The run directory has no config.json (a run of an older cardrl).</p>'
    parts = []
    if config.get("command"):
        parts.append(f"<p>The command (the options that differ from their defaults):</p>"
                     f"<pre>{_e(config['command'])}</pre>")
    if config.get("env_config"):
        parts.append("<p>Environment options:</p>" + _kv_table(config["env_config"]))
    if run_options(config):
        parts.append("<details open><summary>Every option of <code>cardrl train</code>, defaults included</summary>"
                     + _kv_table(run_options(config)) + "</details>")
    settings = config.get(config.get("algo") or "")  # config.json keeps them under the algorithm's name
    if isinstance(settings, dict) and settings:
        parts.append(f"<details><summary>{_e(config['algo'])} settings as the algorithm resolved them</summary>"
                     + _kv_table(settings) + "</details>")
    if config.get("rllib"):
        parts.append("<details><summary>The whole RLlib config</summary><pre>"
                     f"{_e(json.dumps(config['rllib'], indent=1, sort_keys=True))}</pre></details>")
    return "\n".join(parts)


def build_report(run_dir: str | Path) -> str:
    """The HTML page of ``run_dir`` (module docstring); FileNotFoundError / ValueError if it is not a run."""
    run = Path(run_dir).resolve()
    records = read_progress(run)
    config = read_config(run)
    png = base64.b64encode(render_png(run, dpi=100)).decode("ascii")
    title = config.get("title") or config.get("game") or ""
    algo = str(config.get("algo") or "").upper()
    heading = f"{run.name}: {algo + ' on ' if algo else ''}{title}".rstrip(": ")
    generated = time.strftime("%Y-%m-%d %H:%M")
    body = [f"<h1>{_e(heading)}</h1>",
            f'<p class="sub">cardrl training run <code>{_e(run)}</code>; report written {generated}.</p>',
            "<h2>Summary</h2>", _summary(records, config),
            "<h2>Latest evaluation</h2>", _latest_evaluation(records, config), _reached(records, config),
            "<h2>Learning curves</h2>",
            f'<img alt="learning curves of {_e(run.name)}" src="data:image/png;base64,{png}">',
            _history(records),
            "<h2>Checkpoint</h2>", _checkpoint(run, config),
            "<h2>Configuration</h2>", _config(config)]
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{_e(heading)} - cardrl report</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(part for part in body if part) + "\n</body>\n</html>\n")


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the page of ``run_dir`` to ``out`` (default ``<run_dir>/report.html``); returns its path."""
    page = build_report(run_dir)
    path = Path(out) if out else Path(run_dir) / "report.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path


def main_report(args) -> int:
    """``cardrl report``: write the page, or print one error line and return 2."""
    import sys

    from cardrl.run_dir import check_run_dir_args

    try:
        check_run_dir_args(args)
        path = write_report(args.run_dir, args.out)
    except (FileNotFoundError, ValueError) as err:
        print(f"cardrl report: error: {err}", file=sys.stderr)
        return 2
    print(f"report written: {path}")
    return 0
