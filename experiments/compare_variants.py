"""DMC variants side by side on the same seeds and frame budget: ADP against a baseline over frames, the Q loss,
frames/s. Reports what happened; it asserts nothing about which variant wins.

Variants are named presets (``--variants dmc oadmcdou``; see :data:`VARIANTS`) run one after the other on one Ray,
each from the same seed, evaluated every ``--eval-every`` frames on the same seeded deals (``cardrl.eval.lockstep``,
sides swapped). Results go to ``--out``/results.json and a markdown table.

    python experiments/compare_variants.py --game doudizhu --variants dmc oadmcdou --frames 1000000 --baseline rule
    python experiments/compare_variants.py --game big2 --variants dmc om --frames 500000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# name -> (env options, training options)
VARIANTS: dict[str, tuple[dict, dict]] = {
    "dmc": ({}, {}),
    "oadmcdou": ({}, {"oracle": "1:0:{oracle_frames}", "q_clip": "admc"}),
    "oracledou": ({}, {"oracle": "1:0:{oracle_frames}"}),
    "perfectdou": ({}, {"oracle": "1:1:1"}),
    "admcdou": ({}, {"q_clip": "admc"}),
    "coach": ({}, {"coach": True}),
    "om": ({}, {"opponent_model": "luo_tan"}),
    "om_unified": ({"features": "unified"}, {"opponent_model": "luo_tan"}),
    "unified": ({"features": "unified"}, {}),
    "douzero_plus_om": ({}, {"opponent_model": "douzero_plus"}),
    "odmc": ({}, {"prune": "mcs"}),
}


def run_variant(game: str, name: str, frames: int, eval_every: int, deals: int, baseline: str, seed: int,
                oracle_frames: int) -> dict:
    from cardrl.algorithms.dmc.dmc import DMCConfig
    from cardrl.eval.agents import build_agent
    from cardrl.eval.lockstep import evaluate_scorer

    env, training = VARIANTS[name]
    training = {k: (v.format(oracle_frames=oracle_frames) if isinstance(v, str) else v) for k, v in training.items()}
    options = {"match": False} if game == "guandan" else {}
    config = (DMCConfig().game(game, **env, **options).env_runners(num_env_runners=1)
              .training(**training).debugging(seed=seed))
    algo = config.build_algo()
    curve, trained, next_eval, start = [], 0, 0, time.time()
    train_seconds = 0.0
    try:
        while True:
            if trained >= next_eval:
                t = time.time()
                ev = evaluate_scorer(algo.scorer(), lambda slot: build_agent(baseline, game, options, seed=7), game,
                                     deals=deals, seed=seed + 1000, options=options, features=env.get("features"))
                curve.append({"frames": trained, "adp": ev["adp"], "adp_low": ev["adp_low"], "adp_high": ev["adp_high"],
                              "minutes": round((time.time() - start) / 60, 1)})
                print(json.dumps({"variant": name, **curve[-1]}), flush=True)
                next_eval += eval_every
                start += time.time() - t  # evaluation time is not training time
            if trained >= frames:
                break
            t = time.time()
            result = algo.train()
            train_seconds += time.time() - t
            trained = int(result["frames_trained"])
            losses = {m: float(s["q_loss"]) for m, s in result["learners"].items()
                      if isinstance(s, dict) and "q_loss" in s and float(s["q_loss"]) == float(s["q_loss"])}
            if losses:
                curve[-1].setdefault("losses", []).append((trained, losses))
    finally:
        algo.stop()
    return {"variant": name, "game": game, "seed": seed, "frames": trained, "frames_per_s": trained / train_seconds,
            "curve": curve}


def table(results: list[dict], baseline: str) -> str:
    frames = sorted({p["frames"] for r in results for p in r["curve"]})
    rows = [f"ADP against {baseline} (95% interval) by frames trained; frames/s of training alone", "",
            "| frames | " + " | ".join(r["variant"] for r in results) + " |",
            "|---:|" + "---|" * len(results)]
    for f in frames:
        cells = []
        for r in results:
            p = next((p for p in r["curve"] if p["frames"] == f), None)
            cells.append("-" if p is None else f"{p['adp']:+.2f} [{p['adp_low']:+.2f}, {p['adp_high']:+.2f}]")
        rows.append(f"| {f:,} | " + " | ".join(cells) + " |")
    rows.append("| frames/s | " + " | ".join(f"{r['frames_per_s']:,.0f}" for r in results) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="doudizhu")
    parser.add_argument("--variants", nargs="+", default=["dmc", "oadmcdou"], choices=sorted(VARIANTS))
    parser.add_argument("--frames", type=int, default=1_000_000)
    parser.add_argument("--eval-every", type=int, default=250_000)
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--baseline", default="rule")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--oracle-frames", type=int, default=None,
                        help="oracle schedules' length (default: two thirds of --frames, as OADMCDou's 20 of 30 days)")
    parser.add_argument("--out", default="runs/compare_variants")
    args = parser.parse_args(argv)
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    oracle_frames = args.oracle_frames or (2 * args.frames) // 3
    results = [run_variant(args.game, v, args.frames, args.eval_every, args.deals, args.baseline, args.seed,
                           oracle_frames) for v in args.variants]
    out = Path(args.out) / args.game
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results))
    text = table(results, args.baseline)
    (out / "table.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
