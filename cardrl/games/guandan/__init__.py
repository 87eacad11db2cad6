"""GuanDan: the engine (:mod:`.engine`), its moves by value (:mod:`.moves`), its per-level move tables and action
ids (:mod:`.table`) and how a person writes it (:mod:`.notation`, read by ``cardrl play`` only). The engine's
public names are importable from here."""

from cardrl.games.guandan.engine import (
    LEVEL_A,
    NUM_PLAYERS,
    RETURN,
    REWARDS,
    TRIBUTE,
    GameOverError,
    GuanDanGame,
    GuanDanView,
    IllegalMoveError,
    Rank,
    deal_cards,
    default_return,
    default_tribute,
    normalise_options,
    parse_level,
    partner_of,
    return_candidates,
    team_of,
    tribute_candidates,
    upgrade_stored_options,
)

__all__ = ["LEVEL_A", "NUM_PLAYERS", "RETURN", "REWARDS", "TRIBUTE", "GameOverError", "GuanDanGame", "GuanDanView",
           "IllegalMoveError", "Rank", "deal_cards", "default_return", "default_tribute", "normalise_options",
           "parse_level", "partner_of", "return_candidates", "team_of", "tribute_candidates",
           "upgrade_stored_options"]
