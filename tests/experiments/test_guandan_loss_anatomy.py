"""experiments/guandan_loss_anatomy.py: the facts it reads off replayed GuanDan games agree with the engine (finishing
orders, points, leads, bombs), on games it plays and on records `cardrl eval --save-games` writes; the figures and
the report."""

from __future__ import annotations

import json

import numpy as np

from cardrl.eval.recording import save_games
from cardrl.games.guandan import GuanDanGame
from cardrl.games.guandan.moves import Rank, hand_from_string
from experiments import guandan_loss_anatomy as la


def test_finish_labels_and_bombs_in_a_hand():
    assert la.finish_label([1, 3], a_team=1) == "A 1-2" and la.finish_label([1, 0, 3, 2], a_team=0) == "B 1-3"
    assert la.finish_label([2, 1, 3, 0], a_team=0) == "A 1-4"
    assert la.bombs_in_hand(np.zeros(54, dtype=np.int8), Rank.TWO) == 0
    hand = hand_from_string("5d 5c 5s 5h 9d Td Jd Qd Kd BJ BJ RJ RJ 3c")
    assert la.bombs_in_hand(hand, Rank.TWO) == 3  # four 5s, the four jokers, a straight flush
    assert la.bombs_in_hand(hand_from_string("5d 5c 5s 2h"), Rank.TWO) == 1  # the wild heart 2 makes the fourth 5


def test_facts_of_played_games_agree_with_the_engine():
    games = la.play_games("rule", "random", matches=1, seed=3, max_deals=3)
    assert [team for _, team in games] == [0, 1]
    for i, (record, team) in enumerate(games):
        deals = la.replay_facts(record, team, i)
        game = GuanDanGame(**record.options).reset(record.seed)
        for action in record.actions:
            game.step(action)
        assert [d.order for d in deals] == [r["order"] for r in game.deal_results]
        assert sum(d.points for d in deals) == game.payoffs()[team]
        assert all(d.points == 3.0 and d.first_out == "A" for d in deals)  # rule against random: double wins
        assert deals[0].tribute == "first deal (no tribute)" and all(d.tribute for d in deals)
        assert all(sum(d.leads["A"].values()) >= 1 for d in deals)
        assert all(0 < d.cards_left_other <= 54 for d in deals)
        assert all(p <= n for d in deals for side in la.SIDES for p, n in d.follows[side].values())


def test_records_of_cardrl_eval_read_like_played_games(tmp_path):
    save_games("rule", "random", "guandan", {"max_deals": 2}, [5], tmp_path)
    read = la.read_games(tmp_path, "rule")
    assert [team for _, team in read] == [0, 1]
    facts = [d for i, (r, t) in enumerate(read) for d in la.replay_facts(r, t, i)]
    figures = la.summarise(facts)
    assert figures["deals"] == 4 and figures["finishing_orders"]["A 1-2"]["share"]["mean"] == 1.0
    assert figures["points_per_deal"]["mean"] == 3.0 and figures["cards_left_at_first_out"]["A"] is None
    rates = figures["pass_rates"]
    assert set(rates) == {"A after partner", "A after opponent", "B after partner", "B after opponent"}
    text = la.markdown(figures, "rule", "random", "cmd", "today")
    assert "| A 1-2 | 100.0% [100.0%, 100.0%] (n 4) | +3.00 [+3.00, +3.00] (n 4) |" in text


def test_main_writes_the_report(tmp_path):
    assert la.main(["--a", "rule-control", "--b", "random", "--matches", "1", "--max-deals", "1",
                    "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "anatomy.json").read_text())
    assert report["command"].endswith("--out " + str(tmp_path)) and report["a"] == "rule-control"
    assert report["figures"]["deals"] == 2 and len(report["deals"]) == 2
    assert "## Tribute" in (tmp_path / "anatomy.md").read_text()
