"""Option bounds declared once (each settings field's type and choices, algorithms/training/settings.py) and checked
by one generic check, :func:`option_problems`: the command line, a :class:`RunSpec` built in Python and the
algorithms' configs refuse a value outside them with the same message, naming the option, its value and what is
allowed."""

from __future__ import annotations

import dataclasses
from dataclasses import fields

import pytest

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.settings import DMCSettings
from cardrl.algorithms.masked_ppo.settings import PPOSettings
from cardrl.algorithms.topk_ppo.settings import TopKPPOSettings
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.algorithms.training.settings import RunSettings, field_default, option_problems, with_flags
from cardrl.algorithms.tune.settings import Sweep, TuneSettings
from cardrl.cli import main

SETTINGS = (RunSettings, DMCSettings, TopKPPOSettings, PPOSettings, TuneSettings)


def _checked(cls: type) -> list:
    """The fields of ``cls`` with a declared type or choices."""
    return [f for f in fields(cls) if f.metadata.get("type") is not None or f.metadata.get("choices") is not None]


def _dmc_problem(**options) -> str:
    with pytest.raises(ValueError) as err:
        DMCConfig().training(**options).validate()
    return str(err.value)


def _spec_problem(algo: str = "dmc", **options) -> str:
    with pytest.raises(ValueError) as err:
        RunSpec.build("doudizhu", algo, **options)
    return str(err.value)


@pytest.mark.parametrize("cls", SETTINGS, ids=lambda c: c.__name__)
def test_every_settings_default_passes_its_own_bounds(cls):
    assert _checked(cls), f"{cls.__name__} declares no bound"
    assert option_problems(cls(), cls) == []
    for f in _checked(cls):  # and each option alone, at its default
        assert option_problems(dataclasses.replace(cls(), **{f.name: field_default(f)}), cls) == [], f.name


@pytest.mark.parametrize("options, message", [
    ({"lr": -1}, "lr=-1 must be a finite number > 0"),
    ({"frames_per_update": 0}, "frames_per_update=0 must be an int >= 1"),
    ({"optimizer": "adam"}, "optimizer='adam' is unknown; allowed: 'rmsprop', 'rmsprop_tf1', 'rmsprop_corrected'"),
    ({"epsilon": 1.5}, "epsilon=1.5 must be a number in [0, 1]"),
    ({"rmsprop_alpha": 1.0}, "rmsprop_alpha=1.0 must be a number in [0, 1)"),
    ({"hidden_sizes": (512, 0)}, "hidden_sizes=(512, 0) must be a non-empty list, each an int >= 1"),
    ({"updates_per_iteration": 0}, "updates_per_iteration=0 must be an int >= 1"),
    ({"module_mapping": "seat"}, "module_mapping='seat' is unknown; allowed: None, 'shared', 'per_agent'"),
    ({"actor_precision": "float16"}, "actor_precision='float16' is unknown; allowed: 'float32', 'bfloat16'"),
    ({"coach_batch": 0}, "coach_batch=0 must be an int >= 1"),
    ({"driver_sample_frames": -1}, "driver_sample_frames=-1 must be an int >= 0"),
    ({"bid_networks": "per_seat"}, "bid_networks='per_seat' is unknown; allowed: 'per_position', 'shared'"),
    ({"target_baseline_rate": 0.0}, "target_baseline_rate=0.0 must be a number in (0, 1]"),
    ({"gpu_inference": 1}, "gpu_inference=1 must be True or False"),
])
def test_a_bad_value_gets_the_same_message_from_a_run_spec_and_from_the_dmc_config(options, message):
    assert message in _spec_problem(**options)
    assert message in _dmc_problem(**options)


def test_the_command_line_refuses_the_same_bounds_and_names_the_flag(capsys):
    for flags, message in ((["--frames-per-update", "0"], "--frames-per-update: 0 is below 1; give an int >= 1"),
                           (["--admc-gamma", "1"], "--admc-gamma: '1' is not a number in (0, 1)")):
        with pytest.raises(SystemExit):
            main(["train", "doudizhu", *flags])
        assert message in capsys.readouterr().err
    assert with_flags("frames_per_update=0 must be an int >= 1", DMCSettings) \
        == "--frames-per-update=0 must be an int >= 1"


