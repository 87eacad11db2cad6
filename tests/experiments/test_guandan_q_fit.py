"""experiments/guandan_q_fit.py: its labels are DMC's (each deal's points of the seat, the match bonus once the match
ends) checked against the engine's own results of seeded matches; the fit's figures on hand-worked numbers; the whole
tool on a checkpoint of a real short DMC run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardrl.envs import make_env
from cardrl.eval.agents import build_agent
from cardrl.games.guandan import GuanDanGame, team_of
from experiments import guandan_q_fit as qf


def _deciders(q: float = 0.5) -> dict:
    """Team 0 (seats 0, 2): the rule agent giving a constant Q (frames); team 1: random play (no frames)."""
    rule, rand = build_agent("rule", "guandan"), build_agent("random", "guandan", seed=3)
    learner = lambda view, legal: (int(rule.act(view, legal)), q)  # noqa: E731
    return {s: learner if s % 2 == 0 else qf.agent_decider(rand) for s in range(4)}


def _by_seat(items) -> dict[int, list[tuple[int, str]]]:
    """(deal, phase) of each seat's decisions in order (DMC's labels come seat by seat, each in its own order)."""
    out: dict[int, list] = {}
    for deal, seat, phase in items:
        out.setdefault(seat, []).append((deal, phase))
    return out


def _truth(env) -> tuple[GuanDanGame, dict[int, list[tuple[int, str]]]]:
    """The match replayed on a fresh engine from its actions: the team-0 seats' decisions (:func:`_by_seat`)."""
    played = env.game
    game = GuanDanGame(max_deals=played.max_deals, match_bonus=played.match_bonus).reset(played.seed)
    moves = []
    for action in played.actions:
        if team_of(game.current_player) == 0:
            moves.append((game.deal_index, game.current_player, qf.phase_of(game)))
        game.step(action)
    return game, _by_seat(moves)


def test_every_decision_is_labelled_with_its_deals_points():
    env = make_env("guandan", max_deals=3)
    decisions = qf.play_labelled(env, _deciders(), seed=11)
    game, moves = _truth(env)
    assert game.deals_played == 3 and _by_seat((d.deal, d.seat, d.phase) for d in decisions) == moves
    for d in decisions:
        result = game.deal_results[d.deal]
        assert d.ret == (result["reward"] if result["team"] == team_of(d.seat) else -result["reward"])
        assert d.q == 0.5 and d.game == 0
    assert {d.phase for d in decisions} <= {"lead", "follow"} and "lead" in {d.phase for d in decisions}
    assert {d.category for d in decisions if d.phase == "lead"}.isdisjoint({"pass"})


def test_with_the_match_bonus_the_labels_wait_for_the_match_and_add_it():
    env = make_env("guandan", match_bonus=True)
    decisions = qf.play_labelled(env, _deciders(), seed=4)
    game, moves = _truth(env)
    assert game.match_winner == 0 and _by_seat((d.deal, d.seat, d.phase) for d in decisions) == moves
    points = {k: r["reward"] * (1 if r["team"] == 0 else -1) for k, r in enumerate(game.deal_results)}
    assert all(d.ret == points[d.deal] + 1.0 for d in decisions)  # the rule team won the match against random
    assert len({d.deal for d in decisions}) == game.deals_played >= 2


def test_fit_figures_by_hand():
    f = qf.fit(np.array([1.0, 2.0, 3.0, -2.0]), np.array([1.0, 2.0, 4.0, -3.0]))
    assert f["n"] == 4 and f["mean_q"] == 1.0 and f["mean_return"] == 1.0 and f["mse"] == pytest.approx(0.5)
    assert f["corr"] == pytest.approx(np.corrcoef([1, 2, 3, -2], [1, 2, 4, -3])[0, 1])
    bins = {c["q_bin"]: (c["n"], c["mean_return"]) for c in f["calibration"]}
    assert bins == {"-2.5 .. -1.5": (1, -3.0), "+0.5 .. +1.5": (1, 1.0), "+1.5 .. +2.5": (1, 2.0),
                    ">= +2.5": (1, 4.0)}
    assert qf.fit(np.zeros(3), np.array([1.0, 2.0, 3.0]))["corr"] is None


def test_summary_splits_by_phase_and_category():
    d = [qf.Decision(0, 0, 0, "lead", "single", 1.0, 2.0), qf.Decision(0, 0, 2, "follow", "pass", 0.0, 2.0),
         qf.Decision(0, 0, 0, "follow", "pass", -1.0, -1.0)]
    s = qf.summarise(d)
    assert s["all"]["n"] == 3 and set(s["by_phase"]) == {"lead", "follow"}
    assert s["by_category"]["follow pass"]["mse"] == pytest.approx((4 + 0) / 2)
    text = qf.markdown(s, ["# t"])
    assert "| follow pass | 2 | -0.50 | +0.50 | 2.00 | +1.00 |" in text
    with pytest.raises(ValueError, match="no decisions"):
        qf.summarise([])


@pytest.mark.slow
def test_the_tool_on_a_checkpoint_of_a_real_short_run(ray_local, tmp_path):
    from cardrl.algorithms.dmc.dmc import DMCConfig

    config = (DMCConfig().game("guandan")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=2, rollout_fragment_length=200)
              .training(frames_per_update=200, hidden_sizes=[16]).debugging(seed=1))
    algo = config.build_algo()
    try:
        while algo.train()["module_updates"].get("shared", 0) < 2:
            pass
        path = algo.save_to_path(str(tmp_path / "checkpoint"))
    finally:
        algo.stop()
    assert qf.main(["--checkpoint", path, "--opponent", "rule", "--matches", "1", "--max-deals", "1",
                    "--epsilon", "0.01", "--out", str(tmp_path / "out")]) == 0
    report = json.loads((tmp_path / "out" / "q_fit.json").read_text())
    assert report["frames_trained"] >= 400 and report["opponent"] == "rule"
    figures = report["figures"]
    assert figures["all"]["n"] == sum(f["n"] for f in figures["by_phase"].values()) > 0
    assert all(abs(c["mean_return"]) <= 3 for c in figures["all"]["calibration"])
    assert "## By phase and move category" in (tmp_path / "out" / "q_fit.md").read_text()
