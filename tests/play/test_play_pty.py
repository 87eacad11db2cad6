"""``cardrl play GAME`` driven through a pseudo-terminal with pexpect, for every game: the real command in a pty, a
seeded deal, agents in the other seats, and a person who reads the screen and types.

On every screen the hand is shown sorted in the game's order, every player's cards left are listed (the person's
count equal to their hand), and the legal moves are listed and numbered (``--show 0``: all of them). The person types
moves as cards (``33344``, ``3d 4c 5h 6s 7d``, GuanDan's wild heart among them) and picks moves by number, passes, and
types bad moves (cards they do not hold, an unreadable line, a number off the list, a wrong tribute card): each gets
a clear one-line message and a new prompt, never a crash; typed cards are read in any case. The deal is played to the
end: the result, the payoffs and a replay line, which the engine's ``replay`` turns into the same finished game and
which, run as a command, replays it. GuanDan plays three deals of a match with ``--tribute-decisions``: the person
wins the first deal, so they receive tribute and return a card in the second; they lose the second, so they pay
tribute in the third (seed chosen so that both happen; see :func:`choose`). End of input (ctrl-D) and ``quit`` leave
a deal cleanly with a line that resumes it.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys

import pexpect
import pytest

from cardrl.games.registry import get_game
from helpers.play_screen import listed_moves

RULE = "=" * 72
START_TIMEOUT = 300  # seconds to wait for the command's first output (imports and agents: slow on a loaded machine)
TIMEOUT = 30  # seconds to wait for any one later expected line
SUIT_ORDER = "dchs"


# ---------------------------------------------------------------------------------------------------------------
# reading the screen
# ---------------------------------------------------------------------------------------------------------------


def move_cards(game: str, text: str) -> list[str]:
    """The cards of a listed move, as they can be typed (GuanDan's wild mark ``*`` dropped): DouDiZhu ranks one by
    one, Big2 and GuanDan cards (a GuanDan move is ``name [cards]``, a tribute or return ``tribute Ah``)."""
    if text == "pass":
        return []
    if game == "doudizhu":
        return list(text.replace(" ", ""))
    if game == "guandan":
        # "name [cards]" or "name [cards] (Th as 5)": what a wild stands for follows the cards
        text = text.split("[", 1)[1].split("]", 1)[0] if "[" in text else text.split()[-1]
    return text.replace("*", "").split()


def rank_key(game: str, card: str, level: str | None = None) -> tuple[int, int]:
    """A card's place in the game's order: DouDiZhu 3 .. 2, B, R; Big2 3 .. A, 2 then suit d c h s; GuanDan 2 .. A
    with the level's rank above the aces, then BJ, RJ, suit d c h s."""
    if game == "doudizhu":
        return "3456789TJQKA2BR".index(card), 0
    if game == "big2":
        return "3456789TJQKA2".index(card[0]), SUIT_ORDER.index(card[1])
    card = card.rstrip("*")
    if card in ("BJ", "RJ"):
        return 14 + (card == "RJ"), 0
    rank = 13 if card[0] == level else "23456789TJQKA".index(card[0])
    return rank, SUIT_ORDER.index(card[1])


def check_screen(game: str, screen: str, players: int) -> tuple[list[str], list[tuple[int, str]]]:
    """The checks every screen passes; returns the hand and the listed moves."""
    m = re.search(r"Your hand \((\d+)\): ([^\r\n]*)\r?\n", screen)
    assert m, screen
    hand = list(m.group(2).replace(" ", "")) if game == "doudizhu" else m.group(2).split()
    assert len(hand) == int(m.group(1)), screen
    level = re.search(r"at level (\w)", screen).group(1) if game == "guandan" else None
    keys = [rank_key(game, c, level) for c in hand]
    assert keys == sorted(keys), f"hand not sorted: {m.group(2)}"
    left = re.search(r"Cards left: ([^\r\n]*)\r?\n", screen).group(1).split(" | ")
    assert len(left) == players, screen
    mine = [cell for cell in left if cell.startswith("you (")]
    assert len(mine) == 1 and int(mine[0].split()[-1]) == len(hand), (left, len(hand))
    count = int(re.search(r"Legal moves \((\d+)\):", screen).group(1))
    moves = listed_moves(screen)
    assert [n for n, _ in moves] == list(range(1, count + 1)), screen  # all listed (--show 0), numbered 1..N
    held = [c.rstrip("*") for c in hand]
    for _, text in moves:
        assert all(c in held for c in move_cards(game, text)), (text, hand)
    return held, moves


# ---------------------------------------------------------------------------------------------------------------
# the person: one rule for the pty test and for choosing the GuanDan seed
# ---------------------------------------------------------------------------------------------------------------
def choose(game: str, moves: list[tuple[int, str]], deal: int, state: dict) -> int:
    """The number of the move the person makes: the first listed tribute or return; in GuanDan's second deal (the
    one to lose) a pass whenever allowed, else the first move; otherwise the first move with GuanDan's wild heart the
    first time one is listed, else the move with the most cards (the first of those), after one pass early on."""
    plays = [(n, t) for n, t in moves if t != "pass"]
    can_pass = len(plays) < len(moves)
    if plays and plays[0][1].startswith(("tribute ", "return ")):
        return plays[0][0]
    if not plays or (can_pass and (deal == 1 and game == "guandan" or not state.get("passed"))):
        state["passed"] = True
        return moves[0][0]
    wild = [n for n, t in plays if "*" in t]
    if wild and not state.get("wild"):
        state["wild"] = True
        return wild[0]
    if deal == 1 and game == "guandan":
        return plays[0][0]
    return max(plays, key=lambda m: len(move_cards(game, m[1])))[0]


def simulate(seed: int, options: dict, opponents: str = "random") -> list[tuple[int, str]]:
    """The person's tribute and return decisions over a GuanDan match played by :func:`choose` without a terminal
    (the same agents and seeds as ``cardrl play``): how the seed of the pty test was chosen."""
    from cardrl.eval.agents import build_agent
    from cardrl.play import PlaySession

    agents = {s: build_agent(opponents, "guandan", options, seed=seed + s) for s in (1, 2, 3)}
    session = PlaySession("guandan", 0, agents, seed, options, shown=0)
    state: dict = {}
    decisions = []
    while True:
        session.advance()
        if session.over:
            return decisions
        game = session.game
        items = session.items()
        moves = [(i + 1, session.notation.move_text(game, a)) for i, a in enumerate(items)]
        if game.phase != "play":
            decisions.append((int(game.deal_index), game.phase))
        session.play(items[choose("guandan", moves, int(game.deal_index), state) - 1])


# ---------------------------------------------------------------------------------------------------------------
# the terminal
# ---------------------------------------------------------------------------------------------------------------
def spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    return pexpect.spawn(sys.executable, ["-m", "cardrl.cli", "play", *args], encoding="utf-8", timeout=TIMEOUT,
                         env=env, dimensions=(60, 250), maxread=65536)


@contextlib.contextmanager
def playing(*args: str):
    """``cardrl play ARGS`` on a pty, killed if the test leaves it running."""
    child = spawn(*args)
    try:
        yield child
    finally:
        if child.isalive():
            child.terminate(force=True)


def expect_clean_exit(child: pexpect.spawn) -> None:
    """The command ends with exit status 0."""
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before


def bad_input(child: pexpect.spawn, text: str, expect: str) -> None:
    """Type a bad line: a one-line message containing ``expect``, then a new prompt."""
    child.sendline(text)
    child.expect(r"Not a legal move: ([^\r\n]*)\r?\n")
    assert expect in child.match.group(1), child.match.group(1)
    child.expect("Your move: ")
    assert child.isalive()


def play_through(game: str, args: list[str], bad: dict[str, str], players: int) -> dict:
    """Play a whole game on a pty with :func:`choose`, moves typed as cards and picked by number in turn, and the bad
    lines of ``bad`` (text -> expected message) on the first screen. Returns what was seen."""
    seen = {"typed": [], "numbers": 0, "passes": 0, "ambiguous": 0, "screens": 0, "tribute": 0, "return": 0,
            "wild_typed": 0, "deals": set()}
    state: dict = {}
    with playing(game, *args, "--show", "0") as child:
        child.logfile_read = log = io.StringIO()  # everything the program wrote
        child.expect(r"cardrl play " + game, timeout=START_TIMEOUT)
        while True:
            i = child.expect([r"Your move: ", r"Game over\."])
            if i == 1:
                break
            screen = child.before[child.before.rfind(RULE):]
            hand, moves = check_screen(game, screen, players)
            seen["screens"] += 1
            deal = 0
            if game == "guandan":
                deal = int(re.search(r"Deal (\d+)", screen).group(1)) - 1
                seen["deals"].add(deal)
            if seen["screens"] == 1:
                for text, message in bad.items():
                    bad_input(child, text, message)
            pick = choose(game, moves, deal, state)
            text = dict(moves)[pick]
            if "You pay tribute" in screen or "You return a card" in screen:
                phase = "tribute" if "You pay tribute" in screen else "return"
                seen[phase] += 1
                options = {t.split()[-1] for _, t in moves}
                wrong = next((c for c in hand if c not in options), None)
                if wrong is not None:
                    bad_input(child, wrong, f"is not a {phase} card you may give")
                child.sendline(text.split()[-1].lower())  # the card, typed
                seen["typed"].append(text)
            elif text == "pass":
                child.sendline("pass" if seen["passes"] % 2 == 0 else "p")
                seen["passes"] += 1
            elif len(seen["typed"]) <= seen["numbers"] or "*" in text:
                typed = ("" if game == "doudizhu" else " ").join(move_cards(game, text))
                child.sendline(typed.lower() if len(seen["typed"]) % 2 else typed)
                seen["typed"].append(text)
                seen["wild_typed"] += "*" in text
            else:
                child.sendline(f"#{pick}")
                seen["numbers"] += 1
            j = child.expect([r"Ambiguous: ([^\r\n]*)\r?\n", r"\n  you[^\r\n]*: ([^\r\n]*)\r?\n"])
            if j == 0:  # the typed cards fit several moves: the one meant is among those listed, by number
                seen["ambiguous"] += 1
                assert f"#{pick} " in child.match.group(1), child.match.group(1)
                child.expect("Your move: ")
                child.sendline(f"#{pick}")
                child.expect(r"\n  you[^\r\n]*: ([^\r\n]*)\r?\n")
            played = child.match.group(1).strip()
            assert played == text or played.replace("*", "") == text.replace("*", ""), (played, text)
        child.expect(r"Replay: (cardrl play [^\r\n]+)\r?\n")
        replay = child.match.group(1)
        result = child.before
        expect_clean_exit(child)
    seen["result"] = result
    seen["replay"] = replay
    seen["text"] = log.getvalue()
    return seen


def check_replay(game: str, replay: str, options: dict):
    """The replay line's seed and action ids rebuild the finished game, and the line itself, run as a command (in
    this process, without a terminal), replays it to the end; returns the rebuilt engine."""
    seed = int(re.search(r"--seed (\d+)", replay).group(1))
    ids = [int(a) for a in replay.split("--replay ", 1)[1].split(",")]
    engine = get_game(game).engine_class.replay(seed, ids, **options)
    assert engine.is_over
    from cardrl.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(replay.split()[1:]) == 0
    assert "Game over." in out.getvalue() and f"Replayed {len(ids)} actions." in out.getvalue()
    return engine


# ---------------------------------------------------------------------------------------------------------------
# the games
# ---------------------------------------------------------------------------------------------------------------
def test_pty_doudizhu_deal_to_the_end():
    seen = play_through("doudizhu", ["--seed", "11", "--seat", "0", "--opponents", "rule"],
                        {"33333": "you do not hold 33333", "xyz": "cannot read 'xyz'", "#999": "there is no move #999"},
                        players=3)
    assert seen["passes"] and seen["numbers"] and seen["typed"]
    assert any(len(t) >= 5 for t in seen["typed"]), seen["typed"]  # a combination typed as cards, e.g. 33344
    assert re.search(r"You lead: play any combination", seen["text"]) and "To beat: " in seen["text"]
    assert re.search(r"Your hand \(20\): [3-9TJQKA2BR ]+\r?\n", seen["text"])
    assert "Cards left: you (landlord) " in seen["text"]
    assert "Payoffs (ADP): landlord" in seen["result"]
    you = float(re.search(r"You \(landlord\): ([+-][\d.]+)", seen["result"]).group(1))
    assert check_replay("doudizhu", seen["replay"], {}).payoffs()[0] == you


def test_pty_big2_deal_to_the_end():
    seen = play_through("big2", ["--seed", "4", "--seat", "south", "--opponents", "random"],
                        {"3d 3d": "cannot read '3d 3d': '3d 3d' names 3d 2 times", "zz": "cannot read 'zz'",
                         "#0": "there is no move #0"},
                        players=4)
    assert seen["passes"] and seen["numbers"] and seen["typed"]
    assert re.search(r"Your hand \(13\): ([2-9TJQKA][dchs] ?)+\r?\n", seen["text"])
    assert "Cards left: west " in seen["text"] and "you (south)" in seen["text"]
    assert "wins; cards left" in seen["result"]
    you = float(re.search(r"You: ([+-][\d.]+)", seen["result"]).group(1))
    assert check_replay("big2", seen["replay"], {}).payoffs()[1] == you


GUANDAN_SEED = 4  # simulate(4, ...) shows a return in deal 2 and a tribute in deal 3 by the person


def test_pty_guandan_match_with_tribute_return_and_wild_cards():
    options = {"max_deals": 3, "tribute_decisions": True}
    seen = play_through("guandan", ["--seed", str(GUANDAN_SEED), "--seat", "0", "--opponents", "random", "--deals",
                                    "3", "--tribute-decisions"],
                        {"3d 3d 3d": "names 3d 3 times", "straight Q-3": "no legal move", "#1000": "no move #1000"},
                        players=4)
    text = seen["text"]
    assert seen["passes"] and seen["numbers"] and seen["typed"]
    assert seen["deals"] == {0, 1, 2}
    assert seen["return"] >= 1 and seen["tribute"] >= 1, seen
    assert seen["wild_typed"] >= 1, "no move with the wild heart was typed"
    assert "(wild: 2h*)" in text and "Deal 1 over: out in order" in text
    assert "--- deal 2 at level" in text and "--- deal 3 at level" in text
    assert re.search(r"you \(seat 0\): return \w\w", text) and re.search(r"you \(seat 0\): tribute \w\w", text)
    assert "Deal 3 at level" in seen["result"] and "Payoffs: team 0 (seats 0, 2)" in seen["result"]
    you = float(re.search(r"You \(seat 0, team 0\): ([+-]?[\d.]+)", seen["result"]).group(1))
    engine = check_replay("guandan", seen["replay"], options)
    assert len(engine.deal_results) == 3 and engine.payoffs()[0] == you


@pytest.mark.parametrize("seed", [GUANDAN_SEED])
def test_guandan_seed_gives_the_person_a_return_and_a_tribute(seed):
    """Why GUANDAN_SEED: played by :func:`choose` without a terminal, the person returns a card in deal 2 and pays
    tribute in deal 3."""
    decisions = simulate(seed, {"max_deals": 3, "tribute_decisions": True})
    assert (1, "return") in decisions and (2, "tribute") in decisions, decisions


def test_pty_end_of_input_and_quit_resume():
    """ctrl-D at the prompt leaves cleanly with a line that resumes the deal; quit does too."""
    with playing("doudizhu", "--seed", "5", "--seat", "1") as child:
        child.expect("Your move: ", timeout=START_TIMEOUT)
        child.sendeof()
        child.expect("End of input: leaving the game.")
        child.expect(r"Replay: (cardrl play [^\r\n]+)\r?\n")
        replay = child.match.group(1)
        expect_clean_exit(child)
    assert "--replay " in replay  # the landlord (seat 0) moved before the person
    with playing(*replay.split()[2:]) as child:
        child.expect(r"Replayed \d+ actions\.", timeout=START_TIMEOUT)
        child.expect("Your move: ")
        child.sendline("quit")
        child.expect("You stopped the game.")
        expect_clean_exit(child)
