import sys, time, ray, torch
torch.set_num_threads(1)
from cardrl.algorithms.dmc.train import build_config
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.bench.learning import variant_flags
from cardrl.bench.scale_measure import build_dmc, measure_runner
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
secs = float(sys.argv[1]) if len(sys.argv) > 1 else 15
res = {}
for rep in range(2):
    for prec in ("float32", "bfloat16"):
        flags = [*variant_flags("unified", "doudizhu", 1_000_000), "--actor-precision", prec]
        spec = RunSpec.from_flags("doudizhu", flags)
        config = build_config(spec, say=lambda *_: None).debugging(seed=0)
        algo = build_dmc(config)
        r = measure_runner(algo, secs)
        algo.stop()
        print(rep, prec, f"{r['r1']:.0f} frames/CPU-s", r["frames"], flush=True)
