"""Training runs, and training's Python API::

    from cardrl.algorithms.training import RunSpec, run_training

    run_training(RunSpec.build("doudizhu", stop_frames=200_000, out="runs/mine"))

:class:`~cardrl.algorithms.training.run_spec.RunSpec` is a run (docs/usage.md, "Python API"); the run loop every
driver uses is :mod:`~cardrl.algorithms.training.loop`, the interface an algorithm fills in for it
:class:`~cardrl.algorithms.training.driver.Driver`, the algorithms ``cardrl train --algo`` knows
:mod:`~cardrl.algorithms.training.registry`, the options' machinery :mod:`~cardrl.algorithms.training.settings` and
a run's ``config.json`` :mod:`~cardrl.algorithms.training.run_config`. The run directory's layout is
:mod:`cardrl.run_dir`'s."""

from cardrl.algorithms.training.loop import run_training
from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["RunSpec", "run_training"]
