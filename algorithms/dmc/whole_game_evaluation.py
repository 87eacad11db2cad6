"""How ``cardrl train --bidding`` evaluates a DMC run on the whole game of DouDiZhu while it trains (AlphaDou,
"AlphaDou: High-Performance End-to-End Doudizhu AI Integrating Bidding", 2024, Sec. 3; docs/bidding.md "Evaluation
while training").

The headline (``eval`` in the progress records) is the whole game: the current greedy networks, bidding networks
included, play whole-game duplicate tournaments (:func:`cardrl.eval.whole_game.run_whole_game`: 6 games a deal, each
side alone in every seat, the bids' multipliers in the ADP) against each baseline; a baseline that does not bid plays
with the rule bidder (``SPEC+bidder=rule``, ``played_as`` in the record). Beside ADP and WP with their 95% intervals
each result carries the bidding statistics of the trained agent: landlord rate (1/3 is an even share), win rate and
ADP as landlord and as peasant, mean winning bid, redeal rate, and the baseline's landlord rate and ADP as landlord.

The fixed-landlord evaluation stays beside it (``eval_fixed_landlord``): the card-play networks alone on DouZero's
deals (landlord seat 0, bid 1, the bid block of such a deal), sides swapped, what every fixed-landlord run reports,
so that a bidding run's card play can be compared with theirs. The oracle and unpruned variants
(:mod:`cardrl.algorithms.dmc.train_evaluation`) are played on those fixed-landlord deals and labelled so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["WholeGameBaselines", "whole_game_baselines", "whole_game_evaluations", "whole_game_fields",
           "whole_game_text", "report_whole_game", "FIXED_LANDLORD"]

FIXED_LANDLORD = "eval_fixed_landlord"
FIXED_LANDLORD_LABEL = "card play on fixed-landlord deals (landlord seat 0, bid 1)"


@dataclass(frozen=True)
class WholeGameBaselines:
    """``whole``: each baseline spec as given -> the spec it plays the whole game as; ``fixed``: the fixed-landlord
    evaluation's ``spec -> make(slot)`` (:func:`~cardrl.algorithms.dmc.train_evaluation.evaluation_baselines`)."""

    whole: dict[str, str]
    fixed: dict[str, Any]


def _rule_options(config) -> dict:
    spec = config.game_spec
    return {k: v for k, v in (config.env_config or {}).items() if k in spec.rule_options}


def whole_game_baselines(config, specs: list[str], run_spec: RunSpec, fixed: dict[str, Any]) -> WholeGameBaselines:
    """Each baseline as it plays the whole game (its own bids, else the rule bidder's), built now so that a bad spec
    fails before training; ``fixed`` is the fixed-landlord evaluation's ``spec -> make(slot)``."""
    from cardrl.eval.agents import BIDDER_SEP, build_agent

    options = {**_rule_options(config), config.game_spec.protocol.bidding_option: True}
    whole = {}
    for spec in specs:
        bids = build_agent(spec, run_spec.game, options, seed=run_spec.run.seed + 7).bids
        whole[spec] = spec if bids else f"{spec}{BIDDER_SEP}rule"
    return WholeGameBaselines(whole, fixed)


def _finite(x: float) -> float | None:
    """JSON-safe: None for NaN (a rate with nothing to count, e.g. no landlord games)."""
    return None if x is None or math.isnan(x) else float(x)


def whole_game_fields(result, played_as: str) -> dict[str, Any]:
    """A progress record's result against one baseline, from a :class:`~cardrl.eval.whole_game.WholeGameResult`
    whose side A is the trained agent."""
    t = result.tournament
    lo, hi = t.adp_interval
    wlo, whi = t.wp_interval
    pair = t.pair_scores
    mine, theirs = result.stats(0), result.stats(1)
    return {"adp": t.adp, "adp_low": lo, "adp_high": hi, "deals": t.deals,
            "adp_sd": float(pair.std(ddof=1)) if t.deals > 1 else 0.0, "wp": t.wp, "wp_low": wlo, "wp_high": whi,
            "played_as": played_as, "landlord_rate": _finite(mine.landlord_rate),
            "landlord_games": mine.landlord_games, "landlord_win_rate": _finite(mine.landlord_win_rate),
            "landlord_adp": _finite(mine.landlord_adp), "mean_bid": _finite(mine.mean_bid),
            "peasant_win_rate": _finite(mine.peasant_win_rate), "peasant_adp": _finite(mine.peasant_adp),
            "redeal_rate": _finite(mine.redeal_rate),
            "baseline": {"landlord_rate": _finite(theirs.landlord_rate),
                         "landlord_win_rate": _finite(theirs.landlord_win_rate),
                         "landlord_adp": _finite(theirs.landlord_adp), "peasant_adp": _finite(theirs.peasant_adp)}}


