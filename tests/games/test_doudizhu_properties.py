"""Property tests of the DouDiZhu engine over thousands of random games (docs/rules.md "DouDiZhu").

Legality is checked against an independent classifier written here from the rules (category, length and
main rank from the card counts alone), not against the move table's own ``category``/``beats``/follow ranges.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardrl.games.doudizhu import DouDizhuGame
from cardrl.games.doudizhu.moves import doudizhu_move_table
from helpers.game_state import snapshot

RANKS = "3456789TJQKA2BR"
BLACK, RED, ACE = 13, 14, 11
FULL_DECK = np.array([4] * 13 + [1, 1])
# category names of the rules; compared with the table's Category values by name only
PASS, SOLO, PAIR, TRIO, TRIO_SOLO, TRIO_PAIR, CHAIN, PAIR_CHAIN, PLANE, PLANE_SOLOS, PLANE_PAIRS, \
    BOMB_SOLOS, BOMB_PAIRS, BOMB, ROCKET = range(15)
_CHAIN_KINDS = {1: (CHAIN, 5, 12), 2: (PAIR_CHAIN, 3, 10), 3: (PLANE, 2, 6)}  # width -> kind, min, max len

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


# ---------------------------------------------------------------------------------------------
# an independent classifier of a set of cards (rank counts) under a kicker convention
# ---------------------------------------------------------------------------------------------

def _plane_heads(c: tuple[int, ...], length: int):
    for head in range(0, ACE - length + 2):
        if all(c[r] >= 3 for r in range(head, head + length)):
            yield head


def _solo_kickers_ok(rest: list[int], plane: range, kickers: str) -> bool:
    if any(rest[r] for r in plane):
        return False  # a kicker of the plane's own rank
    if kickers == "distinct":
        return max(rest) <= 1
    if rest[BLACK] and rest[RED]:
        return False  # the two jokers are never kickers together
    if max(rest) >= 4:
        return False  # never a bomb among the kickers
    neighbours = {plane.start - 1, plane.stop} & set(range(ACE + 1))
    return not any(rest[r] == 3 for r in neighbours)  # 333444555+666 is the plane 333444555666


def interpretations(counts, kickers: str = "douzero") -> set[tuple[int, int, int]]:
    """Every (category, length, main rank) the cards can be played as, by the rules of docs/rules.md."""
    c = tuple(int(x) for x in counts)
    n = sum(c)
    present = [r for r in range(15) if c[r]]
    if n == 0:
        return {(PASS, 0, -1)}
    if n == 2 and c[BLACK] == 1 and c[RED] == 1:
        return {(ROCKET, 1, BLACK)}
    if len(present) == 1:
        r = present[0]
        return {({1: SOLO, 2: PAIR, 3: TRIO, 4: BOMB}[c[r]], 1, r)}
    out = set()
    widths = {c[r] for r in present}
    if (len(widths) == 1 and present[-1] <= ACE and present == list(range(present[0], present[-1] + 1))):
        cat, lo, hi = _CHAIN_KINDS.get(widths.pop(), (None, 99, 0))
        if lo <= len(present) <= hi:
            out.add((cat, len(present), present[0]))
    if n == 4 and sorted(c[r] for r in present) == [1, 3]:
        out.add((TRIO_SOLO, 1, next(r for r in present if c[r] == 3)))
    if n == 5 and sorted(c[r] for r in present) == [2, 3]:
        out.add((TRIO_PAIR, 1, next(r for r in present if c[r] == 3)))
    for r in (r for r in present if c[r] == 4):
        rest = [k for k in present if k != r]
        if n == 6:
            solo_ok = (not (c[BLACK] and c[RED])) if kickers == "douzero" else all(c[k] == 1 for k in rest)
            if solo_ok:
                out.add((BOMB_SOLOS, 1, r))
        if n == 8 and len(rest) == 2 and all(c[k] == 2 for k in rest):
            out.add((BOMB_PAIRS, 1, r))
    for length in range(2, 6):
        if n == 4 * length:
            for head in _plane_heads(c, length):
                rest = list(c)
                for r in range(head, head + length):
                    rest[r] -= 3
                if _solo_kickers_ok(rest, range(head, head + length), kickers):
                    out.add((PLANE_SOLOS, length, head))
        if n == 5 * length and length <= 4:
            for head in _plane_heads(c, length):
                rest = list(c)
                for r in range(head, head + length):
                    rest[r] -= 3
                pairs = [k for k in range(15) if rest[k]]
                if len(pairs) == length and all(rest[k] == 2 for k in pairs) and not set(pairs) & set(
                        range(head, head + length)):
                    out.add((PLANE_PAIRS, length, head))
    return out


def beats(move: tuple[int, int, int], last: tuple[int, int, int] | None) -> bool:
    """docs/rules.md: same category and length with a higher rank, or a bomb, or the rocket; pass always follows."""
    cat, length, rank = move
    if last is None:
        return cat != PASS
    if cat in (PASS, ROCKET):
        return True
    if last[0] == ROCKET:
        return False
    if cat == BOMB:
        return last[0] != BOMB or rank > last[2]
    return cat == last[0] and length == last[1] and rank > last[2]


def string_counts(text: str) -> np.ndarray:
    out = np.zeros(15, dtype=np.int64)
    if text != "pass":
        for ch in text:
            out[RANKS.index(ch)] += 1
    return out


def counts_bits(counts) -> int:
    """A set of cards as 54 bits, each rank's cards in its own 4 bits from the lowest (jokers: bits 52, 53)."""
    bits = sum(((1 << int(counts[r])) - 1) << (4 * r) for r in range(13))
    return bits | (int(counts[BLACK]) << 52) | (int(counts[RED]) << 53)


