"""Which Q-network plays each seat (``module_mapping``): one per DouDiZhu seat with DouZero's features (DouZero), one
shared network with Luo & Tan's unified features ("a single model that can be applied to all players", Luo & Tan
2024, Appendix C), in Big2 and GuanDan, and in the presets of Luo & Tan's Tables 4, 8 and 10."""

from pathlib import Path

import pytest
import torch

from cardrl.algorithms.common.policy_mapping import one_module_per_seat, one_shared_module
from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.games.registry import get_game

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"
SEATS = ("landlord", "landlord_down", "landlord_up")


def _modules(config: DMCConfig) -> list[str]:
    config.validate()
    return sorted(config.get_multi_rl_module_spec().rl_module_specs)


def test_unified_doudizhu_trains_one_shared_module_and_per_agent_stays_an_option():
    assert _modules(DMCConfig().game("doudizhu", features="unified")) == ["shared"]
    assert _modules(DMCConfig().game("doudizhu", features="unified").training(module_mapping="per_agent")) \
        == sorted(SEATS)
    assert _modules(DMCConfig().game("doudizhu")) == sorted(SEATS)  # DouZero's features: DouZero's three networks
    assert _modules(DMCConfig().game("big2").training(module_mapping="per_agent")) == sorted(get_game("big2").agents)
    # the features given after .game() (RLlib's .environment) are followed too
    assert _modules(DMCConfig().game("doudizhu").environment(env_config={"features": "unified"})) == ["shared"]


def test_the_default_mapping_per_feature_encoder_follows_the_seats_state_sizes():
    from cardrl.algorithms.common.game_defaults import default_module_mapping

    spec = get_game("doudizhu")
    assert default_module_mapping(spec) == "per_agent" and default_module_mapping(spec, "unified") == "shared"
    assert default_module_mapping(get_game("big2")) == "shared"
    assert default_module_mapping(get_game("guandan")) == "shared"
    assert default_module_mapping(get_game("guandan"), "danzero_keyed") == "shared"
    with pytest.raises(ValueError, match="features='nope' is unknown"):
        default_module_mapping(spec, "nope")


@pytest.mark.parametrize("make,message", [
    (lambda: DMCConfig().game("doudizhu").training(module_mapping="shared"),
     r"module_mapping='shared' needs features with one state size for every seat.*'landlord': 319.*"
     r"use module_mapping='per_agent' or features='unified'"),
    (lambda: DMCConfig().game("doudizhu").training(module_mapping="seat"), "module_mapping='seat' is unknown"),
    (lambda: DMCConfig().game("big2").multi_agent(policy_mapping_fn=lambda a, *x, **k: a)
     .training(module_mapping="shared"), "a policy_mapping_fn of your own are both given"),
])
def test_a_mapping_that_does_not_apply_is_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make().validate()


def _script_argv(name: str) -> list[str]:
    """The ``cardrl`` arguments of the preset that replaced experiment script ``name``."""
    from cardrl.presets import expand

    return expand(["train", "--preset", name.removesuffix(".py")])


@pytest.mark.parametrize("script,mapping", [("om_doudizhu.py", "shared"), ("omodmc_doudizhu.py", "shared"),
                                            ("dmc_doudizhu.py", "per_agent"), ("odmc_doudizhu.py", "per_agent")])
def test_the_table_4_8_10_scripts_train_the_paper_s_networks(script, mapping):
    """D+OM and D+OMODMC (unified features) train one network; DouZero* and D+ODMC (DouZero's code) three."""
    from cardrl.algorithms.dmc.train import build_config
    from cardrl.cli import build_parser, train_spec

    config = build_config(train_spec(build_parser().parse_args(_script_argv(script))), say=lambda *a: None)
    assert config.resolved_module_mapping() == mapping
    assert config.policy_mapping_fn is {"shared": one_shared_module, "per_agent": one_module_per_seat}[mapping]


