import copy, sys, time, torch
torch.set_num_threads(1)
from torch import nn
from cardrl.algorithms.dmc.train import build_config
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.algorithms.dmc import dmc_env_runner as R
flags = sys.argv[1:]
orig = R.score_flat
def bf16_copy(m):
    c = copy.deepcopy(m)
    for sub in c.modules():
        if isinstance(sub, (nn.Linear, nn.LSTM)): sub.to(torch.bfloat16)
    return c
def rate(mode):
    spec = RunSpec.from_flags("doudizhu", flags + ["--actor-precision", "bfloat16"])
    runner = R.DMCEnvRunner(config=build_config(spec, say=lambda *_: None), worker_index=1)
    copies = {}
    if mode == "copy":
        def sf(module, *a):
            if id(module) not in copies: copies[id(module)] = bf16_copy(module)
            return orig(copies[id(module)], *a)
        R.score_flat = sf
    else:
        R.score_flat = orig
    runner.sample(num_frames=3200)
    t=time.process_time(); n=0
    while n < 25000:
        out=runner.sample(num_frames=3200)
        n += sum(len(c["target"]) for c in out["batch"].values())
    return n/(time.process_time()-t)
for rep in range(2):
    print(flags, {m: round(rate(m)) for m in ("autocast", "copy")}, flush=True)