class Reference:
    """The table re-derived with :func:`interpretations`: per move id its counts and (category, length, rank)."""

    def __init__(self, kickers: str):
        table = doudizhu_move_table(kickers)
        self.strings = table.strings
        self.counts = np.stack([string_counts(s) for s in table.strings])
        kinds = []
        for s, counts in zip(table.strings, self.counts):
            found = interpretations(counts, kickers)
            assert len(found) == 1, (s, found)  # every move of the table has exactly one reading
            kinds.append(found.pop())
        self.kind = kinds
        self.cat = np.array([k[0] for k in kinds])
        self.len = np.array([k[1] for k in kinds])
        self.rank = np.array([k[2] for k in kinds])
        self.pass_id = self.strings.index("pass")
        self.bits = np.array([counts_bits(c) for c in self.counts], dtype=np.uint64)

    def expected_legal(self, hand: np.ndarray, last: int | None) -> np.ndarray:
        """Every move held in ``hand`` that beats ``last`` by :func:`beats` (vectorised over the table)."""
        held = (self.bits & ~np.uint64(counts_bits(hand))) == 0
        if last is None:
            ok = self.cat != PASS
        else:
            lc, ll, lr = self.kind[last]
            if lc == ROCKET:
                ok = self.cat == PASS
            else:
                same = (self.cat == lc) & (self.len == ll) & (self.rank > lr)
                bomb = (self.cat == BOMB) & ((lc != BOMB) | (self.rank > lr))
                ok = same | bomb | (self.cat == ROCKET) | (self.cat == PASS)
        return np.flatnonzero(held & ok)


@lru_cache(maxsize=None)
def reference(kickers: str) -> Reference:
    return Reference(kickers)


_NAMES = ("PASS", "SOLO", "PAIR", "TRIO", "TRIO_SOLO", "TRIO_PAIR", "CHAIN", "PAIR_CHAIN", "PLANE",
          "PLANE_SOLOS", "PLANE_PAIRS", "BOMB_SOLOS", "BOMB_PAIRS", "BOMB", "ROCKET")


@pytest.mark.parametrize("kickers", ["douzero", "distinct"])
def test_independent_classifier_agrees_with_every_table_entry(kickers):
    """Each entry has one reading by the rules, and the table's category/length/rank are that reading."""
    from cardrl.games.doudizhu.moves import Category

    ref = reference(kickers)
    table = doudizhu_move_table(kickers)
    assert [Category(int(c)).name for c in table.category] == [_NAMES[c] for c in ref.cat]
    assert (table.length.astype(int) == ref.len).all()
    assert (table.rank.astype(int)[:-1] == ref.rank[:-1]).all()


# ---------------------------------------------------------------------------------------------
# random games
# ---------------------------------------------------------------------------------------------

