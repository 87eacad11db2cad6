"""A model of the DanZero authors' GuanDan client (the ``MyClient`` of their actors' ``game.py``: what it records of
each play notification and how ``prepare`` builds the 513-value state), written from its description for the tests of
:mod:`cardrl.features.danzero_client`. It works on the client's own card names (``H2`` .. ``DA``, ``SB``, ``HR``) and
numbers, not on cardrl's kinds, so the tests compare two independent readings of a deal."""

from __future__ import annotations

import numpy as np

from cardrl.games.guandan.moves import card_name

CLIENT_NUMBER = {f"{suit}{rank}": 13 * s + r for s, suit in enumerate("HSCD") for r, rank in enumerate("23456789TJQKA")}
CLIENT_NUMBER.update({"SB": 52, "HR": 53})


def client_numbers(kinds) -> list[int]:
    """cardrl kinds -> the client's card numbers, through the cards' names."""
    out = []
    for kind in kinds:
        name = card_name(int(kind))
        out.append(CLIENT_NUMBER["SB" if name == "BJ" else "HR" if name == "RJ" else name[1].upper() + name[0]])
    return out


def counts(numbers) -> np.ndarray:
    """The client's ``card2array``: [] -> zeros, [-1] -> all -1, else counts at position 4 * rank + suit."""
    numbers = list(numbers)
    if numbers == [-1]:
        return -np.ones(54)
    grid, jokers = np.zeros((4, 13)), np.zeros(2)
    for n in numbers:
        if n == -1:
            continue
        if n < 52:
            grid[n // 13, n % 13] += 1
        else:
            jokers[n - 52] += 1
    return np.concatenate([grid.flatten("F"), jokers])


def one_hot(index: int, size: int) -> np.ndarray:
    out = np.zeros(size)
    out[index] = 1
    return out


def wild_flags(hand: np.ndarray, level: int) -> np.ndarray:
    """The client's ``proc_universal`` (a sliding window per suit, suits per rank, a run counter), loop by loop."""
    res = np.zeros(12)
    wild = level * 4
    if hand[wild] == 0:
        return res
    res[0] = 1
    for suit in range(4):
        window = [hand[suit + 4 * r] if suit + 4 * r != wild else 0 for r in range(5)]
        right = 5
        while right <= 12:
            if window.count(0) <= 1:
                res[1] = 1
                break
            window = window[1:] + [hand[suit + 4 * right] if suit + 4 * right != wild else 0]
            right += 1
        if res[1]:
            break
    suits = [sum(1 for s in range(4) if hand[s + 4 * r] != 0 and s + 4 * r != wild) for r in range(13)]
    top = max(suits)
    first = {6: 2, 5: 3, 4: 4, 3: 5, 2: 6}.get(min(top, 6), 7)
    res[first:8] = 1
    run = 0
    for r in range(13):
        if suits[r] == 0:
            run = 0
            continue
        run += 1
        if r >= 1:
            if (suits[r] == 2 and suits[r - 1] >= 3) or (suits[r] >= 3 and suits[r - 1] == 2):
                res[9] = 1
            elif suits[r] == 2 and suits[r - 1] == 2:
                res[11] = 1
        if r >= 2:
            a, b, c = suits[r - 2], suits[r - 1], suits[r]
            if (a == 1 and b >= 2 and c >= 2) or (a >= 2 and b == 1 and c >= 2) or (a >= 2 and b >= 2 and c == 1):
                res[10] = 1
    res[8] = run >= 4
    return res


class ClientBook:
    """What every seat's client records of the play notifications of one deal (all four record the same)."""

    def __init__(self):
        self.sequence: list[list[int]] = []
        self.actions: dict[int, list[list[int]]] = {p: [] for p in range(4)}
        self.left = {p: 27 for p in range(4)}
        self.over: list[int] = []
        self.stage = 1  # the client's flag after its first act: 1, then 2 after a first finisher, 3 after a second

    def _add(self, seat: int, action: list[int]) -> None:
        self.sequence.append(action)
        self.actions[seat].append(action)

    def record(self, seat: int, action: list[int]) -> None:
        """One play notification: ``seat`` played ``action`` (client numbers; a pass is [])."""
        if not self.over:
            self._add(seat, action)
        elif len(self.over) == 1:
            first = self.over[0]
            if action and self.stage == 1:
                self.stage = 2
                self._add(seat, action)
                if seat == (first + 3) % 4:
                    self._add(first, [-1])
            elif self.stage == 1 and (seat + 1) % 4 == first:
                self.stage = 2
                self._add(seat, action)
                self._add(first, [-1])
                self._add((seat + 2) % 4, [])
            elif self.stage == 2 and seat == (first + 3) % 4:
                self._add(seat, action)
                self._add(first, [-1])
            else:
                self._add(seat, action)
        else:
            nxt = (seat + 1) % 4 in self.over
            if (action and self.stage <= 2) or (self.stage <= 2 and nxt):
                self.stage = 3
                self._add(seat, action)
                if nxt:
                    self._add((seat + 1) % 4, [-1])
                    self._add((seat + 2) % 4, [-1])
                    if not action and seat == (self.over[-1] + 2) % 4:
                        self._add((seat + 3) % 4, [])
            elif nxt and self.stage == 3:
                self._add(seat, action)
                self._add((seat + 1) % 4, [-1])
                self._add((seat + 2) % 4, [-1])
            else:
                self._add(seat, action)
        self.left[seat] -= len(action)
        if self.left[seat] == 0:
            self.over.append(seat)

    def state(self, me: int, hand: list[int], start_hand: list[int], others_played: list[int],
              levels: tuple[int, int, int]) -> np.ndarray:
        """``prepare``'s 513 values for seat ``me`` (``levels``: own team's, the opponents', this deal's, as rank
        indices 0 = 2 .. 12 = A)."""
        mine = counts(hand)
        unseen = 2 * np.ones(54) - counts(start_hand) - counts(others_played)
        down, mate, up = (me + 1) % 4, (me + 2) % 4, (me + 3) % 4
        latest = counts(self.sequence[-1]) if self.sequence else counts([-1])
        mate_last = counts(self.actions[mate][-1]) if self.actions[mate] and mate not in self.over else counts([-1])
        played = [counts(sum(self.actions[p], [])) for p in (down, mate, up)]
        left = [one_hot(self.left[p], 28) for p in (down, mate, up)]
        return np.concatenate([mine, wild_flags(mine, levels[2]), unseen, latest, mate_last, *played, *left,
                               *(one_hot(level, 13) for level in levels)])
