"""Training runs: the run loop every driver uses (:mod:`~cardrl.algorithms.training.loop`), the interface an algorithm
fills in for it (:class:`~cardrl.algorithms.training.driver.Driver`), the algorithms ``cardrl train --algo`` knows
(:mod:`~cardrl.algorithms.training.registry`), the run's options (:mod:`~cardrl.algorithms.training.settings`) and
its ``config.json`` (:mod:`~cardrl.algorithms.training.run_config`). The run directory's layout is
:mod:`cardrl.run_dir`'s."""
