"""The run loop's evaluation hook for an algorithm that plays as a :class:`cardrl.agents.base.Agent` (top-k PPO,
RLlib's PPO): duplicate tournaments against each baseline spec on the same seeded deals, sides swapped
(:func:`cardrl.eval.tournament.run_tournament`); GuanDan: single deals, DanZero's points per deal (whole-match win
rates are ``cardrl eval``'s)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["AgentEvaluation", "evaluation_deals"]


def evaluation_deals(algo: Any, run_spec: RunSpec):
    """The deals of a run's evaluations: :func:`cardrl.eval.lockstep.evaluate_scorer`'s for ``--seed`` + 1 (a DMC
    run's evaluations), under the rule options of the algorithm's env config."""
    from cardrl.eval.deals import deals_from_seeds
    from cardrl.eval.lockstep import evaluation_deal_seeds
    from cardrl.games.registry import get_game

    spec = get_game(run_spec.game)  # per deal, as evaluate_scorer: the options of a whole match left out
    options = {k: v for k, v in dict(algo.config.env_config or {}).items()
               if k in spec.rule_options and k not in spec.protocol.deal_options}
    run = run_spec.run
    return deals_from_seeds(run_spec.game, evaluation_deal_seeds(run.seed + 1, run.eval_deals), run.seed + 1,
                            **options)


@dataclass(frozen=True)
class AgentEvaluation:
    """Evaluates ``make_agent(algo, run_spec)`` (:class:`cardrl.algorithms.training.driver.Evaluation`)."""

    make_agent: Callable[[Any, RunSpec], Any]

    def baselines(self, config: Any, run_spec: RunSpec, specs: list[str]) -> list[str]:
        from cardrl.eval.agents import build_agent

        for spec in specs:  # a bad baseline fails before training
            build_agent(spec, run_spec.game)
        return list(specs)

    def evaluate(self, algo: Any, run_spec: RunSpec, baselines: list[str]) -> dict[str, Any]:
        """``{"eval": {spec: {"adp", "adp_low", "adp_high", "deals", "adp_sd", "wp"}}}``: the mean score (ADP;
        GuanDan's points per deal) with its 95% interval, the deals and the per-deal standard deviation (to pool
        runs, as ``cardrl bench learning`` does), and the win rate; on the deals a DMC run with the same ``--seed``
        and rule options evaluates on."""
        from cardrl.eval.tournament import run_tournament

        agent, deals, out = self.make_agent(algo, run_spec), evaluation_deals(algo, run_spec), {}
        for spec in baselines:
            result = run_tournament(agent, spec, deals, game=run_spec.game)
            lo, hi = result.adp_interval
            sd = float(result.pair_scores.std(ddof=1)) if result.deals > 1 else 0.0
            out[spec] = {"adp": result.adp, "adp_low": lo, "adp_high": hi, "deals": result.deals, "adp_sd": sd,
                         "wp": result.wp}
        return {"eval": out}

    def line(self, record: dict[str, Any], run_spec: RunSpec) -> str:
        return ""

    def report_final(self, algo: Any, final: dict[str, Any], run_spec: RunSpec, baselines: list[str]) -> None:
        from cardrl.games.registry import get_game

        protocol = get_game(run_spec.game).protocol  # worded as DMC's final evaluation (the same deals, sides swapped)
        score = "points per deal" if protocol.unit == "match" else "ADP"
        for spec, ev in final["eval"].items():
            print(f"final {score} vs {spec} over {run_spec.run.eval_deals} deals x {protocol.arrangements_text}: "
                  f"{ev['adp']:+.3f} [{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}], WP {ev['wp']:.3f}", flush=True)
