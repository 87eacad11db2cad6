"""``cardrl play GAME``: a person plays one deal (or, in GuanDan, a few deals of a match) against agents in the
terminal.

The rules are those of docs/rules.md; the opponents are any agent spec of :func:`cardrl.eval.agents.build_agent`
(``rule`` by default). The package has a pure core with no terminal in it and a thin loop:

* :mod:`.input`: :func:`parse_input` reads what the person typed against the legal moves (an action id, an
  ambiguity to resolve, a command, or a one-line error naming what is allowed);
* :mod:`.session`: :class:`PlaySession` deals, lets the agents move, formats the screen for the person's seat
  (their hand sorted, the move to beat and who played it, every player's cards left, the recent moves, the
  numbered legal moves), and the result and replay line at the end; each game's notation
  (:func:`~cardrl.games.notation.notation_of`) says how its cards are written;
* :mod:`.terminal`: :func:`run_session`, the loop that reads lines with ``input()`` (or any callable) and prints
  to a stream;
* :mod:`.cli`: the options of ``cardrl play`` and :func:`main_play`, the CLI entry point.

What can be typed (case-insensitive; ``help`` on the prompt says the same):

* cards in the game's notation, in any order, with or without spaces: DouDiZhu ranks ``3456789TJQKA2`` and the
  jokers ``B`` / ``R`` (``33344``, ``TJQKA``, ``BR``; ``10`` for ``T``); Big2 and GuanDan cards as rank + suit
  (``3d 4c 5h 6s 7d``, ``10h``; GuanDan jokers ``BJ`` / ``RJ``), or ranks only (``33344``) when only the ranks
  matter: if several legal moves fit, they are listed and one is picked by number;
* ``pass`` or ``p``; ``#N`` (or a bare ``N`` that does not read as cards) picks move ``N`` of the list;
* a move's name without its cards (GuanDan ``straight 2-6``, ``bomb 7``; DouDiZhu ``bid 2``): GuanDan's wild
  cards can make the same cards two moves (a straight 2-6 and 3-7), which are listed by name to be told apart;
* ``all`` (or ``all TEXT``: the moves whose text contains TEXT) lists every legal move, ``help`` / ``?`` the help,
  ``quit`` / ``exit`` stop, and so does a lowercase ``q`` unless a queen could be meant (then it asks; a capital ``Q``
  is the queen); end of input (ctrl-D) and ctrl-C stop too.

Stopping early prints a ``--replay`` line that resumes the deal where it was left; the end of a deal prints the
result and the same kind of line, which replays the whole deal (the engine's ``replay(seed, actions, **options)``
rebuilds it exactly, docs/architecture.md).

GuanDan plays ``--deals 1`` by default: the first deal of a match (at level 2, no tribute). ``--deals N`` plays
``N`` deals of a match (``max_deals=N``), so from the second deal on there is tribute and return; with
``--tribute-decisions`` the person chooses their own tribute and return cards. ``--deals 0`` plays a whole match.
"""

from cardrl.games.notation import GameNotation
from cardrl.play.cli import add_play_arguments, build_session, main_play
from cardrl.play.input import Parsed, display_order, parse_input
from cardrl.play.session import DEFAULT_SHOWN, PlaySession, notation_for, playable_games
from cardrl.play.terminal import run_session

__all__ = ["Parsed", "GameNotation", "notation_for", "playable_games", "parse_input", "PlaySession", "run_session",
           "add_play_arguments", "main_play", "build_session", "DEFAULT_SHOWN", "display_order"]
