"""How a person writes and reads a game's cards and moves: the base class of every game's notation, and how
``cardrl play`` finds a game's (docs/rules.md, "Typing moves").

A game's notation is a :class:`GameNotation` subclass in the ``notation`` module beside its engine, named by that
module's ``NOTATION`` (``cardrl/games/doudizhu/notation.py`` for ``cardrl.games.doudizhu.engine``):
:func:`notation_of` finds it by that convention, so neither the engine nor the registry knows about screens, and a
game without one cannot be played in the terminal. A notation reads typed cards (:meth:`GameNotation.parse_ranks`,
:meth:`GameNotation.parse_cards`, :meth:`GameNotation.special_input`), writes hands and moves so they can be typed
back, explains why a typed move is not legal, and gives the game's own lines of the screen: the status above the
hand, what a move did besides being played (a GuanDan player going out), what a person sees when a match moves on
to its next deal, and the end-of-game summary. The terminal that uses them is :mod:`cardrl.play`.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from typing import Any

import numpy as np

__all__ = ["GameNotation", "notation_of", "rank_vectors", "PASS_WORDS"]

PASS_WORDS = ("pass", "p")  # what passes (and, in DouDiZhu's bidding, bids nothing)
_SUITED_CARD = re.compile(r"(BJ|RJ)|(10|[2-9TJQKA])([DCHS])", re.IGNORECASE)


def rank_vectors(cards: np.ndarray) -> np.ndarray:
    """``(n, 54)`` card counts -> ``(n, 15)`` counts per rank index (13 ranks, black joker, red joker)."""
    cards = np.asarray(cards, dtype=np.int64).reshape(-1, 54)
    return np.concatenate([cards[:, :52].reshape(-1, 13, 4).sum(axis=2), cards[:, 52:]], axis=1)


class GameNotation:
    """How one game's cards and moves are written and read: the base class, whose defaults fit a game of one deal
    with suited cards; a subclass per game (constructed without arguments, named by its module's ``NOTATION``,
    see :func:`notation_of`) overrides what differs.

    Class attributes: ``title`` names the game in messages; ``rank_chars`` are the 13 ranks in the order of the card
    kinds (kind ``4 * rank + suit``); ``jokers`` says whether the deck has them; ``suited`` whether moves are told
    apart by suit or by rank only; ``card_hint`` says how a card is typed and ``card_example`` gives examples for
    the prompt; ``move_words`` are the first words of the game's move names (``"straight"``, ``"bid"``), so that a
    name that is no legal move now is told apart from unreadable text; ``pass_texts`` are the move texts
    (``Engine.move_string``) of the moves that pass, listed first and played by ``pass``.

    Hooks for the game's own behaviour, with defaults for a plain game of one deal:

    * reading: :meth:`parse_ranks`, :meth:`parse_cards`, :meth:`special_input` (a reading before the generic one),
      :meth:`illegal_reason` (why typed cards are no legal move) and :meth:`no_pass_reason` (why ``pass`` is
      refused);
    * writing: :meth:`cards_text`, :meth:`card_sort_key`, :meth:`card_marks` (a card's place and marks in a
      hand shown card by card), :meth:`move_text`, :meth:`move_name` (a move's name without its cards) and
      :meth:`is_pass`;
    * the table: :meth:`seat_label`, :meth:`partner`, :meth:`to_beat`, :meth:`status_lines` (above the hand),
      :meth:`lead_lines` (when nothing is to beat) and :meth:`prompt_hint`;
    * what happens: :meth:`shown_move_text` (a move as one seat sees another's), :meth:`step_lines` (what a move
      did besides being played), :meth:`deal_index` and :meth:`deal_change_lines` (a game of several deals moving
      on to the next);
    * the end: :meth:`result_lines`.
    """

    title = ""
    rank_chars = "3456789TJQKA2"
    jokers = True
    suited = True
    card_hint = ""
    card_example = ""
    move_words: frozenset[str] = frozenset()
    pass_texts: tuple[str, ...] = ("pass",)

    # ---- reading cards ----------------------------------------------------------------------------------------
    def parse_ranks(self, text: str) -> np.ndarray:
        """``"33344"``, ``"10 J Q K A"``, ``"B R"`` -> (15,) counts per rank; ValueError naming what is allowed."""
        counts = np.zeros(15, dtype=np.int64)
        body = text.upper().replace(",", " ").replace("*", " ")
        for token in body.split():
            if self.jokers and token in ("BJ", "RJ"):
                counts[13 if token == "BJ" else 14] += 1
                continue
            for ch in token.replace("10", "T"):
                if ch in self.rank_chars:
                    counts[self.rank_chars.index(ch)] += 1
                elif self.jokers and ch in "BR":
                    counts[13 if ch == "B" else 14] += 1
                else:
                    raise ValueError(f"{ch!r} is not a card: {self.card_hint}")
        return counts

    def parse_cards(self, text: str) -> np.ndarray:
        """Cards with suits (``"3d 4c 10h"``, ``"5h5dBJ"``, any order) -> (54,) counts; ValueError otherwise."""
        body = re.sub(r"[\s,*]+", "", text)
        counts = np.zeros(54, dtype=np.int64)
        pos = 0
        while pos < len(body):
            m = _SUITED_CARD.match(body, pos)
            if m is None or (m.group(1) and not self.jokers):
                raise ValueError(f"cannot read a card at {body[pos:]!r}: {self.card_hint}")
            if m.group(1):
                counts[52 if m.group(1).upper() == "BJ" else 53] += 1
            else:
                rank = "T" if m.group(2) == "10" else m.group(2).upper()
                counts[4 * self.rank_chars.index(rank) + "dchs".index(m.group(3).lower())] += 1
            pos = m.end()
        limit = self.max_copies()
        if counts.max(initial=0) > limit:
            card = self.card_name(int(np.argmax(counts)))
            raise ValueError(f"{text.strip()!r} names {card} {int(counts.max())} times; the deck has "
                             f"{'only one' if limit == 1 else limit} of each card")
        return counts

    def has_suits(self, text: str) -> bool:
        """Whether ``text`` names cards with suits (a suit letter outside the joker names)."""
        return bool(re.search(r"[dchs]", re.sub(r"(?i)[br]j", "", text), re.IGNORECASE))

    def max_copies(self) -> int:
        """How many copies of each card the deck has."""
        return 1

    # ---- writing ----------------------------------------------------------------------------------------------
    def card_name(self, kind: int) -> str:
        """One card kind (0..53) as typed: rank and suit (``"Td"``), or ``"BJ"`` / ``"RJ"``."""
        if kind >= 52:
            return "BJ" if kind == 52 else "RJ"
        return self.rank_chars[kind // 4] + "dchs"[kind % 4]

    def cards_text(self, counts: np.ndarray, game: Any) -> str:
        """A hand or a move's cards, sorted (the game's order), in the notation that can be typed back."""
        kinds = [k for k in range(54) for _ in range(int(counts[k]))]
        return " ".join(self.card_name(k) for k in kinds)

    def card_sort_key(self, game: Any, kind: int) -> tuple[int, ...]:
        """Where card ``kind`` (0..53) goes in a sorted hand, lowest first; default: the kind's order."""
        return (kind,)

    def card_marks(self, game: Any, kind: int) -> tuple[str, ...]:
        """What marks card ``kind`` out now (GuanDan's ``"wild"`` heart and ``"level"`` cards); default: nothing."""
        return ()

    def ranks_text(self, ranks: np.ndarray) -> str:
        """(15,) counts per rank -> ``"33344"`` (jokers ``B`` / ``R``)."""
        chars = self.rank_chars + "BR"
        return "".join(chars[r] * int(c) for r, c in enumerate(ranks))

    def move_text(self, game: Any, action: int) -> str:
        """How a move is listed (and can mostly be typed back)."""
        return game.move_string(int(action))

    def move_name(self, game: Any, action: int) -> str:
        """The move's name without its cards, for name matching (``"straight 2-6"``); default: its text."""
        return self.move_text(game, action)

    def is_pass(self, game: Any, action: int) -> bool:
        """Whether ``action`` passes (its text is one of ``pass_texts``)."""
        return game.move_string(int(action)) in self.pass_texts

    # ---- the table --------------------------------------------------------------------------------------------
    def seat_label(self, game: Any, seat: int) -> str:
        """How the screen names ``seat`` (a role or an agent name where the game has one)."""
        return f"seat {seat}"

    def partner(self, seat: int) -> int | None:
        """The seat's partner (GuanDan), or None."""
        return None

    def to_beat(self, game: Any) -> tuple[str, int] | None:
        """(the move to beat, who played it), or None when the player to move leads."""
        last = getattr(game, "last_move", None)
        if last is None:
            return None
        return self.move_text(game, last), int(game.last_mover)

    def status_lines(self, game: Any, seat: int) -> list[str]:
        """Lines about the deal above the hand (level, multiplier, ...)."""
        return []

    def lead_lines(self, game: Any) -> list[str]:
        """Lines when there is no move to beat: in the card play the player to move leads; other phases (a
        bidding, a tribute) say nothing here."""
        return ["You lead: play any combination."] if game.phase == "play" else []

    def prompt_hint(self, game: Any) -> str:
        """What may be typed at the prompt now."""
        return f"cards ({self.card_example}), pass, #N, all, help, quit"

    # ---- reading moves ----------------------------------------------------------------------------------------
    def special_input(self, game: Any, text: str, legal: np.ndarray) -> int | str | None:
        """A game's own reading of ``text`` before the generic one (DouDiZhu bids): an action id, an error
        message, or None to go on."""
        return None

    def illegal_reason(self, game: Any, seat: int, counts: np.ndarray | None, ranks: np.ndarray,
                       typed: str) -> str:
        """Why typed cards match no legal move (hand first, then the trick)."""
        hand = np.asarray(game.cards_held()[seat], dtype=np.int64)
        if counts is not None:
            missing = counts > hand
            if missing.any():
                names = " ".join(self.card_name(k) for k in np.flatnonzero(missing))
                return f"you do not hold {typed}: {names} not in your hand"
        hand_ranks = rank_vectors(hand)[0]
        if (ranks > hand_ranks).any():
            short = "".join((self.rank_chars + "BR")[r] for r in np.flatnonzero(ranks > hand_ranks))
            return f"you do not hold {typed}: not enough of {' '.join(short)} in your hand"
        beat = self.to_beat(game)
        if beat is not None:
            return (f"{typed} does not beat {beat[0]} (or is no combination): play the same kind higher, a bomb, "
                    f"or pass")
        return f"{typed} is not a {self.title} combination"

    def no_pass_reason(self, game: Any) -> str:
        """Why the player to move may not pass (no pass is among the legal moves)."""
        return "you lead, so you must play"

    # ---- what happens -----------------------------------------------------------------------------------------
    def shown_move_text(self, game: Any, action: int, mover: int, viewer: int) -> str:
        """How ``viewer`` sees ``mover``'s move ``action`` (called before it is applied): its text, unless the game
        hides it from that seat (GuanDan's returned card)."""
        return self.move_text(game, action)

    def step_lines(self, game: Any, mover: int, label: str, left_before: np.ndarray) -> list[str]:
        """Lines about what ``mover``'s move did besides being played (a GuanDan player going out), called after the
        move when it did not start a new deal; ``label`` is how the screen names ``mover``, ``left_before`` the
        cards every player held before the move."""
        return []

    def deal_index(self, game: Any) -> int:
        """Which deal of a game of several deals is being played (0 for a game of one deal)."""
        return 0

    def deal_change_lines(self, game: Any, viewer: int) -> list[str]:
        """Lines when a game of several deals (a GuanDan match) has just moved on to its next deal: how the last
        one ended and how the new one starts, as ``viewer`` sees it (cards given between hidden players stay
        hidden)."""
        return []

    # ---- the end ----------------------------------------------------------------------------------------------
    def result_lines(self, game: Any, seat: int) -> list[str]:
        """The result of a finished game for the person at ``seat`` (payoffs, who won)."""
        pay = game.payoffs()
        lines = ["Payoffs: " + ", ".join(f"{self.seat_label(game, s)} {pay[s]:+g}" for s in range(len(pay)))]
        lines.append(f"You: {pay[seat]:+g} ({'win' if pay[seat] > 0 else 'loss' if pay[seat] < 0 else 'draw'})")
        return lines


def notation_of(engine_class: type) -> GameNotation | None:
    """The notation of the game whose engine is ``engine_class``: ``NOTATION()`` of the ``notation`` module in the
    engine's package (module docstring), or None when there is none."""
    package = engine_class.__module__.rpartition(".")[0]
    name = f"{package}.notation"
    try:
        found = importlib.util.find_spec(name) if package else None
    except ModuleNotFoundError:  # the engine's module is no package's
        found = None
    notation = getattr(importlib.import_module(name), "NOTATION", None) if found is not None else None
    return notation() if notation is not None else None
