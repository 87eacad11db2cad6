"""The DouDiZhu move tables (docs/rules.md "Move table"; Luo & Tan 2024, Appendix A, Table 12).

(a) the ``douzero`` table against RLCard's 27,472-entry ``action_space.txt`` and its ``card_type.json`` labels,
(b) every count of docs/rules.md and of Luo & Tan's Table 12 (``kickers="distinct"``),
(c) hand-made leads and follows for every category, the bomb/rocket order and the kicker rules.
"""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from math import comb
from pathlib import Path

import numpy as np
import pytest

from cardrl.cards import rank_counts_to_bits, string_to_rank_counts, vector_to_bits
from cardrl.games.doudizhu.moves import Category, doudizhu_move_table

C = Category
RANKS = "3456789TJQKA2BR"


@pytest.fixture(scope="module")
def dz():
    return doudizhu_move_table("douzero")


@pytest.fixture(scope="module")
def distinct():
    return doudizhu_move_table("distinct")


def _rlcard_member(name: str) -> bytes:
    import rlcard

    path = Path(rlcard.__file__).parent / "games" / "doudizhu" / "jsondata.zip"
    with zipfile.ZipFile(path) as zf:
        return zf.read(f"jsondata/{name}")


def legal(table, hand: str, last: str | None = None) -> set[str]:
    """Legal move strings of a hand (a string such as ``"33345"``), leading or following ``last``."""
    bits = rank_counts_to_bits(string_to_rank_counts(hand))
    last_id = None if last is None else table.id_of(last)
    return {table.strings[i] for i in table.legal_moves(bits, last_id)}


def of_category(table, moves: set[str], category: Category) -> set[str]:
    return {m for m in moves if table.category[table.id_of(m)] == category}


def kind(table, move: str) -> tuple[Category, int, int]:
    i = table.id_of(move)
    return Category(int(table.category[i])), int(table.length[i]), int(table.rank[i])


# ---------------------------------------------------------------------------------------------
# (a) DouZero's table == RLCard's action list, entry by entry
# ---------------------------------------------------------------------------------------------

def test_douzero_table_is_rlcard_action_space_as_a_set(dz):
    rl = _rlcard_member("action_space.txt").decode().split()
    assert len(rl) == 27_472 and len(set(rl)) == 27_472
    assert len(dz) == 27_472 and len(set(dz.strings)) == 27_472
    assert set(dz.strings) == set(rl), (sorted(set(rl) - set(dz.strings))[:10],
                                        sorted(set(dz.strings) - set(rl))[:10])


def _counts_of_strings(strings) -> np.ndarray:
    """(M, 15) rank counts of move strings, parsed here with a lookup table (pass -> zeros)."""
    lut = np.full(256, -1, dtype=np.int64)
    for r, ch in enumerate(RANKS):
        lut[ord(ch)] = r
    texts = ["" if s == "pass" else s for s in strings]
    lengths = np.array([len(t) for t in texts])
    cols = lut[np.frombuffer("".join(texts).encode(), dtype=np.uint8)]
    assert (cols >= 0).all()
    counts = np.zeros((len(texts), 15), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(len(texts)), lengths), cols), 1)
    return counts


@pytest.mark.parametrize("kickers", ["douzero", "distinct"])
def test_every_entry_card_vector_matches_its_string(kickers):
    table = doudizhu_move_table(kickers)
    counts = _counts_of_strings(table.strings)
    assert table.cards.shape == (len(table), 54) and table.cards.dtype == np.uint8
    # thermometer layout: a rank's count c fills the first c of its 4 slots; kinds 52/53 are the jokers
    expected = np.zeros((len(table), 54), dtype=np.uint8)
    expected[:, :52] = (np.arange(4)[None, None, :] < counts[:, :13, None]).reshape(-1, 52)
    expected[:, 52:] = counts[:, 13:]
    assert (table.cards == expected).all()
    weights = np.left_shift(np.uint64(1), np.arange(54, dtype=np.uint64))
    assert (table.bits == (expected.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)).all()
    assert counts.max() <= 4 and counts[:, 13:].max() <= 1
    for i in range(0, len(table), 97):  # the helpers of cardrl.cards agree on a sample
        assert int(table.bits[i]) == vector_to_bits(table.cards[i]) == rank_counts_to_bits(counts[i])
    assert all(table.id_of(s) == i for i, s in enumerate(table.strings))
    assert table.strings[table.pass_id] == "pass" and table.pass_id == len(table) - 1


