"""The measurement scripts, run from a checkout (``python experiments/NAME.py``; docs/usage.md); not installed with
the package. The presets table and Tune's space files are in the package: :mod:`cardrl.preset_table`,
``cardrl/spaces/``."""
