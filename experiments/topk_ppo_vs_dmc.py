"""Top-k PPO against the DMC it starts from, on GuanDan (DanZero+, Zhao, Lu, Zhao, Zhou, Li 2024, Sec. V-D, Fig. 8 and
Table III): a short DMC run, a short top-k PPO run over that DMC's checkpoint, then both against the rule agent in
whole matches (two model seats against two rule-agent seats, teams swapped: Table III's protocol) and PPO against its
DMC, each with its match win rate and 95% intervals. Nothing is asserted about which side wins: short CPU runs say
little about the paper's claim (55.13 % for PPO(2) against DanZero after a month of DMC training).

It also prints top-k PPO's throughput on this machine: frames (decisions) per second of the whole loop and of the
runners alone, and the share of the runners' time spent scoring candidates with the frozen DMC network.

    python experiments/topk_ppo_vs_dmc.py --dmc-minutes 60 --ppo-minutes 60 --matches 200 --num-env-runners 1
    python experiments/topk_ppo_vs_dmc.py --dmc-checkpoint runs/danzero_guandan/checkpoint --ppo-minutes 60
    python experiments/topk_ppo_vs_dmc.py --tiny      # a quick check that every step runs (tiny networks)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

GAME = "guandan"


def _run(algo, frames_key: str, frames: int | None, minutes: float | None) -> dict:
    """Train until ``frames`` (the result's ``frames_key``) or ``minutes``; the last result."""
    start = time.time()
    while True:
        result = algo.train()
        done_frames = int(result.get(frames_key, 0))
        if (frames is not None and done_frames >= frames) or (minutes is not None and
                                                              time.time() - start >= 60 * minutes):
            return result


def train_dmc(args, out: Path) -> str:
    from cardrl.algorithms.dmc.dmc import DMCConfig

    config = (DMCConfig().game(GAME).env_runners(num_env_runners=args.num_env_runners,
                                                   num_envs_per_env_runner=8 if args.tiny else 64)
              .debugging(seed=args.seed))
    if args.tiny:
        config.training(frames_per_update=256, hidden_sizes=[32])
    algo = config.build_algo()
    try:
        result = _run(algo, "frames_trained", args.dmc_frames, args.dmc_minutes)
        path = algo.save_to_path(str(out / "dmc"))
        print(f"DMC: {int(result['frames_trained']):,} frames trained, checkpoint {path}", flush=True)
        return path
    finally:
        algo.stop()


def train_topk_ppo(args, dmc_path: str, out: Path) -> tuple[str, dict]:
    from cardrl.algorithms.topk_ppo.topk_ppo import TopKPPOConfig

    config = (TopKPPOConfig().game(GAME)
              .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=8 if args.tiny else 32)
              .training(dmc_checkpoint=dmc_path, k=args.k)
              .debugging(seed=args.seed))
    if args.tiny:
        config.training(train_batch_size=256, hidden_sizes=(32, 16), head_hidden=16, num_epochs=4)
    algo = config.build_algo()
    try:
        result = _run(algo, "frames_sampled", args.ppo_frames, args.ppo_minutes)
        path = algo.save_to_path(str(out / "topk_ppo"))
        throughput = {key: float(result[key]) for key in ("frames_sampled", "frames_per_s", "sampling_frames_per_s",
                                                          "candidate_scoring_share", "policy_forward_share")}
        print(f"top-k PPO (k={args.k}): {int(throughput['frames_sampled']):,} frames, checkpoint {path}", flush=True)
        return path, throughput
    finally:
        algo.stop()


def evaluate(args, dmc_path: str, ppo_path: str) -> dict:
    from cardrl.eval.agents import build_agent
    from cardrl.eval.matches import run_matches

    dmc = build_agent(f"checkpoint:{dmc_path}", GAME)
    ppo = build_agent(f"topk-ppo:{ppo_path}", GAME, seed=args.seed)  # samples, as DanZero+ evaluates
    baseline = build_agent(args.baseline, GAME, seed=args.seed)
    dmc.name, ppo.name = "DMC", f"PPO({args.k})"
    out = {}
    for a, b in ((ppo, baseline), (dmc, baseline), (ppo, dmc)):
        result = run_matches(a, b, args.matches, args.seed + 1, GAME, max_deals=args.max_deals,
                             num_workers=args.workers)
        print("\n" + result.table() + "\n", flush=True)
        out[f"{a.name} vs {b.name}"] = result.to_dict()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dmc-checkpoint", default=None, help="start from this GuanDan DMC checkpoint (no DMC run)")
    parser.add_argument("--dmc-frames", type=int, default=None, help="frames of the DMC run")
    parser.add_argument("--dmc-minutes", type=float, default=None, help="minutes of the DMC run (default: 30)")
    parser.add_argument("--ppo-frames", type=int, default=None, help="frames (decisions) of the top-k PPO run")
    parser.add_argument("--ppo-minutes", type=float, default=None, help="minutes of the top-k PPO run (default: 30)")
    parser.add_argument("--k", type=int, default=2, help="candidates (DanZero+ Table V: 2)")
    parser.add_argument("--matches", type=int, default=100, help="seeded matches per pair, each with teams swapped")
    parser.add_argument("--max-deals", type=int, default=None, help="cut every match after this many deals")
    parser.add_argument("--baseline", default="rule", help="the baseline agent spec (default: rule)")
    parser.add_argument("--num-env-runners", type=int, default=1)
    parser.add_argument("--workers", type=int, default=0, help="Ray tasks for the evaluation (0: in this process)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/topk_ppo_vs_dmc")
    parser.add_argument("--tiny", action="store_true", help="tiny networks and runs: check that every step works")
    args = parser.parse_args(argv)
    if args.tiny:
        args.dmc_frames = args.dmc_frames or 512
        args.ppo_frames = args.ppo_frames or 256
        args.matches = min(args.matches, 2)
        args.max_deals = args.max_deals or 2
    if args.dmc_frames is None and args.dmc_minutes is None:
        args.dmc_minutes = 30.0
    if args.ppo_frames is None and args.ppo_minutes is None:
        args.ppo_minutes = 30.0

    from cardrl.ray_start import start_ray

    start_ray(max(2, args.num_env_runners + 1))
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    dmc_path = args.dmc_checkpoint or train_dmc(args, out)
    ppo_path, throughput = train_topk_ppo(args, dmc_path, out)
    print(f"top-k PPO throughput: {throughput['frames_per_s']:,.1f} frames/s over the whole loop, "
          f"{throughput['sampling_frames_per_s']:,.1f} frames/s on the runners; candidate scoring "
          f"{100 * throughput['candidate_scoring_share']:.1f} % and the policy's forward pass "
          f"{100 * throughput['policy_forward_share']:.1f} % of the runners' time", flush=True)
    summary = {"dmc_checkpoint": dmc_path, "topk_ppo_checkpoint": ppo_path, "k": args.k, "throughput": throughput,
               "evaluation": evaluate(args, dmc_path, ppo_path)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=float))
    print(f"summary written to {out / 'summary.json'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
