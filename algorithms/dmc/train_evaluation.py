"""How ``cardrl train --algo dmc`` and a ``cardrl tune`` trial evaluate DMC's greedy networks: the run loop's
evaluation hook (:class:`DMCEvaluation`).

An agent is evaluated the way it plays (:mod:`cardrl.algorithms.dmc.evaluation`): an ODMC agent (``--prune mcs``)
with its pruning (``--eval-unpruned`` adds the unpruned score, labelled, with how often it picks a move pruning drops);
an oracle-guided agent (``--oracle``) is scored with a zero oracle block, the deployable score that stays the headline
(``eval`` in the records), and, while the schedule's lambda is above 0, also with the block it is trained on, lambda x
the true hands (``eval_oracle``: OADMCDou's Fig. 4 curves). ``eval_label`` says what the headline fed.

Results are named as the game's evaluation protocol names them (docs/architecture.md): a game whose episode is a
deal reports ADP over deals; a game whose episode is a match (``EvalProtocol.unit == "match"``: GuanDan) reports
points per deal on single deals (DanZero's deal points) and its final evaluation adds whole matches with the teams
swapped, one seeded match per ten evaluation deals, for the match win rate (DanZero, Lu et al. 2023, Sec. V-B;
:mod:`cardrl.eval.matches`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["DMCEvaluation", "evaluation_baselines", "evaluations", "EVAL_VARIANTS"]


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


class DMCEvaluation:
    """The run loop's evaluation hook for DMC (:class:`cardrl.algorithms.training.driver.Evaluation`)."""

    def baselines(self, config: Any, run_spec: RunSpec, specs: list[str]) -> Any:
        if config.bidding:  # the whole game (algorithms/dmc/whole_game_evaluation.py)
            from cardrl.algorithms.dmc.whole_game_evaluation import whole_game_baselines

            return whole_game_baselines(config, specs, run_spec, evaluation_baselines(config, specs, run_spec))
        return evaluation_baselines(config, specs, run_spec)

    def evaluate(self, algo: Any, run_spec: RunSpec, baselines: Any) -> dict:
        if algo.config.bidding:
            from cardrl.algorithms.dmc.whole_game_evaluation import whole_game_evaluations

            return whole_game_evaluations(algo, baselines, run_spec, evaluations(algo, baselines.fixed, run_spec))
        return evaluations(algo, baselines, run_spec)

    def line(self, record: dict, run_spec: RunSpec) -> str:
        from cardrl.algorithms.dmc.whole_game_evaluation import FIXED_LANDLORD, whole_game_text
        from cardrl.games.registry import get_game

        whole = whole_game_text(record) if FIXED_LANDLORD in record else ""
        return whole + _variant_text(record, get_game(run_spec.game).protocol.score_name)

    def report_final(self, algo: Any, final: dict, run_spec: RunSpec, baselines: Any) -> None:
        """Print the final evaluation (headline, the evaluations beside it); a match game adds whole matches."""
        by_match = algo.config.game_spec.protocol.unit == "match"
        score = "points per deal" if by_match else "ADP"
        if algo.config.bidding:
            from cardrl.algorithms.dmc.whole_game_evaluation import report_whole_game

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
