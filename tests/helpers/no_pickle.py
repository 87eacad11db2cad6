"""The start of a script run in a fresh interpreter to show that an agent loads with no pickle: ``pickle.load``,
``pickle.loads`` and ``torch.load`` made to fail (but for numba's cache of this machine's compiled kernels). An agent
spec's script adds what it plays and ends with :data:`NO_RAY` (tests/algorithms/test_export.py, tests/zoo/)."""

GUARD = """
import pickle, sys
def guard(real):
    def refuse(*args, **kwargs):  # numba's cache of this machine's compiled kernels may unpickle; nothing else
        if not sys._getframe(1).f_globals.get("__name__", "").startswith("numba."):
            raise AssertionError("pickle was used")
        return real(*args, **kwargs)
    return refuse
pickle.load, pickle.loads = guard(pickle.load), guard(pickle.loads)
import torch
torch.load = guard(torch.load)
"""

NO_RAY = 'assert not [m for m in sys.modules if m == "ray" or m.startswith("ray.")], "Ray was imported"\n'
