"""Would passing have paid? Counterfactual rollouts of a GuanDan Q-network's follows (issue 44, item 1 (f)).

Self-play DMC at 1M frames never passes when it can play ((c) of docs/learning.md's GuanDan diagnosis). This asks
whether that is what its own games reward or what its Q-network gets wrong. It plays seeded matches of a DMC
checkpoint against itself (every seat) or, with ``--opponent SPEC``, against any ``cardrl eval`` agent (the network
as team 0, then as team 1, on ``cardrl eval``'s match seeds), greedily as in evaluation. At a share (``--share``) of
the network's follows where passing and a non-pass move are both legal, it copies the game and plays the deal out
twice from there: once after passing, once after the network's own choice (or, where that is the pass, its best
non-pass move), every seat then playing as before. Both branches are played by the same deterministic agents, so
each difference is exact for that position and that continuation.

It reports, by whether the move to beat was the partner's or an opponent's and by whether the network's move was a
bomb: the positions, the mean points of the mover's team after passing minus after playing (the deal's DanZero
points; a 95% Student-t interval over positions, which within a deal are not independent, so somewhat too narrow),
the shares where passing did better, the same and worse, and the network's own mean Q(pass) - Q(play).

    python -m experiments.guandan_pass_rollouts --checkpoint runs/gd/checkpoint --matches 10 --out DIR
    python -m experiments.guandan_pass_rollouts --checkpoint PATH --opponent rule --matches 10 --out DIR

Writes ``DIR/pass_rollouts.md`` and ``DIR/pass_rollouts.json`` (with the command and the date) and prints the
markdown.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from cardrl.bench.json_out import utc_now
from cardrl.eval.stats import mean_interval
from cardrl.games.guandan import team_of
from experiments.guandan_q_fit import Decider, agent_decider
from experiments.report_files import command_line, write_report

GAME = "guandan"


@dataclass(frozen=True)
class Branching:
    """One follow of the network played out both ways: the mover's team's deal points after passing and after
    playing, with the network's Q of each."""

    game: int
    deal: int
    seat: int
    whose: str  # "partner" or "opponent": who made the move to beat
    bomb: bool  # the non-pass branch's move is a bomb
    chose_pass: bool  # the network's own greedy choice was the pass
    q_pass: float
    q_play: float
    ret_pass: float
    ret_play: float


def finish_deal(game, deciders: dict[int, Decider], action: int) -> np.ndarray:
    """The (4,) deal points of the deal under way in a copy of ``game`` after ``action``, every seat then played by
    its decider; ``game`` itself is not changed."""
    branch = game.copy()
    deal = branch.deal_index
    branch.step(action)
    while not branch.is_over and len(branch.deal_results) <= deal:
        seat = branch.current_player
        move, _ = deciders[seat](branch.view(seat), branch.legal_moves())
        branch.step(move)
    return np.asarray(branch.deal_rewards[deal], dtype=np.float64)


def branch_here(game, agent, deciders: dict[int, Decider], index: int) -> Branching:
    """The position the engine waits on (a network seat following, pass and a non-pass move legal) played out
    after the pass and after the network's choice or best non-pass move."""
    from cardrl.agents.q_agent import greedy_index

    seat = game.current_player
    view = game.view(seat)
    ids, q = agent.move_values(view, game.legal_moves())
    is_pass = np.array([game.move_of(int(a)).is_pass for a in ids])
    if not is_pass.any() or is_pass.all():
        raise ValueError("branch_here needs a position where pass and a non-pass move are both legal")
    chosen = greedy_index(q, lambda: view.move_strength(ids))
    plays = np.flatnonzero(~is_pass)
    play = chosen if not is_pass[chosen] else int(plays[np.argmax(q[plays])])
    passing = int(np.flatnonzero(is_pass)[0])
    ret_pass = finish_deal(game, deciders, int(ids[passing]))[seat]
    ret_play = finish_deal(game, deciders, int(ids[play]))[seat]
    whose = "partner" if team_of(game.last_mover) == team_of(seat) else "opponent"
    return Branching(index, game.deal_index, seat, whose, bool(game.move_of(int(ids[play])).is_bomb),
                     bool(is_pass[chosen]), float(q[passing]), float(q[play]), float(ret_pass), float(ret_play))


def play_branching(game, agent, deciders: dict[int, Decider], network_seats: set[int], seed: int, index: int,
                   rng: np.random.Generator, share: float) -> list[Branching]:
    """One seeded match (``game`` reset with ``seed``) played by ``deciders``, branching at ``share`` of the
    network's eligible follows."""
    game.reset(seed)
    out: list[Branching] = []
    while not game.is_over:
        seat = game.current_player
        legal = game.legal_moves()
        if (seat in network_seats and game.phase == "play" and game.last_move is not None and len(legal) > 1
                and rng.random() < share):
            out.append(branch_here(game, agent, deciders, index))
        move, _ = deciders[seat](game.view(seat), legal)
        game.step(move)
    return out


