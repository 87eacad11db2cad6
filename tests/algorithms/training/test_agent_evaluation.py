"""The run loop's evaluation of an algorithm that plays as an agent (top-k PPO, RLlib's PPO): on the deals a DMC run
of the same seed evaluates on, under the run's rule options, with what ``cardrl bench learning`` pools (deals and the
per-deal standard deviation)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from cardrl.algorithms.training.agent_evaluation import AgentEvaluation, evaluation_deals
from cardrl.algorithms.training.run_spec import RunSpec
from cardrl.eval.agents import build_agent
from cardrl.eval.deals import deals_from_seeds, generate_deals
from cardrl.eval.lockstep import evaluation_deal_seeds


def _algo(env_config):
    return SimpleNamespace(config=SimpleNamespace(env_config=env_config))


def test_deals_from_seeds_are_the_deals_those_seeds_deal():
    drawn = generate_deals("big2", 4, seed=9)
    again = deals_from_seeds("big2", drawn.seeds, 9)
    np.testing.assert_array_equal(again.hands, drawn.hands)
    assert again.options == drawn.options and again.seed == 9


@pytest.mark.parametrize("game, env_config", [("doudizhu", {"kickers": "distinct"}), ("guandan", {"match_bonus": True,
                                                                                                  "level": "5"})])
def test_an_agents_evaluation_plays_the_dmc_evaluations_deals_under_the_runs_rule_options(game, env_config):
    args = RunSpec.build(game, "ppo", seed=4, eval_deals=6)
    deals = evaluation_deals(_algo({**env_config, "features": "unified"} if game == "doudizhu" else env_config), args)
    np.testing.assert_array_equal(deals.seeds, evaluation_deal_seeds(5, 6))  # evaluate_scorer's, seed + 1
    for name, value in env_config.items():
        if name != "match_bonus":
            assert deals.options[name] == value
    assert deals.options.get("match", False) is False  # GuanDan: single deals, as DMC's evaluation plays them


def test_an_agents_evaluation_reports_deals_and_the_per_deal_spread():
    args = RunSpec.build("doudizhu", "ppo", seed=0, eval_deals=12)
    evaluation = AgentEvaluation(lambda algo, args: build_agent("random", "doudizhu", seed=3))
    ev = evaluation.evaluate(_algo({}), args, ["random"])["eval"]["random"]
    assert ev["deals"] == 12 and ev["adp_sd"] > 0
    half = stats.t.ppf(0.975, 11) * ev["adp_sd"] / math.sqrt(12)
    assert ev["adp_high"] - ev["adp"] == pytest.approx(half) and ev["adp"] - ev["adp_low"] == pytest.approx(half)
