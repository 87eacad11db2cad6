import sys, time, ray, cProfile, pstats
from cardrl.algorithms.dmc.train import build_config
from cardrl.algorithms.training.run_spec import RunSpec
inflight = int(sys.argv[1]); extra = sys.argv[2:]
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
spec = RunSpec.from_flags("doudizhu", ["--features", "unified", *extra])
config = build_config(spec, say=lambda *_: None).debugging(seed=0)
config = config.env_runners(max_requests_in_flight_per_env_runner=inflight)
algo = config.build_algo()
t0 = time.time()
while time.time() - t0 < 10: algo.train()
pr = cProfile.Profile(); f1 = algo.frames_trained; t1 = time.time(); c1 = time.process_time()
pr.enable()
while time.time() - t1 < 12: algo.train()
pr.disable()
print("frames/s", (algo.frames_trained - f1) / (time.time() - t1), "driver cpu share", (time.process_time()-c1)/(time.time()-t1))
st=pstats.Stats(pr); st.sort_stats("cumulative").print_stats(45); st.print_callers("sync_env_runner_states"); st.print_callers("_merge_env_runner")
algo.stop()
