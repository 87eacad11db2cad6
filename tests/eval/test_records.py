"""Game records (docs/records.md): cardrl eval --save-games writes them with each decision's values, they validate by
replaying on the engine, bad records are refused with what is wrong, and cardrl play --replay FILE shows them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardrl.agents.base import play_game
from cardrl.cli import main
from cardrl.eval.agents import build_agent
from cardrl.eval.records import GameRecord, read_record, validate_record, write_record
from cardrl.eval.recording import decision_values
from cardrl.games.registry import get_game
from helpers.tiny_checkpoint import save_doudizhu_checkpoint


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return save_doudizhu_checkpoint(tmp_path_factory.mktemp("ckpt"))


def test_save_games_records_q_values_of_the_checkpoint_and_replays_the_tournament_games(checkpoint, tmp_path,
                                                                                         capsys):
    out = tmp_path / "games"
    assert main(["eval", "doudizhu", "--a", f"checkpoint:{checkpoint}", "--b", "rule", "--deals", "3", "--workers",
                 "0", "--save-games", str(out), "--save-games-count", "2"]) == 0
    assert "4 game records written" in capsys.readouterr().out
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == ["doudizhu_0000_a-landlord.json", "doudizhu_0000_a-peasants.json",
                                       "doudizhu_0001_a-landlord.json", "doudizhu_0001_a-peasants.json"]
    a, b = build_agent(f"checkpoint:{checkpoint}"), build_agent("rule")
    for path in files:
        record = read_record(path)
        a_seats = [s for s, spec in enumerate(record.seats) if spec.startswith("checkpoint:")]
        assert a_seats == ([0] if "landlord.json" in path.name else [1, 2])
        engine = get_game("doudizhu").make_engine()
        payoffs = play_game(engine, [a if s in a_seats else b for s in range(3)], record.seed)
        assert engine.actions == record.actions and list(payoffs) == record.payoffs
        game = engine.reset(record.seed)
        for action, entry in zip(record.actions, record.values):
            seat = game.current_player
            if seat in a_seats:
                assert entry["kind"] == "q" and entry["moves"][0][0] == action  # greedy: the top Q is the move played
                q = [v for _, v in entry["moves"]]
                assert q == sorted(q, reverse=True) and len(q) == min(5, len(game.legal_moves()))
            else:
                assert entry is None  # the rule agent has no values
            game.step(action)


def test_values_are_the_agents_q_of_the_legal_moves(checkpoint):
    agent = build_agent(f"checkpoint:{checkpoint}")
    game = get_game("doudizhu").make_engine().reset(5)
    legal = game.legal_moves()
    entry = decision_values(agent, game.view(0), legal, top=len(legal))
    q = agent.q_values(game.view(0), legal)
    assert sorted(m[0] for m in entry["moves"]) == sorted(int(a) for a in legal)
    assert dict((m[0], m[1]) for m in entry["moves"]) == pytest.approx(dict(zip(map(int, legal), q.tolist())),
                                                                       abs=1e-5)
    assert decision_values(build_agent("random"), game.view(0), legal) is None


def test_guandan_match_records_replay_to_the_end(tmp_path, capsys):
    out = tmp_path / "games"
    assert main(["eval", "guandan", "--a", "rule", "--b", "random", "--deals", "1", "--max-deals", "2", "--workers",
                 "0", "--save-games", str(out), "--save-games-count", "1"]) == 0
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == ["guandan_0000_a-team-0.json", "guandan_0000_a-team-1.json"]
    record = read_record(files[0])
    assert record.options["max_deals"] == 2 and record.seats == ["rule", "random", "rule", "random"]
    game = get_game("guandan").engine_class.replay(record.seed, record.actions, **record.options)
    assert game.is_over and game.deals_played == 2
    capsys.readouterr()
    assert main(["play", "guandan", "--replay", str(files[0])]) == 0
    text = capsys.readouterr().out
    assert "Deal 1 over" in text and "Game over. Payoffs" in text
    assert f"{len(record.actions):4d}. " in text
    assert main(["play", "big2", "--replay", str(files[0])]) == 2
    assert "is a guandan record, not big2" in capsys.readouterr().err


def test_replay_prints_values_in_the_games_notation(checkpoint, tmp_path, capsys):
    from cardrl.eval.recording import save_games

    paths = save_games(f"checkpoint:{checkpoint}", "random", "doudizhu", get_game("doudizhu").full_options(), [7],
                       tmp_path)
    assert main(["play", "doudizhu", "--replay", str(paths[0])]) == 0
    text = capsys.readouterr().out
    assert "[Q: " in text and "landlord (seat 0): " in text


def test_save_games_of_the_whole_game_records_the_bids_with_the_learned_bidders_values(tmp_path, capsys):
    from helpers.tiny_checkpoint import save_doudizhu_bidding_checkpoint

    bidder = f"checkpoint:{save_doudizhu_bidding_checkpoint(tmp_path / 'ckpt')}"
    out = tmp_path / "games"
    assert main(["eval", "doudizhu", "--bidding", "--a", bidder, "--b", "rule", "--deals", "2", "--workers", "0",
                 "--save-games", str(out), "--save-games-count", "1"]) == 0
    assert "6 game records written" in capsys.readouterr().out
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == [f"doudizhu_0000_{a}.json" for a in ("a-seat-0", "a-seat-1", "a-seat-2",
                                                                           "a-seats-0-1", "a-seats-0-2", "a-seats-1-2")]
    record = read_record(files[1])
    assert record.options["bidding"] is True and record.seats == ["rule", bidder, "rule"]
    game = get_game("doudizhu").make_engine(bidding=True).reset(record.seed)
    bids_valued = 0
    for action, entry in zip(record.actions, record.values):
        if game.phase == "bid" and game.current_player == 1:
            assert entry["kind"] == "q" and entry["moves"][0][0] == action
            assert sorted(m[0] for m in entry["moves"]) == sorted(int(a) for a in game.legal_moves())
            bids_valued += 1
        game.step(action)
    assert bids_valued >= 1 and game.is_over and list(game.payoffs()) == record.payoffs
    assert main(["eval", "doudizhu", "--bidding", "--a", "rule", "--b", "rlcard", "--deals", "1", "--workers", "0",
                 "--save-games", str(out)]) == 2
    assert "agent 'rlcard' cannot play the whole game (bidding)" in capsys.readouterr().err


def test_a_redeal_after_all_passed_is_recorded_and_replayed_as_the_engine_deals_it(tmp_path, capsys):
    from cardrl.eval.recording import play_recorded
    from cardrl.play.session import notation_for
    from cardrl.web.table import record_frames

    options = get_game("doudizhu").full_options({"bidding": True})
    engine = get_game("doudizhu").make_engine(**options)
    rule = build_agent("rule", "doudizhu", options)
    seed = next(s for s in range(50) if play_recorded(engine, [rule] * 3, s, ["rule"] * 3, options) and engine.redeals)
    record = validate_record(play_recorded(engine, [rule] * 3, seed, ["rule"] * 3, options).to_json())
    first_hands = [int(h.sum()) for h in get_game("doudizhu").make_engine(**options).reset(seed).hands]
    frames = record_frames(record, notation_for("doudizhu"))
    redeal = next(i for i, f in enumerate(frames) if any(e.startswith("All three passed") for e in f["events"]))
    assert redeal == 3 and [f["move"]["text"] for f in frames[:3]] == ["bid pass"] * 3 and first_hands == [17] * 3
    assert frames[redeal]["deal"] == 1 and frames[redeal]["status"][0].startswith("Bidding: bids so far none yet")
    assert frames[redeal]["seats"][0]["hand"] != frames[0]["seats"][0]["hand"]  # dealt again
    write_record(record, tmp_path / "r.json")
    assert main(["play", "doudizhu", "--replay", str(tmp_path / "r.json")]) == 0
    text = capsys.readouterr().out
    assert "All three passed: the cards are dealt again (redeal 1)" in text and "is the landlord at bid" in text


def _good(tmp_path) -> dict:
    engine = get_game("big2").make_engine()
    agents = [build_agent("rule", "big2")] * 4
    play_game(engine, agents, 11)
    record = GameRecord("big2", get_game("big2").full_options(), 11, ["rule"] * 4, list(engine.actions),
                        [None] * len(engine.actions))
    return json.loads(write_record(record, tmp_path / "r.json").read_text())


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="other"), "'format' must be"),
    (lambda d: d.update(version=9), "'version' 9 is not supported"),
    (lambda d: d.update(seed=-1), "'seed' must be >= 0"),
    (lambda d: d.update(seats=["rule"]), "has 4 seats"),
    (lambda d: d["actions"].__setitem__(0, 10**9), "action 0 (1000000000) is not legal"),
    (lambda d: d["actions"].append(d["actions"][-1]) or d["values"].append(None), "are left over"),
    (lambda d: d["values"].pop(), "'values' has"),
    (lambda d: d["values"].__setitem__(0, {"kind": "q", "moves": [[10**9, 1.0]]}), "was not legal"),
    (lambda d: d["values"].__setitem__(0, {"kind": "x", "moves": []}), "must be null or"),
    (lambda d: d["values"].__setitem__(0, {"kind": "q", "moves": [[1, float("nan")]]}), "finite value"),
    (lambda d: d.update(game="chess"), "chess"),
])
def test_bad_records_are_refused_saying_what_is_wrong(tmp_path, change, message):
    data = _good(tmp_path)
    validate_record(data)
    change(data)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        validate_record(data)


def test_unreadable_record_files_name_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json: not JSON"):
        read_record(bad)
    assert main(["play", "big2", "--replay", str(bad)]) == 2
    assert "not JSON" in capsys.readouterr().err
    assert main(["eval", "big2", "--league", "rule", "random", "--save-games", str(tmp_path)]) == 2
    assert "--save-games does not apply" in capsys.readouterr().err


def test_a_masked_ppo_agent_records_its_policys_probabilities():
    import gymnasium as gym

    from cardrl.algorithms.masked_ppo.agent_loaders import MaskedPPOAgent
    from cardrl.algorithms.masked_ppo.masked_ppo_rl_module import MaskedActionEmbeddingModule
    from cardrl.envs import make_env
    from cardrl.envs.rllib import RLlibMultiAgentEnv

    env = RLlibMultiAgentEnv(make_env("big2"))
    agent_name = env.possible_agents[0]
    obs_space, act_space = env.observation_spaces[agent_name], env.action_spaces[agent_name]
    assert isinstance(obs_space, gym.spaces.Dict)
    module = MaskedActionEmbeddingModule(observation_space=obs_space, action_space=act_space,
                                         model_config={"hidden_sizes": (8,), "embedding_dim": 4})
    agent = MaskedPPOAgent({a: module for a in env.possible_agents}, "big2")
    game = get_game("big2").make_engine().reset(3)
    while len(game.legal_moves()) < 3:
        game.step(int(game.legal_moves()[0]))
    view, legal = game.view(game.current_player), game.legal_moves()
    ids, probs = agent.move_values(view, legal)
    assert list(ids) == list(legal) and probs.sum() == pytest.approx(1.0) and (probs > 0).all()
    assert agent.act(view, legal) == int(ids[np.argmax(probs)])  # the most probable move, as act plays it
    entry = decision_values(agent, view, legal, top=2)
    assert entry["kind"] == "prob" and [m[0] for m in entry["moves"]] == [int(i) for i in ids[np.argsort(-probs)[:2]]]
