"""``cardrl play``: reading typed moves per game (good, bad, ambiguous), the session core without a terminal, and
bad options. The command driven through a real pseudo-terminal (a whole deal of every game, end of input, quit and
resume) is tested in test_play_pty.py."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from cardrl.cards import string_to_rank_counts
from cardrl.eval.agents import build_agent
from cardrl.games.registry import get_game
from cardrl.play import PlaySession, notation_for, parse_input, run_session


# ---------------------------------------------------------------------------------------------------------------
# parsing, per game
# ---------------------------------------------------------------------------------------------------------------
def _doudizhu(hands: list[str], current: int = 0, **options):
    game = get_game("doudizhu").make_engine(**options).reset(0)
    for seat, text in enumerate(hands):
        game.hands[seat] = string_to_rank_counts(text)
    game.current_player = current
    return game


def _text(game, parsed):
    return game.move_string(parsed.action)


def test_doudizhu_parse_cards_any_order_case_and_spaces():
    game = _doudizhu(["33344TJQKAQ2BR", "5566", "789"])
    n = notation_for("doudizhu")
    assert _text(game, parse_input(n, game, "33344")) == "33344"
    assert _text(game, parse_input(n, game, "4 3 3 4 3")) == "33344"
    assert _text(game, parse_input(n, game, "10jqka")) == "TJQKA"
    assert _text(game, parse_input(n, game, "  t J q K a ")) == "TJQKA"
    assert _text(game, parse_input(n, game, "br")) == "BR"
    assert _text(game, parse_input(n, game, "BJ RJ")) == "BR"
    assert _text(game, parse_input(n, game, "Q")) == "Q"  # a capital Q is the queen
    items = [int(a) for a in game.legal_moves()]
    assert parse_input(n, game, "#1").action == items[0]
    assert parse_input(n, game, "#3").action == items[2]
    assert parse_input(n, game, "12").action == items[11]  # a bare number that does not read as cards


@pytest.mark.parametrize("typed, expect", [
    ("33333", "you do not hold 33333"),
    ("5", "you do not hold 5"),
    ("3344", "not a DouDiZhu move"),
    ("xyz", "'X' is not a card"),
    ("#0", "no move #0"),
    ("#9999", "no move #9999"),
    ("pass", "may not pass"),
    ("q", "could mean quit or a queen"),
    (",", "names no cards"),
])
def test_doudizhu_parse_errors_say_what_is_wrong(typed, expect):
    game = _doudizhu(["33344TJQKAQ2BR", "5566", "789"])
    parsed = parse_input(notation_for("doudizhu"), game, typed)
    assert parsed.kind == "error" and expect in parsed.message, parsed


def test_doudizhu_following_pass_beat_and_commands():
    game = _doudizhu(["33344TJQKAQ2BR", "5566", "789"])
    n = notation_for("doudizhu")
    game.step(game.table.id_of("33344"))  # seat 1 follows a trio with a pair
    parsed = parse_input(n, game, "66")
    assert parsed.kind == "error" and "you do not hold 66" not in parsed.message
    assert "does not beat 33344" in parsed.message
    assert _text(game, parse_input(n, game, "P")) == "pass"
    assert _text(game, parse_input(n, game, "#1")) == "pass"  # pass is listed first
    for typed, command in (("quit", "quit"), ("EXIT", "quit"), ("q", "quit"), ("?", "help"), ("help", "help"),
                           ("all", "all"), ("", "empty"), ("   ", "empty")):
        assert parse_input(n, game, typed).command == command, typed
    assert parse_input(n, game, "all 5").argument == "5"


def test_doudizhu_bidding_reads_bids():
    game = get_game("doudizhu").make_engine(bidding=True).reset(3)
    n = notation_for("doudizhu")
    base = game.num_moves
    assert parse_input(n, game, "2").action == base + 2
    assert parse_input(n, game, "bid 3").action == base + 3
    assert parse_input(n, game, "pass").action == base
    assert parse_input(n, game, "0").action == base
    game.step(base + 2)
    parsed = parse_input(n, game, "1")
    assert parsed.kind == "error" and "bid 1 is not allowed" in parsed.message and "3" in parsed.message


def _big2(seed: int = 0):
    return get_game("big2").make_engine(open_with_three_diamonds=False).reset(seed)


def test_big2_parse_cards_ranks_and_ambiguity():
    n = notation_for("big2")
    for seed in range(50):  # a leader holding a rank three times (an ambiguous pair) and one exactly twice
        game = _big2(seed)
        hand = np.asarray(game.cards_held()[game.current_player])[:52].reshape(13, 4)
        ranks = hand.sum(axis=1)
        if (ranks == 3).any() and (ranks == 2).any():
            break
    else:  # pragma: no cover
        pytest.fail("no deal with a trio and a pair among 50 seeds")
    chars = "3456789TJQKA2"
    two, three = int(np.flatnonzero(ranks == 2)[0]), int(np.flatnonzero(ranks == 3)[0])
    suits = [("dchs"[s]) for s in np.flatnonzero(hand[two])]
    pair = [chars[two] + s for s in suits]
    exact = parse_input(n, game, f"{pair[1].upper()} {pair[0]}")
    assert exact.kind == "move" and game.move_string(exact.action) == "".join(pair)
    assert parse_input(n, game, chars[two] * 2).action == exact.action  # ranks only: one pair fits
    if chars[two] == "T":
        assert parse_input(n, game, "10" + suits[0] + "10" + suits[1]).action == exact.action
    amb = parse_input(n, game, chars[three] * 2)
    assert amb.kind == "ambiguous" and len(amb.candidates) == 3 and "#" in amb.message
    trio = parse_input(n, game, chars[three] * 3)
    assert trio.kind == "move"
    bad = parse_input(n, game, "3d 3d")
    assert bad.kind == "error" and "3d 2 times" in bad.message
    missing = [chars[r] + "dchs"[s] for r in range(13) for s in range(4) if not hand[r, s]][0]
    assert "you do not hold" in parse_input(n, game, missing).message
    assert "cannot read" in parse_input(n, game, "3x").message


def test_big2_first_move_must_hold_three_of_diamonds():
    game = get_game("big2").make_engine().reset(0)
    n = notation_for("big2")
    hand = np.flatnonzero(np.asarray(game.cards_held()[game.current_player])[:52])
    other = next(int(k) for k in hand if k != 0)
    parsed = parse_input(n, game, n.card_name(other))
    assert parsed.kind == "error" and "3 of diamonds" in parsed.message
    assert parse_input(n, game, "3d").kind == "move"


def _guandan_wild_hand():
    from cardrl.games.guandan.moves import hand_from_string

    game = get_game("guandan").make_engine(match=False, level="2").reset(1)
    hands = np.zeros((4, 54), dtype=np.int8)
    hands[0] = hand_from_string("2h 3d 4d 5d 6d 9s 9s Kc BJ")
    for seat in (1, 2, 3):
        hands[seat] = hand_from_string("7c 8c")
    return game.set_hands(hands, current_player=0)


def test_guandan_same_cards_two_ways_are_picked_by_number_or_name():
    game = _guandan_wild_hand()
    n = notation_for("guandan")
    amb = parse_input(n, game, "6d5d4d3d2h")
    names = sorted(n.move_name(game, a) for a in amb.candidates)
    assert amb.kind == "ambiguous"
    assert names == ["straight 2-6", "straight 3-7", "straight-flush 2-6", "straight-flush 3-7"]
    number = re.search(r"#(\d+) straight 3-7", amb.message).group(1)
    picked = parse_input(n, game, f"#{number}")
    assert n.move_name(game, picked.action) == "straight 3-7"
    by_name = parse_input(n, game, "Straight 3-7")
    assert by_name.action == picked.action
    kinds = parse_input(n, game, "straight")  # a kind of move lists them, never plays one
    assert kinds.kind == "ambiguous" and len(kinds.candidates) == 2
    assert "no legal move is called" in parse_input(n, game, "bomb 9").message


def test_guandan_parse_cards_ranks_jokers_and_errors():
    game = _guandan_wild_hand()
    n = notation_for("guandan")
    assert n.move_text(game, parse_input(n, game, "99").action) == "pair 9 [9s 9s]"
    assert parse_input(n, game, "9S 9s").action == parse_input(n, game, "99").action
    assert n.move_text(game, parse_input(n, game, "bj").action) == "single BJ [BJ]"
    assert n.move_text(game, parse_input(n, game, "K").action) == "single K [Kc]"
    assert n.move_text(game, parse_input(n, game, "2h*").action).startswith("single 2")
    for typed, expect in (("9s 9s 9s", "names 9s 3 times"), ("Ks", "you do not hold Ks"), ("pass", "may not pass"),
                          ("zz", "cannot read"), ("#21", "no move #21"), ("3d 4d", "not a GuanDan combination")):
        parsed = parse_input(n, game, typed)
        assert parsed.kind == "error" and expect in parsed.message, (typed, parsed)
    game.step(parse_input(n, game, "Kc").action)  # seat 1 must beat a single K with 7c 8c: only pass
    parsed = parse_input(n, game, "8c")
    assert parsed.kind == "error" and "does not beat single K" in parsed.message
    assert game.move_string(parse_input(n, game, "p").action) == "pass"


def test_guandan_tribute_and_return_typed_as_cards():
    """A person at seat 0 plays two deals with their own tribute and return decisions (the rule agent's choices,
    typed as the card): seeds are tried until both decisions came up."""
    options = {"max_deals": 2, "tribute_decisions": True}
    n = notation_for("guandan")
    seen: dict[str, str] = {}
    for seed in range(20):
        agents = {s: build_agent("rule", "guandan", options, seed=s) for s in (1, 2, 3)}
        me = build_agent("rule", "guandan", options, seed=0)
        me.reset(seed)
        session = PlaySession("guandan", 0, agents, seed, options)
        while True:
            session.advance()
            if session.over:
                break
            game = session.game
            action = int(me.act(game.view(0), game.legal_moves()))
            if game.phase in ("tribute", "return"):
                screen = session.screen()
                assert ("You pay tribute" if game.phase == "tribute" else "You return a card") in screen
                card = n.card_name(game.move_of(action).cards[0])
                wrong = next(k for k in range(54) if game.hands[0][k] and n.card_name(k) not in
                             [n.card_name(m.cards[0]) for m in game.legal_move_values()])
                bad = parse_input(n, game, n.card_name(wrong))
                assert bad.kind == "error" and f"not a {game.phase} card" in bad.message
                parsed = parse_input(n, game, card.lower())
                assert parsed.kind in ("move", "ambiguous")
                action = parsed.action if parsed.kind == "move" else parsed.candidates[0]
                seen[game.phase] = card
            session.play(action)
        replayed = get_game("guandan").engine_class.replay(seed, session.game.actions, **options)
        assert replayed.is_over and (replayed.payoffs() == session.game.payoffs()).all()
        if len(seen) == 2:
            break
    assert set(seen) == {"tribute", "return"}, seen


def test_notation_hooks_per_game():
    """What differs by game comes from the notation: which moves pass, why a pass is refused, the deal index and
    the line shown when there is nothing to beat."""
    dou, big2, gd = notation_for("doudizhu"), notation_for("big2"), notation_for("guandan")
    bidding = get_game("doudizhu").make_engine(bidding=True).reset(3)
    assert dou.is_pass(bidding, bidding.num_moves) and not dou.is_pass(bidding, bidding.num_moves + 1)
    assert dou.lead_lines(bidding) == [] and dou.deal_index(bidding) == 0
    game = _big2()
    assert big2.no_pass_reason(game) == "you lead, so you must play"
    assert big2.lead_lines(game) == ["You lead: play any combination."]
    match = get_game("guandan").make_engine(max_deals=2).reset(0)
    assert gd.deal_index(match) == 0 and gd.no_pass_reason(match) == "you lead, so you must play"
    match.phase = "tribute"  # only what the hooks read
    assert gd.no_pass_reason(match) == "this is the tribute decision, so choose a card"
    assert gd.lead_lines(match) == []


def _scripted(typed: list[str]):
    """A ``read(prompt)`` that types these lines, then ends the input."""
    lines = iter(typed)

    def read(prompt):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    return read


def test_session_core_without_a_terminal():
    """run_session on scripted lines: a bad move, help, all, a move by cards, then end of input."""
    agents = {s: build_agent("rule", "doudizhu", {}, seed=s) for s in (1, 2)}
    session = PlaySession("doudizhu", 0, agents, 7, {}, command="cardrl play doudizhu --seed 7 --seat 0")
    out = io.StringIO()
    assert run_session(session, _scripted(["nonsense", "help", "all", "#2"]), out) == 0
    text = out.getvalue()
    assert "Your hand (20):" in text and "Legal moves (" in text
    assert "Not a legal move: cannot read 'nonsense'" in text
    assert "How to move (DouDiZhu)" in text
    assert "End of input: leaving the game." in text
    replay = re.search(r"Replay: (cardrl play .*)", text).group(1)
    ids = [int(a) for a in replay.split("--replay ")[1].split(",")]
    assert ids == session.game.actions and len(ids) >= 1


# ---------------------------------------------------------------------------------------------------------------
# the command's options
# ---------------------------------------------------------------------------------------------------------------
def test_bad_options_are_refused_with_a_message(capsys):
    from cardrl.cli import main

    for args, expect in ((["doudizhu", "--seat", "7"], "seats 0..2"),
                         (["doudizhu", "--rule", "nonsense=1"], "unknown doudizhu rule option"),
                         (["big2", "--deals", "3"], "--deals is for GuanDan"),
                         (["doudizhu", "--opponents", "rule", "rule", "rule"], "one spec for every other seat"),
                         (["doudizhu", "--opponents", "nosuchagent"], "does not parse"),
                         (["doudizhu", "--seed", "1", "--replay", "1,x"], "comma-separated action ids")):
        assert main(["play", *args]) == 2, args
        err = capsys.readouterr().err
        assert expect in err, (args, err)


# ---------------------------------------------------------------------------------------------------------------
# the whole game: cardrl play doudizhu --bidding
# ---------------------------------------------------------------------------------------------------------------
def _play(argv: list[str], typed: list[str]) -> tuple[int, str]:
    from cardrl.cli import build_parser
    from cardrl.play.cli import main_play

    out = io.StringIO()
    return main_play(build_parser().parse_args(["play", *argv]), _scripted(typed), out), out.getvalue()


def test_play_bidding_through_typed_input():
    """A person who bids first on deal 3 (seat 0 opens the bidding) types a bad bid, then bid 2: the rule agents
    answer by their own bidder, and once bidding ends the person sees the landlord and plays the cards."""
    from cardrl.agents.doudizhu_bidder import choose_bid

    game = get_game("doudizhu").make_engine(bidding=True).reset(3)
    assert game.first_bidder == 0
    rc, text = _play(["doudizhu", "--bidding", "--seed", "3", "--opponents", "rule", "rlcard+bidder=rule"],
                     ["bid 7", "bid 2", "#1"])
    assert rc == 0 and "Bidding:" in text and "Not a legal move" in text
    ids = [int(a) for a in re.search(r"--replay ([\d,]+)", text).group(1).split(",")]
    base = game.num_moves
    assert ids[0] == base + 2  # the person's bid
    game.step(ids[0])
    for action in ids[1:]:  # the agents' bids, then the first card plays
        if game.phase == "bid":
            legal = [int(a) - base for a in game.legal_moves()]
            assert action == base + choose_bid(game.hands[game.current_player], legal)
        game.step(action)
    assert game.phase == "play" and "Landlord:" in text and "--bidding" in text


def test_play_bidding_refuses_agents_that_cannot_bid(capsys):
    from cardrl.cli import main

    assert main(["play", "doudizhu", "--bidding", "--opponents", "rlcard"]) == 2
    err = capsys.readouterr().err
    assert "cannot play the whole game (bidding) against you" in err and "'rlcard+bidder=rule'" in err
    assert main(["play", "doudizhu", "--rule", "bidding=true", "--opponents", "mcs-greedy"]) == 2
    assert "does not bid" in capsys.readouterr().err
    assert main(["play", "big2", "--bidding"]) == 2
    assert "Big2 has no bidding" in capsys.readouterr().err
    assert main(["play", "doudizhu", "--bidding", "--rule", "bidding=false"]) == 2
    assert "contradicts" in capsys.readouterr().err
