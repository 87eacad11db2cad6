"""The run loop's evaluation hook for an algorithm that plays as a :class:`cardrl.agents.base.Agent` (top-k PPO,
RLlib's PPO): duplicate tournaments against each baseline spec on the same seeded deals, sides swapped
(:func:`cardrl.eval.tournament.run_tournament`); GuanDan: single deals, DanZero's points per deal (whole-match win
rates are ``cardrl eval``'s)."""

from __future__ import annotations

from argparse import Namespace
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["AgentEvaluation"]


@dataclass(frozen=True)
class AgentEvaluation:
    """Evaluates ``make_agent(algo, args)`` (:class:`cardrl.algorithms.training.driver.Evaluation`)."""

    make_agent: Callable[[Any, Namespace], Any]

    def baselines(self, config: Any, args: Namespace, specs: list[str]) -> list[str]:
        from cardrl.eval.agents import build_agent

        for spec in specs:  # a bad baseline fails before training
            build_agent(spec, args.game)
        return list(specs)

    def evaluate(self, algo: Any, args: Namespace, baselines: list[str]) -> dict[str, Any]:
        """``{"eval": {spec: {"adp", "adp_low", "adp_high", "wp"}}}``: the mean score (ADP; GuanDan's points per
        deal) with its 95% interval, and the win rate."""
        from cardrl.eval.tournament import run_tournament

        agent, out = self.make_agent(algo, args), {}
        for spec in baselines:
            result = run_tournament(agent, spec, args.eval_deals, game=args.game, seed=args.seed + 1)
            lo, hi = result.adp_interval
            out[spec] = {"adp": result.adp, "adp_low": lo, "adp_high": hi, "wp": result.wp}
        return {"eval": out}

    def line(self, record: dict[str, Any], args: Namespace) -> str:
        return ""

    def report_final(self, algo: Any, final: dict[str, Any], args: Namespace, baselines: list[str]) -> None:
        from cardrl.games.registry import get_game

        score = "points per deal" if get_game(args.game).protocol.unit == "match" else "ADP"
        for spec, ev in final["eval"].items():
            print(f"final {score} vs {spec} over {args.eval_deals} deals: {ev['adp']:+.3f} "
                  f"[{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}], WP {ev['wp']:.3f}", flush=True)
