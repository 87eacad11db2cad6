import copy, sys, time, torch, numpy as np
torch.set_num_threads(1)
from torch import nn
from cardrl.algorithms.dmc.train import build_config
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.algorithms.dmc import dmc_env_runner as R
game = sys.argv[1]; flags = sys.argv[2:]
spec = RunSpec.from_flags(game, flags + ["--actor-precision", "bfloat16"])
runner = R.DMCEnvRunner(config=build_config(spec, say=lambda *_: None), worker_index=1)
def bf16_copy(m):
    c = copy.deepcopy(m)
    for sub in c.modules():
        if isinstance(sub, (nn.Linear, nn.LSTM)):
            sub.to(torch.bfloat16)
    return c
copies = {}
orig = R.score_flat
stats = {"calls": 0, "diff": 0, "rows": 0}
def check(module, obs, actions, blocks=None):
    q, counts = orig(module, obs, actions, blocks)
    key = id(module)
    if key not in copies:
        copies[key] = bf16_copy(module)
    q2, _ = orig(copies[key], obs, actions, blocks)
    stats["calls"] += 1; stats["rows"] += len(q)
    if not np.array_equal(q, q2):
        stats["diff"] += 1
        if stats["diff"] < 3: print("max abs diff", np.abs(q - q2).max(), q[:4], q2[:4])
    return q, counts
R.score_flat = check
runner.sample(num_frames=3000)
print(game, flags, stats)
