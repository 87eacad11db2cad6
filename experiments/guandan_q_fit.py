"""How well a GuanDan DMC Q-network fits the returns it is trained on (issue 44, item 1 (b)).

Loads a DMC checkpoint of GuanDan (the ``checkpoint:`` agent loader), plays seeded matches of the network against
itself (every seat) or, with ``--opponent SPEC``, against any ``cardrl eval`` agent (the network as team 0, then as
team 1, on ``cardrl eval``'s match seeds), choosing greedily as it plays in evaluation or epsilon-greedily as in
training (``--epsilon``). For each of the network's decisions it keeps the Q of the move it chose and labels the
decision with the Monte-Carlo return DMC trains on, labelled exactly as the DMC env runner labels its frames: the
frames go into :class:`~cardrl.algorithms.common.env_runner.SegmentLabels` over the game's own env, and each deal's
frames get that deal's points of the seat (with ``--match-bonus`` the +-1 of the match too, once the match ends),
times the game's target scale (1 for GuanDan). Not reproduced: a run's ``target_baseline`` centring.

It reports, by phase (lead, follow, tribute, return) and by move category: the count, the mean Q, the mean return,
the mean squared error (DMC's loss on these frames), the correlation of Q and return, and the calibration (the mean
return of the decisions in each bin of Q).

    python -m experiments.guandan_q_fit --checkpoint runs/gd/dmc/seed0/checkpoint --matches 20 --out DIR
    python -m experiments.guandan_q_fit --checkpoint PATH --opponent rule --matches 20 --out DIR
    python -m experiments.guandan_q_fit --checkpoint PATH --epsilon 0.01 --matches 20   # the training policy

Writes ``DIR/q_fit.md`` and ``DIR/q_fit.json`` (with the command and the date) and prints the markdown.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cardrl.bench.json_out import utc_now
from cardrl.algorithms.common.env_runner import SegmentLabels
from cardrl.algorithms.common.game_defaults import target_scales
from experiments.report_files import command_line, write_report

GAME = "guandan"
BINS = (-np.inf, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, np.inf)  # Q bins of the calibration (deal points: -3 .. +3)

# a decider: (view, legal ids) -> (chosen action id, the Q of the chosen move)
Decider = Callable[[Any, np.ndarray], tuple[int, "float | None"]]


@dataclass(frozen=True)
class Decision:
    """One labelled decision of the network: the match (game) and deal, seat, phase, move category, Q and return."""

    game: int
    deal: int
    seat: int
    phase: str
    category: str
    q: float
    ret: float


def phase_of(game) -> str:
    """``lead``, ``follow``, ``tribute`` or ``return`` of the decision the engine waits for."""
    if game.phase != "play":
        return game.phase
    return "lead" if game.last_move is None else "follow"


def play_labelled(env, deciders: dict[int, Decider], seed: int, index: int = 0) -> list[Decision]:
    """Play one seeded match on ``env`` (the game's PettingZoo env) with ``deciders`` (seat -> decider; other agents
    wrapped by :func:`agent_decider`); the decisions whose decider gave a Q (not None) are the network's frames,
    labelled as the DMC env runner labels them (game number ``index``)."""
    env.reset(seed=seed)
    labels, scales = SegmentLabels(), target_scales(env)
    out: list[Decision] = []
    while not (all(env.terminations.values()) or all(env.truncations.values())):
        game, agent = env.game, env.agent_selection
        seat = int(game.current_player)
        legal = env.legal_moves()
        action, q = deciders[seat](game.view(seat), legal)
        if q is not None:  # a learning seat: a frame (what it chose and its Q) waiting for its return
            category = game.move_of(action).category.name.lower()
            labels.add(agent, (game.deal_index, seat, phase_of(game), category, q))
        env.step(action)
        for name, frames, ret in labels.after_step(env):
            scaled = ret * scales.get(name, 1.0)
            out += [Decision(index, d, s, p, c, float(qv), scaled) for d, s, p, c, qv in frames]
    return out


def q_decider(agent, epsilon: float = 0.0, rng: np.random.Generator | None = None) -> Decider:
    """A QAgent's choice (:meth:`~cardrl.agents.q_agent.QAgent.act`'s greedy move and tie-break) with the Q of the
    chosen move; with ``epsilon`` a uniformly random legal move at that rate, as DMC's actors explore."""
    from cardrl.agents.q_agent import greedy_index

    rng = rng if rng is not None else np.random.default_rng(0)

    def decide(view, legal) -> tuple[int, float]:
        ids, q = agent.move_values(view, legal)
        if len(ids) > 1 and epsilon > 0 and rng.random() < epsilon:
            j = int(rng.integers(len(ids)))
        else:
            j = greedy_index(q, lambda: view.move_strength(ids)) if len(ids) > 1 else 0
        return int(ids[j]), float(q[j])

    return decide


def agent_decider(agent) -> Decider:
    """Any cardrl agent as a seat that makes no frames (Q None): the fixed opponent."""
    return lambda view, legal: (int(agent.act(view, legal)), None)


# ---- figures -----------------------------------------------------------------------------------------------------
def fit(q: np.ndarray, ret: np.ndarray) -> dict[str, Any]:
    """Count, mean Q, mean return, MSE, correlation (None when either is constant) and calibration by Q bin."""
    q, ret = np.asarray(q, dtype=np.float64), np.asarray(ret, dtype=np.float64)
    corr = float(np.corrcoef(q, ret)[0, 1]) if len(q) > 1 and q.std() > 0 and ret.std() > 0 else None
    which = np.digitize(q, BINS[1:-1])
    calibration = [{"q_bin": _bin_name(b), "n": int((which == b).sum()), "mean_q": float(q[which == b].mean()),
                    "mean_return": float(ret[which == b].mean())} for b in range(len(BINS) - 1) if (which == b).any()]
    return {"n": int(len(q)), "mean_q": float(q.mean()), "mean_return": float(ret.mean()),
            "mse": float(((q - ret) ** 2).mean()), "corr": corr, "calibration": calibration}


