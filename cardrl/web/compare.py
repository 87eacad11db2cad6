"""The Compare page's request: two agents on one duplicate deal, A in the arrangement's seats with B in the others
(left) and the seats swapped (right), with where their play first differs and A's net payoff against B's."""

from __future__ import annotations

from functools import partial
from typing import Any

from fastapi import FastAPI

from cardrl.web.catalog import Catalog
from cardrl.web.schema import CompareRequest
from cardrl.web.sessions import AgentRunner

__all__ = ["compare_routes", "first_difference", "duplicate_summary", "game_spec", "bidder"]


def game_spec(name: str):
    """The registry's spec of a game the pages may play; ValueError naming those games."""
    from cardrl.games.registry import game_names, get_game
    from cardrl.play.session import playable_games

    if name not in playable_games():
        raise ValueError(f"unknown game {name!r}; allowed: {', '.join(playable_games() or game_names())}")
    return get_game(name)


def bidder(spec, options: dict[str, Any], agent, purpose: str):
    """``agent``, refused (400) when the options bid and it cannot (it plays with a fixed landlord)."""
    from cardrl.eval.agents import check_bids
    from cardrl.eval.protocols import bids

    return check_bids(agent, f"the whole game (bidding): it cannot {purpose}") if bids(spec.name, options) else agent


def first_difference(left: list[int], right: list[int]) -> int | None:
    """The first action index where two games differ (the shorter one's length when one is a prefix of the
    other), or None when they are the same."""
    diff = next((i for i, (x, y) in enumerate(zip(left, right)) if x != y), None)
    if diff is None and len(left) != len(right):
        return min(len(left), len(right))
    return diff


def duplicate_summary(protocol, arrangement: int, left_payoffs, right_payoffs) -> dict[str, float]:
    """A's score in the arrangement's seats (left), B's in the same seats on the same deal (right), and A's net:
    their difference, the duplicate score of the deal (the protocol's payoff unit, e.g. ADP)."""
    a_score = protocol.score_a(left_payoffs, arrangement)
    b_score = protocol.score_a(right_payoffs, arrangement)
    return {"a_score": a_score, "b_score": b_score, "a_net": a_score - b_score}


def compare_routes(app: FastAPI, catalog: Catalog, runner: AgentRunner) -> None:
    from cardrl.eval.recording import play_recorded
    from cardrl.play.session import notation_for
    from cardrl.web.options import compare_options
    from cardrl.web.table import record_frames, record_json

    @app.post("/api/compare")
    async def compare(req: CompareRequest) -> dict[str, Any]:
        spec = game_spec(req.game)
        protocol, options = compare_options(spec, req.rules)
        if req.arrangement >= len(protocol.arrangements):
            raise ValueError(f"arrangement {req.arrangement}: {spec.title} has {len(protocol.arrangements)} "
                             f"({', '.join(f'{i}: {lab}' for i, lab in enumerate(protocol.labels))})")
        a_spec, b_spec = catalog.agent_spec(spec.name, req.a), catalog.agent_spec(spec.name, req.b)
        a = bidder(spec, options, await runner.agent(a_spec, spec.name, options, 1), "be compared")
        b = bidder(spec, options, await runner.agent(b_spec, spec.name, options, 2), "be compared")
        seats = protocol.arrangements[req.arrangement]
        sides = []
        for first, second, names in ((a, b, (req.a, req.b)), (b, a, (req.b, req.a))):
            agents = [first if s in seats else second for s in range(spec.num_players)]
            specs = [names[0] if s in seats else names[1] for s in range(spec.num_players)]
            engine = spec.make_engine(**options)
            play = partial(play_recorded, reward=protocol.reward)
            rec = await runner.call("playing the compared deal", play, engine, agents, req.seed, specs, options,
                                    timeout_s=max(runner.timeout_s * 20, 60.0))
            sides.append(record_json(rec, record_frames(rec, notation_for(spec.name))))
        summary = duplicate_summary(protocol, req.arrangement, sides[0]["payoffs"], sides[1]["payoffs"])
        return {"game": spec.name, "seed": str(req.seed), "label": protocol.labels[req.arrangement],
                "seats": list(seats), "a": req.a, "b": req.b, "left": sides[0], "right": sides[1],
                "first_difference": first_difference(sides[0]["actions"], sides[1]["actions"]), **summary}
