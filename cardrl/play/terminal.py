"""The terminal loop of ``cardrl play``: reads lines with ``input()`` (or any callable) and prints a
:class:`~cardrl.play.session.PlaySession`'s text to a stream until the game ends or the person stops."""

from __future__ import annotations

import sys
from typing import Callable, TextIO

from cardrl.play.session import PlaySession

__all__ = ["run_session"]


def run_session(session: PlaySession, read: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """Play ``session`` with lines from ``read(prompt)`` (``input`` by default) printed to ``out``: 0 when the game
    ends or the person stops (quit, end of input), 130 on ctrl-C, 1 if an agent fails; every way out but the end
    prints a replay line that resumes the game."""
    out = sys.stdout if out is None else out
    try:
        return _loop(session, read, out)
    except KeyboardInterrupt:
        print("\nInterrupted: leaving the game.", file=out, flush=True)
        print(session.replay_note(), file=out, flush=True)
        return 130


def _loop(session: PlaySession, read: Callable[[str], str], out: TextIO) -> int:
    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(session.header())
    while True:
        try:
            for line in session.advance():
                say(line)
        except Exception as err:  # an agent (e.g. a checkpoint) failed: end cleanly, keep the deal
            say(f"cardrl play: an opponent failed: {type(err).__name__}: {err}")
            say(session.replay_note())
            return 1
        if session.over:
            break
        say(session.screen())
        while True:
            try:
                text = read(session.prompt())
            except EOFError:
                say("\nEnd of input: leaving the game.")
                say(session.replay_note())
                return 0
            parsed = session.parse(text)
            if parsed.kind == "move":
                for line in session.play(parsed.action):
                    say(line)
                break
            if parsed.command == "quit":
                say("You stopped the game.")
                say(session.replay_note())
                return 0
            if parsed.command == "help":
                say(session.help_text())
            elif parsed.command == "all":
                say(session.moves_text(limit=0, contains=parsed.argument))
            elif parsed.command == "empty":
                say(f"Type a move: {session.notation.prompt_hint(session.game)}")
            else:
                say(("Ambiguous: " if parsed.kind == "ambiguous" else "Not a legal move: ") + parsed.message)
    say(session.result_text())
    say(session.replay_note())
    return 0
