"""How a person writes and reads GuanDan (docs/rules.md, "Typing moves"): cards ``2d`` .. ``As``, ``BJ``, ``RJ`` from
two decks, the level's wild heart marked ``*``, moves by name and cards, the tribute and return as decisions. Used
by ``cardrl play`` (found by :func:`cardrl.games.notation.notation_of`); the engine never imports it."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.games.guandan.engine import _card_power
from cardrl.games.guandan.moves import Category, move_to_string
from cardrl.games.notation import GameNotation

__all__ = ["GuanDanNotation", "NOTATION"]


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
        wild = 4 * game.level + 2
        kinds = [k for k in range(54) for _ in range(int(counts[k]))]
        kinds.sort(key=lambda k: self.card_sort_key(game, k))
        return " ".join(self.card_name(k) + ("*" if k == wild else "") for k in kinds)

    def card_sort_key(self, game: Any, kind: int) -> tuple[int, ...]:
        return (_card_power(kind, game.level), kind)

    def card_marks(self, game: Any, kind: int) -> tuple[str, ...]:
        if kind == 4 * game.level + 2:
            return ("wild",)
        return ("level",) if kind < 52 and kind // 4 == game.level else ()

    def move_text(self, game: Any, action: int) -> str:
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


NOTATION = GuanDanNotation
