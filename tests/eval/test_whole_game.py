"""Whole-game (bidding) duplicate tournaments (cardrl.eval.whole_game, ``cardrl eval --bidding``): the seat
rotation, the per-agent statistics recomputed by hand on seeded deals, the refusals, and the rule agent against
random."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from cardrl.agents import DouDizhuRuleAgent, RandomAgent, play_game
from cardrl.eval.deals import DealSet, generate_deals
from cardrl.eval.protocols import protocol_for
from cardrl.eval.whole_game import run_whole_game, run_whole_league
from cardrl.games.doudizhu import DouDizhuGame


def test_whole_game_protocol_rotates_every_seat_split():
    p = protocol_for("doudizhu", whole_game=True)
    assert len(p.arrangements) == 6 and p.required["bidding"] is True
    held = np.zeros(3, dtype=int)
    for seats in p.arrangements:
        held[list(seats)] += 1
        assert 1 <= len(seats) <= 2
    assert held.tolist() == [3, 3, 3]  # each seat: 3 games to A, 3 to B
    assert sorted(map(sorted, p.arrangements)) == sorted([[0], [1], [2], [0, 1], [0, 2], [1, 2]])
    with pytest.raises(ValueError, match="Big2 has no bidding"):
        protocol_for("big2", whole_game=True)


def test_equal_agents_score_zero_on_every_deal():
    r = run_whole_game("rule", "rule", 6)
    assert np.all(r.tournament.pair_scores == 0)


def replay(deal_seed: int, seats: tuple[int, ...]) -> DouDizhuGame:
    """The game of one arrangement played again from scratch: the rule agent in ``seats``, random elsewhere."""
    game = DouDizhuGame(bidding=True)
    a, b = DouDizhuRuleAgent(), RandomAgent(2)  # the seed side B's plain "random" gets (tournament.SIDE_SEEDS)
    play_game(game, [a if s in seats else b for s in range(3)], deal_seed)
    return game


def all_pass_seeds(n: int) -> list[int]:
    """Deal seeds whose three dealt hands the rule bidder all passes (rule agents redeal them)."""
    from cardrl.agents.doudizhu_bidder import wanted_bid

    seeds = [seed for seed in range(2000)
             if all(wanted_bid(DouDizhuGame(bidding=True).reset(seed).hands[s]) == 0 for s in range(3))]
    assert len(seeds) >= n, f"only {len(seeds)} all-pass deals in 2000 seeds"
    return seeds[:n]


def deal_set(seeds) -> DealSet:
    hands = np.stack([DouDizhuGame(bidding=True).reset(int(s)).hands for s in seeds])
    return DealSet("doudizhu", protocol_for("doudizhu", whole_game=True).options, np.asarray(seeds, np.int64), hands)


def test_all_pass_deals_are_redealt_and_counted():
    r = run_whole_game("rule", "rule", deal_set(all_pass_seeds(2)))
    assert r.redeals.min() >= 1 and r.stats(0).redeal_rate == r.stats(1).redeal_rate == 1.0


def test_statistics_match_the_games_replayed_by_hand():
    seeds = np.concatenate([generate_deals("doudizhu", 4, seed=9, bidding=True).seeds, all_pass_seeds(10)])
    r = run_whole_game("rule", "random", deal_set(seeds))
    p = protocol_for("doudizhu", whole_game=True)
    games = landlord_a = wins_a = redeal_games = peasant_a = 0
    landlord_pay, peasant_pay, bids = [], [], []
    for i, seed in enumerate(seeds):
        for k, seats in enumerate(p.arrangements):
            g = replay(int(seed), seats)
            pay = g.payoffs("adp")
            sign = 1 if g.winner == g.landlord else -1
            assert pay[g.landlord] == 2 * sign * g.bid * 2 ** g.bomb_count  # the bid and bombs multiply
            assert r.tournament.scores[i, k] == sum(pay[s] for s in seats)
            assert (r.landlord[i, k], r.bid[i, k], r.redeals[i, k]) == (g.landlord, g.bid, g.redeals)
            games += 1
            redeal_games += g.redeals > 0
            if g.landlord in seats:
                landlord_a += 1
                wins_a += pay[g.landlord] > 0
                landlord_pay.append(pay[g.landlord])
                bids.append(g.bid)
            for s in seats:
                if s != g.landlord:
                    peasant_a += 1
                    peasant_pay.append(pay[s])
    assert redeal_games > 0
    a = r.stats(0)
    assert (a.games, a.seats, a.landlord_games, a.landlord_wins, a.peasant_seats, a.redeal_games) == (
        games, 9 * len(seeds), landlord_a, wins_a, peasant_a, redeal_games)
    assert a.landlord_adp == pytest.approx(np.mean(landlord_pay)) and a.mean_bid == pytest.approx(np.mean(bids))
    assert a.peasant_adp == pytest.approx(np.mean(peasant_pay))
    b = r.stats(1)
    assert a.landlord_games + b.landlord_games == games and a.seats + b.seats == 3 * games
    assert f"| rule | {games} |" in r.table() and "landlord rate" in r.table()


def test_rule_agent_with_its_bidder_beats_random_on_the_whole_game():
    r = run_whole_game("rule", "random", 40, seed=3)
    lo, hi = r.tournament.adp_interval
    assert lo > 0, f"rule vs random, whole game: ADP {r.tournament.adp:+.3f} ({lo:+.3f}, {hi:+.3f})"


def test_agents_that_cannot_bid_are_refused_with_the_pairing():
    with pytest.raises(ValueError, match=r"'rlcard' cannot play the whole game.*'rlcard\+bidder=rule'"):
        run_whole_game("rule", "rlcard", 2)
    with pytest.raises(ValueError, match="cannot play the whole game"):
        run_whole_league(["rule", "random", "mcs-greedy"], 2)
    with pytest.raises(ValueError, match="do not bid"):
        run_whole_game("rule", "random", generate_deals("doudizhu", 2))


def test_league_sums_each_agents_games():
    league = run_whole_league(["rule", "random", "rule+bidder=random"], 3)
    assert [s.games for s in league.stats] == [36, 36, 36]  # 2 opponents x 3 deals x 6 games
    assert "Whole game, per agent" in league.markdown()


def eval_args(**kw) -> argparse.Namespace:
    from cardrl.cli import build_parser

    argv = ["eval", "doudizhu", "--workers", "0"]
    for key, value in kw.items():
        flag = "--" + key.replace("_", "-")
        argv += [flag] if value is True else [flag, *([value] if isinstance(value, str) else value)]
    return build_parser().parse_args(argv)


def test_cli_bidding(tmp_path, capsys):
    from cardrl.eval.cli import main_eval

    assert main_eval(eval_args(bidding=True, a="rule", b="rlcard+bidder=rule", deals="2",
                               save_deals=str(tmp_path / "d.npz"))) == 0
    out = capsys.readouterr().out
    assert "6 seat arrangements" in out and "rlcard+bidder=rule" in out and "redeal rate" in out
    assert main_eval(eval_args(a="rule", b="random", deal_file=str(tmp_path / "d.npz"))) == 2
    assert "add --bidding" in capsys.readouterr().err
    assert main_eval(eval_args(bidding=True, a="rule", b="rlcard", deals="2")) == 2
    assert "pair it with a bidder" in capsys.readouterr().err
