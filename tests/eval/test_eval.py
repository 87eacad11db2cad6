"""Evaluation (cardrl/eval/): deal files, agent specs, duplicate tournaments (WP/ADP, per-seat), leagues, Ray
parallelism, DMC and DouZero checkpoint agents, the ``cardrl eval`` CLI, and bad input."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest
import torch

from cardrl.agents import RandomAgent
from cardrl.eval import DealSet, generate_deals, load_deals, parse_agent_spec, run_league, run_tournament
from cardrl.algorithms.dmc.agent_loaders import load_douzero_checkpoints
from cardrl.eval.agents import build_agent
from cardrl.eval.parallel import ProgressLine
from cardrl.features.douzero import DouZeroFeatures
from cardrl.games.doudizhu import ROLES, DouDizhuGame
from helpers.counting_agent import CountingAgent


# ---- deal files ------------------------------------------------------------------------------------------------
def test_deal_file_round_trip_is_seeded_and_checked(tmp_path):
    deals = generate_deals("doudizhu", 20, seed=4)
    again = generate_deals("doudizhu", 20, seed=4)
    np.testing.assert_array_equal(deals.seeds, again.seeds)
    assert not np.array_equal(deals.seeds, generate_deals("doudizhu", 20, seed=5).seeds)
    path = deals.save(tmp_path / "deals")
    assert path.name == "deals.npz"
    loaded = load_deals(path, "doudizhu")
    np.testing.assert_array_equal(loaded.seeds, deals.seeds)
    np.testing.assert_array_equal(loaded.hands, deals.hands)
    assert loaded.options == {"kickers": "douzero", "bidding": False, "spring": False} and loaded.seed == 4
    assert loaded.hands.shape == (20, 3, 15) and (loaded.hands.sum(axis=2) == [20, 17, 17]).all()
    # the same file gives the same tournament as the in-memory deals
    r1 = run_tournament("rule", "random", deals)
    r2 = run_tournament("rule", "random", path)
    np.testing.assert_array_equal(r1.scores, r2.scores)


def test_bad_deal_files_fail_before_any_game(tmp_path):
    deals = generate_deals("doudizhu", 5, seed=1)
    other = DealSet("big2", {}, deals.seeds, deals.hands, 1).save(tmp_path / "big2")
    with pytest.raises(ValueError, match="deal file is for game 'big2', not 'doudizhu'"):
        load_deals(other, "doudizhu")
    counting = CountingAgent()
    with pytest.raises(ValueError, match="deal file is for game 'big2'"):
        run_tournament(counting, "random", other)
    tampered = DealSet("doudizhu", deals.options, deals.seeds, deals.hands[:, ::-1].copy(), 1)
    with pytest.raises(ValueError, match="no longer deals the hands stored"):
        run_tournament(counting, "random", tampered)
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="not a cardrl deal file"):
        load_deals(tmp_path / "junk.npz")
    with pytest.raises(FileNotFoundError):
        load_deals(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match=r"bidding=True are evaluated as the whole game \(cardrl eval --bidding\)"):
        run_tournament(counting, "random", generate_deals("doudizhu", 3, bidding=True))  # whole-game deals
    with pytest.raises(ValueError, match="unknown doudizhu rule option"):
        generate_deals("doudizhu", 3, jokers=False)
    with pytest.raises(ValueError, match="game 'chess' is unknown; available"):
        generate_deals("chess", 3)
    assert counting.calls == 0


# ---- agent specs -----------------------------------------------------------------------------------------------
def test_agent_specs_parse_or_fail_clearly(tmp_path):
    assert parse_agent_spec("random").seed is None and parse_agent_spec("random:7").seed == 7
    assert parse_agent_spec("rule").kind == "rule"
    spec = parse_agent_spec("checkpoint:/runs/x/checkpoint:landlord")
    assert (spec.path, spec.module) == ("/runs/x/checkpoint", "landlord")
    assert parse_agent_spec("checkpoint:/runs/x").module is None
    assert parse_agent_spec("douzero:baselines/douzero_ADP").path == "baselines/douzero_ADP"
    for bad, msg in [("", "does not parse"), ("alphazero", "unknown kind 'alphazero'"),
                     ("random:x", "non-negative int seed"), ("rule:3", "takes no argument"),
                     ("checkpoint:", "needs a path"), ("douzero:", "douzero:DIR needs a path")]:
        with pytest.raises(ValueError, match=msg):
            parse_agent_spec(bad)
    counting = CountingAgent()
    with pytest.raises(ValueError, match="does not parse"):
        run_tournament(counting, "nonsense:1", 3)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        run_tournament(counting, f"checkpoint:{tmp_path / 'none'}", 3)
    assert counting.calls == 0


# ---- metrics -----------------------------------------------------------------------------------------------------
def test_known_strength_rule_beats_random_and_random_ties_random():
    deals = generate_deals("doudizhu", 300, seed=11)
    rule = run_tournament("rule", "random", deals)
    lo, hi = rule.adp_interval
    assert lo > 0, f"rule vs random ADP {rule.adp:.3f} [{lo:.3f}, {hi:.3f}]"
    assert rule.wp > 0.8 and rule.beats()
    assert [s.label for s in rule.arrangements()] == ["A landlord", "A peasants"]
    assert all(s.adp_interval[0] > 0 for s in rule.arrangements())
    # DouDiZhu points: A's team payoff, +-2 x 2^bombs per game
    game_points = np.abs(rule.scores) / 2
    assert np.all(np.log2(game_points) == np.round(np.log2(game_points)))
    rand = run_tournament("random", "random", deals)
    lo, hi = rand.adp_interval
    assert lo < 0 < hi, f"random vs random ADP {rand.adp:.3f} [{lo:.3f}, {hi:.3f}]"
    assert not np.all(rand.pair_scores == 0)  # two differently seeded random players, not one
    # Without the swap the seat decides: random landlords lose to random peasants.
    assert rand.arrangements()[0].adp_interval[1] < 0 < rand.arrangements()[1].adp_interval[0]


def test_agent_against_itself_scores_exactly_zero_per_deal_pair():
    deals = generate_deals("doudizhu", 40, seed=2)
    for a, b in [("rule", "rule"), ("random:5", "random:5")]:
        r = run_tournament(a, b, deals)
        assert np.all(r.pair_scores == 0.0), (a, r.pair_scores)
        assert r.adp == 0.0 and r.adp_interval == (0.0, 0.0) and r.wp == 0.5
        assert np.all(r.scores[:, 0] == -r.scores[:, 1]) and np.any(r.scores != 0)
    agent = RandomAgent(9)
    assert np.all(run_tournament(agent, agent, deals).pair_scores == 0.0)


def test_results_do_not_depend_on_ray_workers_or_chunks(ray_local):
    deals = generate_deals("doudizhu", 48, seed=3)
    local = run_tournament("rule", "random", deals, num_workers=0)
    one = run_tournament("rule", "random", deals, num_workers=1, chunk_size=48)
    two = run_tournament("rule", "random", deals, num_workers=2, chunk_size=7)
    for r in (one, two):
        np.testing.assert_array_equal(r.scores, local.scores)
        np.testing.assert_array_equal(r.wins, local.wins)
    assert one.adp_interval == two.adp_interval == local.adp_interval
    same_seed = [run_tournament("random:5", "random:5", deals, num_workers=w, chunk_size=10) for w in (0, 2)]
    np.testing.assert_array_equal(same_seed[0].scores, same_seed[1].scores)
    agent = RandomAgent(4)  # Agent objects travel to the workers pickled; one object on both sides stays one
    assert np.all(run_tournament(agent, agent, deals, num_workers=2, chunk_size=10).pair_scores == 0.0)


def test_a_long_evaluation_reports_its_progress(ray_local):
    told: list[tuple[int, int]] = []
    run_league(["random", "rule", "random:7"], 24, num_workers=2, chunk_size=5,
               progress=lambda done, total: told.append((done, total)))
    assert {total for _, total in told} == {3 * 24}  # three pairs of 24 deals
    dones = [done for done, _ in told]
    assert dones == sorted(dones) and dones[-1] == 72 and len(dones) == 3 * 5  # after each chunk of each pair
    lines: list[str] = []
    say = ProgressLine("deals", every_s=0.0, say=lines.append)
    say(10, 40)
    say(40, 40)
    assert re.fullmatch(r"\[eval +\d+s\] deals 10/40 \([\d,]+/s\) \| ETA [\d.]+ min", lines[0]), lines
    assert lines[1].startswith("[eval") and "deals 40/40" in lines[1] and "ETA" not in lines[1]
    quiet = ProgressLine("deals", every_s=3600.0, say=lines.append)
    quiet(1, 40)
    quiet(40, 40)  # only the last one: a minute-long run says nothing until it ends, a long one every every_s
    assert len(lines) == 3


def test_league_rank_table_markdown_and_csv():
    league = run_league(["random", "rule", "random:7"], 60, seed=5)
    assert league.names == ("random", "rule", "random:7")
    assert league.ranking()[0] == 1 and league.beaten(1) == 2
    for i in range(3):
        for j in range(3):
            if i != j:
                np.testing.assert_array_equal(league.results[(i, j)].scores, -league.results[(j, i)].scores)
                lo, hi = league.results[(i, j)].adp_interval
                assert league.results[(j, i)].adp_interval == pytest.approx((-hi, -lo))
    md = league.markdown()
    assert "| 1 | rule | 2 |" in md and "A \\ B" in md
    rows = league.csv().strip().splitlines()
    assert rows[0].startswith("rank,a,b,deals,adp_mean,adp_low,adp_high") and len(rows) == 1 + 6
    assert rows[1].startswith("1,rule,")


# ---- checkpoint agents -------------------------------------------------------------------------------------------
def _positions(n=8, seed=0):
    """(role, flat observation, legal action features) of real positions."""
    game, features, rng, out = DouDizhuGame(), DouZeroFeatures(), np.random.default_rng(seed), []
    game.reset(seed)
    while len(out) < n and not game.is_over:
        seat, legal = game.current_player, game.legal_moves()
        if len(legal) > 1:
            out.append((game.role(seat), features.encode(game, seat), features.action_features(game.table, legal)))
        game.step(int(legal[rng.integers(len(legal))]))
    return out


@pytest.fixture
def douzero_dir(tmp_path):
    """DouZero's own models with seeded random weights, saved as DouZero saves its public checkpoints."""
    from douzero.dmc.models import model_dict

    torch.manual_seed(0)
    models = {role: model_dict[role]() for role in ROLES}
    for role, model in models.items():
        torch.save(model.state_dict(), tmp_path / f"{role}.ckpt")
    return tmp_path, models


