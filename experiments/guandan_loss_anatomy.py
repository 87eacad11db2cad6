"""What a GuanDan score is made of (issue 44, item 1 (c)): how side A's deals are won and lost.

Plays seeded GuanDan matches of two agent specs (any ``cardrl eval`` spec: ``checkpoint:PATH``, ``rule``,
``rule-control``, ``random``, ``mcs-greedy``), each match once per arrangement of the tournament protocol (A as team 0,
then as team 1, the match seeds of ``cardrl eval``), or reads the game records that ``cardrl eval guandan --a SPEC
--b SPEC --save-games DIR`` wrote, and replays every game on the engine. It reports, per deal and for side A beside
side B:

- the finishing orders (A's team first: 1-2, 1-3, 1-4, the engine's ``partner_place``; the mirror ones lost), their
  shares and A's points in them (the engine's ``deal_rewards``);
- the pass rate when following with a non-pass move legal, by whether the move to beat was the partner's or an
  opponent's;
- bombs played per deal and bombs still held when the deal ended (what the seats' remaining cards make: the engine's
  generator ``MoveGenerator.bombs``, counted as the ranks of n-of-a-kind bombs, the four jokers and 1 for any
  straight flush);
- leads by move category (the engine's ``Category``);
- the cards a team still held when the other team's first player went out (the deal's first finisher);
- tribute outcomes: the deals where A paid, received, or a tribute was refused, with A's points in each.

A rate or mean over deals gets a 95% Student-t interval (:func:`cardrl.eval.stats.mean_interval`); the pass rates are
over decisions, which within a deal are not independent, so their intervals are somewhat too narrow.

    python -m experiments.guandan_loss_anatomy --a checkpoint:runs/gd/checkpoint --b rule --matches 20 --out DIR
    python -m experiments.guandan_loss_anatomy --records games/ --a checkpoint:/abs/runs/gd/checkpoint --out DIR

Writes ``DIR/anatomy.md`` and ``DIR/anatomy.json`` (with the command and the date) and prints the markdown.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from cardrl.bench.json_out import utc_now
from cardrl.eval.records import GameRecord
from cardrl.eval.stats import mean_interval
from cardrl.games.guandan import GuanDanGame, team_of
from cardrl.games.guandan.moves import Category, MoveGenerator
from experiments.report_files import command_line, write_report

GAME = "guandan"
SIDES = ("A", "B")


@dataclass
class DealFacts:
    """One deal of a replayed game, seen from side A (``a_team``); per-side figures keyed "A" and "B"."""

    game: int
    deal: int
    a_team: int
    order: list[int]
    points: float
    tribute: str
    leads: dict[str, dict[str, int]] = field(default_factory=lambda: {s: {} for s in SIDES})
    follows: dict[str, dict[str, list[int]]] = field(
        default_factory=lambda: {s: {"partner": [0, 0], "opponent": [0, 0]} for s in SIDES})  # [passes, decisions]
    bombs_played: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SIDES})
    bombs_held: dict[str, int] = field(default_factory=lambda: {s: 0 for s in SIDES})
    first_out: str = ""  # the side of the deal's first finisher
    cards_left_other: int = 0  # the cards the other side's two seats held then


def side_of(seat: int, a_team: int) -> str:
    return "A" if team_of(seat) == a_team else "B"


def finish_label(order: list[int], a_team: int) -> str:
    """``"A 1-2"`` .. ``"B 1-4"``: the first finisher's side and its partner's place (the engine's finishing order)."""
    first = order[0]
    place = order.index((first + 2) % 4) + 1 if (first + 2) % 4 in order else 4
    return f"{side_of(first, a_team)} 1-{place}"


def bombs_in_hand(hand: np.ndarray, level: int) -> int:
    """The bombs a hand still makes (engine's generator): n-of-a-kind bomb ranks, the four jokers, 1 for any
    straight flush."""
    bombs = MoveGenerator([int(c) for c in hand], int(level)).bombs(None)
    kinds = {(m.category, m.rank) for m in bombs if m.category != Category.STRAIGHT_FLUSH}
    return len(kinds) + int(any(m.category == Category.STRAIGHT_FLUSH for m in bombs))


def tribute_label(game: GuanDanGame, a_team: int) -> str:
    """The tribute of the current deal (the engine's ``tributes``, ``refused``): ``"B->A x2"`` (B's two seats paid
    A's), ``"refused"`` (the payers held both red jokers), or the first deal of a match."""
    if game.deal_index == 0:
        return "first deal (no tribute)"
    if game.refused:
        return "refused (both red jokers)"
    paid = Counter(f"{side_of(p, a_team)}->{side_of(r, a_team)}" for p, r, _ in game.tributes)
    return ", ".join(f"{k} x{n}" for k, n in sorted(paid.items())) or "none"


def _note_decision(facts: DealFacts, game: GuanDanGame, action: int) -> None:
    """The lead, follow and bomb figures of one play-phase decision (before it is applied)."""
    seat = game.current_player
    side = side_of(seat, facts.a_team)
    move = game.move_of(action)
    if game.last_move is None:
        name = move.category.name.lower()
        facts.leads[side][name] = facts.leads[side].get(name, 0) + 1
    elif len(game.legal_moves()) > 1:  # a non-pass move was legal
        whose = "partner" if team_of(game.last_mover) == team_of(seat) else "opponent"
        facts.follows[side][whose][0] += int(move.is_pass)
        facts.follows[side][whose][1] += 1
    if move.is_bomb:
        facts.bombs_played[side] += 1


def _close_deal(facts: DealFacts, game: GuanDanGame, end_hands: np.ndarray, level: int) -> None:
    """The finishing order, A's points (the deal's DanZero points, no match bonus) and the bombs held at the end."""
    result = game.deal_results[facts.deal]
    facts.order = list(result["order"])
    facts.points = float(result["reward"]) * (1.0 if result["team"] == facts.a_team else -1.0)
    for seat in range(4):
        facts.bombs_held[side_of(seat, facts.a_team)] += bombs_in_hand(end_hands[seat], level)


def replay_facts(record: GameRecord, a_team: int, index: int = 0) -> list[DealFacts]:
    """Every deal of a recorded GuanDan game, replayed on the engine, as :class:`DealFacts` of side A."""
    game = GuanDanGame(**record.options).reset(record.seed)
    deals: list[DealFacts] = []
    for action in record.actions:
        if not deals or deals[-1].deal != game.deal_index:
            deals.append(DealFacts(index, game.deal_index, a_team, [], 0.0, ""))
        facts = deals[-1]
        hands, level, finished = game.hands.copy(), game.level, len(game.finished)
        if game.phase == "play":
            facts.tribute = facts.tribute or tribute_label(game, a_team)
            _note_decision(facts, game, action)
            hands[game.current_player] -= game.move_cards([action])[0]
        game.step(action)
        if finished == 0 and game.deal_index == facts.deal and len(game.finished) == 1:
            out = game.finished[0]
            facts.first_out = side_of(out, a_team)
            facts.cards_left_other = int(hands[[(out + 1) % 4, (out + 3) % 4]].sum())
        if len(game.deal_results) > facts.deal:
            _close_deal(facts, game, hands, level)
    return deals


# ---- games: played here or read from records ---------------------------------------------------------------------
def play_games(a_spec: str, b_spec: str, matches: int, seed: int, max_deals: int | None,
               options: dict[str, Any] | None = None) -> list[tuple[GameRecord, int]]:
    """``matches`` seeded matches (``cardrl eval``'s match seeds), each with A as team 0 then team 1: (record, A's
    team) per game."""
    from cardrl.agents.base import play_game
    from cardrl.eval.agents import build_agent
    from cardrl.eval.matches import match_seeds
    from cardrl.eval.protocols import protocol_for

    protocol = protocol_for(GAME)
    opts = protocol.spec.full_options({**(options or {}), "max_deals": max_deals})
    a, b = build_agent(a_spec, GAME, opts, seed=1), build_agent(b_spec, GAME, opts, seed=2)
    engine = protocol.make_game(**opts)
    out = []
    for match_seed in match_seeds(seed, matches).tolist():
        for k, seats in enumerate(protocol.arrangements):
            play_game(engine, [a if s in seats else b for s in range(4)], int(match_seed))
            specs = [a_spec if s in seats else b_spec for s in range(4)]
            out.append((GameRecord(GAME, opts, int(match_seed), specs, [int(x) for x in engine.actions]),
                        team_of(seats[0])))
    return out


def read_games(directory: str | Path, a_spec: str) -> list[tuple[GameRecord, int]]:
    """The GuanDan records of ``directory`` (``cardrl eval --save-games``) with A's team: the seats of ``a_spec``."""
    from cardrl.eval.records import read_record

    out = []
    for path in sorted(Path(directory).glob("*.json")):
        record = read_record(path)
        if record.game != GAME:
            continue
        teams = {team_of(s) for s, spec in enumerate(record.seats) if spec == a_spec}
        if len(teams) != 1:
            raise ValueError(f"{path}: side A ({a_spec!r}) must hold exactly one team's seats; seats are "
                             f"{record.seats}")
        out.append((record, teams.pop()))
    if not out:
        raise ValueError(f"no GuanDan game records in {directory}")
    return out


# ---- figures -----------------------------------------------------------------------------------------------------
def mean_ci(values: Iterable[float]) -> dict[str, float] | None:
    """Mean and 95% t-interval (None for no values)."""
    values = np.asarray(list(values), dtype=np.float64)
    if values.size == 0:
        return None
    low, high = mean_interval(values)
    return {"n": int(values.size), "mean": float(values.mean()), "low": low, "high": high}


def summarise(deals: list[DealFacts]) -> dict[str, Any]:
    """Every figure of the report (module docstring) from the deals' facts."""
    points = [d.points for d in deals]
    labels = [finish_label(d.order, d.a_team) for d in deals]
    finishes = {lab: {"share": mean_ci([float(x == lab) for x in labels]),
                      "points": mean_ci(d.points for d, x in zip(deals, labels) if x == lab)}
                for lab in sorted(set(labels) | {f"{s} 1-{p}" for s in SIDES for p in (2, 3, 4)})}
    passes = {}
    for side in SIDES:
        for whose in ("partner", "opponent"):
            flags = [1.0] * sum(d.follows[side][whose][0] for d in deals)
            flags += [0.0] * (sum(d.follows[side][whose][1] for d in deals) - len(flags))
            passes[f"{side} after {whose}"] = mean_ci(flags)
    leads = {side: dict(sum((Counter(d.leads[side]) for d in deals), Counter()).most_common()) for side in SIDES}
    bombs = {side: {"played": mean_ci(d.bombs_played[side] for d in deals),
                    "held_at_end": mean_ci(d.bombs_held[side] for d in deals),
                    "deals_ending_with_one_held": mean_ci(float(d.bombs_held[side] > 0) for d in deals)}
             for side in SIDES}
    cards = {side: mean_ci(d.cards_left_other for d in deals if d.first_out and d.first_out != side)
             for side in SIDES}
    tributes = {lab: {"deals": sum(d.tribute == lab for d in deals),
                      "points": mean_ci(d.points for d in deals if d.tribute == lab)}
                for lab in sorted({d.tribute for d in deals})}
    return {"deals": len(deals), "games": len({d.game for d in deals}), "points_per_deal": mean_ci(points),
            "finishing_orders": finishes, "pass_rates": passes, "leads": leads, "bombs": bombs,
            "cards_left_at_first_out": cards, "tributes": tributes}


def _fmt(ci: dict[str, float] | None, sign: bool = False, pct: bool = False) -> str:
    if ci is None:
        return "-"
    scale, form = (100.0, "{:.1f}%") if pct else (1.0, "{:+.2f}" if sign else "{:.2f}")
    f = form.format
    return f"{f(scale * ci['mean'])} [{f(scale * ci['low'])}, {f(scale * ci['high'])}] (n {ci['n']})"


def markdown(figures: dict[str, Any], a: str, b: str, command: str, date: str) -> str:
    """The report as markdown (every figure of :func:`summarise`)."""
    rows = [f"# GuanDan loss anatomy: A = {a}, B = {b}", "", f"Command: `{command}`  ", f"Date: {date}", "",
            f"{figures['games']} games, {figures['deals']} deals; A's points per deal "
            f"{_fmt(figures['points_per_deal'], sign=True)}", "",
            "## Finishing orders (first finisher's side, its partner's place)", "",
            "| order | share of deals | A's points per deal |", "|---|---|---|"]
    rows += [f"| {k} | {_fmt(v['share'], pct=True)} | {_fmt(v['points'], sign=True)} |"
             for k, v in figures["finishing_orders"].items()]
    rows += ["", "## Passing when a non-pass move is legal (over decisions)", "", "| who follows | pass rate |",
             "|---|---|"] + [f"| {k} | {_fmt(v, pct=True)} |" for k, v in figures["pass_rates"].items()]
    rows += ["", "## Bombs per deal (each side's two seats)", "",
             "| side | played | still held at the deal's end | deals ending with a bomb held |", "|---|---|---|---|"]
    rows += [f"| {s} | {_fmt(v['played'])} | {_fmt(v['held_at_end'])} | "
             f"{_fmt(v['deals_ending_with_one_held'], pct=True)} |" for s, v in figures["bombs"].items()]
    rows += ["", "## Leads by category", "", "| side | leads (share) |", "|---|---|"]
    for side, counts in figures["leads"].items():
        total = sum(counts.values()) or 1
        rows.append(f"| {side} | " + ", ".join(f"{k} {n} ({100 * n / total:.0f}%)" for k, n in counts.items()) + " |")
    rows += ["", "## Cards a side still held when the other side's first player went out", "",
             "| side | cards (both seats) |", "|---|---|"]
    rows += [f"| {k} | {_fmt(v)} |" for k, v in figures["cards_left_at_first_out"].items()]
    rows += ["", "## Tribute (from the second deal of a match)", "", "| situation | deals | A's points per deal |",
             "|---|---|---|"] + [f"| {k} | {v['deals']} | {_fmt(v['points'], sign=True)} |"
                                 for k, v in figures["tributes"].items()]
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="side A's agent spec (with --records: as the records name it)")
    parser.add_argument("--b", default="rule", help="side B's agent spec (default: rule)")
    parser.add_argument("--records", default=None, help="read the game records of this directory instead of playing")
    parser.add_argument("--matches", type=int, default=20, help="seeded matches, each with teams swapped")
    parser.add_argument("--seed", type=int, default=0, help="the match seeds' seed (cardrl eval's --seed)")
    parser.add_argument("--max-deals", type=int, default=None, help="cut every match after this many deals")
    parser.add_argument("--out", default=None, help="write anatomy.md and anatomy.json here")
    args = parser.parse_args(argv)
    from cardrl.eval.agents import agent_spec_arg

    a, b = agent_spec_arg(args.a), agent_spec_arg(args.b)
    games = read_games(args.records, a) if args.records else play_games(a, b, args.matches, args.seed,
                                                                        args.max_deals)
    deals = [d for i, (record, team) in enumerate(games) for d in replay_facts(record, team, i)]
    figures = summarise(deals)
    command, date = command_line("experiments.guandan_loss_anatomy", argv), utc_now()
    write_report(args.out, "anatomy", markdown(figures, a, "(records)" if args.records else b, command, date),
                 {"command": command, "date": date, "a": a, "b": b, "figures": figures,
                  "deals": [asdict(d) for d in deals]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
