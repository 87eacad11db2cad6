"""Differential tests: the engine's legal-move sets against independent DouDiZhu implementations.

Positions come from seeded random play of our engine (leads, follows after passes, after bombs, ...):

* DouZero (``douzero.env.move_generator.MovesGener`` with the follow filtering of
  ``douzero.env.game.GameEnv.get_legal_card_play_actions``, called on a real ``GameEnv`` given the hand and the
  play history), card ints 3..14, 17 (the 2), 20, 30 (jokers);
* RLCard (``DoudizhuJudger.playable_cards_from_hand`` for leads, ``utils.get_gt_cards`` for follows);
* OpenSpiel's C++ ``dou_dizhu``: the same deal is dealt through its chance nodes, the landlord bids 3, and both
  games are played move by move, comparing the legal sets at every position.

Known differences of the peers, each checked to be the only difference (anything else fails):

* DouZero generates kickers that DouZero's own 27,472-move list (= RLCard's) leaves out: both jokers as kickers
  (4444+BR, 333444+BR), a bomb among plane kickers, a kicker trio next to the plane (333444555+666);
  and it ranks a plane with solos by its *highest* trio, so a kicker trio (444555666+JJJ) gets the kicker's rank.
* OpenSpiel has no bomb-with-kickers moves; allows a kicker trio next to the plane (``333444555-666``);
  misses chains/pair chains/planes whose lowest rank the hand holds four times; lets a bomb follow the rocket.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardrl.cards import rank_counts_to_bits, rank_counts_to_string, string_to_rank_counts
from cardrl.games.doudizhu import ROLES, DouDizhuGame
from cardrl.games.doudizhu.moves import Category, doudizhu_move_table

RANKS = "3456789TJQKA2BR"
ACE, BLACK, RED = 11, 13, 14
DOUZERO_INTS = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)
TO_CHAR = {v: RANKS[i] for i, v in enumerate(DOUZERO_INTS)}
C = Category
BOMB_WITH_KICKERS = (int(C.BOMB_SOLOS), int(C.BOMB_PAIRS))

POSITIONS_PER_PEER = 8_000


@pytest.fixture(scope="module")
def table():
    return doudizhu_move_table("douzero")


def random_positions(seed0: int, min_positions: int):
    """Seeded random games of our engine; yields every position (the game before each action).

    Half the games pick uniformly among legal moves, half pick a category first (so bombs, planes and
    chains are played often); a third of the games bid for the landlord.
    """
    count, g = 0, 0
    while count < min_positions:
        seed = seed0 + g
        rng = np.random.default_rng(seed)
        game = DouDizhuGame(bidding=g % 3 == 2).reset(seed)
        by_category = g % 2 == 1
        g += 1
        while not game.is_over:
            legal = game.legal_moves()
            if game.phase == "bid":
                game.step(int(rng.choice(legal)))
                continue
            yield game
            count += 1
            if by_category:
                cats = game.table.category[legal]
                legal = legal[cats == rng.choice(np.unique(cats))]
            game.step(int(rng.choice(legal)))


def ours(game: DouDizhuGame) -> set[str]:
    return {game.table.strings[m] for m in game.legal_moves()}


def kind_counter(game: DouDizhuGame, counter: Counter) -> None:
    if game.last_move is None:
        counter["lead"] += 1
    else:
        counter["follow"] += 1
        counter[C(int(game.table.category[game.last_move])).name] += 1
        if game.history[-1] == game.table.pass_id:
            counter["follow after a pass"] += 1


# ---------------------------------------------------------------------------------------------
# DouZero
# ---------------------------------------------------------------------------------------------

def to_douzero(counts) -> list[int]:
    return [DOUZERO_INTS[r] for r in range(15) for _ in range(int(counts[r]))]


def from_douzero(cards) -> str:
    return "".join(TO_CHAR[c] for c in sorted(cards)) or "pass"


def douzero_legal(hand_counts, history: list[str], role: str) -> set[str]:
    """DouZero's legal moves for a hand after a play history (its real GameEnv method)."""
    from douzero.env.game import GameEnv

    env = GameEnv(players=None)
    env.acting_player_position = role
    env.info_sets[role].player_hand_cards = to_douzero(hand_counts)
    env.card_play_action_seq = [to_douzero(string_to_rank_counts(m)) for m in history]
    return {from_douzero(m) for m in env.get_legal_card_play_actions()}