def test_douzero_checkpoints_load_with_douzero_q_values(douzero_dir):
    directory, reference = douzero_dir
    modules = load_douzero_checkpoints(directory)
    features = DouZeroFeatures()
    for role, obs, actions in _positions(12):
        state, history = features.split(obs, role)
        n = len(actions)
        x = torch.from_numpy(np.hstack([np.repeat(state[None], n, axis=0), actions]))
        z = torch.from_numpy(np.repeat(history[None], n, axis=0))
        with torch.no_grad():
            want = reference[role].forward(z, x, return_value=True)["values"].squeeze(-1).numpy()
        got = modules[role].q_values(state, history, actions).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    r = run_tournament(f"douzero:{directory}", "random", 3)
    assert r.games == 6 and r.a == f"douzero:{directory}"


def test_bad_douzero_checkpoints_are_refused(douzero_dir, tmp_path_factory):
    directory, reference = douzero_dir
    bad = tmp_path_factory.mktemp("bad")
    for role in ROLES:  # a landlord network saved under every name: wrong input width for peasants
        torch.save(reference["landlord"].state_dict(), bad / f"{role}.ckpt")
    counting = CountingAgent()
    with pytest.raises(ValueError, match="does not match DouZero's landlord_down network.*dense1.weight"):
        run_tournament(counting, f"douzero:{bad}", 3)
    (bad / "landlord.ckpt").unlink()
    with pytest.raises(FileNotFoundError, match="landlord.ckpt"):
        run_tournament(counting, f"douzero:{bad}", 3)
    distinct = generate_deals("doudizhu", 3, kickers="distinct")
    with pytest.raises(ValueError, match="kickers='douzero'"):
        run_tournament(counting, f"douzero:{directory}", distinct)
    assert counting.calls == 0


