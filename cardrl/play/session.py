"""The session model of ``cardrl play``: one game with a person at one seat and agents at the others, and what the
person sees (the table, the numbered legal moves, the help, the result and a replay line) as text. No terminal:
the loop that reads and prints is :mod:`cardrl.play.terminal`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cardrl.agents.base import agent_view
from cardrl.games.notation import GameNotation, notation_of
from cardrl.play.input import Parsed, display_order, parse_input

__all__ = ["PlaySession", "notation_for", "playable_games", "DEFAULT_SHOWN"]

DEFAULT_SHOWN = 30  # legal moves listed before "type all to see the rest"


def playable_games() -> list[str]:
    """The registered games that have a notation (:func:`~cardrl.games.notation.notation_of`), so that a person can
    play them."""
    from cardrl.games.registry import game_names, get_game

    return [name for name in game_names() if notation_of(get_game(name).engine_class) is not None]


def notation_for(game: str) -> GameNotation:
    """The :class:`GameNotation` of a registered game (ValueError naming the games that can be played)."""
    from cardrl.games.registry import get_game

    spec = get_game(game)
    notation = notation_of(spec.engine_class)
    if notation is None:
        raise ValueError(f"{spec.title} cannot be played in the terminal: it has no notation (a notation module "
                         f"beside its engine); cardrl play plays {', '.join(playable_games()) or 'no game'}")
    return notation


@dataclass
class _Event:
    deal: int
    seat: int
    text: str


class PlaySession:
    """One game of ``game`` (a deal; a GuanDan match of ``max_deals`` deals) with a person at ``seat`` and agents in
    the other seats. No terminal: :meth:`advance` lets the agents move until it is the person's turn, :meth:`screen`
    is what they see, :meth:`parse` reads a line, :meth:`play` applies their move, :meth:`result_text` and
    :meth:`replay_line` end it.
    """

    def __init__(self, game: str, seat: int, agents: dict[int, Any], seed: int, options: dict[str, Any],
                 shown: int = DEFAULT_SHOWN, command: str = ""):
        from cardrl.games.registry import get_game

        self.spec = get_game(game)
        self.notation = notation_for(self.spec.name)
        self.seat = int(seat)
        self.agents = agents
        self.seed = int(seed)
        self.options = dict(options)
        self.shown = int(shown)
        self.command = command
        self.game = self.spec.make_engine(**self.options).reset(self.seed)
        for agent in {id(a): a for a in agents.values()}.values():
            agent.reset(self.seed)
        self.events: list[_Event] = []
        self._deal = self._deal_index()

    # ---- state ------------------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return bool(self.game.is_over)

    @property
    def my_turn(self) -> bool:
        return not self.over and int(self.game.current_player) == self.seat

    def _deal_index(self) -> int:
        return self.notation.deal_index(self.game)

    def items(self) -> list[int]:
        """The person's legal moves in their on-screen order (empty when it is not their turn)."""
        return display_order(self.notation, self.game, self.game.legal_moves()) if self.my_turn else []

    # ---- moving -----------------------------------------------------------------------------------------------
    def _label(self, seat: int) -> str:
        name = self.notation.seat_label(self.game, seat)
        if seat == self.seat:
            return f"you ({name})"
        return f"{name} (partner)" if seat == self.notation.partner(self.seat) else name

    def step(self, action: int) -> list[str]:
        """Apply ``action`` for the player to move (who must be allowed it); returns the lines that tell what
        happened (the move, and the game's own lines: a player going out, a new deal)."""
        game, n = self.game, self.notation
        seat = int(game.current_player)
        text = n.shown_move_text(game, action, seat, self.seat)
        label_before = self._label(seat)
        left_before = np.asarray(game.cards_left()).copy()
        game.step(int(action))
        deal = self._deal_index()
        lines = [f"  {label_before}: {text}"]
        self.events.append(_Event(self._deal, seat, text))
        if deal == self._deal:
            lines += n.step_lines(game, seat, label_before, left_before)
        else:
            lines += n.deal_change_lines(game, self.seat)
            self._deal = deal
        return lines

    def advance(self) -> list[str]:
        """Let the agents move until it is the person's turn or the game is over; the lines of what happened."""
        lines: list[str] = []
        while not self.over and int(self.game.current_player) != self.seat:
            seat = int(self.game.current_player)
            agent = self.agents[seat]
            action = agent.act(agent_view(agent, self.game, seat), self.game.legal_moves())
            lines += self.step(int(action))
        return lines

    def parse(self, text: str) -> Parsed:
        """:func:`parse_input` for the person's current decision."""
        return parse_input(self.notation, self.game, text, self.items())

    def play(self, action: int) -> list[str]:
        """The person's move (a legal id of :meth:`items`)."""
        if not self.my_turn:
            raise RuntimeError("it is not your turn")
        return self.step(action)

    # ---- what is shown ----------------------------------------------------------------------------------------
    def header(self) -> str:
        names = ", ".join(f"{self.notation.seat_label(self.game, s)}: {getattr(a, 'name', 'agent')}"
                          for s, a in sorted(self.agents.items()))
        label = self.notation.seat_label(self.game, self.seat)
        partner = self.notation.partner(self.seat)
        about = (f" ({label})" if label != f"seat {self.seat}" else "") + (
            f", partner seat {partner}" if partner is not None else "")
        return (f"cardrl play {self.spec.name}: {self.spec.title}, deal seed {self.seed}; you are seat {self.seat}"
                f"{about}; the others: {names}. Type help for help.")

    def screen(self) -> str:
        """The table as the person sees it when it is their turn."""
        game, n = self.game, self.notation
        lines = ["", "=" * 72]
        lines += n.status_lines(game, self.seat)
        left = np.asarray(game.cards_left())
        lines.append("Cards left: " + " | ".join(f"{self._label(s)} {int(left[s])}" for s in range(len(left))))
        lines += self._recent_lines(len(left))
        beat = n.to_beat(game)
        if beat is not None:
            lines.append(f"To beat: {beat[0]}  (played by {self._label(beat[1])})")
        else:
            lines += n.lead_lines(game)
        hand = np.asarray(game.cards_held()[self.seat])
        lines.append(f"Your hand ({int(hand.sum())}): {n.cards_text(hand, game)}")
        lines.append(self.moves_text())
        lines.append(f"Type {n.prompt_hint(game)}.")
        return "\n".join(lines)

    def _recent_lines(self, players: int) -> list[str]:
        """This deal's moves since the person's previous move (at most two rounds), on one line when short."""
        deal = [e for e in self.events if e.deal == self._deal]
        mine = [i for i, e in enumerate(deal) if e.seat == self.seat]
        recent = deal[mine[-1]:] if mine else deal
        recent = recent[-2 * players:]
        if not recent:
            return []
        cells = [f"{self._label(e.seat)}: {e.text}" for e in recent]
        line = "Recent: " + " | ".join(cells)
        return [line] if len(line) <= 110 else ["Recent:"] + ["  " + c for c in cells]

    def moves_text(self, limit: int | None = None, contains: str = "") -> str:
        """The numbered legal moves, the first ``limit`` (default the session's ``shown``) of those whose text
        contains ``contains``; ``limit=0`` lists them all."""
        items = self.items()
        limit = self.shown if limit is None else limit
        numbered = [(i + 1, self.notation.move_text(self.game, a)) for i, a in enumerate(items)]
        if contains:
            numbered = [(i, t) for i, t in numbered if contains.lower() in t.lower()]
        total = len(numbered)
        if limit and total > limit:
            numbered = numbered[:limit]
        cells = [f"#{i} {t}" for i, t in numbered]
        width = max((len(c) for c in cells), default=0) + 2
        per_row = max(1, 96 // max(width, 1))
        rows = ["  " + "".join(c.ljust(width) for c in cells[r:r + per_row]).rstrip()
                for r in range(0, len(cells), per_row)]
        what = f"Legal moves ({len(items)})" if not contains else f"Legal moves containing {contains!r} ({total})"
        out = [what + ":"] + rows
        if len(numbered) < total:
            out.append(f"  ... {total - len(numbered)} more: type 'all' to list every move, 'all TEXT' to list those "
                       f"containing TEXT, or type the cards")
        if not total:
            out.append("  (none)")
        return "\n".join(out)

    def prompt(self) -> str:
        return "Your move: "

    def help_text(self) -> str:
        n = self.notation
        return "\n".join([
            f"How to move ({n.title}):",
            f"  cards       {n.card_hint}; any order, spaces optional, any case",
            "  pass, p     pass (when following)",
            "  #N          play move N of the numbered list (a bare N works when it does not read as cards)",
            "  NAME        a move's name, e.g. 'straight 2-6' or 'bomb 7' (GuanDan), 'bid 2' (DouDiZhu bidding)",
            "  all [TEXT]  list every legal move (or those containing TEXT)",
            "  help, ?     this help;  quit, exit: stop (a replay line resumes the deal later); Q (capital) is a queen",
            "  When typed cards fit several moves (suits, or GuanDan's wild card used two ways), they are listed:",
            "  type the number of the one you mean.",
        ])

    # ---- the end ----------------------------------------------------------------------------------------------
    def result_text(self) -> str:
        game = self.game
        lines = ["", "=" * 72, "Game over." if self.over else "Stopped before the end."]
        if self.over:
            lines += self.notation.result_lines(game, self.seat)
            hands = np.asarray(game.cards_held())
            shown = [f"{self._label(s)}: {self.notation.cards_text(hands[s], game)}" for s in range(len(hands))
                     if hands[s].any()]
            if shown:
                lines.append("Cards left in hand: " + " | ".join(shown))
        return "\n".join(lines)

    def replay_line(self) -> str:
        """A command that replays this game's actions (``--replay``): the whole deal at the end, or up to now."""
        ids = ",".join(str(a) for a in self.game.actions)
        return f"{self.command} --replay {ids}" if ids else self.command

    def replay_note(self) -> str:
        return (f"Replay: {self.replay_line()}\n(deal seed {self.seed}, {len(self.game.actions)} action ids; "
                f"{self.spec.engine_class.__name__}.replay(seed, actions, **options) rebuilds it"
                + (f" with options {self.options}" if self.options else "") + ")")
