"""``cardrl tune``: Ray Tune sweeps over an algorithm's options (DMC's), ranked on the evaluation's score.

:mod:`~cardrl.algorithms.tune.space` (the space file and its checks), :mod:`~cardrl.algorithms.tune.settings` (the
command's options and the sweep as one value), :mod:`~cardrl.algorithms.tune.trial` (one trial on the shared run loop),
:mod:`~cardrl.algorithms.tune.sweep` (the sweep), :mod:`~cardrl.algorithms.tune.results` (table, CSV, plot) and
:mod:`~cardrl.algorithms.tune.resume` (``--resume``'s bookkeeping). Nothing here imports the CLI.
"""
