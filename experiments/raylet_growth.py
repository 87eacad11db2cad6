"""Does Ray's raylet grow with the objects put or with the calls made? (docs/operations.md, "What grew, and why")

The 2-hour DouDiZhu soak on the fixed code left one process above the 1%/h goal: the raylet, +1.2 MB/h. DMC's
driver puts the learner's weights (about 18 MB) in the object store once per update and hands the reference to every
sample request; each request is one actor call whose reply (about 1 MB) comes back through the object store. This
experiment reproduces that traffic with Ray alone (no cardrl, no torch) on a local Ray started as cardrl starts one,
in five modes of the same number of rounds per second, one after the other, each on a fresh Ray:

* ``put``: every round puts a new weights-sized object and makes one call that receives it (DMC's pattern, at a
  higher rate);
* ``reuse``: one object put once, every round makes one call that receives it (the same calls, no puts);
* ``put_only``: every round puts a new object and makes no call;
* ``nested``: as ``put``, but the reference travels inside the call's keyword arguments and the runner fetches it
  itself (``ray.get``), as DMC's sample requests carry it (RLlib's ``foreach_env_runner_async`` kwargs);
* ``varied``: as ``nested``, with replies of random sizes between a third of ``--reply-mb`` and 1.2 times it (DMC's
  replies carry however many frames the runner's games made: 0.37-1.19 MB in DouDiZhu's soak).

It samples the raylet's resident set size every ``--every`` seconds and reports each mode's slope in MB per hour
and in bytes per round (least squares after ``--warmup``)::

    python experiments/raylet_growth.py --minutes 15 --rate 4 --out runs/raylet_growth
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import ray

from cardrl.args import float_in, positive_float
from cardrl.bench.reliability import growth, least_squares

MODES = ("put", "reuse", "put_only", "nested", "varied")


def weights_like(mb: float, seed: int) -> dict[str, dict[str, np.ndarray]]:
    """A module-state-shaped dict of float32 arrays of about ``mb`` MB (three modules, a few layers each)."""
    rng = np.random.default_rng(seed)
    per_array = int(mb * 2**20 / 4 / 12)
    return {f"module_{m}": {f"layer_{k}": rng.standard_normal(per_array, dtype=np.float32) for k in range(4)}
            for m in range(3)}


@ray.remote(num_cpus=1)
class Runner:
    """Receives the weights (resolved from the object store) and replies with a sample-sized dict."""

    def __init__(self, reply_mb: float, varied: bool = False):
        self.reply = {"obs": np.zeros(int(1.2 * reply_mb * 2**20 / 4), dtype=np.float32)}
        self.rng = np.random.default_rng(0) if varied else None

    @ray.method(enable_task_events=False)
    def sample(self, weights) -> dict:
        return self._reply(weights)

    @ray.method(enable_task_events=False)
    def sample_nested(self, kwargs: dict) -> dict:
        return self._reply(ray.get(kwargs["weights"]))

    def _reply(self, weights) -> dict:
        obs = self.reply["obs"]
        n = int(len(obs) / 1.2) if self.rng is None else int(self.rng.integers(len(obs) // 3.6, len(obs)))
        return {"checksum": float(weights["module_0"]["layer_0"][0]), "obs": obs[:n].copy()}


def raylet_rss_mb() -> float:
    """The resident set size of this driver's raylet (the one Ray process named ``raylet`` below this process)."""
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.name() == "raylet":
                return proc.memory_info().rss / 2**20
        except psutil.Error:
            continue
    raise RuntimeError("no raylet process found below this driver")


def run_mode(mode: str, *, minutes: float, rate: float, every_s: float, weights_mb: float, reply_mb: float) -> dict:
    """One mode on a fresh local Ray: rounds at ``rate`` per second for ``minutes``; raylet RSS every ``every_s``."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        runner = Runner.remote(reply_mb, varied=mode == "varied")
        ray.get(runner.sample.remote(weights_like(0.01, 0)))
        state = weights_like(weights_mb, 0)
        fixed = ray.put(state) if mode == "reuse" else None
        samples, rounds, start = [], 0, time.time()
        next_sample = start
        while (now := time.time()) - start < minutes * 60:
            if now >= next_sample:
                samples.append((now - start, raylet_rss_mb(), rounds))
                print(f"[{mode} {now - start:5.0f}s] rounds {rounds:,} raylet {samples[-1][1]:.1f} MB", flush=True)
                next_sample += every_s
            ref = fixed if mode == "reuse" else ray.put(state)  # a new object each time
            if mode in ("nested", "varied"):
                ray.get(runner.sample_nested.remote({"weights": ref}))
            elif mode != "put_only":
                ray.get(runner.sample.remote(ref))
            del ref
            rounds += 1
            time.sleep(max(0.0, start + rounds / rate - time.time()))
        return {"mode": mode, "rounds": rounds, "samples": samples}
    finally:
        ray.shutdown()


def summarise(result: dict, warmup_s: float) -> dict:
    kept = [s for s in result["samples"] if s[0] >= warmup_s]
    row = growth([s[0] for s in kept], [s[1] for s in kept])
    row["bytes_per_round"] = least_squares([s[2] for s in kept], [s[1] for s in kept])[0] * 2**20
    return {"mode": result["mode"], "rounds": result["rounds"], "first_mb": kept[0][1], "last_mb": kept[-1][1],
            **row}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--minutes", type=positive_float, default=15.0, help="minutes per mode (default 15)")
    parser.add_argument("--rate", type=positive_float, default=4.0, help="rounds per second (default 4)")
    parser.add_argument("--every", type=positive_float, default=30.0, help="seconds between samples (default 30)")
    parser.add_argument("--warmup", type=float_in(0.0), default=120.0, help="seconds left out of the slope (default 120)")
    parser.add_argument("--weights-mb", type=positive_float, default=18.0)
    parser.add_argument("--reply-mb", type=positive_float, default=1.0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.minutes * 60 <= args.warmup + 2 * args.every:
        parser.error(f"--minutes {args.minutes:g} leaves fewer than two samples after --warmup {args.warmup:g}s")
    args.out.mkdir(parents=True, exist_ok=True)
    results = [run_mode(m, minutes=args.minutes, rate=args.rate, every_s=args.every, weights_mb=args.weights_mb,
                        reply_mb=args.reply_mb) for m in args.modes]
    rows = [summarise(r, args.warmup) for r in results]
    lines = [f"command: `python {' '.join(sys.argv)}`  ",
             f"date: {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; ray {ray.__version__}", "",
             "| mode | rounds | first MB | last MB | MB/h | %/h | bytes per round |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['mode']} | {r['rounds']:,} | {r['first_mb']:.1f} | {r['last_mb']:.1f} | "
              f"{r['slope_mb_per_h']:+.2f} | {r['pct_per_h']:+.2f} | {r['bytes_per_round']:+,.0f} |" for r in rows]
    (args.out / "raylet_growth.md").write_text("\n".join(lines) + "\n")
    (args.out / "raylet_growth.json").write_text(json.dumps({"args": vars(args) | {"out": str(args.out)},
                                                             "summary": rows, "results": results}, indent=1))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
