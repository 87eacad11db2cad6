"""``cardrl play GAME --replay FILE``: a game record (docs/records.md) shown in the terminal, every hand visible, one
line per action with the deciding agent's values of its top moves, in the game's notation."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cardrl.eval.records import GameRecord, read_record
from cardrl.play.session import notation_for

__all__ = ["is_record_path", "record_lines", "main_replay"]


def is_record_path(text: str) -> bool:
    """Whether ``--replay``'s value names a record file (a ``.json`` path) rather than comma-separated ids."""
    text = text.strip()
    if text.lower().endswith(".json"):
        return True
    if "," in text or text.isdigit():  # action ids
        return False
    try:
        return Path(text).is_file()
    except OSError:  # a name too long for the file system
        return False


def _values_text(notation: Any, game: Any, entry: dict[str, Any] | None) -> str:
    if not entry:
        return ""
    kind = "Q" if entry["kind"] == "q" else "P"
    cells = [f"{notation.move_text(game, a)} {v:+.3f}" if kind == "Q" else f"{notation.move_text(game, a)} {v:.2f}"
             for a, v in entry["moves"]]
    return f"   [{kind}: " + " | ".join(cells) + "]"


def _hands_lines(notation: Any, game: Any) -> list[str]:
    hands = np.asarray(game.cards_held())
    return [f"  {_seat_name(notation, game, s)}: {notation.cards_text(hands[s], game)}" for s in range(len(hands))]


def _seat_name(notation: Any, game: Any, seat: int) -> str:
    label = notation.seat_label(game, seat)
    return label if label == f"seat {seat}" else f"{label} (seat {seat})"


def record_lines(record: GameRecord) -> list[str]:
    """The whole game as text: the deal, every action with its values, the deal changes and the result."""
    from cardrl.games.registry import get_game

    spec = get_game(record.game)
    notation = notation_for(spec.name)
    game = spec.make_engine(**record.options).reset(record.seed)
    lines = [f"{spec.title}, deal seed {record.seed}" + (f": {record.label}" if record.label else ""),
             "Seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(record.seats)), "Hands:"]
    lines += _hands_lines(notation, game)
    deal = notation.deal_index(game)
    for i, (action, entry) in enumerate(zip(record.actions, record.values)):
        seat = int(game.current_player)
        label = notation.seat_label(game, seat)
        text = notation.move_text(game, action)
        values = _values_text(notation, game, entry)
        left_before = np.asarray(game.cards_left()).copy()
        game.step(action)
        lines.append(f"{i + 1:4d}. {label}: {text}{values}")
        if notation.deal_index(game) != deal:
            deal = notation.deal_index(game)
            lines += notation.deal_change_lines(game, seat) + ["Hands:"] + _hands_lines(notation, game)
        else:
            lines += notation.step_lines(game, seat, label, left_before)
    if game.is_over:
        pay = game.payoffs()
        lines.append("Game over. Payoffs: " + ", ".join(f"{notation.seat_label(game, s)} {pay[s]:+g}"
                                                        for s in range(len(pay))))
    else:
        lines.append(f"(the record stops after {len(record.actions)} actions, before the end)")
    return lines


def main_replay(game: str, path: str, out: TextIO | None = None) -> int:
    """Print the record at ``path`` (which must be a game of ``game``): 0, or 2 with one error line."""
    out = sys.stdout if out is None else out
    try:
        record = read_record(path)
        if record.game != game:
            raise ValueError(f"{path} is a {record.game} record, not {game}: run cardrl play {record.game} "
                             f"--replay {path}")
        text = "\n".join(record_lines(record))
    except (ValueError, OSError) as err:
        print(f"cardrl play: error: {err}", file=sys.stderr)
        return 2
    print(text, file=out, flush=True)
    return 0
