"""The tests' one embedded local Ray: started once on the machine's 2 cores and shared (never a cluster's)."""


def init_local_ray():
    import ray

    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    return ray