def douzero_extra_is_known(move: str) -> bool:
    """A DouZero move outside the table: plane+solos or 4+2 with both jokers, a bomb or an adjacent trio as kickers."""
    c = string_to_rank_counts(move).astype(int)
    n = int(c.sum())
    if n == 6 and (c == 4).any():
        return bool(c[BLACK] and c[RED])
    if n % 4 or n < 8:
        return False
    length = n // 4
    for head in range(0, ACE - length + 2):
        plane = range(head, head + length)
        if not all(c[r] >= 3 for r in plane):
            continue
        rest = c.copy()
        rest[list(plane)] -= 3
        if rest[list(plane)].any():
            continue
        neighbours = {head - 1, head + length} & set(range(ACE + 1))
        if (rest[BLACK] and rest[RED]) or rest.max() == 4 or any(rest[r] == 3 for r in neighbours):
            return True
    return False


def has_kicker_trio(table, move: str) -> bool:
    i = table.id_of(move)
    return int((string_to_rank_counts(move) >= 3).sum()) > int(table.length[i])


def compare_douzero(table, hand, history: list[str], role: str, last: int | None, our_set: set[str],
                    stats: Counter) -> None:
    theirs = douzero_legal(hand, history, role)
    extra = theirs - set(table.index)
    assert all(douzero_extra_is_known(m) for m in extra), sorted(m for m in extra if not douzero_extra_is_known(m))
    stats["douzero kickers outside the table"] += len(extra)
    theirs -= extra
    if last is not None and table.category[last] == C.PLANE_SOLOS:
        # DouZero ranks a plane with solos by its highest trio: compare the moves it ranks right
        if has_kicker_trio(table, table.strings[last]):
            drop = {m for m in theirs | our_set if table.category[table.id_of(m)] == C.PLANE_SOLOS}
        else:
            drop = {m for m in theirs | our_set
                    if table.category[table.id_of(m)] == C.PLANE_SOLOS and has_kicker_trio(table, m)}
        stats["douzero plane ranked by a kicker trio"] += len(drop)
        theirs, our_set = theirs - drop, our_set - drop
    assert theirs == our_set, (rank_counts_to_string(hand), history[-2:], sorted(theirs - our_set)[:8],
                               sorted(our_set - theirs)[:8])


def test_legal_moves_match_douzero_on_random_positions(table):
    stats, kinds = Counter(), Counter()
    for game in random_positions(seed0=0, min_positions=POSITIONS_PER_PEER):
        seat = game.current_player
        role = ROLES[(seat - game.landlord) % 3]
        history = [game.table.strings[m] for m in game.history]
        compare_douzero(table, game.hands[seat], history, role, game.last_move, ours(game), stats)
        kind_counter(game, kinds)
    assert kinds["lead"] + kinds["follow"] >= POSITIONS_PER_PEER
    assert kinds["lead"] > 500 and kinds["follow after a pass"] > 500 and kinds["BOMB"] + kinds["ROCKET"] > 20
    assert stats["douzero kickers outside the table"] > 0  # the known difference does show up


def unseen_rival(game: DouDizhuGame, rng: np.random.Generator) -> int:
    """A move the other two players could hold (category first, then uniform)."""
    table = game.table
    unseen = game.hands.sum(axis=0) - game.hands[game.current_player]
    moves = table.legal_moves(rank_counts_to_bits(unseen), None)
    cats = table.category[moves]
    return int(rng.choice(moves[cats == rng.choice(np.unique(cats))]))


