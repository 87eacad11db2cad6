"""Property tests of the Big2 engine and move table over random games and random hands (docs/rules.md "Big2").

Legality is judged by the independent classifier of ``big2_reference`` (every subset of a small hand read
from first principles), never by the move table's own categories, keys or follow ranges.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.big2_reference import beats, brute_force_legal, cards_of, classify
from cardrl.games.big2 import Big2Game
from cardrl.games.big2.moves import big2_move_table
from helpers.game_state import snapshot

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
ORDERS = st.sampled_from(["bigzero", "low"])
MULTIPLIERS = st.sampled_from([None, {10: 2, 13: 3}, {5: 1.5}])
SMALL = 8  # hands up to this size get the full brute-force oracle


@lru_cache(maxsize=None)
def reference_kinds(order: str) -> tuple:
    """The independent reading of every table entry (pass: ``None``)."""
    table = big2_move_table(order)
    return tuple(None if s == "pass" else classify(cards_of(s), order) for s in table.strings)


def hand_of(game: Big2Game, seat: int) -> tuple[int, ...]:
    return tuple(int(c) for c in np.flatnonzero(game.hands[seat][:52]))


def random_action(game: Big2Game, rng: np.random.Generator) -> int:
    """A uniform legal move; half the time a uniform category first, so that five-card hands get played."""
    legal = game.legal_moves()
    if rng.random() < 0.5:
        cats = game.table.category[legal]
        legal = legal[cats == rng.choice(np.unique(cats))]
    return int(rng.choice(legal))


def expected_payoffs(left: list[int], winner: int, multipliers) -> list[float]:
    """docs/rules.md: each loser pays one point per card left (times the factor of the largest threshold reached)."""
    out = []
    for n in left:
        factor = 1.0
        for threshold in sorted(multipliers or {}):
            if n >= threshold:
                factor = float(multipliers[threshold])
        out.append(-n * factor)
    out[winner] = -sum(out)
    return out


def check_position(game: Big2Game, kinds, owner: int, to_beat: int | None, order: str) -> None:
    seat = game.current_player
    # the 52 cards are conserved: each card is in exactly one hand or played by exactly one seat
    total = game.hands.astype(np.int64).sum(axis=0) + game.played.astype(np.int64).sum(axis=0)
    assert total[:52].tolist() == [1] * 52 and not total[52:].any()
    assert [int(game.hands[s].sum()) for s in range(4)] == [bin(game.hand_bits(s)).count("1") for s in range(4)]
    assert game.last_move == to_beat
    if to_beat is None:
        assert seat == owner  # the last player to play leads (the 3d holder at the start)
    hand = set(hand_of(game, seat))
    legal = game.legal_moves()
    assert (np.diff(legal) > 0).all()
    pass_id = game.table.pass_id
    assert (pass_id in legal) == (to_beat is not None)  # the leader may not pass; a follower always may
    must = game.open_with_three_diamonds and not game.history
    last_kind = None if to_beat is None else kinds[to_beat]
    for m in legal:
        if m == pass_id:
            continue
        cards = cards_of(game.table.strings[m])
        assert set(cards) <= hand, game.table.strings[m]
        assert kinds[m] is not None and beats(kinds[m], last_kind), (game.table.strings[m], last_kind)
        assert not must or 0 in cards
    if len(hand) <= SMALL:
        last_cards = None if to_beat is None else cards_of(game.table.strings[to_beat])
        expect = brute_force_legal(hand, last_cards, order, must_contain=0 if must else None)
        assert {game.table.strings[m] for m in legal} == expect


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, policy=SEEDS, order=ORDERS, open3=st.booleans(), multipliers=MULTIPLIERS)
def test_random_games(seed, policy, order, open3, multipliers):
    """Cards conserved; every legal move is held and beats the last move (independent rules), and for hands of
    up to 8 cards the legal set is the brute-force oracle's; the trick passes by the rules; the game ends when
    a hand empties; payoffs are zero-sum and as docs/rules.md says; replay reproduces the game."""
    options = dict(straight_order=order, open_with_three_diamonds=open3, penalty_multipliers=multipliers)
    game = Big2Game(**options).reset(seed)
    kinds = reference_kinds(order)
    rng = np.random.default_rng(policy)
    assert 0 in hand_of(game, game.current_player)  # the 3d holder opens
    owner, to_beat, passes = game.current_player, None, 0
    while not game.is_over:
        check_position(game, kinds, owner, to_beat, order)
        assert not game.payoffs().any()
        seat = game.current_player
        action = random_action(game, rng)
        game.step(action)
        if action == game.table.pass_id:
            passes += 1
            if passes == 3:
                to_beat, passes = None, 0
        else:
            to_beat, owner, passes = action, seat, 0
        empty = [s for s in range(4) if not game.hands[s].any()]
        assert game.is_over == bool(empty)
        if game.is_over:
            assert empty == [seat] and game.winner == seat
        else:
            assert game.current_player == (seat + 1) % 4
    pay = game.payoffs()
    assert pay.sum() == 0
    left = [int(game.hands[s].sum()) for s in range(4)]
    assert pay.tolist() == expected_payoffs(left, game.winner, multipliers)
    for s in range(4):  # played cards per seat are the cards of that seat's moves
        played = [c for m, who in zip(game.history, game.history_seats) if who == s and m != game.table.pass_id
                  for c in cards_of(game.table.strings[m])]
        assert sorted(played) == [int(c) for c in np.flatnonzero(game.played[s])]
    assert snapshot(Big2Game.replay(seed, game.actions, **options)) == snapshot(game)


CARDS = st.lists(st.integers(0, 51), min_size=1, max_size=SMALL, unique=True)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=CARDS, order=ORDERS, last=st.one_of(st.none(), st.integers(0, 19_897)),
       seeded=st.one_of(st.none(), st.integers(0, 19_897)), data=st.data())
def test_legal_set_equals_brute_force_oracle(hand, order, last, seeded, data):
    """Any hand of up to 8 cards, leading or following any move (often one of its own size): the compiled scan
    returns exactly the brute-force oracle's set. ``seeded`` builds the hand around a table move (plus random
    cards) so that five-card hands are common."""
    table = big2_move_table(order)
    if seeded is not None:
        hand = list(dict.fromkeys(list(cards_of(table.strings[seeded])) + hand))[:SMALL]
    if last is not None and data.draw(st.booleans()):
        # follow a move of a size the hand can play, to exercise the higher-key boundary
        sizes = [n for n in (1, 2, 3, 5) if n <= len(hand)]
        n = data.draw(st.sampled_from(sizes))
        same = np.flatnonzero(table.length == n)
        last = int(same[data.draw(st.integers(0, len(same) - 1))])
    bits = sum(1 << c for c in hand)
    got = {table.strings[m] for m in table.legal_moves(bits, last)}
    last_cards = None if last is None else cards_of(table.strings[last])
    assert got == brute_force_legal(hand, last_cards, order)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, policy=SEEDS, cut=st.floats(0, 1))
def test_replay_mid_game_and_copy_independence(seed, policy, cut):
    """replay(seed, a prefix) is that position; a copy() and its original never share state."""
    rng = np.random.default_rng(policy)
    full = Big2Game().reset(seed)
    while not full.is_over:
        full.step(random_action(full, rng))
    prefix = full.actions[: int(cut * len(full.actions))]
    game = Big2Game.replay(seed, prefix)
    assert game.actions == prefix
    if game.is_over:
        return
    before = snapshot(game)
    twin = game.copy()
    while not twin.is_over:
        twin.step(random_action(twin, rng))
    assert snapshot(game) == before
    after_twin = snapshot(twin)
    game.step(random_action(game, rng))
    assert snapshot(twin) == after_twin