def test_every_bad_value_is_named_at_once():
    problem = _spec_problem(lr=-1, frames_per_update=0, optimizer="adam", stop_frames=0)
    assert problem.startswith("invalid options for --algo dmc: ")
    assert all(name in problem for name in ("lr=-1", "frames_per_update=0", "optimizer='adam'", "stop_frames=0"))


@pytest.mark.parametrize("options, message", [
    ({"stop_time": -5.0}, "stop_time=-5.0 must be seconds, a finite number >= 0"),
    ({"stop_time": "10m"}, "stop_time='10m' must be seconds, a finite number >= 0"),  # Python gives seconds
    ({"lr": "0.001"}, "lr='0.001' must be a finite number > 0"),  # a number, not its text
    ({"frames_per_update": 3200.0}, "frames_per_update=3200.0 must be an int >= 1"),
    ({"num_env_runners": True}, "num_env_runners=True must be an int >= 0"),
    ({"eval_against": []}, "eval_against=[] must be a non-empty list, each an agent spec"),
    ({"out": ""}, "out='' must be a non-empty filesystem path"),
    ({"eval_every": None}, "eval_every=None is not allowed; give seconds, a finite number >= 0"),
])
def test_python_values_are_checked_as_values_not_as_their_text(options, message):
    assert message in _spec_problem(**options)


def test_values_in_bounds_pass_in_python_as_on_the_command_line():
    spec = RunSpec.build("doudizhu", stop_time=600.0, lr=3e-4, hidden_sizes=[64, 64], grad_clip=None,
                         prune_slack=2, eval_against=["random", "rule"], q_model=None)
    assert (spec.run.stop_time, spec.settings.hidden_sizes, spec.settings.grad_clip) == (600.0, (64, 64), None)


def test_top_k_ppo_masked_ppo_and_tune_take_their_bounds_from_their_settings():
    from cardrl.algorithms.masked_ppo.masked_ppo import masked_ppo_config
    from cardrl.algorithms.topk_ppo.topk_ppo import TopKPPOConfig

    assert "k=0 must be an int >= 1" in _spec_problem("topk-ppo", k=0)
    with pytest.raises(ValueError, match=r"invalid top-k PPO config: k=0 must be an int >= 1; "
                                         r"gamma=1.5 must be a number in \[0, 1\]"):
        TopKPPOConfig().game("guandan").training(k=0, gamma=1.5).validate()  # before the DMC checkpoint
    assert "kl_stop=-1 must be a finite number >= 0" in _spec_problem("topk-ppo", kl_stop=-1)
    assert "minibatch_size=0 must be an int >= 1" in _spec_problem("ppo", minibatch_size=0)
    with pytest.raises(ValueError, match=r"invalid PPO settings: lr=-1 must be a finite number > 0"):
        masked_ppo_config("big2", lr=-1)
    with pytest.raises(ValueError, match=r"reduction_factor=1 must be an int >= 2"):
        Sweep.from_values("doudizhu", {"reduction_factor": 1})


def test_no_check_writes_the_config():
    config = DMCConfig().game("doudizhu")
    config.env_config = {"features": "unified"}  # set behind the config's back: the mapping no longer follows
    mapping = config.policy_mapping_fn
    with pytest.raises(ValueError, match="policy_mapping_fn does not follow module_mapping='shared'"):
        config.validate()
    assert config.policy_mapping_fn is mapping
    config = DMCConfig().game("doudizhu").environment(env_config={"features": "unified"})
    config.validate()  # RLlib's environment() chooses the mapping as .game(features=...) does
    before = dict(vars(config))
    config.validate()
    assert dict(vars(config)) == before


def test_q_model_none_means_the_network_made_for_the_features():
    config = DMCConfig().game("big2").training(q_model=None)
    assert config.q_model == "luo_tan"
    config.validate()
