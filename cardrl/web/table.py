"""What the web app shows of a game, as JSON: the table (hands, cards left, the moves on the table, the game's status
lines) in the game's notation (:mod:`cardrl.games.notation`), and a record's frames for the replay and compare
pages. A ``viewer`` seat sees only its own hand (play); ``viewer=None`` sees every hand (replay, compare)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardrl.eval.records import GameRecord
from cardrl.games.notation import GameNotation

__all__ = ["table_state", "record_frames", "record_json", "values_json", "TrickTracker"]


class TrickTracker:
    """The moves on the table: each seat's last move of the current trick (cleared when a player leads or a new deal
    starts), and the log of every move."""

    def __init__(self, notation: GameNotation, game: Any):
        self.notation = notation
        self.table: dict[int, str] = {}
        self.deal = notation.deal_index(game)
        self.phase = str(game.phase)
        self.log: list[dict[str, Any]] = []

    def before(self, game: Any, action: int, viewer: int | None) -> dict[str, Any]:
        """Call before ``action`` is applied; returns its log entry."""
        n, seat = self.notation, int(game.current_player)
        phase = str(game.phase)
        if phase != self.phase or (n.to_beat(game) is None and phase != "bid"):  # the bids stay until play starts
            self.table = {}
        self.phase = phase
        text = n.move_text(game, action) if viewer is None else n.shown_move_text(game, action, seat, viewer)
        self.table[seat] = text
        entry = {"seat": seat, "label": n.seat_label(game, seat), "text": text, "deal": self.deal}
        self.log.append(entry)
        self._mover = (seat, entry["label"], np.asarray(game.cards_left()).copy())
        return entry

    def deal_log(self) -> list[dict[str, Any]]:
        """The log of the current deal, every move of it (a game of one deal: the whole game, bids included); between
        deals, until the new deal's first move, the deal just ended."""
        if not self.log:
            return []
        shown = self.log[-1]["deal"]
        start = len(self.log)
        while start and self.log[start - 1]["deal"] == shown:
            start -= 1
        return self.log[start:]

    def after(self, game: Any, viewer: int | None) -> list[str]:
        """Call after the move; the lines of a new deal (the table is cleared) or of the game's own events (a player
        going out, DouDiZhu's landlord taking the bottom cards)."""
        deal = self.notation.deal_index(game)
        if deal == self.deal:
            return [line.strip() for line in self.notation.step_lines(game, *self._mover)]
        self.deal, self.table = deal, {}
        return self.notation.deal_change_lines(game, 0 if viewer is None else viewer)


def _hand_text(notation: GameNotation, game: Any, seat: int) -> str:
    return notation.cards_text(np.asarray(game.cards_held())[seat], game)


def table_state(notation: GameNotation, game: Any, tracker: TrickTracker, viewer: int | None) -> dict[str, Any]:
    """The table as ``viewer`` sees it (None: every hand)."""
    left = [int(x) for x in np.asarray(game.cards_left())]
    seats = []
    for s in range(len(left)):
        visible = viewer is None or s == viewer or game.is_over
        seats.append({"seat": s, "label": notation.seat_label(game, s), "left": left[s],
                      "hand": _hand_text(notation, game, s) if visible else None,
                      "table": tracker.table.get(s, "")})
    current = None if game.is_over else int(game.current_player)
    status = notation.status_lines(game, 0 if viewer is None else viewer)
    return {"seats": seats, "current": current, "over": bool(game.is_over), "phase": str(game.phase),
            "status": status, "deal": int(notation.deal_index(game))}


def values_json(notation: GameNotation, game: Any, entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """A record's values entry with each move's text (before the move is applied)."""
    if not entry:
        return None
    return {"kind": entry["kind"],
            "moves": [{"id": int(a), "text": notation.move_text(game, int(a)), "value": float(v)}
                      for a, v in entry["moves"]]}


def record_frames(record: GameRecord, notation: GameNotation) -> list[dict[str, Any]]:
    """Frame ``i`` is the table before action ``i`` (the last frame: the end), with the action about to be played
    and the deciding agent's values; every hand visible."""
    from cardrl.games.registry import get_game

    game = get_game(record.game).make_engine(**record.options).reset(record.seed)
    tracker = TrickTracker(notation, game)
    frames: list[dict[str, Any]] = []
    events: list[str] = []
    for action, entry in zip(record.actions, record.values):
        frame = table_state(notation, game, tracker, None)
        values = values_json(notation, game, entry)
        move = tracker.before(game, action, None)
        frame.update(events=events, move={**move, "id": int(action)}, values=values)
        frames.append(frame)
        game.step(int(action))
        events = tracker.after(game, None)
    last = table_state(notation, game, tracker, None)
    last.update(events=events, move=None, values=None,
                result=notation.result_lines(game, 0)[:-1] if game.is_over else [])
    frames.append(last)
    return frames


def record_json(rec, frames: list[dict[str, Any]]) -> dict[str, Any]:
    """A game record as the replay and compare pages take it: the seed as a string, the seats' agents by short
    name, the frames (:func:`cardrl.web.table.record_frames`)."""
    from cardrl.games.registry import get_game
    from cardrl.web.catalog import short_agent_id

    return {"game": rec.game, "title": get_game(rec.game).title, "seed": str(rec.seed), "options": rec.options,
            "seats_agents": [short_agent_id(s) for s in rec.seats], "label": rec.label, "source": rec.source,
            "payoffs": rec.payoffs, "actions": rec.actions, "frames": frames}