def summarise(rows: list[Branching]) -> dict[str, Any]:
    """Per (whose, bomb) group and overall: positions, mean pass-minus-play points with its interval, the shares
    where passing did better / the same / worse, and the network's mean Q(pass) - Q(play)."""
    groups: dict[str, list[Branching]] = {"all": rows}
    for whose in ("partner", "opponent"):
        groups[whose] = [r for r in rows if r.whose == whose]
        for bomb in (False, True):
            groups[f"{whose}, {'bomb' if bomb else 'no bomb'}"] = [r for r in groups[whose] if r.bomb == bomb]
    out: dict[str, Any] = {}
    for name, group in groups.items():
        if not group:
            out[name] = {"n": 0}
            continue
        diff = np.array([r.ret_pass - r.ret_play for r in group])
        low, high = mean_interval(diff) if len(diff) > 1 else (None, None)
        out[name] = {"n": len(group), "mean_gain": float(diff.mean()), "low": low, "high": high,
                     "better": float(np.mean(diff > 0)), "same": float(np.mean(diff == 0)),
                     "worse": float(np.mean(diff < 0)),
                     "q_gap": float(np.mean([r.q_pass - r.q_play for r in group])),
                     "chose_pass": float(np.mean([r.chose_pass for r in group]))}
    return out


def markdown(figures: dict[str, Any], header: list[str]) -> str:
    lines = header + ["", "| follows (the move to beat was) | positions | points: pass - play | pass better / same / "
                          "worse | network's Q(pass) - Q(play) | network chose pass |", "|---|---|---|---|---|---|"]
    for name, f in figures.items():
        if f["n"] == 0:
            lines.append(f"| {name} | 0 | - | - | - | - |")
            continue
        interval = f" [{f['low']:+.2f}, {f['high']:+.2f}]" if f["n"] > 1 else ""
        lines.append(f"| {name} | {f['n']:,} | {f['mean_gain']:+.2f}{interval} | "
                     f"{f['better']:.0%} / {f['same']:.0%} / {f['worse']:.0%} | {f['q_gap']:+.2f} | "
                     f"{f['chose_pass']:.0%} |")
    return "\n".join(lines) + "\n"


def run(checkpoint: str, matches: int, seed: int, opponent: str | None = None, share: float = 0.25,
        max_deals: int | None = 3, progress: bool = True) -> list[Branching]:
    """Every branching of ``matches`` seeded matches (module docstring)."""
    from cardrl.eval.agents import build_agent
    from cardrl.eval.matches import match_seeds
    from cardrl.eval.protocols import protocol_for
    from experiments.guandan_q_fit import q_decider

    protocol = protocol_for(GAME)
    options = protocol.spec.full_options({"max_deals": max_deals})
    agent = build_agent(f"checkpoint:{checkpoint}", GAME, options)
    network = q_decider(agent)
    fixed = agent_decider(build_agent(opponent, GAME, options, seed=2)) if opponent else None
    arrangements = protocol.arrangements if fixed else ((0, 1, 2, 3),)
    game = protocol.make_game(**options)
    rng = np.random.default_rng([seed, 7])
    games = [(int(s), seats) for s in match_seeds(seed, matches).tolist() for seats in arrangements]
    out: list[Branching] = []
    start = time.monotonic()
    for index, (match_seed, seats) in enumerate(games):
        deciders = {s: network if s in seats else fixed for s in range(4)}
        out += play_branching(game, agent, deciders, set(seats), match_seed, index, rng, share)
        if progress:
            done = index + 1
            eta = (time.monotonic() - start) / done * (len(games) - done)
            print(f"game {done}/{len(games)}: {len(out)} positions played out both ways, ETA {eta / 60:.1f} min",
                  file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.guandan_pass_rollouts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", required=True, help="a GuanDan DMC checkpoint (cardrl train's checkpoint dir)")
    parser.add_argument("--opponent", default=None, help="a cardrl eval agent spec for the other team (default: "
                                                         "the network in every seat)")
    parser.add_argument("--matches", type=int, default=10, help="seeded matches (x2 arrangements with --opponent)")
    parser.add_argument("--max-deals", type=int, default=3, help="deals per match (default 3)")
    parser.add_argument("--share", type=float, default=0.25, help="share of eligible follows played out (0-1]")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="directory for pass_rollouts.md and .json")
    args = parser.parse_args(argv)
    if not 0 < args.share <= 1:
        parser.error(f"--share must be in (0, 1], got {args.share}")
    if args.matches < 1 or args.max_deals < 1:
        parser.error("--matches and --max-deals must be positive")
    rows = run(args.checkpoint, args.matches, args.seed, args.opponent, args.share, args.max_deals)
    figures = summarise(rows)
    command, date = command_line("experiments.guandan_pass_rollouts", argv), utc_now()
    against = args.opponent or "itself"
    header = [f"# GuanDan follows played out both ways: checkpoint {args.checkpoint} against {against}", "",
              f"Command: `{command}`  ", f"Date: {date}", "",
              "Points are the mover's team's DanZero points of the deal (-3..+3) after passing minus after playing; "
              "the network's choice, or its best non-pass move where it chose the pass; every seat then plays on "
              "as before (greedy, deterministic). Intervals: 95% t over positions (positions of one deal are not "
              "independent: somewhat too narrow)."]
    write_report(args.out, "pass_rollouts", markdown(figures, header),
                 {"command": command, "date": date, "figures": figures, "positions": [asdict(r) for r in rows]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
