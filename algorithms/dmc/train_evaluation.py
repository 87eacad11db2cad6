"""How ``cardrl train --algo dmc`` and a ``cardrl tune`` trial evaluate DMC's greedy networks: the run loop's
evaluation hook (:class:`DMCEvaluation`).

An agent is evaluated the way it plays (:mod:`cardrl.algorithms.dmc.play_options`): an ODMC agent (``--prune mcs``)
with its pruning (``--eval-unpruned`` adds the unpruned score, labelled, with how often it picks a move pruning drops);
an oracle-guided agent (``--oracle``) is scored with a zero oracle block, the deployable score that stays the headline
(``eval`` in the records), and, while the schedule's lambda is above 0, also with the block it is trained on, lambda x
the true hands (``eval_oracle``: OADMCDou's Fig. 4 curves). ``eval_label`` says what the headline fed.

Results are named as the game's evaluation protocol names them (docs/architecture.md): a game whose episode is a
deal reports ADP over deals; a game whose episode is a match (``EvalProtocol.unit == "match"``: GuanDan) reports
points per deal on single deals (DanZero's deal points) and its final evaluation adds whole matches with the teams
swapped, one seeded match per ten evaluation deals, for the match win rate (DanZero, Lu et al. 2023, Sec. V-B;
:mod:`cardrl.eval.matches`).

A ``--bidding`` run (AlphaDou, "AlphaDou: High-Performance End-to-End Doudizhu AI Integrating Bidding", 2024, Sec. 3;
docs/bidding.md, "Evaluation while training") is evaluated on the whole game of DouDiZhu: the headline (``eval``) is
the current greedy networks, bidding networks included, in whole-game duplicate tournaments
(:func:`cardrl.eval.whole_game.run_whole_game`: 6 games a deal, each side alone in every seat, the bids' multipliers
in the ADP) against each baseline; a baseline that does not bid plays with the rule bidder (``SPEC+bidder=rule``,
``played_as`` in the record). Beside ADP and WP with their 95% intervals each result carries the bidding statistics
of the trained agent: landlord rate (1/3 is an even share), win rate and ADP as landlord and as peasant, mean winning
bid, redeal rate, and the baseline's landlord rate and ADP as landlord. The fixed-landlord evaluation stays beside it
(``eval_fixed_landlord``): the card-play networks alone on DouZero's deals (landlord seat 0, bid 1, the bid block of
such a deal), sides swapped, what every fixed-landlord run reports, so that a bidding run's card play can be compared
with theirs; the oracle and unpruned variants are played on those deals and labelled so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["DMCEvaluation", "evaluation_baselines", "evaluations", "EVAL_VARIANTS", "final_match_count",
           "WholeGameBaselines", "whole_game_baselines", "whole_game_evaluations", "whole_game_fields",
           "whole_game_text", "report_whole_game", "FIXED_LANDLORD"]


def evaluation_baselines(config, specs, run_spec: RunSpec) -> dict:
    """``spec -> make(slot)`` of each baseline agent spec, under the config's game rules (checked now)."""
    spec = config.game_spec
    options = spec.full_options({k: v for k, v in (config.env_config or {}).items() if k in spec.rule_options})
    return {s: _baseline_factory(s, run_spec.game, options, run_spec.run.seed + 7) for s in specs}


def _baseline_factory(spec: str, game: str, options: dict, seed: int):
    """``make(slot) -> Agent`` for the batched evaluation (one agent per game in flight); the spec is checked now."""
    from cardrl.eval.agents import build_agent

    build_agent(spec, game, options, seed=seed)  # a bad spec fails before training starts
    return lambda slot: build_agent(spec, game, options, seed=seed)


# the evaluations beside the headline (record["eval"]), each {"label", "results": {baseline: ev}, ...}
EVAL_VARIANTS = ("eval_oracle", "eval_unpruned")


