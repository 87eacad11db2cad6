import sys, time, ray, json
from cardrl.algorithms.dmc.train import build_config
from cardrl.algorithms.training.run_spec import RunSpec
secs = float(sys.argv[1]); inflight = int(sys.argv[2]); extra = sys.argv[3:]
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
spec = RunSpec.from_flags("doudizhu", ["--features", "unified", *extra])
config = build_config(spec, say=lambda *_: None).debugging(seed=0)
config = config.env_runners(max_requests_in_flight_per_env_runner=inflight)
algo = config.build_algo()
t0 = time.time(); f0 = algo.frames_trained
while time.time() - t0 < 15: algo.train()
t1 = time.time(); f1 = algo.frames_trained
while time.time() - t1 < secs: r = algo.train()
t2 = time.time(); f2 = algo.frames_trained
print(f"inflight={inflight} extra={extra}: {(f2-f1)/(t2-t1):.0f} frames/s trained over {t2-t1:.0f}s lag {r.get('weight_lag')} age {r.get('data_age_updates')} dropped {r.get('frames_dropped')}", flush=True)
algo.stop(); ray.shutdown()