def random_action(game: DouDizhuGame, rng: np.random.Generator) -> int:
    """A uniform legal action; half the time a uniform category first, so that rare kinds get played."""
    legal = game.legal_moves()
    if game.phase == "play" and rng.random() < 0.5:
        cats = game.table.category[legal]
        legal = legal[cats == rng.choice(np.unique(cats))]
    return int(rng.choice(legal))


class Tracker:
    """The trick state of docs/rules.md kept from the moves alone: what to beat and who leads after two passes."""

    def __init__(self, leader: int):
        self.to_beat: int | None = None
        self.owner = leader
        self.passes = 0

    def record(self, move: int, seat: int, pass_id: int) -> None:
        if move == pass_id:
            self.passes += 1
            if self.passes == 2:
                self.to_beat, self.passes = None, 0
        else:
            self.to_beat, self.owner, self.passes = move, seat, 0


def check_position(game: DouDizhuGame, ref: Reference, tracker: Tracker, full: bool) -> None:
    seat = game.current_player
    hand = game.hands[seat].astype(np.int64)
    # cards conserved: hands + played (+ bottom while bidding) = the deck, rank by rank
    total = game.hands.sum(axis=0) + game.played.sum(axis=0)
    if game.phase == "bid":
        total = total + game.bottom
        assert game.hands.sum(axis=1).tolist() == [17, 17, 17] and not game.played.any()
    assert total.tolist() == FULL_DECK.tolist()
    assert (game.hands >= 0).all() and (game.played >= 0).all()
    if game.phase != "play":
        return
    assert game.last_move == tracker.to_beat
    if tracker.to_beat is None:
        assert seat == tracker.owner  # the last player to play leads (the landlord at the start)
    legal = game.legal_moves()
    assert (np.diff(legal) > 0).all()  # sorted, no duplicates
    pass_legal = ref.pass_id in legal
    assert pass_legal == (game.last_move is not None)  # the leader may not pass; a follower always may
    last_kind = None if game.last_move is None else ref.kind[game.last_move]
    # every legal move is held and beats the last move (move by move on a sample, all of them at once below)
    for m in legal[:: max(1, len(legal) // 12)]:
        assert (ref.counts[m] <= hand).all(), ref.strings[m]
        assert beats(ref.kind[m], last_kind), (ref.strings[m], game.last_move and ref.strings[game.last_move])
        assert game.is_legal(int(m))
    others = np.arange(len(game.history) * 131 % 2_999, len(ref.strings), 2_999)  # some ids, legal or not
    assert [game.is_legal(int(m)) for m in others] == np.isin(others, legal).tolist()
    if full:  # the legal set is exactly the held moves that beat the last move by the independent rules
        assert legal.tolist() == ref.expected_legal(hand, game.last_move).tolist()


def play_and_check(game: DouDizhuGame, rng: np.random.Generator, ref: Reference, full: bool) -> None:
    tracker = None if game.phase == "bid" else Tracker(game.landlord)
    while not game.is_over:
        if tracker is None and game.phase == "play":
            tracker = Tracker(game.landlord)
        check_position(game, ref, tracker, full)
        assert not game.payoffs("adp").any() and not game.payoffs("wp").any()
        seat, phase = game.current_player, game.phase
        action = random_action(game, rng)
        game.step(action)
        if phase == "play":
            tracker.record(action, seat, ref.pass_id)
            empty = [s for s in range(3) if not game.hands[s].any()]
            # the game ends exactly when a hand empties, and the one who emptied it wins
            assert game.is_over == bool(empty)
            if game.is_over:
                assert empty == [seat] and game.winner == seat and action != ref.pass_id
            else:
                assert game.current_player == (seat + 1) % 3
    if tracker is not None:
        check_position(game, ref, tracker, full=False)  # conservation at the end


def check_payoffs(game: DouDizhuGame, ref: Reference) -> None:
    adp, wp = game.payoffs("adp"), game.payoffs("wp")
    assert adp.sum() == 0 and wp.sum() == 0  # zero-sum
    landlord_won = game.winner == game.landlord
    sign = 1 if landlord_won else -1
    bombs = sum(ref.kind[m][0] in (BOMB, ROCKET) for m in game.history)
    assert game.bomb_count == bombs
    bid = max(game.bids) if game.bidding else 1
    assert bid in (1, 2, 3)
    base = bid * 2 ** bombs
    expect = [-sign * base] * 3
    expect[game.landlord] = 2 * sign * base
    assert adp.tolist() == expect
    expect_wp = [-sign] * 3
    expect_wp[game.landlord] = 2 * sign
    assert wp.tolist() == expect_wp
    # played cards per seat are the cards of that seat's moves
    for s in range(3):
        moves = [m for m, who in zip(game.history, game.history_seats) if who == s]
        assert game.played[s].tolist() == sum((ref.counts[m] for m in moves), np.zeros(15, int)).tolist()


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, policy=SEEDS, kickers=st.sampled_from(["douzero", "distinct"]), bidding=st.booleans())
def test_random_games(seed, policy, kickers, bidding):
    """Cards conserved, legal sets = held moves that beat (independent rules), the trick passes by the rules,
    the game ends exactly when a hand empties, zero-sum ADP/WP payoffs, and replay reproduces the game."""
    ref = reference(kickers)
    game = DouDizhuGame(kickers=kickers, bidding=bidding).reset(seed)
    play_and_check(game, np.random.default_rng(policy), ref, full=True)
    check_payoffs(game, ref)
    # replay(seed, actions) reproduces the final state exactly
    again = DouDizhuGame.replay(seed, game.actions, kickers=kickers, bidding=bidding)
    assert snapshot(again) == snapshot(game)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, policy=SEEDS, cut=st.floats(0, 1), bidding=st.booleans())
