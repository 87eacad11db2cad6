"""GuanDan: the engine (:mod:`.engine`), its moves by value (:mod:`.moves`), its per-level move tables and action
ids (:mod:`.table`) and how a person writes it (:mod:`.notation`, read by ``cardrl play`` only). The engine's
public names are importable from here; the tribute decisions are moves of ``Category.TRIBUTE`` and
``Category.RETURN`` (:mod:`.moves`)."""

from cardrl.games.engine import GameOverError, IllegalMoveError
from cardrl.games.guandan.engine import (
    LEVEL_A,
    NUM_PLAYERS,
    REWARDS,
    GuanDanGame,
    GuanDanView,
    deal_cards,
    default_return,
    default_tribute,
    normalise_options,
    partner_of,
    return_candidates,
    team_of,
    tribute_candidates,
    upgrade_stored_options,
)
from cardrl.games.guandan.moves import Rank, parse_level

__all__ = ["LEVEL_A", "NUM_PLAYERS", "REWARDS", "GameOverError", "GuanDanGame", "GuanDanView", "IllegalMoveError",
           "Rank", "deal_cards", "default_return", "default_tribute", "normalise_options", "parse_level", "partner_of",
           "return_candidates", "team_of", "tribute_candidates", "upgrade_stored_options"]
