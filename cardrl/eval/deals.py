"""Deal files: a seeded, shareable set of deals for duplicate tournaments (Luo & Tan 2024, Sec. 5.1: "10,000
decks are randomly dealt to two competing algorithms ... sides are switched, and the same deck is replayed").

A :class:`DealSet` holds the game name, its rule options, one engine seed per deal and the hands each seed
deals (so a changed engine is caught instead of silently playing other deals). It saves to and loads from a
``.npz`` file with a format tag and version; nothing in it is pickled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardrl.eval.protocols import protocol_of_options
from cardrl.games.registry import game_names, get_game

__all__ = ["DealSet", "generate_deals", "deals_from_seeds", "load_deals", "DEAL_FORMAT", "DEAL_VERSION"]

DEAL_FORMAT = "cardrl-deals"
DEAL_VERSION = 1


@dataclass(frozen=True, eq=False)
class DealSet:
    """Seeded deals of one game (the "decks" of Luo & Tan 2024, Sec. 5.1), saved as ``.npz``.

    ``seeds (N,)`` int64 engine seeds; ``hands (N, players, ...)`` what ``game.reset(seed).hands`` dealt;
    ``options`` the full rule options; ``seed`` the master seed the deal seeds came from (None if unknown).
    """

    game: str
    options: dict[str, Any]
    seeds: np.ndarray
    hands: np.ndarray
    seed: int | None = None

    def __len__(self) -> int:
        return len(self.seeds)

    def __getitem__(self, index: slice) -> "DealSet":
        if not isinstance(index, slice):
            raise TypeError("a DealSet is sliced with a slice, e.g. deals[:100]")
        return DealSet(self.game, dict(self.options), self.seeds[index], self.hands[index], self.seed)

    def save(self, path: str | Path) -> Path:
        """Write the deal file (``.npz`` is appended by numpy when missing); returns the path written."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        np.savez_compressed(path, format=np.array(DEAL_FORMAT), version=np.array(DEAL_VERSION),
                            game=np.array(self.game), options=np.array(json.dumps(self.options, sort_keys=True)),
                            seeds=self.seeds, hands=self.hands,
                            seed=np.array(-1 if self.seed is None else self.seed, dtype=np.int64))
        return path

    def check(self, game: str, limit: int | None = None) -> None:
        """ValueError unless these are deals of ``game`` and the engine deals the stored hands from the stored
        seeds (the first ``limit`` deals; all when None)."""
        if self.game != game:
            raise ValueError(f"the deal file is for game {self.game!r}, not {game!r}; generate deals for {game!r}")
        protocol = protocol_of_options(game, self.options)
        engine = protocol.make_game(**protocol.normalise_options(self.options))
        for i in range(len(self) if limit is None else min(limit, len(self))):
            check_hands(engine, int(self.seeds[i]), self.hands[i], i)


def check_hands(engine, seed: int, hands: np.ndarray, index: int) -> None:
    """ValueError unless ``engine.reset(seed)`` deals ``hands`` (deal number ``index`` of a deal file)."""
    engine.reset(seed)
    if not np.array_equal(np.asarray(engine.hands), hands):
        raise ValueError(f"deal {index} (seed {seed}) no longer deals the hands stored in the deal file: the "
                         f"engine's dealing changed; regenerate the deal file")


def generate_deals(game: str, n: int, seed: int = 0, **options: Any) -> DealSet:
    """``n`` deals of ``game`` with deal seeds drawn from ``numpy.random.default_rng(seed)``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"the number of deals must be a positive int, got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"the deal seed must be a non-negative int, got {seed!r}")
    seeds = np.random.default_rng(int(seed)).integers(0, 2**62, size=int(n), dtype=np.int64)
    return deals_from_seeds(game, seeds, int(seed), **options)


def deals_from_seeds(game: str, seeds: Any, seed: int = 0, **options: Any) -> DealSet:
    """The deals of ``game`` with these deal seeds (``seed``: the seed they were drawn from, recorded with them)."""
    protocol = protocol_of_options(game, options)  # bidding=True: deals of the whole game
    full = protocol.normalise_options(options)
    seeds = np.asarray(seeds, dtype=np.int64)
    engine = protocol.make_game(**full)
    hands = np.stack([np.array(engine.reset(int(s)).hands, copy=True) for s in seeds])
    return DealSet(game, full, seeds, hands, int(seed))


def load_deals(path: str | Path, game: str | None = None) -> DealSet:
    """Read a deal file; with ``game``, also check it is a deal file of that game (and re-deal a few deals)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"deal file {path} does not exist")
    try:
        with np.load(path, allow_pickle=False) as data:
            fields = {k: data[k] for k in data.files}
    except (ValueError, OSError) as err:
        raise ValueError(f"{path} is not a cardrl deal file (.npz): {err}") from err
    missing = {"format", "version", "game", "options", "seeds", "hands"} - set(fields)
    if missing or str(fields["format"]) != DEAL_FORMAT:
        raise ValueError(f"{path} is not a cardrl deal file (missing {sorted(missing) or 'the format tag'})")
    if int(fields["version"]) != DEAL_VERSION:
        raise ValueError(f"{path} is deal file version {int(fields['version'])}; this cardrl reads version "
                         f"{DEAL_VERSION}")
    seed = int(fields.get("seed", -1))
    options = json.loads(str(fields["options"]))
    if str(fields["game"]) in game_names():
        options = get_game(str(fields["game"])).stored_options(options)  # as an older cardrl may have written them
    deals = DealSet(str(fields["game"]), options, fields["seeds"].astype(np.int64),
                    fields["hands"], None if seed < 0 else seed)
    if game is not None:
        deals.check(game, limit=8)
    return deals