def test_replay_mid_game_and_copy_independence(seed, policy, cut, bidding):
    """replay(seed, a prefix of actions) is that position; a copy() and its original never share state."""
    rng = np.random.default_rng(policy)
    full = DouDizhuGame(bidding=bidding).reset(seed)
    while not full.is_over:
        full.step(random_action(full, rng))
    prefix = full.actions[: int(cut * len(full.actions))]
    game = DouDizhuGame.replay(seed, prefix, bidding=bidding)
    assert game.actions == prefix
    if game.is_over:
        return
    before = snapshot(game)
    twin = game.copy()
    assert snapshot(twin) == before
    # stepping the copy to the end leaves the original untouched ...
    while not twin.is_over:
        twin.step(random_action(twin, rng))
    assert snapshot(game) == before
    # ... and stepping the original leaves the finished copy untouched
    after_twin = snapshot(twin)
    game.step(random_action(game, rng))
    assert snapshot(twin) == after_twin
    # a copy replays like the original: same seed and actions give the same state
    assert snapshot(DouDizhuGame.replay(seed, twin.actions, bidding=bidding)) == after_twin


@settings(max_examples=400, deadline=None)
@given(seed=SEEDS, bids=st.lists(st.integers(0, 3), min_size=3, max_size=3))
def test_bidding_rounds(seed, bids):
    """One round of bids (each above the last, 3 ends it); the winner takes the bottom and leads."""
    game = DouDizhuGame(bidding=True).reset(seed)
    first, hands, bottom = game.current_player, game.hands.copy(), game.bottom.copy()
    best, winner = 0, None
    for i, b in enumerate(bids):
        seat = game.current_player
        assert seat == (first + i) % 3 and game.phase == "bid"
        legal = (game.legal_moves() - game.num_moves).tolist()
        assert legal == [0] + list(range(best + 1, 4))
        b = b if b in legal else 0
        game.step(game.num_moves + b)
        if b:
            best, winner = b, seat
        if b == 3:
            break
    if winner is None:  # all passed: a fresh deal, bidding again
        assert game.phase == "bid" and game.redeals == 1 and game.bids == []
        assert game.hands.sum(axis=1).tolist() == [17, 17, 17]
        assert (game.hands.sum(axis=0) + game.bottom).tolist() == FULL_DECK.tolist()
        return
    assert game.phase == "play" and game.landlord == winner and game.bid == best
    assert game.current_player == winner and game.last_move is None
    assert game.hands[winner].tolist() == (hands[winner] + bottom).tolist()
    assert game.hands.sum(axis=1).tolist() == [20 if s == winner else 17 for s in range(3)]
    assert [game.role(s) for s in range(3)] == [
        ("landlord", "landlord_down", "landlord_up")[(s - winner) % 3] for s in range(3)]