def test_a_checkpoint_without_a_recorded_mapping_loads_by_its_module_directories(tmp_path):
    from cardrl.algorithms.dmc.agent_loaders import _module_mapping_of

    spec = get_game("doudizhu")
    assert _module_mapping_of({"module_mapping": "shared"}, tmp_path, spec) == "shared"
    for seat in SEATS:
        (tmp_path / seat).mkdir()
    assert _module_mapping_of({}, tmp_path, spec) == "per_agent"  # written before the mapping was recorded
    shared_only = tmp_path / "other"
    (shared_only / "shared").mkdir(parents=True)
    assert _module_mapping_of(None, shared_only, spec) == "shared"


def test_shared_doudizhu_module_trains_checkpoints_restores_and_plays(ray_local, tmp_path):
    """One iteration of real training, a checkpoint, a restore, and a QAgent loaded from it: every seat plays the
    same network, which every seat's frames updated, with each side's target scale (the landlord's 0.5)."""
    from cardrl.agents.q_agent import QAgent
    from cardrl.eval.agents import build_agent
    from cardrl.eval.tournament import run_tournament

    config = (DMCConfig().game("doudizhu", features="unified")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=8, rollout_fragment_length=200)
              .training(frames_per_update=200, hidden_sizes=[16]).debugging(seed=4))
    assert config.target_scales() == {"landlord": 0.5}
    low, high = config.reward_bounds("shared")  # ADMC's range of the one module: over every seat's scaled payoffs
    assert low < 0 < high
    algo = config.build_algo()
    try:
        result = algo.train()
        assert set(result["module_updates"]) == {"shared"} and result["module_updates"]["shared"] >= 1
        modules = algo.q_modules()
        assert set(modules) == set(SEATS) and len({id(m) for m in modules.values()}) == 1
        before = {k: v.clone() for k, v in modules["landlord"].state_dict().items()}
        path = algo.save_to_path(str(tmp_path / "ckpt"))
    finally:
        algo.stop()
    assert sorted(p.name for p in (Path(path) / "learner_group" / "learner" / "rl_module").iterdir()
                  if p.is_dir()) == ["shared"]
    restored = config.build_algo()
    try:
        restored.restore_from_path(path)
        after = restored.q_modules()["landlord_up"].state_dict()
        assert all(torch.equal(before[k], after[k]) for k in before)
    finally:
        restored.stop()
    agent = build_agent(f"checkpoint:{path}", "doudizhu")
    assert isinstance(agent, QAgent) and len({id(m) for m in agent.modules.values()}) == 1
    assert all(torch.equal(before[k], v) for k, v in agent.modules["landlord_down"].state_dict().items())
    assert run_tournament(f"checkpoint:{path}", "random", 2, game="doudizhu", seed=3).games == 4
    with pytest.raises(ValueError, match="module_mapping: checkpoint has 'shared', this config has 'per_agent'"):
        per_seat = config.copy(copy_frozen=False).training(module_mapping="per_agent").build_algo()
        try:
            per_seat.restore_from_path(path)
        finally:
            per_seat.stop()


def test_the_big2_base_script_is_named_for_what_it_trains_not_bigzero():
    """Luo & Tan's BigZero* is "the same code as BigZero" (DouZero's network on BigZero's own Big2 encoding); the
    script runs Luo & Tan's decision network on their unified features, and says so."""
    from cardrl.algorithms.dmc.train import build_config
    from cardrl.cli import build_parser, train_spec

    from cardrl.presets import presets

    assert "dmc_big2" not in presets() and not (EXPERIMENTS / "dmc_big2.py").exists()
    assert "not BigZero*" in presets()["luo_tan_dmc_big2"].reproduces
    config = build_config(train_spec(build_parser().parse_args(_script_argv("luo_tan_dmc_big2.py"))),
                          say=lambda *a: None)
    assert (config.q_model, config.resolved_module_mapping()) == ("luo_tan", "shared")
    assert config.make_env().features.name == "luo_tan_v1"
    assert "runs/luo_tan_dmc_big2/checkpoint" in _script_argv("topk_ppo_big2.py")
