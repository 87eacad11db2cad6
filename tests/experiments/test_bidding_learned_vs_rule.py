"""experiments/bidding_learned_vs_rule.py: the pooling over seeds (quick), and the whole driver end to end on a tiny
budget, resumed (slow)."""

import json

import numpy as np
import pytest

from cardrl.eval.stats import mean_interval
from cardrl.eval.whole_game import BiddingStats
from experiments.bidding_learned_vs_rule import format_report, pool, run, stats_dict


def _seed(scores, wins, landlord_games, landlord_adp, seats):
    a = BiddingStats("a", games=6 * len(scores), seats=seats, landlord_games=landlord_games, landlord_wins=1,
                     landlord_adp=landlord_adp, mean_bid=2.0, peasant_seats=seats - landlord_games, peasant_wins=2,
                     peasant_adp=-0.5, redeal_games=1)
    b = BiddingStats("b", games=6 * len(scores), seats=seats, landlord_games=0, landlord_wins=0,
                     landlord_adp=float("nan"), mean_bid=float("nan"), peasant_seats=seats, peasant_wins=0,
                     peasant_adp=0.0, redeal_games=1)
    return {"pair_scores": scores, "pair_wins": wins, "a_stats": stats_dict(a), "b_stats": stats_dict(b)}


def test_pooling_puts_every_seeds_deals_in_one_sample_and_sums_the_bidding_counts():
    one = _seed([1.0, -2.0, 3.0], [1.0, 0.0, 0.5], landlord_games=4, landlord_adp=2.0, seats=27)
    two = _seed([0.5, 0.5], [0.5, 1.0], landlord_games=1, landlord_adp=-4.0, seats=18)
    pooled = pool([one, two])
    everything = np.array([1.0, -2.0, 3.0, 0.5, 0.5])
    assert pooled["deals"] == 5 and pooled["seeds"] == 2
    assert pooled["adp"] == pytest.approx(everything.mean())
    assert (pooled["adp_low"], pooled["adp_high"]) == pytest.approx(mean_interval(everything))
    assert pooled["wp"] == pytest.approx(np.mean([1.0, 0.0, 0.5, 0.5, 1.0]))
    a = pooled["a_stats"]
    assert (a["landlord_games"], a["seats"], a["games"]) == (5, 45, 30)
    assert a["landlord_rate"] == pytest.approx(5 / 45)
    assert a["landlord_adp"] == pytest.approx((4 * 2.0 + 1 * -4.0) / 5)  # weighted by landlord games
    assert a["redeal_rate"] == pytest.approx(2 / 30)
    b = pooled["b_stats"]  # never the landlord: no rate to give, not a zero
    assert b["landlord_rate"] == 0 and b["landlord_win_rate"] is None and b["landlord_adp"] is None
    assert pool([one])["adp"] == pytest.approx(np.mean([1.0, -2.0, 3.0]))
    with pytest.raises(ValueError, match="at least one"):
        pool([])


def test_the_report_has_each_seed_and_the_pool():
    one = {**_seed([1.0, -1.0], [1.0, 0.0], 2, 1.0, 18), "a": "checkpoint:x", "b": "checkpoint:x+bidder=rule",
           "deals": 2, "adp": 0.0, "adp_low": -1.0, "adp_high": 1.0, "wp": 0.5, "wp_low": 0.0, "wp_high": 1.0}
    results = {"preset": "alphadou_doudizhu", "date": "d", "machine": "m", "seeds": [1], "frames": 10, "deals": 2,
               "deal_seed": 100, "command": "c", "training": {},
               "comparisons": {"bidder": {"per_seed": {1: one}, "pooled": {**pool([one]), "seeds": 1}}}}
    text = format_report(results)
    assert "## bidder: the learned bidder vs the rule bidder" in text and "## agent" not in text
    assert "| 1 | 2 | +0.000 [-1.000, +1.000]" in text and "| pooled (1 seeds) | 2 |" in text


@pytest.mark.slow
def test_the_driver_trains_evaluates_pools_and_resumes(tmp_path):
    tiny = ["--num-env-runners", "0", "--num-envs-per-env-runner", "8", "--frames-per-update", "200", "--model", "mlp",
            "--eval-deals", "2"]
    said: list[str] = []

    def say(*words, **_):
        said.append(" ".join(map(str, words)))

    run(tmp_path, [1, 2], frames=1500, deals=3, extra=tiny, command="test", say=say)
    text = (tmp_path / "report.md").read_text()
    report = json.loads((tmp_path / "report.json").read_text())
    for name in ("bidder", "agent"):
        pooled = report["comparisons"][name]["pooled"]
        assert pooled["seeds"] == 2 and pooled["deals"] == 6
        assert pooled["adp_low"] <= pooled["adp"] <= pooled["adp_high"]
        assert set(report["comparisons"][name]["per_seed"]) == {"1", "2"}
    assert report["comparisons"]["bidder"]["per_seed"]["1"]["b"].endswith("+bidder=rule")
    assert report["training"]["1"]["frames"] >= 1500 and "pooled (2 seeds)" in text
    assert any("ETA" in line for line in said)  # the second seed's training and the later evaluations
    said.clear()
    run(tmp_path, [1, 2], frames=1500, deals=3, extra=tiny, command="test", say=say)  # all done: nothing again
    assert not any(line.startswith("== ") for line in said)
    assert json.loads((tmp_path / "report.json").read_text())["comparisons"] == report["comparisons"]