def whole_game_evaluations(algo, baselines: WholeGameBaselines, run_spec: RunSpec, fixed: dict) -> dict:
    """The progress record's evaluation fields of a whole-game run (module docstring): ``eval`` (whole game),
    ``eval_fixed_landlord``, and the fixed-landlord deals' oracle and unpruned variants where the run has them;
    ``fixed`` holds the fixed-landlord evaluation's fields (:func:`~cardrl.algorithms.dmc.train_evaluation.evaluations`
    over ``baselines.fixed``)."""
    from cardrl.agents.q_agent import QAgent
    from cardrl.eval.deals import generate_deals
    from cardrl.eval.whole_game import run_whole_game

    spec = algo.config.game_spec
    options = _rule_options(algo.config)
    play = algo.play_options()  # as trained: its pruning (card play only), a zero oracle block (deployable)
    agent = QAgent(algo.q_modules(), spec.name, name="dmc", bid_modules=algo.bid_modules(),
                   move_filter=play.view_pruner(spec.name, options) if play.pruned else None)
    deals = generate_deals(spec.name, run_spec.run.eval_deals, run_spec.run.seed + 1,
                           **{**options, spec.protocol.bidding_option: True})
    out: dict = {"eval": {name: whole_game_fields(run_whole_game(agent, played, deals, spec.name), played)
                          for name, played in baselines.whole.items()},
                 FIXED_LANDLORD: {"label": FIXED_LANDLORD_LABEL, "results": fixed["eval"]}}
    if "eval_label" in fixed:
        out["eval_label"] = fixed["eval_label"]
    for key, variant in fixed.items():  # eval_oracle, eval_unpruned
        if key not in ("eval", "eval_label"):
            out[key] = {**variant, "label": f"{variant['label']}; fixed-landlord deals"}
    return out


def _rate(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _signed(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def whole_game_text(record: dict) -> str:
    """The progress line's whole-game part: per baseline the landlord rate, ADP as landlord / peasant, redeal rate;
    then the fixed-landlord scores."""
    text = ""
    for spec, ev in record["eval"].items():
        text += (f" | vs {spec}: landlord rate {_rate(ev['landlord_rate'])} (theirs "
                 f"{_rate(ev['baseline']['landlord_rate'])}), ADP as landlord {_signed(ev['landlord_adp'])} / as "
                 f"peasant {_signed(ev['peasant_adp'])}, redeals {100 * (ev['redeal_rate'] or 0.0):.0f}%")
    for spec, ev in record.get(FIXED_LANDLORD, {}).get("results", {}).items():
        text += f" | fixed landlord: ADP vs {spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, {ev['adp_high']:+.2f}]"
    return text


def report_whole_game(final: dict, run_spec: RunSpec) -> None:
    """Print the final whole-game evaluation, one line per baseline, then the fixed-landlord scores."""
    for spec, ev in final["eval"].items():
        print(f"final whole-game ADP vs {ev['played_as']} over {run_spec.run.eval_deals} deals x 6 arrangements: "
              f"{ev['adp']:+.3f} [{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}], WP {ev['wp']:.3f}; landlord rate "
              f"{_rate(ev['landlord_rate'])} (theirs {_rate(ev['baseline']['landlord_rate'])}), as landlord WP "
              f"{_rate(ev['landlord_win_rate'])} ADP {_signed(ev['landlord_adp'])}, as peasant WP "
              f"{_rate(ev['peasant_win_rate'])} ADP {_signed(ev['peasant_adp'])}, mean bid "
              f"{_rate(ev['mean_bid'])}, redeal rate {_rate(ev['redeal_rate'])}"
              + (f" ({final['eval_label']})" if final.get("eval_label") else ""), flush=True)
    for spec, ev in final[FIXED_LANDLORD]["results"].items():
        print(f"final ADP vs {spec}, {final[FIXED_LANDLORD]['label']}: {ev['adp']:+.3f} [{ev['adp_low']:+.3f}, "
              f"{ev['adp_high']:+.3f}]", flush=True)