def test_follows_of_every_category_match_douzero_and_rlcard(table):
    """Leads of random play, each followed against rivals of every category drawn from the unseen cards."""
    rng = np.random.default_rng(2024)
    stats, cats = Counter(), Counter()
    positions = 0
    for game in random_positions(seed0=50_000, min_positions=2_500):
        if game.last_move is not None:
            continue
        hand = game.hands[game.current_player]
        for _ in range(3):
            rival = unseen_rival(game, rng)
            our_set = {table.strings[m] for m in table.legal_moves(rank_counts_to_bits(hand), rival)}
            compare_douzero(table, hand, [table.strings[rival]], "landlord", rival, set(our_set), stats)
            assert rlcard_follow(hand, table.strings[rival]) == our_set
            cats[C(int(table.category[rival])).name] += 1
            positions += 1
    assert positions >= 1_500 and set(cats) == {c.name for c in C if c != C.PASS}


def test_douzero_ranks_a_plane_by_its_highest_trio_we_by_the_plane(table):
    """The documented DouZero difference: 444555666+JJJ is a plane of 4..6, which does not beat 555666777+89T."""
    hand = string_to_rank_counts("444555666JJJ")
    rival = "55566677789T"
    ours_set = {table.strings[m] for m in table.legal_moves(rank_counts_to_bits(hand), table.id_of(rival))}
    assert ours_set == {"pass"}
    assert "444555666JJJ" in douzero_legal(hand, [rival], "landlord")
    assert table.category[table.id_of("444555666JJJ")] == C.PLANE_SOLOS
    assert table.rank[table.id_of("444555666JJJ")] == RANKS.index("4")


# ---------------------------------------------------------------------------------------------
# RLCard
# ---------------------------------------------------------------------------------------------

def rlcard_cards(counts):
    from rlcard.games.base import Card

    out = []
    for r in range(15):
        for j in range(int(counts[r])):
            out.append(Card("BJ", "") if r == BLACK else Card("RJ", "") if r == RED else Card("SHDC"[j], RANKS[r]))
    return out


def rlcard_lead(counts) -> set[str]:
    from rlcard.games.doudizhu.judger import DoudizhuJudger

    return set(DoudizhuJudger.playable_cards_from_hand(rank_counts_to_string(counts)))


def rlcard_follow(counts, last: str) -> set[str]:
    from rlcard.games.doudizhu.player import DoudizhuPlayer
    from rlcard.games.doudizhu.utils import get_gt_cards

    player, greater = DoudizhuPlayer(0, np.random.RandomState(0)), DoudizhuPlayer(1, np.random.RandomState(0))
    player.set_current_hand(rlcard_cards(counts))
    greater.played_cards = last
    return set(get_gt_cards(player, greater))


def test_legal_moves_match_rlcard_on_random_positions():
    kinds = Counter()
    for game in random_positions(seed0=10_000, min_positions=POSITIONS_PER_PEER):
        hand = game.hands[game.current_player]
        if game.last_move is None:
            theirs = rlcard_lead(hand)
        else:
            theirs = rlcard_follow(hand, game.table.strings[game.last_move])
        assert theirs == ours(game), (rank_counts_to_string(hand), sorted(theirs ^ ours(game))[:8])
        kind_counter(game, kinds)
    assert kinds["lead"] > 500 and kinds["follow after a pass"] > 500


# ---------------------------------------------------------------------------------------------
# OpenSpiel
# ---------------------------------------------------------------------------------------------

def os_deal(game: DouDizhuGame):
    """An OpenSpiel dou_dizhu state with our deal: seat s is its player s, our landlord bids 3 first."""
    import pyspiel

    initial = game.hands + game.played
    initial[game.landlord] -= game.bottom
    used = [0] * 13
    per_seat = []
    for seat in range(3):
        cards = []
        for r in range(15):
            for _ in range(int(initial[seat, r])):
                if r >= 13:
                    cards.append(52 + r - 13)
                else:
                    cards.append(used[r] * 13 + r)  # card id suit*13 + rank
                    used[r] += 1
        per_seat.append(cards)
    state = pyspiel.load_game("dou_dizhu").new_initial_state()
    state.apply_action(game.landlord)  # the face-up card goes to the landlord, who bids first
    for i in range(17):
        for seat in range(3):
            state.apply_action(51 + per_seat[seat][i])  # 51: OpenSpiel's first dealing action
    assert state.current_player() == game.landlord
    bid3 = [a for a in state.legal_actions() if state.action_to_string(a) == "Bid 3"]
    state.apply_action(bid3[0])
    assert state.current_player() == game.landlord
    return state


