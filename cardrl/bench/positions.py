"""The positions ``cardrl bench env`` measures on (:mod:`cardrl.bench.env`), the same on every run: lead hands of the
sizes a game deals and smaller (:func:`lead_hands`), dealt leads by wild cards held (:func:`wild_lead_hands`),
positions of random play (:func:`sample_positions`), and how a hand is put in a lead position to generate its moves
(:func:`lead_move_generator`). Every position is of a single deal (``spec.protocol.deal_options``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardrl.games.registry import GameSpec, get_game

__all__ = ["deal_options", "lead_sizes", "lead_hands", "lead_move_generator", "sample_positions", "wild_lead_hands",
           "SMALLER_LEADS", "HANDS_PER_SIZE", "POSITIONS"]

SMALLER_LEADS = (10, 5)  # lead sizes measured below the dealt ones
HANDS_PER_SIZE = 200
POSITIONS = 200


def deal_options(spec: GameSpec) -> dict[str, Any]:
    """The rule options that make one game of ``spec`` a single deal."""
    return dict(spec.protocol.deal_options)


def lead_sizes(spec: GameSpec | str) -> tuple[int, ...]:
    """The lead hand sizes measured for a game, largest first: the distinct sizes of the first deal's hands, then
    :data:`SMALLER_LEADS` below the smallest of them."""
    spec = get_game(spec)
    dealt = sorted({int(n) for n in spec.make_engine(**deal_options(spec)).reset(0).cards_held().sum(axis=1)},
                   reverse=True)
    return tuple(dealt) + tuple(n for n in SMALLER_LEADS if n < dealt[-1])


def lead_hands(spec: GameSpec | str, sizes: tuple[int, ...] | None = None, count: int = HANDS_PER_SIZE,
               seed: int = 0) -> dict[int, list[np.ndarray]]:
    """``count`` hands per size (default :func:`lead_sizes`) as the engine's 54-count card vectors
    (``cards_held()``): from deals ``seed * 100_000 + 0, 1, ...`` played with uniformly random legal moves, a seat's
    hand the first time it holds exactly that many cards (the dealt hand for a dealt size). The same on every run;
    a size no seat reaches in ``50 * count + 100`` deals gets the hands found so far (ValueError if none)."""
    spec = get_game(spec)
    dealt = lead_sizes(spec)
    sizes = dealt if sizes is None else tuple(int(n) for n in sizes)
    if not sizes or any(not 1 <= n <= dealt[0] for n in sizes):
        raise ValueError(f"a {spec.title} lead hand has 1..{dealt[0]} cards, got sizes {sizes}")
    if count < 1:
        raise ValueError(f"count must be >= 1 hand per size, got {count}")
    out: dict[int, list[np.ndarray]] = {n: [] for n in sizes}
    engine = spec.make_engine(**deal_options(spec))
    rng = np.random.default_rng(seed)
    for deal in range(50 * count + 100):
        need = [n for n in sizes if len(out[n]) < count]
        if not need:
            break
        engine.reset(seed * 100_000 + deal)
        taken: set[tuple[int, int]] = set()
        while True:
            held = engine.cards_held()
            held_n = held.sum(axis=1)
            for seat, n in enumerate(held_n.tolist()):
                if n in out and len(out[n]) < count and (seat, n) not in taken:
                    out[n].append(held[seat].copy())
                    taken.add((seat, n))
            need = [n for n in sizes if len(out[n]) < count]
            if not need or engine.is_over or int(held_n.max()) < min(need):
                break
            legal = engine.legal_moves()
            engine.step(int(legal[rng.integers(len(legal))]))
    missing = [n for n in sizes if not out[n]]
    if missing:
        raise ValueError(f"no {spec.title} seat held exactly {missing} cards in random play; lead sizes must be "
                         f"hand sizes the game reaches")
    return out


def lead_move_generator(engine) -> tuple[Callable[[np.ndarray], Any], Callable[[Any], np.ndarray]]:
    """``(prepare, generate)``: ``generate(prepare(hand))`` is the sorted action ids a player leading with ``hand``
    (a 54-count vector as ``engine.cards_held()`` gives it) may take, what the engine's ``legal_moves()`` computes for
    a leader. ``prepare`` puts the hand in the engine's own form and is not timed.

    Engines with a move table (``engine.table``, :class:`~cardrl.games.move_table.MoveTable`) lead through
    ``table.legal_moves(hand_bits, None)``; engines with ``set_hands(hands, current_player)`` (hands replaced, the
    trick reset to a lead) through ``legal_moves()`` after it, so their figure includes ``set_hands`` (a few us).
    The engine must have been dealt (``reset``). TypeError for an engine with neither.
    """
    from cardrl.cards import vector_to_bits
    from cardrl.games.move_table import MoveTable

    table = getattr(engine, "table", None)
    if isinstance(table, MoveTable):
        legal = table.legal_moves
        return vector_to_bits, lambda bits: legal(bits, None)
    if callable(getattr(engine, "set_hands", None)):
        shape = engine.cards_held().shape

        def prepare(hand: np.ndarray) -> np.ndarray:
            hands = np.zeros(shape, dtype=np.int8)
            hands[0] = hand
            return hands

        return prepare, lambda hands: engine.set_hands(hands, 0).legal_moves()
    raise TypeError(f"{type(engine).__name__} has neither a move table nor set_hands: the benchmark cannot put a "
                    "hand in a lead position")


def sample_positions(spec: GameSpec | str, count: int = POSITIONS, seed: int = 0,
                     share: float = 0.25) -> list[tuple[Any, int]]:
    """``count`` ``(engine copy, seat to move)`` positions of random single deals, each step kept with probability
    ``share`` (spread over whole deals)."""
    spec = get_game(spec)
    rng = np.random.default_rng(seed)
    engine = spec.make_engine(**deal_options(spec))
    out: list[tuple[Any, int]] = []
    deal = 0
    while len(out) < count:
        engine.reset(deal)
        deal += 1
        while not engine.is_over and len(out) < count:
            if rng.random() < share:
                out.append((engine.copy(), engine.current_player))
            legal = engine.legal_moves()
            engine.step(int(legal[rng.integers(len(legal))]))
    return out


def wild_lead_hands(spec: GameSpec | str, count: int = HANDS_PER_SIZE, seed: int = 0) -> dict[int, list[np.ndarray]]:
    """Dealt hands of the largest lead size by the number of wild cards they hold, ``{wilds: [count hands]}``, for
    an engine with ``wild_kinds()`` (the kinds that are wild at its level); ``{}`` for one without. Deals
    ``seed * 100_000 + 0, 1, ...`` in seat order, until every count 0 .. (copies of the wild kinds) has ``count``
    hands (at most ``400 * count`` deals; a count never dealt is left out)."""
    spec = get_game(spec)
    engine = spec.make_engine(**deal_options(spec))  # each deal below resets it
    if not callable(getattr(engine, "wild_kinds", None)):
        return {}
    size = lead_sizes(spec)[0]
    out: dict[int, list[np.ndarray]] = {}
    for deal in range(400 * count):
        engine.reset(seed * 100_000 + deal)
        held = engine.cards_held()
        kinds = list(engine.wild_kinds())
        if not out:  # every count from none to all copies of the wild kinds (every card is dealt)
            out = {w: [] for w in range(int(held[:, kinds].sum()) + 1)}
        for hand in held:
            w = int(hand[kinds].sum())
            if int(hand.sum()) == size and len(out[w]) < count:
                out[w].append(np.array(hand))
        if all(len(v) >= count for v in out.values()):
            break
    return {w: hs for w, hs in out.items() if hs}
