"""The experiments: the presets table (``presets.py``: every paper row as a ``cardrl train`` / ``cardrl tune``
command line, docs/presets.md), Tune's space files (``spaces/``) and the measurement scripts. Installed as
``cardrl.experiments``, so that ``cardrl train --preset NAME`` works from an installed package."""