def _save_modules(root, model="douzero_lstm", roles=None, counters=None):
    from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
    from cardrl.algorithms.dmc.q_module import DOUZERO_ROLE_DIMS

    torch.manual_seed(1)
    multi = dmc_module_spec(model, roles or DOUZERO_ROLE_DIMS, {"hidden_sizes": [32]}).build()
    multi.save_to_path(str(root / "learner_group" / "learner" / "rl_module"))
    if counters is not None:
        (root / "algorithm_state.pkl").write_bytes(pickle.dumps({"dmc_counters": counters}))
    return multi


def test_dmc_checkpoint_agent_plays_greedy_q_and_mismatches_are_refused(tmp_path):
    plain = {"prune": None, "prune_slack": "paper", "prune_extra": 0.0, "oracle": None, "oracle_mode": "scale"}
    counters = {"game": "doudizhu_v0", "q_model": "douzero_lstm", "kickers": "douzero", "play_options": plain}
    good = tmp_path / "good"
    multi = _save_modules(good, counters=counters)
    agent = build_agent(f"checkpoint:{good}")
    game = DouDizhuGame().reset(8)
    for _ in range(6):
        seat, legal = game.current_player, game.legal_moves()
        view = game.view(seat)
        role = game.role(seat)
        state, history = DouZeroFeatures().split(DouZeroFeatures().encode(game, seat), role)
        q = multi[role].q_values(state, history, DouZeroFeatures().action_features(game.table, legal)).numpy()
        if len(legal) > 1:
            assert agent.act(view, legal) == int(legal[int(np.argmax(q))])
        game.step(int(legal[0]))
    r = run_tournament(f"checkpoint:{good}", "rule", 2)
    assert r.games == 4

    counting = CountingAgent()
    other_game = tmp_path / "big2"
    _save_modules(other_game, counters={**counters, "game": "big2_v0"})
    with pytest.raises(ValueError, match="trained on 'big2_v0', not on 'doudizhu'"):
        run_tournament(counting, f"checkpoint:{other_game}", 3)
    distinct = tmp_path / "distinct"
    _save_modules(distinct, counters={**counters, "kickers": "distinct"})
    with pytest.raises(ValueError, match="kickers='distinct'"):
        run_tournament(counting, f"checkpoint:{distinct}", 3)
    wrong_dims = tmp_path / "dims"
    # (with its algorithm state: a directory that has a learner group but lost that state is refused before this)
    _save_modules(wrong_dims, model="mlp", roles={r: (100, None, 54) for r in ROLES},
                  counters={**counters, "q_model": "mlp"})
    with pytest.raises(ValueError, match="does not fit this game and feature encoder"):
        run_tournament(counting, f"checkpoint:{wrong_dims}", 3)
    with pytest.raises(ValueError, match="the landlord_down module takes"):  # one 319-wide module for all seats
        run_tournament(counting, f"checkpoint:{good}:landlord", 3)
    with pytest.raises(ValueError, match="has no module"):
        run_tournament(counting, f"checkpoint:{good}:shared", 3)
    assert counting.calls == 0