def _evaluate(algo, baselines: dict, run_spec: RunSpec, *, trained_block: bool = False, pruned: bool | None = None,
              count_outside: bool = False, play=None, score=None, count_passes: bool = False) -> dict[str, dict]:
    """The current greedy networks against each baseline on the same seeded deals, sides swapped (GuanDan: single
    deals, DanZero's deal points; whole-match win rates are cardrl.eval.matches' job). They play as trained
    (:meth:`DMC.play_options`): with the run's pruning unless ``pruned=False``, fed a zero oracle block (deployable)
    unless ``trained_block`` (lambda x the true hands); ``count_outside`` adds ``outside_kept`` (how often the
    greedy move lies outside the kept set of the run's pruning); ``count_passes`` adds ``passes`` (per side, how
    often the greedy networks passed where passing was legal). ``play`` and ``score``, when given, are
    ``algo.play_options()`` and ``algo.scorer()`` already taken (one copy of the networks per evaluation round)."""
    from cardrl.eval.lockstep import ScorerHooks, evaluate_scorer

    play = play or algo.play_options()
    if trained_block:
        play.check_trained_block("the trained-block evaluation")
    score = score or algo.scorer()
    env_config = dict(algo.config.env_config or {})
    options = {k: v for k, v in env_config.items() if k in algo.config.game_spec.rule_options}
    prune = play.pruned if pruned is None else pruned
    blocks = play.engine_blocks() if trained_block else None
    if algo.config.bidding:  # a whole-game run's card play on fixed-landlord deals reads their bid block
        blocks = _with_bid_block(blocks)
    hooks = ScorerHooks(move_filter=play.engine_pruner() if prune else None, input_blocks=blocks,
                        count_outside=play.engine_pruner() if count_outside else None, count_passes=count_passes)
    run = run_spec.run
    return {spec: evaluate_scorer(score, make, run_spec.game, deals=run.eval_deals, seed=run.seed + 1, options=options,
                                  features=env_config.get("features"), hooks=hooks)
            for spec, make in baselines.items()}


def _with_bid_block(blocks):
    """``blocks(engine, seat)`` plus the bid block of the deal (a fixed landlord: no bids, bid 1; docs/bidding.md)."""
    from cardrl.features.bidding import BID_BLOCK, bid_block_of_game

    def with_bid(engine, seat: int) -> dict:
        return {**(blocks(engine, seat) if blocks is not None else {}), BID_BLOCK: bid_block_of_game(engine)}

    return with_bid


def evaluations(algo, baselines: dict, run_spec: RunSpec) -> dict:
    """The progress record's evaluation fields: ``eval`` (the headline: as the agent plays deployed, with its
    pruning and a zero oracle block) and ``eval_label`` (what it fed); ``eval_oracle`` with the trained oracle block
    where lambda > 0 now; ``eval_unpruned`` (with ``--eval-unpruned``) without the pruning, with ``outside_kept``."""
    play, score = algo.play_options(), algo.scorer()
    out: dict = {"eval": _evaluate(algo, baselines, run_spec, play=play, score=score, count_passes=True)}
    if play.oracle is not None or play.pruned:
        out["eval_label"] = play.label()
    if play.has_trained_block:
        out["eval_oracle"] = {"label": play.label(trained_block=True), "oracle_lambda": play.trained_lambda,
                              "oracle_mode": play.oracle_mode,
                              "results": _evaluate(algo, baselines, run_spec, trained_block=True, play=play,
                                                   score=score)}
    if run_spec.run.eval_unpruned and play.pruned:
        results = _evaluate(algo, baselines, run_spec, pruned=False, count_outside=True, play=play, score=score)
        counts = [ev.pop("outside_kept") for ev in results.values()]
        decisions, outside = sum(c["decisions"] for c in counts), sum(c["outside"] for c in counts)
        out["eval_unpruned"] = {"label": play.label(pruned=False), "results": results,
                                "outside_kept": {"decisions": decisions, "outside": outside,
                                                 "rate": outside / decisions if decisions else 0.0}}
    return out


def _variant_text(record: dict, score_name: str) -> str:
    """The progress line's part for the evaluations beside the headline."""
    text = ""
    if "eval_oracle" in record:
        for spec, ev in record["eval_oracle"]["results"].items():
            text += (f" | trained oracle block (lambda {record['eval_oracle']['oracle_lambda']:.3f}): {score_name} vs "
                     f"{spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, {ev['adp_high']:+.2f}]")
    if "eval_unpruned" in record:
        for spec, ev in record["eval_unpruned"]["results"].items():
            text += (f" | unpruned: {score_name} vs {spec} {ev['adp']:+.2f} [{ev['adp_low']:+.2f}, "
                     f"{ev['adp_high']:+.2f}]")
        text += f" ({100 * record['eval_unpruned']['outside_kept']['rate']:.1f}% of its moves outside the kept set)"
    return text