def _bin_name(b: int) -> str:
    low, high = BINS[b], BINS[b + 1]
    return f"< {high:+.1f}" if low == -np.inf else f">= {low:+.1f}" if high == np.inf else f"{low:+.1f} .. {high:+.1f}"


def summarise(decisions: list[Decision]) -> dict[str, Any]:
    """:func:`fit` over all decisions, by phase and by (phase, category)."""
    if not decisions:
        raise ValueError("no decisions of the network were labelled (every match cut before a deal ended?)")
    q = np.array([d.q for d in decisions])
    ret = np.array([d.ret for d in decisions])
    phase = np.array([d.phase for d in decisions])
    cat = np.array([f"{d.phase} {d.category}" for d in decisions])
    return {"all": fit(q, ret),
            "by_phase": {p: fit(q[phase == p], ret[phase == p]) for p in sorted(set(phase.tolist()))},
            "by_category": {c: fit(q[cat == c], ret[cat == c]) for c in sorted(set(cat.tolist()))}}


def _row(name: str, f: dict[str, Any]) -> str:
    corr = "-" if f["corr"] is None else f"{f['corr']:+.2f}"
    return f"| {name} | {f['n']} | {f['mean_q']:+.2f} | {f['mean_return']:+.2f} | {f['mse']:.2f} | {corr} |"


def markdown(figures: dict[str, Any], header: list[str]) -> str:
    """The report as markdown: the fit by phase and category, the calibration overall and by phase."""
    head = ["| decisions | n | mean Q | mean return | MSE | corr |", "|---|---|---|---|---|---|"]
    rows = header + ["", "## By phase", ""] + head + [_row("all", figures["all"])]
    rows += [_row(k, v) for k, v in figures["by_phase"].items()]
    rows += ["", "## By phase and move category", ""] + head
    rows += [_row(k, v) for k, v in figures["by_category"].items()]
    rows += ["", "## Calibration: mean return by bin of Q", "", "| decisions | Q bin | n | mean Q | mean return |",
             "|---|---|---|---|---|"]
    for name, f in [("all", figures["all"])] + list(figures["by_phase"].items()):
        rows += [f"| {name} | {c['q_bin']} | {c['n']} | {c['mean_q']:+.2f} | {c['mean_return']:+.2f} |"
                 for c in f["calibration"]]
    return "\n".join(rows) + "\n"


def run(checkpoint: str, matches: int, seed: int, opponent: str | None = None, epsilon: float = 0.0,
        max_deals: int | None = None, match_bonus: bool = False) -> list[Decision]:
    """Every labelled decision of ``matches`` seeded matches (module docstring)."""
    from cardrl.envs import make_env
    from cardrl.eval.agents import build_agent
    from cardrl.eval.matches import match_seeds
    from cardrl.eval.protocols import protocol_for

    env = make_env(GAME, max_deals=max_deals, match_bonus=match_bonus)
    options = {"max_deals": max_deals, "match_bonus": match_bonus}
    network = q_decider(build_agent(f"checkpoint:{checkpoint}", GAME, options), epsilon,
                        np.random.default_rng([seed, 1]))
    fixed = agent_decider(build_agent(opponent, GAME, options, seed=2)) if opponent else None
    arrangements = protocol_for(GAME).arrangements if fixed else ((0, 1, 2, 3),)
    out: list[Decision] = []
    games = [(int(s), seats) for s in match_seeds(seed, matches).tolist() for seats in arrangements]
    for index, (match_seed, seats) in enumerate(games):
        out += play_labelled(env, {s: network if s in seats else fixed for s in range(4)}, match_seed, index)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True, help="a GuanDan DMC checkpoint directory")
    parser.add_argument("--opponent", default=None, help="an agent spec for the other team (default: self-play)")
    parser.add_argument("--matches", type=int, default=20, help="seeded matches (x 2 with --opponent: teams swapped)")
    parser.add_argument("--epsilon", type=float, default=0.0, help="explore at this rate (training's: 0.01)")
    parser.add_argument("--seed", type=int, default=0, help="the match seeds' seed (cardrl eval's --seed)")
    parser.add_argument("--max-deals", type=int, default=None, help="cut every match after this many deals")
    parser.add_argument("--match-bonus", action="store_true", help="label with DanZero+'s +-1 match bonus")
    parser.add_argument("--out", default=None, help="write q_fit.md and q_fit.json here")
    args = parser.parse_args(argv)
    from cardrl.algorithms.dmc.counters import read_checkpoint_counters

    decisions = run(args.checkpoint, args.matches, args.seed, args.opponent, args.epsilon, args.max_deals,
                    args.match_bonus)
    figures = summarise(decisions)
    frames = (read_checkpoint_counters(Path(args.checkpoint)) or {}).get("frames_trained")
    command, date = command_line("experiments.guandan_q_fit", argv), utc_now()
    header = [f"# GuanDan Q fit: {args.checkpoint} ({frames if frames is not None else '?'} frames trained)", "",
              f"Command: `{command}`  ", f"Date: {date}", "",
              f"Against {args.opponent or 'itself'}, epsilon {args.epsilon}, "
              f"{len({d.game for d in decisions})} games, {len(decisions)} decisions of the network labelled"]
    write_report(args.out, "q_fit", markdown(figures, header),
                 {"command": command, "date": date, "frames_trained": frames, "opponent": args.opponent,
                  "epsilon": args.epsilon, "figures": figures})
    return 0


if __name__ == "__main__":
    sys.exit(main())