_RLCARD_TYPES = {
    "solo": C.SOLO, "pair": C.PAIR, "trio": C.TRIO, "bomb": C.BOMB, "rocket": C.ROCKET,
    "solo_chain": C.CHAIN, "pair_chain": C.PAIR_CHAIN, "trio_chain": C.PLANE,
    "trio_solo": C.TRIO_SOLO, "trio_pair": C.TRIO_PAIR,
    "trio_solo_chain": C.PLANE_SOLOS, "trio_pair_chain": C.PLANE_PAIRS,
    "four_two_solo": C.BOMB_SOLOS, "four_two_pair": C.BOMB_PAIRS,
}
_KICKER_TYPES = {C.TRIO_SOLO, C.TRIO_PAIR, C.PLANE_SOLOS, C.PLANE_PAIRS, C.BOMB_SOLOS, C.BOMB_PAIRS}


def test_every_entry_category_length_rank_match_rlcard_labels(dz):
    """RLCard's ``card_type.json`` labels each move (type, weight); its weights of kicker types are 1-based."""
    labels = json.loads(_rlcard_member("card_type.json"))
    assert len(labels) == 27_471  # everything but pass
    for i, s in enumerate(dz.strings[:-1]):
        (rl_type, rl_weight), = labels[s]  # one reading per move: no ambiguous entry
        head, _, tail = rl_type.rpartition("_")
        name, length = (head, int(tail)) if tail.isdigit() else (rl_type, 1)
        cat = _RLCARD_TYPES[name]
        assert dz.category[i] == cat, s
        assert dz.length[i] == length, s
        if cat == C.ROCKET:
            assert rl_weight == "0" and dz.rank[i] == RANKS.index("B")
        else:
            assert dz.rank[i] + (1 if cat in _KICKER_TYPES else 0) == int(rl_weight), s
    assert dz.category[dz.pass_id] == C.PASS


# ---------------------------------------------------------------------------------------------
# (b) counts: docs/rules.md for douzero, Luo & Tan Table 12 for distinct
# ---------------------------------------------------------------------------------------------

DOUZERO_COUNTS = {C.SOLO: 15, C.PAIR: 13, C.TRIO: 13, C.TRIO_SOLO: 182, C.TRIO_PAIR: 156, C.CHAIN: 36,
                  C.PAIR_CHAIN: 52, C.PLANE: 45, C.PLANE_SOLOS: 21_822, C.PLANE_PAIRS: 2_939,
                  C.BOMB_SOLOS: 1_326, C.BOMB_PAIRS: 858, C.BOMB: 13, C.ROCKET: 1, C.PASS: 1}
TABLE12_COUNTS = {C.SOLO: 15, C.PAIR: 13, C.TRIO: 13, C.TRIO_SOLO: 182, C.TRIO_PAIR: 156, C.BOMB: 13,
                  C.BOMB_SOLOS: 1_183, C.BOMB_PAIRS: 858, C.ROCKET: 1, C.CHAIN: 36, C.PAIR_CHAIN: 52,
                  C.PLANE: 45, C.PLANE_SOLOS: 8_044, C.PLANE_PAIRS: 2_939, C.PASS: 1}


def _count_by(table, category: Category) -> dict[int, int]:
    sel = table.category == category
    return dict(sorted(Counter(table.length[sel].tolist()).items()))


def test_douzero_counts_per_category(dz):
    got = {Category(c): n for c, n in Counter(dz.category.tolist()).items()}
    assert got == DOUZERO_COUNTS
    assert sum(DOUZERO_COUNTS.values()) == len(dz) == 27_472


def test_douzero_counts_by_plane_length(dz):
    assert _count_by(dz, C.PLANE_SOLOS) == {2: 968, 3: 3_282, 4: 7_184, 5: 10_388}
    assert _count_by(dz, C.PLANE_PAIRS) == {2: 605, 3: 1_200, 4: 1_134}
    assert _count_by(dz, C.PLANE) == {n: 13 - n for n in range(2, 7)}  # 11 + 10 + 9 + 8 + 7 = 45
    assert _count_by(dz, C.CHAIN) == {n: 13 - n for n in range(5, 13)}
    assert _count_by(dz, C.PAIR_CHAIN) == {n: 13 - n for n in range(3, 11)}


