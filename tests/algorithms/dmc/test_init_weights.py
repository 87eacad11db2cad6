"""``--init-weights weights:DIR | zoo:NAME``: a new DMC run's Q-networks start from exported weights (the zoo's
DouDiZhu agent here: Luo & Tan's network and opponent model on their unified features), checked name by name and
shape by shape; the runners play with them from the first sample."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.init_weights import load_init_weights, read_init_weights
from cardrl.algorithms.training.loop import check_training
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.zoo.catalog import entry_dir, read_card

ZOO_OPTIONS = {"q_model": "luo_tan"}  # the zoo's DouDiZhu network: Luo & Tan's, on their unified features


def _zoo_tensors() -> dict[str, torch.Tensor]:
    return {k: v.float() for k, v in load_file(str(entry_dir("doudizhu") / "shared.fp16.safetensors")).items()}


def _config(features: str, **training) -> DMCConfig:
    return (DMCConfig().game("doudizhu", features=features)
            .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=50)
            .training(frames_per_update=64, **training).debugging(seed=1))


def test_the_zoo_weights_are_what_the_learner_and_its_runner_play_with(ray_local):
    algo = _config("unified", **ZOO_OPTIONS).build_algo()
    try:
        line = load_init_weights(algo, "zoo:doudizhu")
        frames = read_card("doudizhu")["training"]["frames"]
        assert line.startswith(f"initial weights from zoo:doudizhu (shared; exported after {frames:,} frames)")
        zoo = _zoo_tensors()
        learner = algo.learner_group._learner.module["shared"].state_dict()
        assert set(learner) == set(zoo) and all(torch.equal(learner[k], zoo[k]) for k in zoo)
        sent = algo._weights()["shared"]  # what every runner loads with its next sample request
        assert all(torch.equal(torch.as_tensor(sent[k]), zoo[k]) for k in zoo)
        algo.train()
        assert algo.frames_trained > 0
    finally:
        algo.stop()


def test_weights_that_do_not_fit_are_refused_with_what_they_were_trained_with(ray_local):
    with_model = _config("unified", opponent_model="luo_tan").build_algo()  # the zoo's network has no opponent model
    try:
        with pytest.raises(ValueError, match=r"module 'shared' does not fit \(missing \['opponent_model\..*"
                                             r"layers\.0\.weight: \(1024, 1106\) in the weights, \(1024, 1402\) here.*"
                                             r"opponent model None.*give those options"):
            load_init_weights(with_model, "zoo:doudizhu")
        before = with_model.learner_group._learner.module["shared"].state_dict()["layers.1.weight"].clone()
    finally:
        with_model.stop()
    assert not torch.equal(before, _zoo_tensors()["layers.1.weight"])  # nothing was loaded
    douzero = _config("douzero").build_algo()  # DouZero's three networks, one per role
    try:
        with pytest.raises(ValueError, match=r"trains the module 'landlord', the weights hold \['shared'\]"):
            load_init_weights(douzero, "zoo:doudizhu")
    finally:
        douzero.stop()


def test_a_bad_source_is_refused_before_ray_starts(tmp_path):
    with pytest.raises(ValueError, match="give weights:DIR .* or zoo:NAME"):
        read_init_weights("checkpoint:runs/x", "doudizhu")
    with pytest.raises(ValueError, match="zoo:guandan plays guandan, not doudizhu"):
        read_init_weights("zoo:guandan", "doudizhu")
    with pytest.raises(FileNotFoundError, match="the directory does not exist"):
        read_init_weights(f"weights:{tmp_path / 'none'}", "doudizhu")
    spec = RunSpec.from_flags("doudizhu", ["--init-weights", "zoo:guandan", "--out", str(tmp_path / "run")])
    with pytest.raises(ValueError, match="zoo:guandan plays guandan, not doudizhu"):
        check_training(spec)
    both = RunSpec.from_flags("doudizhu", ["--init-weights", "zoo:doudizhu", "--restore", str(tmp_path)])
    with pytest.raises(ValueError, match="give one of them, not both"):
        check_training(both)
    with pytest.raises(ValueError, match="--init-weights applies to --algo dmc"):
        RunSpec.from_flags("doudizhu", ["--algo", "ppo", "--init-weights", "zoo:doudizhu"])
