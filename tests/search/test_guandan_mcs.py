"""GuanDan Minimum Combination Search (exact K with wild cards) and ODMC pruning on GuanDan.

Exactness is judged by a brute-force search over the *engine's* lead moves (cardrl.games.guandan.moves.legal_moves,
wild substitution included): K(hand) = 1 + min K(hand - m) over every lead move m, memoised by hand.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from cardrl.envs.guandan_v0 import raw_env
from cardrl.games.guandan import GuanDanGame
from cardrl.games.guandan.moves import NUM_KINDS, Category, Rank, hand_from_string, legal_moves, wild_kind
from cardrl.games.guandan.table import NUM_SPECIAL, level_table
from cardrl.search import GuanDanMinCombinationSearch, min_combinations, prune_moves
from cardrl.search.guandan_mcs import pack_counts
from cardrl.search.prune import prune_threshold


def brute_force_k(hand: np.ndarray, level: int) -> int:
    @lru_cache(maxsize=None)
    def solve(key: tuple) -> int:
        h = np.array(key)
        if not h.any():
            return 0
        return 1 + min(solve(tuple(h - m.counts())) for m in legal_moves(h, None, level))

    return solve(tuple(int(c) for c in hand))


def _small_hand(rng: np.random.Generator, level: int, wilds: int) -> np.ndarray:
    """A few cards from a window of 5 ranks (sometimes with aces and jokers) so that sequences, three-with-twos and
    bombs are common, plus exactly ``wilds`` wild cards."""
    low = int(rng.integers(0, 9))
    ranks = set(range(low, low + 5)) | ({12} if rng.random() < 0.3 else set())
    wild = wild_kind(level)
    kinds = [4 * r + s for r in sorted(ranks) for s in range(4) if 4 * r + s != wild] + [52, 53]
    pool = np.repeat(kinds, 2)
    hand = np.zeros(NUM_KINDS, dtype=np.int64)
    np.add.at(hand, rng.choice(pool, size=int(rng.integers(1, 9)), replace=False), 1)
    hand[wild] = wilds
    return hand


@pytest.mark.parametrize("wilds", [0, 1, 2])
def test_k_equals_brute_force_on_random_hands(wilds):
    rng = np.random.default_rng(100 + wilds)
    search = GuanDanMinCombinationSearch()
    for _ in range(150):
        level = Rank(int(rng.integers(13)))
        hand = _small_hand(rng, level, wilds)
        assert search.k(hand, level) == brute_force_k(hand, level), (level, hand.nonzero()[0].tolist())


KNOWN = [
    ("3d 4c 5h 6s 7d", "2", 1),           # straight
    ("3d 4c 5h 6s 2h", "2", 1),           # the wild 2h completes a straight
    ("3d 4c 5h 6s 2h", "7", 1),           # at level 7 the 2h is a plain 2: the straight 23456
    ("Ad 2c 3h 4s 5d", "J", 1),           # ace-low straight
    ("Td Jc Qh Ks Ad", "2", 1),           # ace-high straight
    ("3d 3c 4d 4c 5h 5s", "2", 1),        # tube
    ("3d 3c 3h 4d 4c 4s", "2", 1),        # plate
    ("3d 3c 3h 4d 4c", "2", 1),           # three-with-two
    ("3d 3c 3h BJ BJ", "2", 1),           # three-with-two with a joker pair
    ("3d 3c 3h 3s 3d 3c 2h 2h", "2", 1),  # eight-card bomb with two wilds
    ("BJ BJ RJ RJ", "2", 1),              # four jokers
    ("BJ RJ", "2", 2),                    # two jokers of different colours are no pair
    ("2h 2h", "2", 1),                    # two wilds: the level pair
    ("2h BJ", "2", 2),                    # a wild never stands for a joker
    ("3d 5c 9h Ks", "2", 4),
]


@pytest.mark.parametrize("text, level, k", KNOWN)
def test_known_hands(text, level, k):
    assert brute_force_k(hand_from_string(text), level) == k
    assert min_combinations("guandan", text, level=level) == k


def test_k_of_full_deals_is_level_free_and_matches_k_after():
    game = GuanDanGame(match=False).reset(3)
    search = GuanDanMinCombinationSearch()
    for seat in range(4):
        hand = game.hands[seat]
        k = search.k(hand, game.level)
        assert 1 <= k <= 27
        moves = legal_moves(hand, None, game.level)[:300]
        counts = np.stack([m.counts() for m in moves])
        after = search.k_after(hand, game.level, counts)
        assert after.min() >= k - 1  # one move lowers K by at most one
        for m, a in list(zip(moves, after))[:40]:
            assert a == search.k(hand - m.counts(), game.level)


def test_bad_input_is_refused():
    search = GuanDanMinCombinationSearch()
    with pytest.raises(ValueError, match="54-count"):
        search.k(np.zeros(15), 0)
    with pytest.raises(ValueError, match="0..2"):
        search.k(np.full(NUM_KINDS, 3), 0)
    hand = hand_from_string("3d 4d")
    with pytest.raises(ValueError, match="not"):
        search.k_after(hand, 0, hand_from_string("5d")[None, :])
    with pytest.raises(ValueError, match="level"):
        min_combinations("guandan", "3d 4d")
    with pytest.raises(ValueError, match="level"):
        min_combinations("doudizhu", "334", level=3)


def test_pack_counts_subtracts_without_borrow():
    game = GuanDanGame(match=False).reset(11)
    hand = game.hands[0].astype(np.int64)
    for m in legal_moves(hand, None, game.level)[::97]:
        assert pack_counts(hand, game.level) - pack_counts(m.counts(), game.level) == \
            pack_counts(hand - m.counts(), game.level)


def _play_positions(num_deals: int, **env_options):
    """Positions of random play through the env (single deals unless options say otherwise): (game, legal ids)."""
    env = raw_env(**(env_options or {"match": False}))
    rng = np.random.default_rng(5)
    for deal in range(num_deals):
        env.reset(seed=deal)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            legal = env.legal_moves()
            yield env.game, legal
            env.step(int(legal[rng.integers(len(legal))]))


@pytest.mark.parametrize("slack", ["paper", 0.0, 2.0])
def test_pruning_keeps_the_winning_move_and_never_empties(slack):
    prunes = 0
    for game, legal in _play_positions(3):
        kept = prune_moves(game, legal, slack=slack)
        assert 1 <= len(kept) <= len(legal) and set(kept.tolist()) <= set(legal.tolist())
        prunes += len(kept) < len(legal)
        if legal.min() >= NUM_SPECIAL:
            table = level_table(game.level)
            hand = game.hands[game.current_player]
            wins = [a for a in legal.tolist() if (table.counts_of(np.array([a - NUM_SPECIAL]))[0] == hand).all()]
            assert set(wins) <= set(kept.tolist())
    assert prunes > 0


def test_pruning_ids_agree_with_k_of_the_move_values_and_tribute_is_never_pruned():
    """The kept ids are exactly the moves whose K (computed from the engine's Move values, not the id tables) is
    within K_min + 1; tribute and return decisions are never pruned."""
    checked = tributes = 0
    search = GuanDanMinCombinationSearch()
    for game, legal in _play_positions(1, max_deals=2, tribute_decisions=True):
        values = game.legal_move_values()
        kept_ids = prune_moves(game, legal, slack=1.0)
        if legal.min() < NUM_SPECIAL:
            assert kept_ids.tolist() == legal.tolist()
            assert all(m.category in (Category.TRIBUTE, Category.RETURN) for m in values)
            tributes += len(legal) > 1
            continue
        after = search.k_after(game.hands[game.current_player], game.level, np.stack([m.counts() for m in values]))
        expected = [int(a) for a, k in zip(legal, after) if k <= after.min() + 1.0]
        assert kept_ids.tolist() == expected
        table = level_table(game.level)
        assert [table.move_of(int(a) - NUM_SPECIAL) for a in legal] == values
        checked += 1
    assert checked > 100 and tributes > 0


def test_guandan_threshold_counts_only_players_still_in_the_deal():
    game = GuanDanGame(match=False).reset(0)
    hands = game.hands.copy()
    hands[1] = 0
    game.set_hands(hands, current_player=0)
    fewest = int(hands.sum(axis=1)[[0, 2, 3]].min())
    assert prune_threshold(game) == pytest.approx(27 / fewest + 1 + len(game.history) // 4)


def test_mcs_greedy_plays_the_least_k_move_and_beats_random():
    """The GuanDan mcs-greedy agent: the chosen move has the least K after it; it survives pickling (Ray workers);
    over 60 matches x 2 (teams swapped, first deal only) it scores more DanZero points per deal than random."""
    import pickle

    from cardrl.agents import MCSGreedyAgent, RandomAgent
    from cardrl.eval.matches import run_matches

    agent = pickle.loads(pickle.dumps(MCSGreedyAgent.for_game("guandan")))
    search = GuanDanMinCombinationSearch()
    checked = 0
    for game, _ in _play_positions(2):
        legal, values = game.legal_moves(), game.legal_move_values()
        view = game.view(game.current_player)
        move = agent.act(view, legal)
        assert isinstance(move, int) and move in legal
        if len(legal) > 1:
            after = search.k_after(view.hand, view.level, np.stack([m.counts() for m in values]))
            assert after[legal.tolist().index(move)] == after.min()
            checked += 1
    assert checked > 50
    result = run_matches(agent, RandomAgent(1), 60, seed=4, game="guandan", max_deals=1)
    low, _ = result.points_per_deal_interval
    assert low > 0, result.points_per_deal_interval