def test_distinct_counts_are_luo_tan_table_12(distinct):
    got = {Category(c): n for c, n in Counter(distinct.category.tolist()).items()}
    assert got == TABLE12_COUNTS
    assert len(distinct) == 13_551 == sum(TABLE12_COUNTS.values())
    # plane+solos: 12 - L + 1 planes, kickers any L distinct of the 15 - L other ranks (both jokers allowed)
    assert _count_by(distinct, C.PLANE_SOLOS) == {n: (13 - n) * comb(15 - n, n) for n in range(2, 6)}
    assert _count_by(distinct, C.PLANE_PAIRS) == {2: 605, 3: 1_200, 4: 1_134}
    assert (distinct.category == C.BOMB_SOLOS).sum() == 13 * comb(14, 2)


def test_tables_agree_on_everything_but_solo_kickers(dz, distinct):
    def by_category(table):
        out: dict[int, set[str]] = {}
        for s, c in zip(table.strings, table.category.tolist()):
            out.setdefault(c, set()).add(s)
        return out

    z, d = by_category(dz), by_category(distinct)
    for c in Category:
        if c in (C.PLANE_SOLOS, C.BOMB_SOLOS):
            assert {s for s in d[c] - z[c] if not ("B" in s and "R" in s)} == set(), c.name
            assert {s for s in d[c] if "B" in s and "R" in s} <= d[c] - z[c]  # both jokers: distinct only
        else:
            assert z[c] == d[c], c.name


@pytest.mark.parametrize("kickers", ["douzero", "distinct"])
def test_each_kind_is_one_block_in_rank_order(kickers):
    """Moves of one (category, length) are contiguous and by non-decreasing main rank; pass is last."""
    table = doudizhu_move_table(kickers)
    key = list(zip(table.category.tolist(), table.length.tolist()))
    starts = [i for i in range(len(key)) if i == 0 or key[i] != key[i - 1]]
    assert len(starts) == len(set(key))  # one block per kind
    for lo, hi in zip(starts, starts[1:] + [len(key)]):
        assert (np.diff(table.rank[lo:hi].astype(int)) >= 0).all(), key[lo]
    assert key[-1] == (C.PASS, 0)


def test_unknown_kicker_rule_is_rejected():
    with pytest.raises(ValueError, match="kickers"):
        doudizhu_move_table("free")


def test_id_of_unknown_move_names_the_move(dz):
    with pytest.raises(ValueError, match="JQKA2"):
        dz.id_of("JQKA2")


# ---------------------------------------------------------------------------------------------
# (c) leads and follows per category
# ---------------------------------------------------------------------------------------------

def test_solo(dz):
    assert legal(dz, "3579B") == {"3", "5", "7", "9", "B"}
    assert legal(dz, "3579B", "7") == {"9", "B", "pass"}
    assert legal(dz, "3579B", "B") == {"pass"}
    assert legal(dz, "AR2", "2") == {"R", "pass"}
    assert legal(dz, "A3", "2") == {"pass"}  # 2 ranks above A
    assert kind(dz, "R") == (C.SOLO, 1, 14)


def test_pair(dz):
    lead = legal(dz, "3355779B")
    assert of_category(dz, lead, C.PAIR) == {"33", "55", "77"}
    assert legal(dz, "3355779922", "55") == {"77", "99", "22", "pass"}
    assert legal(dz, "33BR", "22") == {"BR", "pass"}  # the jokers are a rocket, never a pair
    assert "BB" not in dz.index and "RR" not in dz.index


def test_trio(dz):
    assert of_category(dz, legal(dz, "33355577"), C.TRIO) == {"333", "555"}
    assert legal(dz, "333555777", "444") == {"555", "777", "pass"}
    assert legal(dz, "333555777", "777") == {"pass"}


def test_trio_with_solo(dz):
    lead = of_category(dz, legal(dz, "3335559"), C.TRIO_SOLO)
    assert lead == {"3335", "3339", "3555", "5559"}
    assert legal(dz, "3335559", "4447") == {"3555", "5559", "pass"}
    assert legal(dz, "333R", "4222") == {"pass"}
    assert "3333" not in of_category(dz, set(dz.strings), C.TRIO_SOLO)  # the kicker is another rank
    assert kind(dz, "333R") == (C.TRIO_SOLO, 1, 0)


