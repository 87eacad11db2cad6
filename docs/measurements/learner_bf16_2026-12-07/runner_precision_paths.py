import time, contextlib, torch, sys
torch.set_num_threads(1)
from cardrl.algorithms.dmc.train import build_config
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner
flags = sys.argv[1:] or []
def rate(mode):
    spec = RunSpec.from_flags("doudizhu", flags + (["--actor-precision", "bfloat16"] if mode != "fp32" else []))
    runner = DMCEnvRunner(config=build_config(spec, say=lambda *_: None), worker_index=1)
    wrap = contextlib.nullcontext
    if mode == "once":
        runner.autocast = contextlib.nullcontext(); wrap = lambda: torch.autocast("cpu", dtype=torch.bfloat16)
    if mode == "pure":
        runner.module.foreach_module(lambda mid, m: m.to(torch.bfloat16)); runner.autocast = contextlib.nullcontext()
    runner.sample(num_frames=3200)
    t=time.process_time(); n=0
    while n < 25000:
        with wrap():
            out=runner.sample(num_frames=3200)
        n += sum(len(c["target"]) for c in out["batch"].values())
    return n/(time.process_time()-t)
for rep in range(2):
    print({m: round(rate(m)) for m in ("autocast", "once", "pure")}, flush=True)
