"""The DanZero and DanZero+ presets configure what the papers and the authors' code do: TF1's RMSProp at
lr 1e-3 (every GuanDan DMC preset), the match reward in DanZero+'s DMC (Table IV) and top-k PPO (Table III)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardrl.algorithms.dmc.train import build_config
from cardrl.algorithms.training.env_options import env_config_of
from cardrl.cli import parse_args, train_spec
from cardrl.presets import expand

GUANDAN_DMC_SCRIPTS = ("danzero_guandan", "danzero_plus_guandan", "odmc_guandan", "oadmc_guandan", "om_guandan",
                       "omodmc_guandan", "coach_guandan")
TOPK_SCRIPTS = ("topk_ppo_guandan_k2", "topk_ppo_guandan_k3", "topk_ppo_guandan_k5")


def script_argv(name: str, monkeypatch) -> list[str]:
    """The ``cardrl`` command line of preset ``name`` (the experiment script it replaced ran the same)."""
    return expand(["train", "--preset", name])


@pytest.mark.parametrize("name", GUANDAN_DMC_SCRIPTS)
def test_guandan_dmc_scripts_train_with_danzeros_tf1_rmsprop_at_lr_1e_3(name, monkeypatch):
    args = parse_args(script_argv(name, monkeypatch))
    config = build_config(train_spec(args), say=lambda _: None)
    assert (config.optimizer, config.lr, config.rmsprop_alpha, config.rmsprop_eps) == ("rmsprop_tf1", 1e-3, 0.9, 1e-5)
    assert config.env_config.get("match_bonus", False) == (name == "danzero_plus_guandan")


def test_danzero_plus_dmc_is_table_ivs_with_the_match_reward(monkeypatch):
    args = parse_args(script_argv("danzero_plus_guandan", monkeypatch))
    config = build_config(train_spec(args), say=lambda _: None)
    assert config.env_config["match_bonus"] is True and config.q_clip is None  # eq. 6: plain MSE
    assert (config.frames_per_update, config.epsilon, config.q_model) == (32768, 0.01, "mlp")


@pytest.mark.parametrize("name", TOPK_SCRIPTS)
def test_topk_ppo_scripts_train_with_the_match_reward_over_danzero_plus_dmc(name, monkeypatch):
    args = parse_args(script_argv(name, monkeypatch))
    assert env_config_of(train_spec(args)) == {"match_bonus": True}
    assert Path(args.dmc_checkpoint) == Path.cwd() / "runs" / "danzero_plus_guandan" / "checkpoint"


def test_match_bonus_is_refused_for_a_game_without_matches():
    args = parse_args(["train", "big2", "--match-bonus"])
    with pytest.raises(ValueError, match="--match-bonus does not apply to big2 .*; it applies to guandan"):
        env_config_of(train_spec(args))
