"""Big2: the engine (:mod:`.engine`), its move table (:mod:`.moves`) and how a person writes it (:mod:`.notation`,
read by ``cardrl play`` only). The engine's public names are importable from here."""

from cardrl.games.big2.engine import (
    AGENTS,
    HAND_SIZE,
    NUM_PLAYERS,
    REWARDS,
    Big2Game,
    Big2View,
    check_penalty_multipliers,
    normalise_options,
)
from cardrl.games.engine import GameOverError, IllegalMoveError

__all__ = ["AGENTS", "HAND_SIZE", "NUM_PLAYERS", "REWARDS", "Big2Game", "Big2View", "GameOverError",
           "IllegalMoveError", "check_penalty_multipliers", "normalise_options"]