def os_move(table, text: str) -> tuple[int | None, str]:
    """Our move id of an OpenSpiel action string, or None with the reason for a move our table lacks."""
    if text == "Pass":
        return table.pass_id, ""
    text = text.replace("(BWJ)", "B").replace("(CJ)", "R")
    if "-" not in text:
        return table.id_of(text), ""
    plane, kickers = text.split("-")
    length, head = len(plane) // 3, RANKS.index(plane[0])
    category = C.PLANE_SOLOS if len(kickers) == length else C.PLANE_PAIRS
    counts = string_to_rank_counts(plane + kickers)
    i = table.index.get(rank_counts_to_string(counts))
    if i is not None and (table.category[i], table.length[i], table.rank[i]) == (category, length, head):
        return i, ""
    rest = counts.copy()
    rest[head:head + length] -= 3
    next_to = {head - 1, head + length} & set(range(ACE + 1))
    assert category == C.PLANE_SOLOS and any(rest[r] == 3 for r in next_to), text  # the only known kind
    return None, "kicker trio next to the plane"


def os_chain_from_a_bomb_rank(table, m: int, hand) -> bool:
    return (table.category[m] in (C.CHAIN, C.PAIR_CHAIN, C.PLANE)) and hand[table.rank[m]] == 4


def test_legal_moves_match_open_spiel_on_random_positions(table):
    stats, kinds = Counter(), Counter()
    rng = np.random.default_rng(77)
    positions, g = 0, 0
    while positions < POSITIONS_PER_PEER:
        game = DouDizhuGame(bidding=g % 3 == 2).reset(20_000 + g)
        while game.phase == "bid":
            game.step(int(rng.choice(game.legal_moves())))
        state = os_deal(game)
        by_category = g % 2 == 1
        g += 1
        while not game.is_over:
            assert state.current_player() == game.current_player
            hand = game.hands[game.current_player]
            theirs: dict[int, int] = {}
            for action in state.legal_actions():
                m, why = os_move(table, state.action_to_string(action))
                if m is None:
                    stats[why] += 1
                    continue
                if game.last_move is not None and table.category[game.last_move] == C.ROCKET and m != table.pass_id:
                    stats["open_spiel bomb after the rocket"] += 1
                    assert table.category[m] == C.BOMB
                    continue
                theirs[m] = action
            our_moves = set(game.legal_moves().tolist())
            skipped = {m for m in our_moves if table.category[m] in BOMB_WITH_KICKERS}
            skipped |= {m for m in our_moves if os_chain_from_a_bomb_rank(table, m, hand)}
            stats["open_spiel lacks: chain from a bomb rank"] += sum(os_chain_from_a_bomb_rank(table, m, hand)
                                                                     for m in our_moves)
            assert set(theirs) == our_moves - skipped, (
                rank_counts_to_string(hand), sorted(table.strings[m] for m in set(theirs) ^ (our_moves - skipped))[:8])
            kind_counter(game, kinds)
            positions += 1
            common = np.array(sorted(theirs))
            if by_category:
                cats = table.category[common]
                common = common[cats == rng.choice(np.unique(cats))]
            m = int(rng.choice(common))
            game.step(m)
            state.apply_action(theirs[m])
        assert state.is_terminal()
        returns = state.returns()
        assert np.sign(returns[game.landlord]) == (1 if game.winner == game.landlord else -1)
    assert kinds["lead"] > 500 and kinds["follow after a pass"] > 500 and kinds["BOMB"] + kinds["ROCKET"] > 20
