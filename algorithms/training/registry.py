"""The algorithms ``cardrl train --algo NAME`` runs: name -> its :class:`~cardrl.algorithms.training.driver.Driver`,
named by ``"module:attr"`` so that listing them (``cardrl --help``) imports no Ray or torch. A new algorithm adds
one line here, and one to each table of its options in :mod:`cardrl.algorithms.training.run_spec` (``SETTINGS``,
``RUN_OPTIONS``; a test checks that the three name the same algorithms)."""

from __future__ import annotations

__all__ = ["ALGORITHMS", "driver"]

ALGORITHMS = {"dmc": "cardrl.algorithms.dmc.train:DRIVER",
              "topk-ppo": "cardrl.algorithms.topk_ppo.train:DRIVER",
              "ppo": "cardrl.algorithms.masked_ppo.train:DRIVER"}


def driver(name: str):
    """The :class:`~cardrl.algorithms.training.driver.Driver` of ``--algo name``."""
    from cardrl.games.registry import resolve

    return resolve(ALGORITHMS[name])
