"""How a person writes and reads Big2 (docs/rules.md, "Typing moves"): cards ``3d`` .. ``2s``, moves written as their
cards. Used by ``cardrl play`` (found by :func:`cardrl.games.notation.notation_of`); the engine never imports it."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.games.big2.engine import AGENTS
from cardrl.games.big2.moves import cards_to_string
from cardrl.games.notation import GameNotation

__all__ = ["Big2Notation", "NOTATION"]


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
            if cards_to_string(np.flatnonzero(counts[:52])) not in game.table.index:
                return (f"{typed} is not a Big2 hand (solo, pair, triple, or five cards: straight, flush, full house, "
                        f"four + one, straight flush)")
        return base

    def result_lines(self, game: Any, seat: int) -> list[str]:
        left = game.cards_left()
        lines = [f"{self.seat_label(game, game.winner)} (seat {game.winner}) played out first and wins; cards left: "
                 + ", ".join(f"{self.seat_label(game, s)} {int(left[s])}" for s in range(4))]
        return lines + super().result_lines(game, seat)


NOTATION = Big2Notation