def test_trio_with_pair(dz):
    assert legal(dz, "33355599", "44477") == {"33555", "55599", "pass"}
    assert of_category(dz, legal(dz, "333BR"), C.TRIO_PAIR) == set()  # no joker pair
    assert kind(dz, "33555") == (C.TRIO_PAIR, 1, 2)


@pytest.mark.parametrize("length", range(5, 13))
def test_chain_lengths_5_to_12(dz, length):
    hand = "3456789TJQKA2BR"
    chains = of_category(dz, legal(dz, hand), C.CHAIN)
    of_length = {c for c in chains if len(c) == length}
    assert of_length == {RANKS[s:s + length] for s in range(0, 12 - length + 1)}
    lowest = RANKS[:length]
    follow = legal(dz, hand, lowest)
    assert follow == {RANKS[s:s + length] for s in range(1, 12 - length + 1)} | {"BR", "pass"}


def test_chain_rules(dz):
    chains = {s for s, c in zip(dz.strings, dz.category) if c == C.CHAIN}
    assert len(chains) == 36 and not any(ch in s for s in chains for ch in "2BR")
    assert "TJQKA" in dz.index
    for bad in ("JQKA2", "QKA2B", "2BR34", "3456"):
        assert bad not in dz.index
    assert legal(dz, "456789", "34567") == {"45678", "56789", "pass"}  # same length only
    assert legal(dz, "3456789", "TJQKA") == {"pass"}


def test_pair_chain(dz):
    assert legal(dz, "334455667788", "334455") == {"445566", "556677", "667788", "pass"}
    assert of_category(dz, legal(dz, "QQKKAA22"), C.PAIR_CHAIN) == {"QQKKAA"}  # no 2 in a pair chain
    assert "33445566778899TTJJQQ" in dz.index and kind(dz, "33445566778899TTJJQQ") == (C.PAIR_CHAIN, 10, 0)
    assert legal(dz, "44556677", "33445566") == {"44556677", "pass"}


def test_plane(dz):
    assert legal(dz, "555666777", "333444") == {"555666", "666777", "pass"}
    assert of_category(dz, legal(dz, "KKKAAA222"), C.PLANE) == {"KKKAAA"}  # no 2 in a plane
    assert kind(dz, "333444555666777888") == (C.PLANE, 6, 0)


def test_plane_with_solos(dz):
    assert legal(dz, "5556667788", "33344456") == {"55566677", "55566678", "55566688", "pass"}
    assert legal(dz, "555666777", "33344456") == {"55566677", "55666777", "pass"}
    assert legal(dz, "555666777", "333444555678") == {"pass"}  # a longer plane is another kind
    assert kind(dz, "33344455") == (C.PLANE_SOLOS, 2, 0)  # douzero kickers may share a rank
    assert kind(dz, "33344455566677789TJQ") == (C.PLANE_SOLOS, 5, 0)


def test_plane_with_pairs(dz):
    assert legal(dz, "444555778899", "3334445566") == {"4445557788", "4445557799", "4445558899", "pass"}
    assert kind(dz, "3334445566") == (C.PLANE_PAIRS, 2, 0)
    assert "33344455" not in of_category(dz, set(dz.strings), C.PLANE_PAIRS)


def test_bomb_with_two_solos(dz):
    assert legal(dz, "44445566", "333345") == {"444455", "444456", "444466", "4444", "pass"}
    assert kind(dz, "444455") == (C.BOMB_SOLOS, 1, 1)  # docs/rules.md: 4444+55 is a bomb with two solos
    assert legal(dz, "3333", "452222") == {"3333", "pass"}


def test_bomb_with_two_pairs(dz):
    assert legal(dz, "444455667", "33334455") == {"44445566", "4444", "pass"}
    assert kind(dz, "33334455") == (C.BOMB_PAIRS, 1, 0)
    assert "33334444" not in dz.index  # two bombs are not a bomb with two pairs


def test_bomb(dz):
    assert legal(dz, "3333444466", "5555") == {"pass"}
    assert legal(dz, "33336666", "5555") == {"6666", "pass"}
    assert legal(dz, "22226666", "5555") == {"6666", "2222", "pass"}


def test_rocket(dz):
    assert legal(dz, "BR", "2222") == {"BR", "pass"}
    assert legal(dz, "BR2222", "BR") == {"pass"}
    assert kind(dz, "BR") == (C.ROCKET, 1, 13)


