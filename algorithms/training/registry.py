"""The algorithms ``cardrl train --algo NAME`` runs: name -> its :class:`~cardrl.algorithms.training.driver.Driver`,
named by ``"module:attr"`` so that listing them (``cardrl --help``) imports no Ray or torch. A new algorithm adds
one line here."""

from __future__ import annotations

__all__ = ["ALGORITHMS", "HELP", "driver", "check_train_args"]

ALGORITHMS = {"dmc": "cardrl.algorithms.dmc.train:DRIVER",
              "topk-ppo": "cardrl.algorithms.topk_ppo.train:DRIVER",
              "ppo": "cardrl.algorithms.masked_ppo.train:DRIVER"}
HELP = ("the algorithm: dmc, topk-ppo (DanZero+'s PPO over a frozen DMC's k best moves) or ppo (RLlib's PPO with an "
        "action-masking module) (default: dmc)")


def driver(name: str):
    """The :class:`~cardrl.algorithms.training.driver.Driver` of ``--algo name``."""
    from cardrl.games.registry import resolve

    return resolve(ALGORITHMS[name])


def check_train_args(args) -> None:
    """``cardrl train``'s check (:func:`~cardrl.algorithms.training.loop.check_training`) of a parsed command line,
    by its ``--algo``'s driver, printing nothing."""
    from cardrl.algorithms.training.loop import check_training

    check_training(driver(args.algo), args, say=lambda _: None)
