"""Minimum Combination Search (Luo & Tan 2024, eq. 1, Algorithm 5) and ODMC pruning (eq. 2) for DouDiZhu.

Exactness is judged by an independent brute-force search written here: the fewest moves of the move table (taken
from its per-move rank counts, not its bit sets or groups) that exactly cover the hand, always covering the lowest
remaining rank first (every decomposition has a move holding it, so this enumerates all decompositions).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from cardrl.agents import MCSGreedyAgent
from cardrl.cards import rank_counts_to_bits, string_to_rank_counts
from cardrl.games.big2 import Big2Game
from cardrl.games.doudizhu import DouDizhuGame
from cardrl.games.doudizhu.moves import doudizhu_move_table
from cardrl.search import MinCombinationSearch, min_combinations, prune_moves
from cardrl.search.mcs import MCSRules, fixed_table


def brute_force_k(table, counts: np.ndarray) -> int:
    rc = table.rank_counts[:-1].astype(np.int64)  # every move but pass

    @lru_cache(maxsize=None)
    def solve(hand: tuple) -> int:
        h = np.array(hand)
        if not h.any():
            return 0
        low = int(np.argmax(h > 0))
        fits = (rc <= h).all(axis=1) & (rc[:, low] > 0)
        return 1 + min(solve(tuple(h - rc[m])) for m in np.flatnonzero(fits))

    return solve(tuple(int(c) for c in counts))


def _random_hand(rng: np.random.Generator, size: int) -> np.ndarray:
    deck = np.repeat(np.arange(15), [4] * 13 + [1, 1])
    counts = np.zeros(15, dtype=np.int64)
    np.add.at(counts, rng.choice(deck, size=size, replace=False), 1)
    return counts


def _clumpy_hand(rng: np.random.Generator, size: int) -> np.ndarray:
    """Hands rich in bombs, trios, pairs and runs, where kicker rules and chains matter most."""
    counts = np.zeros(15, dtype=np.int64)
    while counts.sum() < size:
        r = int(rng.integers(13)) if rng.random() < 0.9 else int(rng.integers(13, 15))
        cap = 1 if r >= 13 else 4
        if rng.random() < 0.3 and r < 8:  # a run of three or more ranks
            for s in range(r, r + int(rng.integers(3, 6))):
                if s < 12 and counts[s] < 4 and counts.sum() < size:
                    counts[s] += 1
        elif counts[r] < cap:
            counts[r] += min(cap - counts[r], int(rng.integers(1, 5)), size - counts.sum())
    return counts


@pytest.mark.parametrize("kickers", ["douzero", "distinct"])
def test_k_equals_brute_force_on_random_hands(kickers):
    table = doudizhu_move_table(kickers)
    mcs = MinCombinationSearch(table, DouDizhuGame(kickers=kickers).min_combination_rules())
    rng = np.random.default_rng(7 if kickers == "douzero" else 8)
    checked = 0
    for i in range(1500):
        size = int(rng.integers(1, 13))
        counts = _random_hand(rng, size) if i % 2 else _clumpy_hand(rng, size)
        expected = brute_force_k(table, counts)
        got = mcs.k(rank_counts_to_bits(counts))
        assert got == expected, (kickers, counts.tolist(), got, expected)
        checked += 1
    assert checked == 1500


@pytest.mark.parametrize("hand,kickers,k", [
    ("", "douzero", 0),
    ("3", "douzero", 1),
    ("34567", "douzero", 1),                 # chain
    ("334455", "douzero", 1),                # pair chain
    ("33344456", "douzero", 1),              # plane with solos
    ("3334445566", "douzero", 1),            # plane with pairs
    ("BR", "douzero", 1),                    # rocket
    ("3333BR", "douzero", 2),                # DouZero's table: the jokers are never kickers together
    ("3333BR", "distinct", 1),               # Luo & Tan's: they may be
    ("333344", "douzero", 1),                # bomb + two solos of one rank (4444+55 in DouZero's table)
    ("333344", "distinct", 2),               # distinct kickers only
    ("33334444", "douzero", 2),              # 3333+4444 is not a bomb with two pairs (Algorithm 5's recurrence says 1)
    ("3333445566", "douzero", 2),            # bomb + two pairs (8 cards) + a pair, or chains... 2 either way
    ("33334455", "douzero", 1),              # bomb with two pairs
    ("3456789TJQKA", "douzero", 1),          # the longest chain
    ("345678", "douzero", 1),
    ("3456789TJQKA2BR", "douzero", 3),       # chain + 2 + rocket
    ("333444555666", "douzero", 1),          # a plane of four trios
    ("333444555", "douzero", 1),
])
def test_known_hands(hand, kickers, k):
    table = doudizhu_move_table(kickers)
    counts = string_to_rank_counts(hand)
    assert MinCombinationSearch(table, DouDizhuGame(kickers=kickers).min_combination_rules()).k(rank_counts_to_bits(counts)) == k
    assert brute_force_k(table, counts) == k


def test_fixed_table_matches_paper_where_the_rules_agree():
    fixed = fixed_table(MCSRules(*DouDizhuGame().min_combination_rules()))
    assert fixed[0, 0, 0, 0, 0] == 0
    assert fixed[1, 0, 0, 0, 0] == 1 and fixed[0, 1, 0, 0, 0] == 1 and fixed[0, 0, 1, 0, 0] == 1
    assert fixed[1, 0, 1, 0, 0] == 1  # trio + solo
    assert fixed[0, 1, 1, 0, 0] == 1  # trio + pair
    assert fixed[2, 0, 0, 1, 0] == 1  # bomb + two solos
    assert fixed[0, 0, 0, 2, 0] == 2  # two bombs: not a bomb with two pairs
    assert fixed[0, 0, 0, 0, 2] == 1  # rocket
    assert fixed[3, 0, 0, 0, 0] == 3


def test_min_combinations_accepts_strings_counts_and_bits():
    counts = string_to_rank_counts("33344456")
    assert min_combinations("doudizhu", "33344456") == 1
    assert min_combinations("doudizhu", counts) == 1
    assert min_combinations("doudizhu", rank_counts_to_bits(counts)) == 1
    game = DouDizhuGame().reset(3)
    assert min_combinations(game, game.hands[0]) == min_combinations("doudizhu", game.hands[0])
    with pytest.raises(ValueError, match="game"):
        min_combinations("chess", "3")
    with pytest.raises(ValueError, match="rank"):
        min_combinations("doudizhu", "33333")


def test_search_pickles_without_its_memo():
    """Agents holding a search are shipped to Ray workers: the copy starts with an empty memo and gives the same K."""
    import pickle

    game = DouDizhuGame().reset(5)
    mcs = MinCombinationSearch(game.table, game.min_combination_rules())
    k = mcs.k(game.hand_bits(0))
    assert mcs.cache_size() > 0
    copy = pickle.loads(pickle.dumps(mcs))
    assert copy.cache_size() == 0 and copy.k(game.hand_bits(0)) == k


def test_k_after_is_k_of_the_hand_without_the_move():
    game = DouDizhuGame().reset(11)
    mcs = MinCombinationSearch(game.table, game.min_combination_rules())
    legal = game.legal_moves()
    after = mcs.k_after(game.hand_bits(0), legal)
    for m, k in zip(legal, after):
        rest = game.hands[0] - game.table.rank_counts[m]
        assert k == mcs.k(rank_counts_to_bits(rest))
    assert after.min() == mcs.k(game.hand_bits(0)) - 1  # a leader can always start an optimal decomposition


def _play_random(seed: int, slack, steps_checked: list):
    game = DouDizhuGame().reset(seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        legal = game.legal_moves()
        kept = prune_moves(game, legal, slack=slack)
        assert len(kept) >= 1
        assert set(kept.tolist()) <= set(legal.tolist())
        hand = game.hands[game.current_player]
        emptying = [m for m in legal if (game.table.rank_counts[m] == hand).all()]
        assert set(emptying) <= set(kept.tolist())  # the move that empties the hand is never pruned
        if game.last_move is not None and slack != 0.0:
            assert game.table.pass_id in kept  # K after a pass is K; K_min >= K - 1
        steps_checked.append(len(legal) - len(kept))
        game.step(int(rng.choice(kept)))


@pytest.mark.parametrize("slack", ["paper", 0.0, 1.0])
def test_pruning_never_empties_the_set_nor_drops_the_winning_move(slack):
    pruned: list[int] = []
    for seed in range(40):
        _play_random(seed, slack, pruned)
    assert sum(pruned) > 0  # the rule does prune something in these games


def test_prune_threshold_follows_eq2():
    from cardrl.search.prune import prune_threshold
    game = DouDizhuGame().reset(5)
    # first move of the landlord: N = 18 (54 / 3), n = 17 (fewest cards held), d = 1 (first round)
    assert prune_threshold(game) == pytest.approx(18 / 17 + 1)
    assert prune_threshold(game, slack=2.0) == 2.0
    assert prune_threshold(game, extra=0.5) == pytest.approx(18 / 17 + 1.5)
    for _ in range(3):
        game.step(int(game.legal_moves()[0]))
    assert prune_threshold(game) > 18 / 17 + 1  # second round: d = 2, and someone holds fewer cards
    with pytest.raises(ValueError, match="slack"):
        prune_moves(game, game.legal_moves(), slack="sometimes")
    with pytest.raises(ValueError, match="slack"):
        prune_moves(game, game.legal_moves(), slack=-1.0)


def test_mcs_greedy_plays_the_move_that_minimises_k():
    game = DouDizhuGame().reset(21)
    agent = MCSGreedyAgent.for_game("doudizhu")
    legal = game.legal_moves()
    move = agent.act(game.view(0), legal)
    mcs = MinCombinationSearch(game.table, game.min_combination_rules())
    after = mcs.k_after(game.hand_bits(0), legal)
    assert after[list(legal).index(move)] == after.min()
    ranks = game.table.rank[legal[after == after.min()]]
    assert game.table.rank[move] == ranks.min()


def test_mcs_greedy_beats_random():
    from cardrl.agents import RandomAgent
    from cardrl.eval.tournament import run_tournament
    result = run_tournament(MCSGreedyAgent.for_game("doudizhu"), RandomAgent(seed=1), 150, game="doudizhu", seed=3)
    assert result.adp_interval[0] > 0


# ---- Big2 (Algorithm 2) -------------------------------------------------------------------------------------------
def brute_force_k_bits(table, hand: int) -> int:
    """Fewest table moves (as card bit sets) that exactly cover a suit-aware hand, covering the lowest card first."""
    bits = table.bits[:-1]

    @lru_cache(maxsize=None)
    def solve(h: int) -> int:
        if h == 0:
            return 0
        low = np.uint64(h & -h)
        fits = ((bits & np.uint64(h)) == bits) & ((bits & low) != 0)
        return 1 + min(solve(h & ~int(bits[m])) for m in np.flatnonzero(fits))

    return solve(int(hand))


def test_big2_k_equals_brute_force_on_random_hands():
    from cardrl.games.big2.moves import big2_move_table
    table = big2_move_table()
    mcs = MinCombinationSearch(table, Big2Game().min_combination_rules())
    rng = np.random.default_rng(2)
    for i in range(1500):
        size = int(rng.integers(1, 12))
        if i % 3 == 0:  # suit-heavy hands: flushes and straight flushes
            suit = int(rng.integers(4))
            pool = [4 * r + suit for r in range(13)] + list(rng.choice(52, size=6, replace=False))
            cards = rng.choice(sorted(set(pool)), size=min(size, len(set(pool))), replace=False)
        else:
            cards = rng.choice(52, size=size, replace=False)
        hand = sum(1 << int(c) for c in cards)
        assert mcs.k(hand) == brute_force_k_bits(table, hand), sorted(int(c) for c in cards)


def test_big2_fixed_moves_and_known_hands():
    from cardrl.games.big2.moves import big2_move_table, cards_to_bits, parse_cards
    fixed = fixed_table(MCSRules(*Big2Game().min_combination_rules()))
    assert fixed[0, 0, 0, 1, 0] == 2  # a bare four is not a move: two pairs
    assert fixed[1, 0, 0, 1, 0] == 1  # quads with a kicker
    assert fixed[0, 1, 1, 0, 0] == 1  # full house
    mcs = MinCombinationSearch(big2_move_table(), Big2Game().min_combination_rules())
    for text, k in [("3d4c5h6s7d", 1), ("3d5d7d9dJd", 1), ("3d3c3h3s", 2), ("3d3c3h3s4d", 1),
                    ("3d4d5d6d7d8d", 2), ("3d4c5h6s7d8d9dTdJdQd", 2), ("2s", 1)]:
        assert mcs.k(cards_to_bits(parse_cards(text))) == k, text


def test_big2_pruning_keeps_the_winning_move_and_never_empties():
    from cardrl.games.big2 import Big2Game
    game = Big2Game()
    pruned = 0
    for seed in range(30):
        game.reset(seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            legal = game.legal_moves()
            kept = prune_moves(game, legal)
            assert len(kept) >= 1 and set(kept.tolist()) <= set(legal.tolist())
            hand = game.hand_bits(game.current_player)
            for m in legal:
                if int(game.table.bits[m]) == hand:
                    assert m in kept
            pruned += len(legal) - len(kept)
            game.step(int(rng.choice(kept)))
    assert pruned > 0


def test_mcs_greedy_big2_beats_random():
    from cardrl.agents import RandomAgent
    from cardrl.agents.base import play_game
    from cardrl.games.big2 import Big2Game
    game = Big2Game()
    greedy, scores = MCSGreedyAgent.for_game("big2"), []
    for seed in range(60):
        for seat in range(4):
            agents = [RandomAgent(seed=s) for s in range(4)]
            agents[seat] = greedy
            scores.append(play_game(game, agents, seed)[seat])
    assert np.mean(scores) > 0
