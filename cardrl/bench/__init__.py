"""Benchmarks of cardrl against the peers installed beside it: one module per benchmark.

* :mod:`cardrl.bench.common`: the shared timing helpers (warmed-up rate loop, us per call, per-call CPU times, the
  random-game and random-env play loops), the machine description and number formatting;
* :mod:`cardrl.bench.env`: ``cardrl bench env GAME``, random play and lead-move generation of any registered game,
  with the peers the registry names for it (:mod:`cardrl.bench.peers_doudizhu`: DouZero, RLCard, OpenSpiel), on the
  positions of :mod:`cardrl.bench.positions`;
* :mod:`cardrl.bench.mcs`: ``cardrl bench mcs GAME``, Minimum Combination Search and ODMC pruning cost;
* :mod:`cardrl.bench.train`: ``cardrl bench train GAME``, DMC frames/s against DouZero's trainer
  (:mod:`cardrl.bench.train_douzero`), both counted alike (:mod:`cardrl.bench.train_rates`);
* :mod:`cardrl.bench.scale`: ``cardrl bench scale GAME``, DMC's scaling model: terms measured here on DMC's own code
  (:mod:`cardrl.bench.scale_measure`), frames/s predicted for 4 to 160 CPUs with a CPU or GPU learner
  (:mod:`cardrl.bench.scale_model`, docs/scaling.md);
* :mod:`cardrl.bench.learning`: ``cardrl bench learning GAME``, which DMC variant learns fastest: resumable runs per
  (variant, seed) (:mod:`cardrl.bench.learning_cli`: its flags), reported with runs as the unit
  (:mod:`cardrl.bench.learning_report`: the figures; :mod:`cardrl.bench.run_stats`: the statistics over runs, rliable;
  :mod:`cardrl.bench.learning_format`: markdown and PNG; docs/learning.md);
* :mod:`cardrl.bench.readme_table`: ``cardrl bench table``, the README's benchmark table from the kept result files;
* :mod:`cardrl.bench.chaos`: ``cardrl bench chaos GAME``, DMC under env-runner kills, driver kills with ``--resume``
  and an interrupted checkpoint write, beside an undisturbed run (:mod:`cardrl.bench.chaos_run`: the watched run and
  its faults; :mod:`cardrl.bench.run_processes`: its processes; :mod:`cardrl.bench.reliability`: the arithmetic);
  with ``--nodes N`` on a loopback Ray cluster of its own (:mod:`cardrl.bench.local_cluster`), whose worker nodes
  ``--kill-node-at`` kills whole (:mod:`cardrl.bench.chaos_nodes`: those options and their report);
* :mod:`cardrl.bench.soak`: ``cardrl bench soak GAME``, every process's memory, the object store and the buffers of
  a long run, their growth per hour and projected to 24 hours;
* :mod:`cardrl.bench.cli`: the ``bench`` subcommand (:func:`add_bench_parsers`, :func:`main_bench`).

Modules depend on :mod:`~cardrl.bench.common` and the registry only (``env`` loads ``peers_<game>`` when it measures
peers), never on each other's private names. This package imports none of them up front: the names below load
their module on first use.
"""

from __future__ import annotations

import importlib

__all__ = ["add_bench_parsers", "main_bench", "bench_env", "format_bench_env", "bench_mcs", "format_bench_mcs",
           "bench_train", "format_bench_train", "bench_scale", "format_bench_scale", "machine_description", "run_learning", "format_learning"]

_HOME = {"add_bench_parsers": "cli", "main_bench": "cli", "bench_env": "env", "format_bench_env": "env",
         "bench_mcs": "mcs", "format_bench_mcs": "mcs", "bench_train": "train", "format_bench_train": "train_format",
         "bench_scale": "scale", "format_bench_scale": "scale", "machine_description": "common",
         "run_learning": "learning", "format_learning": "learning_format"}


def __getattr__(name: str):
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
