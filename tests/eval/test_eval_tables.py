"""The evaluation table gives every row its intervals: the per-arrangement (per-side) rows carry the WP 95% interval
as the overall row does (the t-interval of that arrangement's wins over deals, clipped to [0, 1])."""

from __future__ import annotations

import numpy as np

from cardrl.eval import run_tournament
from cardrl.eval.stats import mean_interval
from cardrl.eval.tournament import TournamentResult


def _result() -> TournamentResult:
    scores = np.array([[2.0, -1.0], [-2.0, 1.0], [4.0, 1.0], [2.0, -1.0], [-2.0, -1.0]])
    return TournamentResult("doudizhu", "a", "b", ("A landlord", "A peasants"), scores, scores > 0)


def test_every_row_of_the_table_has_its_wp_interval():
    result = _result()
    rows = [line for line in result.table().splitlines() if line.startswith("| ") and not line.startswith("| side")]
    assert len(rows) == 3  # all, A landlord, A peasants
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 6 and all(cells), row  # no blank cell: WP interval included
    landlord = result.arrangements()[0]
    lo, hi = mean_interval(np.array([1, 0, 1, 1, 0], dtype=float))
    assert landlord.wp == 0.6 and landlord.wp_interval == (max(lo, 0.0), min(hi, 1.0))
    assert "| A landlord | 5 | +0.800 |" in result.table()
    assert f"| 0.600 | {max(lo, 0):.3f}, {min(hi, 1):.3f} |" in rows[1]


def test_wp_intervals_are_clipped_and_reach_to_dict():
    result = _result()
    peasants = result.arrangements()[1]
    assert 0.0 <= peasants.wp_interval[0] <= peasants.wp <= peasants.wp_interval[1] <= 1.0
    d = result.to_dict()
    assert d["arrangements"]["A peasants"]["wp_low"] == peasants.wp_interval[0]
    assert (d["wp_low"], d["wp_high"]) == result.wp_interval


def test_a_real_tournament_table_has_no_blank_interval():
    table = run_tournament("rule", "random", 20).table()
    assert "| |" not in table and " | |" not in table
