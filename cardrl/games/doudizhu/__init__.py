"""DouDiZhu: the engine (:mod:`.engine`), its move table (:mod:`.moves`) and how a person writes it (:mod:`.notation`,
read by ``cardrl play`` only). The engine's public names are importable from here."""

from cardrl.games.doudizhu.engine import NUM_PLAYERS, REWARDS, ROLES, DouDizhuGame, DouDizhuView, normalise_options
from cardrl.games.engine import GameOverError, IllegalMoveError

__all__ = ["NUM_PLAYERS", "REWARDS", "ROLES", "DouDizhuGame", "DouDizhuView", "GameOverError", "IllegalMoveError",
           "normalise_options"]
