"""The learners' resources of a run (algorithms/training/learners.py): RLlib's ``.learners()`` arguments of the flags,
and ``--learner-threads`` set in the learner that runs in the driver, on a real local Ray."""

from __future__ import annotations

import pytest

from cardrl.algorithms.training.learners import learner_resources, set_learner_threads
from cardrl.algorithms.training.settings import RunSettings


def test_learner_resources_of_the_flags():
    cpu = learner_resources(RunSettings(num_learners=2, gpu=False, learner_threads=3))
    assert cpu == {"num_learners": 2, "num_gpus_per_learner": 0, "num_cpus_per_learner": 3}
    gpu = learner_resources(RunSettings(num_learners=1, gpu=True, learner_threads=3))
    assert gpu == {"num_learners": 1, "num_gpus_per_learner": 1}  # RLlib's own CPU share of a GPU learner


def test_learner_threads_flag_is_checked(capsys):
    from cardrl.cli import build_parser

    assert build_parser().parse_args(["train", "doudizhu"]).learner_threads == 1
    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "doudizhu", "--learner-threads", "0"])
    assert "--learner-threads" in capsys.readouterr().err


def test_set_learner_threads_in_the_driver(ray_local):
    """RLlib's local env runner sets one torch thread in the driver as it is built; ``set_learner_threads`` then sets
    what the run asked for, in the process where the learner computes."""
    import torch

    from helpers.dmc_configs import small_dmc_config

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    algo = small_dmc_config(q_model="mlp", hidden_sizes=(16,)).build_algo()
    try:
        assert algo.learner_group.is_local
        assert torch.get_num_threads() == 1  # the local env runner's doing (it was 2), before ours
        assert set_learner_threads(algo, 2) == [2]
        assert torch.get_num_threads() == 2
        assert set_learner_threads(algo, 1) == [1]
    finally:
        algo.stop()
        torch.set_num_threads(before)
