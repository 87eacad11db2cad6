"""How often agents choose the same move as a reference agent on seeded positions (the export round trips,
tests/algorithms/test_export*.py): the package's own :mod:`cardrl.eval.agreement`."""

from cardrl.eval.agreement import agreement, positions

__all__ = ["agreement", "positions"]
