"""The learners' resources of a run: RLlib's ``.learners()`` arguments (:func:`learner_resources`) and the torch
threads each learner computes with (:func:`set_learner_threads`), from ``--num-learners``, ``--gpu`` and
``--learner-threads`` (:class:`~cardrl.algorithms.training.settings.RunSettings`).

Why the threads are set after the algorithm is built: RLlib builds a local env runner in the driver, and cardrl's
env runners set one torch thread in their process (docs/architecture.md, "RLlib facts"), so the learner in the
driver (``--num-learners 0``) used to compute with one thread by that side effect alone. Learner actors got
``OMP_NUM_THREADS`` from Ray. Both now get ``--learner-threads`` (default 1), said in the run's first line.
"""

from __future__ import annotations

from typing import Any

from cardrl.algorithms.training.settings import RunSettings

__all__ = ["learner_resources", "set_learner_threads"]


def learner_resources(run: RunSettings) -> dict[str, Any]:
    """RLlib's ``config.learners(...)`` arguments of a run: ``--num-learners`` learners, a GPU each with ``--gpu``;
    on CPU each reserves ``--learner-threads`` cores (a learner actor's, or a Tune trial's driver's)."""
    resources: dict[str, Any] = {"num_learners": run.num_learners, "num_gpus_per_learner": 1 if run.gpu else 0}
    if not run.gpu:
        resources["num_cpus_per_learner"] = run.learner_threads
    return resources


def _set_threads(learner: Any, threads: int) -> int:
    import torch

    torch.set_num_threads(threads)
    return torch.get_num_threads()


def set_learner_threads(algo: Any, threads: int) -> list[int]:
    """Torch's intra-op threads in every learner of ``algo`` (the driver's own with ``--num-learners 0``); returns
    each learner's thread count as torch now reports it."""
    counts = []
    for call in algo.learner_group.foreach_learner(_set_threads, threads=threads):
        if not call.ok:  # RLlib hands a learner's error back as the call's result
            raise RuntimeError(f"--learner-threads {threads}: a learner failed to set it") from call.get()
        counts.append(call.get())
    return counts
