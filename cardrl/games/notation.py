"""How each game's cards and moves are written and read by a person: the notation of ``cardrl play`` (docs/rules.md).

One :class:`GameNotation` subclass per game, named by the game's ``GameSpec.notation`` in the registry
(``cardrl.games.registry``); a game without one cannot be played in the terminal. A notation reads typed cards
(:meth:`GameNotation.parse_ranks`, :meth:`GameNotation.parse_cards`, :meth:`GameNotation.special_input`), writes
hands and moves so they can be typed back, explains why a typed move is not legal, and gives the game's own lines of
the screen: the status above the hand, what a move did besides being played (a GuanDan player going out), what a
person sees when a match moves on to its next deal, and the end-of-game summary. The terminal loop that uses them is
``cardrl/play.py``; this module imports only the games' own modules and :mod:`cardrl.cards`.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["GameNotation", "DouDizhuNotation", "Big2Notation", "GuanDanNotation", "rank_vectors", "PASS_WORDS"]

PASS_WORDS = ("pass", "p")  # what passes (and, in DouDiZhu's bidding, bids nothing)
_SUITED_CARD = re.compile(r"(BJ|RJ)|(10|[2-9TJQKA])([DCHS])", re.IGNORECASE)


def rank_vectors(cards: np.ndarray) -> np.ndarray:
    """``(n, 54)`` card counts -> ``(n, 15)`` counts per rank index (13 ranks, black joker, red joker)."""
    cards = np.asarray(cards, dtype=np.int64).reshape(-1, 54)
    return np.concatenate([cards[:, :52].reshape(-1, 13, 4).sum(axis=2), cards[:, 52:]], axis=1)


class GameNotation:
    """How one game's cards and moves are written and read: the base class, whose defaults fit a game of one deal
    with suited cards; a subclass per game (constructed without arguments, named by ``GameSpec.notation``)
    overrides what differs.

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
    * writing: :meth:`cards_text`, :meth:`move_text`, :meth:`move_name` (a move's name without its cards) and
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


class DouDizhuNotation(GameNotation):
    """DouDiZhu: ranks only (``33344``, ``TJQKA``, ``BR`` the rocket); moves are the move table's strings."""

    title = "DouDiZhu"
    move_words = frozenset({"bid"})
    pass_texts = ("pass", "bid pass")
    suited = False
    card_hint = "ranks are 3 4 5 6 7 8 9 T(10) J Q K A 2 and the jokers B (black) and R (red), e.g. 33344 or BR"
    card_example = "e.g. 33344, TJQKA, BR"

    def cards_text(self, counts: np.ndarray, game: Any) -> str:
        ranks = rank_vectors(counts)[0]
        chars = self.rank_chars + "BR"
        return " ".join(chars[r] * int(c) for r, c in enumerate(ranks) if c)

    def seat_label(self, game: Any, seat: int) -> str:
        return game.role(seat) if game.landlord >= 0 else f"seat {seat}"

    def status_lines(self, game: Any, seat: int) -> list[str]:
        if game.phase == "bid":
            bids = ", ".join("pass" if b == 0 else str(b) for b in game.bids) or "none yet"
            return [f"Bidding: bids so far {bids}; the highest bid takes the landlord's seat and the 3 bottom cards"]
        lines = [f"Landlord: {self.seat_label(game, game.landlord)} (seat {game.landlord}), bid {game.bid}, "
                 f"bombs so far {game.bomb_count}"]
        lines.append("Bottom cards (landlord's): " + self.cards_text(_rank_to_thermo(game.bottom), game))
        return lines

    def prompt_hint(self, game: Any) -> str:
        if game.phase == "bid":
            return "bid: pass (0), 1, 2 or 3 above the current bid; help, quit"
        return "cards (e.g. 33344, TJQKA, BR), pass, #N, all, help, quit"

    def special_input(self, game: Any, text: str, legal: np.ndarray) -> int | str | None:
        if game.phase != "bid":
            return None
        body = text.strip().lower()
        body = body[4:].strip() if body.startswith("bid ") else body
        bid = 0 if body in PASS_WORDS else int(body) if body.isdigit() else None
        if bid is None:
            return None
        action = game.num_moves + bid
        if action in set(int(a) for a in legal):
            return action
        allowed = ["pass"] + [str(int(a) - game.num_moves) for a in legal if int(a) > game.num_moves]
        return f"bid {bid} is not allowed now: bid one of {', '.join(allowed)} (a bid must beat {game.bid})"

    def illegal_reason(self, game: Any, seat: int, counts: np.ndarray | None, ranks: np.ndarray,
                       typed: str) -> str:
        hand = game.hands[seat]
        if (ranks > hand).any():
            short = " ".join((self.rank_chars + "BR")[r] for r in np.flatnonzero(ranks > hand))
            return f"you do not hold {typed}: not enough {short} in your hand"
        text = self.ranks_text(ranks)
        if text not in game.table.index:
            return f"{typed} is not a DouDiZhu move (see help, or 'all' for the legal moves)"
        beat = self.to_beat(game)
        if beat is not None:
            return f"{text} does not beat {beat[0]}: play the same kind and length higher, a bomb, BR, or pass"
        return f"{text} is not legal here"  # pragma: no cover (a held combination is always legal when leading)

    def result_lines(self, game: Any, seat: int) -> list[str]:
        side = game.winning_side()
        pay = game.payoffs("adp")
        mine = pay[seat]
        lines = [f"The {side} win ({self.seat_label(game, game.winner)}, seat {game.winner}, played out first); "
                 f"multiplier {game.multiplier()} (bid {game.bid}, bombs {game.bomb_count})."]
        lines.append("Payoffs (ADP): " + ", ".join(f"{self.seat_label(game, s)} {pay[s]:+g}" for s in range(3)))
        lines.append(f"You ({self.seat_label(game, seat)}): {mine:+g} ({'win' if mine > 0 else 'loss'})")
        return lines


def _rank_to_thermo(ranks: np.ndarray) -> np.ndarray:
    from cardrl.cards import rank_counts_to_vector

    return rank_counts_to_vector(np.asarray(ranks)).astype(np.int64)


class Big2Notation(GameNotation):
    """Big2: cards ``3d`` .. ``2s`` (suits d < c < h < s); moves written as their cards."""

    title = "Big2"
    jokers = False
    card_hint = ("a card is a rank 3 4 5 6 7 8 9 T(10) J Q K A 2 and a suit d c h s, e.g. 3d or Ts; or ranks only, "
                 "e.g. 33 for a pair of 3s")
    card_example = "e.g. 3d 4c 5h 6s 7d, or 33"

    def move_text(self, game: Any, action: int) -> str:
        text = game.move_string(int(action))
        return text if text == "pass" else " ".join(text[i:i + 2] for i in range(0, len(text), 2))

    def seat_label(self, game: Any, seat: int) -> str:
        from cardrl.games.big2 import AGENTS

        return AGENTS[seat]

    def status_lines(self, game: Any, seat: int) -> list[str]:
        if game.must_contain_three_of_diamonds:
            return ["First move of the deal: it must contain the 3 of diamonds (3d)."]
        return []

    def illegal_reason(self, game: Any, seat: int, counts: np.ndarray | None, ranks: np.ndarray,
                       typed: str) -> str:
        base = super().illegal_reason(game, seat, counts, ranks, typed)
        if base.startswith("you do not hold"):
            return base
        if game.must_contain_three_of_diamonds and (counts is None or not counts[0]):
            return f"{typed}: the first move of the deal must contain the 3 of diamonds (3d)"
        if counts is not None:
            from cardrl.games.big2.moves import cards_to_string

            if cards_to_string(np.flatnonzero(counts[:52])) not in game.table.index:
                return (f"{typed} is not a Big2 hand (solo, pair, triple, or five cards: straight, flush, full house, "
                        f"four + one, straight flush)")
        return base

    def result_lines(self, game: Any, seat: int) -> list[str]:
        left = game.cards_left()
        lines = [f"{self.seat_label(game, game.winner)} (seat {game.winner}) played out first and wins; cards left: "
                 + ", ".join(f"{self.seat_label(game, s)} {int(left[s])}" for s in range(4))]
        return lines + super().result_lines(game, seat)


class GuanDanNotation(GameNotation):
    """GuanDan: cards ``2d`` .. ``As``, ``BJ``, ``RJ`` (two decks); the heart of the level rank is wild (marked
    ``*``); moves are listed by name and cards (``straight 2-6 [2d 3c 4h 5s 6d]``)."""

    title = "GuanDan"
    move_words = frozenset({"single", "pair", "trio", "three-with-two", "straight", "tube", "plate", "bomb",
                            "straight-flush", "four-jokers", "tribute", "return"})
    rank_chars = "23456789TJQKA"
    card_hint = ("a card is a rank 2 3 4 5 6 7 8 9 T(10) J Q K A and a suit d c h s, e.g. 5h, or BJ / RJ; or ranks "
                 "only, e.g. 55")
    card_example = "e.g. 5h 5d, or 55"

    def max_copies(self) -> int:
        return 2

    def cards_text(self, counts: np.ndarray, game: Any) -> str:
        from cardrl.games.guandan.engine import _card_power

        level = game.level
        wild = 4 * level + 2
        kinds = [k for k in range(54) for _ in range(int(counts[k]))]
        kinds.sort(key=lambda k: (_card_power(k, level), k))
        return " ".join(self.card_name(k) + ("*" if k == wild else "") for k in kinds)

    def move_text(self, game: Any, action: int) -> str:
        from cardrl.games.guandan.moves import Category, move_to_string

        move = game.move_of(int(action))
        if move.category in (Category.TRIBUTE, Category.RETURN):
            return f"{'tribute' if move.category == Category.TRIBUTE else 'return'} {self.card_name(move.cards[0])}"
        return self._mark_wild(move_to_string(move, game.level), game.level)

    def _mark_wild(self, text: str, level: int) -> str:
        """``"straight 2-6 [2h 3d 4d 5d 6d]"`` with the level's wild heart marked ``2h*`` (in the cards; what a wild
        stands for, ``"(2h as 7)"`` after them, stays as it is)."""
        head, sep, rest = text.partition(" [")
        if not sep:
            return text
        cards, _, tail = rest.partition("]")
        wild = self.card_name(4 * level + 2)
        return head + sep + " ".join(c + "*" if c == wild else c for c in cards.split()) + "]" + tail

    def partner(self, seat: int) -> int | None:
        return (seat + 2) % 4

    def move_name(self, game: Any, action: int) -> str:
        return self.move_text(game, action).split(" [")[0]

    def to_beat(self, game: Any) -> tuple[str, int] | None:
        from cardrl.games.guandan.moves import move_to_string

        if game.last_move is None or game.phase != "play":
            return None
        return self._mark_wild(move_to_string(game.last_move, game.level), game.level), int(game.last_mover)

    def status_lines(self, game: Any, seat: int) -> list[str]:
        lvl = self.rank_chars
        team = seat % 2
        deals = f" of {game.max_deals}" if game.match and game.max_deals else ""
        lines = [f"Deal {game.deal_index + 1}{deals} at level {lvl[game.level]} (wild: {lvl[game.level]}h*); team "
                 f"levels: yours (seats {team}, {team + 2}) {lvl[game.team_levels[team]]}, theirs "
                 f"{lvl[game.team_levels[1 - team]]}"]
        if game.tributes:
            lines.append("Tribute: " + "; ".join(
                f"seat {p} gave {self.card_name(k)}" + (f" to seat {r}" if r >= 0 else "")
                for p, r, k in game.tributes) + (" (refused: two red jokers)" if game.refused else ""))
        elif game.deal_index > 0 and game.refused:
            lines.append("Tribute refused: the payers hold both red jokers.")
        returns = [r for r in game.returns if seat in (r[0], r[1])]
        if returns:
            lines.append("Returns you saw: " + "; ".join(f"seat {g} gave {self.card_name(k)} to seat {r}"
                                                         for g, r, k in returns))
        if game.finished:
            lines.append("Out: " + ", ".join(f"seat {s} ({i + 1}{'st nd rd th'.split()[min(i, 3)]})"
                                             for i, s in enumerate(game.finished)))
        if game.phase == "tribute" and game.current_player == seat:
            lines.append("You pay tribute: give your highest card (the wild heart excluded).")
        if game.phase == "return" and game.current_player == seat:
            to = next((p for p, r, _ in game.tributes if r == seat), None)
            lines.append(f"You return a card to seat {to}: one of rank 10 or lower.")
        return lines

    def prompt_hint(self, game: Any) -> str:
        if game.phase in ("tribute", "return"):
            return f"the {game.phase} card (e.g. {'Ah' if game.phase == 'tribute' else '3d'}), #N, help, quit"
        return "cards (e.g. 5h 5d, or 55), pass, #N, a name (straight 2-6), all [TEXT], help, quit"

    def shown_move_text(self, game: Any, action: int, mover: int, viewer: int) -> str:
        text = self.move_text(game, action)
        to = next((p for p, r, _ in game.tributes if r == mover), None)  # a return goes back to the payer
        if text.startswith("return ") and viewer not in (mover, to):
            return "return a card"  # a returned card is seen only by the two players concerned
        return text

    def step_lines(self, game: Any, mover: int, label: str, left_before: np.ndarray) -> list[str]:
        if mover in game.finished and left_before[mover] > 0:
            return [f"  {label} is out ({game.finished.index(mover) + 1}. place)"]
        return []

    def deal_index(self, game: Any) -> int:
        return int(game.deal_index)

    def deal_change_lines(self, game: Any, viewer: int) -> list[str]:
        res = game.deal_results[-1]
        lvl = self.rank_chars
        lines = [f"Deal {len(game.deal_results)} over: out in order {', '.join(f'seat {s}' for s in res['order'])}; "
                 f"team {res['team']} scores {res['reward']:+g}.",
                 f"--- deal {game.deal_index + 1} at level {lvl[game.level]} ---"]
        if game.refused:
            lines.append("Tribute refused: the payers hold both red jokers.")
        for p, r, k in game.tributes:
            lines.append(f"  seat {p} pays tribute {self.card_name(k)} to seat {r}")
        for g, r, k in game.returns:
            shown = self.card_name(k) if viewer in (g, r) else "a card"
            lines.append(f"  seat {g} returns {shown} to seat {r}")
        return lines

    def illegal_reason(self, game: Any, seat: int, counts: np.ndarray | None, ranks: np.ndarray,
                       typed: str) -> str:
        if game.phase in ("tribute", "return"):
            options = ", ".join(self.card_name(m.cards[0]) for m in game.legal_move_values())
            return f"{typed} is not a {game.phase} card you may give: choose one of {options}"
        return super().illegal_reason(game, seat, counts, ranks, typed)

    def no_pass_reason(self, game: Any) -> str:
        if game.phase != "play":
            return f"this is the {game.phase} decision, so choose a card"
        return super().no_pass_reason(game)

    def result_lines(self, game: Any, seat: int) -> list[str]:
        lvl = self.rank_chars
        lines = []
        for i, res in enumerate(game.deal_results):
            order = ", ".join(f"seat {s}" for s in res["order"])
            lines.append(f"Deal {i + 1} at level {lvl[res['level']]}: out in order {order}; team {res['team']} "
                         f"(seats {res['team']}, {res['team'] + 2}) scores {res['reward']:+g}")
        if game.match:
            if game.match_winner is not None:
                lines.append(f"Match won by team {game.match_winner}.")
            else:
                lines.append(f"Match stopped after {len(game.deal_results)} deal(s); team levels "
                             f"{lvl[game.team_levels[0]]} (team 0) / {lvl[game.team_levels[1]]} (team 1).")
        pay = game.payoffs()
        lines.append(f"Payoffs: team 0 (seats 0, 2) {pay[0]:+g}, team 1 (seats 1, 3) {pay[1]:+g}")
        lines.append(f"You (seat {seat}, team {seat % 2}): {pay[seat]:+g} "
                     f"({'win' if pay[seat] > 0 else 'loss' if pay[seat] < 0 else 'draw'})")
        return lines