def final_match_count(run_spec: RunSpec) -> int:
    """Whole matches the final evaluation plays against each baseline: ``--final-matches``, else one per ten
    evaluation deals."""
    given = run_spec.run.final_matches
    return max(1, run_spec.run.eval_deals // 10) if given is None else given


def _evaluate_matches(algo, baselines: dict, run_spec: RunSpec) -> dict[str, dict]:
    """Whole seeded matches of the current greedy networks against each baseline, teams swapped,
    :func:`final_match_count` of them (:func:`cardrl.eval.matches.run_matches`: match win rate, points per deal, deals
    per match)."""
    from cardrl.agents.q_agent import QAgent
    from cardrl.eval.matches import run_matches

    spec = algo.config.game_spec
    env_config = dict(algo.config.env_config or {})
    options = {k: v for k, v in env_config.items() if k in spec.rule_options and k not in spec.protocol.deal_options
               and k != "max_deals" and k not in spec.protocol.training_options}
    play = algo.play_options()  # as trained: its pruning, a zero oracle block (deployable)
    agent = QAgent(algo.q_modules(), spec.name, features=env_config.get("features"),
                   move_filter=play.view_pruner(spec.name, options) if play.pruned else None)
    matches = final_match_count(run_spec)
    return {name: run_matches(agent, make(0), matches, run_spec.run.seed + 1, spec.name, options=options).to_dict()
            for name, make in baselines.items()}


# ---- the whole game (a --bidding run) --------------------------------------------------------------------------------
FIXED_LANDLORD = "eval_fixed_landlord"
FIXED_LANDLORD_LABEL = "card play on fixed-landlord deals (landlord seat 0, bid 1)"


@dataclass(frozen=True)
class WholeGameBaselines:
    """``whole``: each baseline spec as given -> the spec it plays the whole game as; ``fixed``: the fixed-landlord
    evaluation's ``spec -> make(slot)`` (:func:`evaluation_baselines`)."""

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
    ``fixed`` holds the fixed-landlord evaluation's fields (:func:`evaluations` over ``baselines.fixed``)."""
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

class DMCEvaluation:
    """The run loop's evaluation hook for DMC (:class:`cardrl.algorithms.training.driver.Evaluation`)."""

    def baselines(self, config: Any, run_spec: RunSpec, specs: list[str]) -> Any:
        if config.bidding:  # the whole game
            return whole_game_baselines(config, specs, run_spec, evaluation_baselines(config, specs, run_spec))
        return evaluation_baselines(config, specs, run_spec)

    def evaluate(self, algo: Any, run_spec: RunSpec, baselines: Any) -> dict:
        if algo.config.bidding:
            return whole_game_evaluations(algo, baselines, run_spec, evaluations(algo, baselines.fixed, run_spec))
        return evaluations(algo, baselines, run_spec)

    def line(self, record: dict, run_spec: RunSpec) -> str:
        from cardrl.games.registry import get_game

        whole = whole_game_text(record) if FIXED_LANDLORD in record else ""
        return whole + _variant_text(record, get_game(run_spec.game).protocol.score_name)

    def report_final(self, algo: Any, final: dict, run_spec: RunSpec, baselines: Any) -> None:
        """Print the final evaluation (headline, the evaluations beside it); a match game adds whole matches."""
        by_match = algo.config.game_spec.protocol.unit == "match"
        score = "points per deal" if by_match else "ADP"
        if algo.config.bidding:
            report_whole_game(final, run_spec)
        for spec, ev in ({} if algo.config.bidding else final["eval"]).items():
            sides = {k: v for k, v in ev.items() if k not in _score_fields()}
            parts = ", ".join(f"as {k} {v:+.3f}" for k, v in sides.items())
            arrangements = algo.config.game_spec.protocol.arrangements_text
            print(f"final {score} vs {spec} over {run_spec.run.eval_deals} deals x {arrangements}: {ev['adp']:+.3f} "
                  f"[{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}]; {parts}"
                  + (f" ({final['eval_label']})" if final.get("eval_label") else ""), flush=True)
        for key in EVAL_VARIANTS:
            for spec, ev in (final[key]["results"].items() if key in final else ()):
                print(f"final {score} vs {spec}, {final[key]['label']}: {ev['adp']:+.3f} [{ev['adp_low']:+.3f}, "
                      f"{ev['adp_high']:+.3f}]", flush=True)
        if "eval_unpruned" in final:
            o = final["eval_unpruned"]["outside_kept"]
            print(f"unpruned greedy play chose a move pruning drops in {o['outside']:,} of {o['decisions']:,} "
                  f"decisions "
                  f"({100 * o['rate']:.1f}%)", flush=True)
        if by_match and final_match_count(run_spec) > 0:
            final["matches"] = _evaluate_matches(algo, baselines, run_spec)
            for spec, m in final["matches"].items():
                print(f"final match win rate vs {spec} over {m['matches']} match{'es' if m['matches'] != 1 else ''} "
                      f"x 2 (teams swapped): {m['win_rate']:.3f} [{m['win_rate_low']:.3f}, {m['win_rate_high']:.3f}]; "
                      f"points per deal {m['points_per_deal']:+.3f}, {m['deals_per_match']:.1f} deals per match",
                      flush=True)


def _score_fields() -> tuple[str, ...]:
    from cardrl.eval.lockstep import SCORE_FIELDS

    return SCORE_FIELDS
