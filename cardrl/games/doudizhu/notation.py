"""How a person writes and reads DouDiZhu (docs/rules.md, "Typing moves"): ranks only, moves as the move table's
strings, and the bidding typed as ``bid N`` or ``pass``. Used by ``cardrl play`` (found by
:func:`cardrl.games.notation.notation_of`); the engine never imports it."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.cards import rank_counts_to_vector
from cardrl.games.notation import PASS_WORDS, GameNotation, rank_vectors

__all__ = ["DouDizhuNotation", "NOTATION"]


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

    def step_lines(self, game: Any, mover: int, label: str, left_before: np.ndarray) -> list[str]:
        if game.phase == "play" and not game.history and game.actions and game.actions[-1] >= game.num_moves:
            bottom = self.cards_text(_rank_to_thermo(game.bottom), game)
            return [f"  seat {game.landlord} is the landlord at bid {game.bid} and takes the bottom cards {bottom}"]
        return []

    def deal_index(self, game: Any) -> int:
        """With bidding, each deal after all three passed counts as a new deal (the engine's ``redeals``)."""
        return int(game.redeals)

    def deal_change_lines(self, game: Any, viewer: int) -> list[str]:
        return [(f"All three passed: the cards are dealt again (redeal {game.redeals}); seat {game.current_player} "
                 f"bids first")]

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
    return rank_counts_to_vector(np.asarray(ranks)).astype(np.int64)


NOTATION = DouDizhuNotation