# ---- CLI ----------------------------------------------------------------------------------------------------------
def test_cli_eval_table_and_league(tmp_path, capsys):
    from cardrl.cli import main

    assert main(["eval", "doudizhu", "--a", "rule", "--b", "random", "--deals", "20", "--workers", "0",
                 "--save-deals", str(tmp_path / "d.npz")]) == 0
    out = capsys.readouterr().out
    assert "rule vs random: doudizhu, 20 deals x 2" in out and "| A landlord | 20 |" in out
    assert main(["eval", "doudizhu", "--league", "rule", "random", "--deal-file", str(tmp_path / "d.npz"),
                 "--workers", "0", "--out", str(tmp_path / "league")]) == 0
    out = capsys.readouterr().out
    assert "| 1 | rule | 1 |" in out
    assert (tmp_path / "league.csv").read_text().startswith("rank,a,b")
    assert "| Rank | A \\ B |" in (tmp_path / "league.md").read_text()
    assert main(["eval", "doudizhu", "--a", "rule", "--b", "alphago", "--deals", "5", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "cardrl eval: error: agent spec 'alphago' does not parse" in err and "Traceback" not in err
    assert main(["eval", "doudizhu", "--a", "rule", "--deals", "5"]) == 2
    assert "--a needs --b" in capsys.readouterr().err


def test_mcs_greedy_spec_builds():
    assert run_tournament("mcs-greedy", "random", 2).games == 4


def test_eval_core_imports_without_ray_or_torch():
    import subprocess
    import sys

    code = ("import sys, cardrl.eval, cardrl.eval.tournament, cardrl.eval.lockstep, cardrl.agents.q_agent; "
            "print(sorted(m for m in ('ray', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_lockstep_evaluation_counts_how_often_the_greedy_side_passes():

    from cardrl.eval.agents import build_agent
    from cardrl.eval.lockstep import ScorerHooks, evaluate_scorer

    def always_pass(agent, obs, actions, blocks=None):  # a pass is the move of no cards: the highest Q
        return [-(a.sum(axis=1) > 0).astype(float) for a in actions]

    def never_pass(agent, obs, actions, blocks=None):
        return [a.sum(axis=1).astype(float) for a in actions]

    random = lambda slot: build_agent("random", "doudizhu", {}, seed=7)  # noqa: E731
    counting = ScorerHooks(count_passes=True)
    passing = evaluate_scorer(always_pass, random, "doudizhu", deals=10, seed=1, hooks=counting)["passes"]
    assert set(passing) == {"landlord", "peasants"}
    assert all(p["decisions"] > 0 and p["passed"] == p["decisions"] for p in passing.values())
    playing = evaluate_scorer(never_pass, random, "doudizhu", deals=10, seed=1, hooks=counting)["passes"]
    assert all(p["decisions"] > 0 and p["passed"] == 0 for p in playing.values())
    assert "passes" not in evaluate_scorer(never_pass, random, "doudizhu", deals=2, seed=1)