@pytest.mark.parametrize("last", ["3", "22", "AAA", "AAA2", "AAA22", "89TJQKA", "QQKKAA", "KKKAAA",
                                  "34QQQKKKAAA2", "3344JJJQQQKKKAAA"])
def test_bomb_beats_every_non_bomb(dz, last):
    assert legal(dz, "3333", last) == {"3333", "pass"}


@pytest.mark.parametrize("last", ["3", "2222", "333345", "33334455", "TJQKA", "3344KKKAAA"])
def test_rocket_beats_everything(dz, last):
    assert "BR" in legal(dz, "BR", last)


def test_higher_bomb_beats_lower_only(dz):
    for lo in range(13):
        low = RANKS[lo] * 4
        expect = {RANKS[r] * 4 for r in range(lo + 1, 13)} | {"BR", "pass"}
        everything = "".join(RANKS[r] * 4 for r in range(13)) + "BR"
        assert {m for m in legal(dz, everything, low)} == expect


def test_bomb_with_kickers_is_not_a_bomb(dz):
    assert legal(dz, "333345", "34567") == {"3333", "pass"}  # 4+2 can't beat a chain
    assert legal(dz, "333345", "K") == {"3333", "pass"}  # nor a solo
    assert legal(dz, "444456", "3333") == {"4444", "pass"}  # nor a bomb
    assert legal(dz, "4444", "333345") == {"4444", "pass"}  # while a bomb beats it
    assert legal(dz, "44445566", "3333") == {"4444", "pass"}
    assert legal(dz, "444456", "333378") == {"444456", "4444", "pass"}


# ---------------------------------------------------------------------------------------------
# kicker rules of the two tables
# ---------------------------------------------------------------------------------------------

def test_adjacent_trio_is_never_a_kicker_in_douzero(dz):
    assert kind(dz, "333444555666") == (C.PLANE, 4, 0)  # not 333444555 + 666
    lead = legal(dz, "333444555666")
    assert "333444555666" in lead
    assert of_category(dz, lead, C.PLANE_SOLOS) == {
        "33344455", "33344456", "33344466",  # 333444 + two of 555666
        "33444555", "34445556", "44455566",  # 444555 + two of 333666
        "33555666", "34555666", "44555666",  # 555666 + two of 333444
    }
    for s in ("3334445556667778", "4445556667778889"):
        assert s not in dz.index  # e.g. 333444555666 + 777 + 8: 777 sits next to the plane
    assert kind(dz, "3334445556668889") == (C.PLANE_SOLOS, 4, 0)  # 888 does not
    assert kind(dz, "333444555777") == (C.PLANE_SOLOS, 3, 0)  # a trio kicker away from the plane
    assert kind(dz, "QQQKKKAAA222") == (C.PLANE_SOLOS, 3, 9)  # 2 never extends a plane
    for s in ("3334445556667777", "3334445555", "33334445"):
        assert s not in dz.index  # no bomb among kickers, no kicker of a plane's rank


def test_jokers_are_never_both_kickers_in_douzero(dz, distinct):
    for s in ("333444BR", "3333BR", "3334445556BR", "33344455566678BR"):
        assert s not in dz.index
        assert s in distinct.index
    assert of_category(dz, legal(dz, "333444BR"), C.PLANE_SOLOS) == set()
    assert of_category(dz, legal(dz, "3333BR"), C.BOMB_SOLOS) == set()
    assert of_category(dz, legal(dz, "3333BR5"), C.BOMB_SOLOS) == {"33335B", "33335R"}
    assert "BR" in legal(dz, "333444BR")
    assert of_category(distinct, legal(distinct, "333444BR"), C.PLANE_SOLOS) == {"333444BR"}
    assert of_category(distinct, legal(distinct, "3333BR"), C.BOMB_SOLOS) == {"3333BR"}


def test_distinct_kicker_rules(distinct):
    assert kind(distinct, "333444BR") == (C.PLANE_SOLOS, 2, 0)
    assert kind(distinct, "3333BR") == (C.BOMB_SOLOS, 1, 0)
    for s in ("33344455", "444455", "333444555777", "3334445", "444556666"):
        assert s not in distinct.index
    assert of_category(distinct, legal(distinct, "333444556BR"), C.PLANE_SOLOS) == {
        "33344456", "3334445B", "3334445R", "3334446B", "3334446R", "333444BR"}
