"""A result of :func:`cardrl.bench.train.bench_ours` as the bench train table, its summary and its JSON read it."""

from __future__ import annotations

from cardrl.bench import train as bt


def ours_result(frames_per_s: float, options: dict, pruning_ratio: float | None = None, q_model: str = "x") -> dict:
    return {"frames_per_s": frames_per_s, "setup_s": 12.3, "frames_trained": 64000, "startup_s": 2.0,
            "build_s": 4.0, "first_update_s": 6.3, "frames_sampled_per_s": 1200.0, "episodes": 900,
            "iterations": 20, "updates": 30, "rate_method": "per position", "weight_lag": 0.5, "window_s": 60.0,
            "pruning_ratio": pruning_ratio,
            "settings": {"num_env_runners": 1, **bt.OURS_SETTINGS, "options": options, "q_model": q_model,
                         "ray_num_cpus": 2}}
