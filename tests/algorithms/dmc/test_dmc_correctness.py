"""DMC and evaluation correct over long runs: bounded, fresh per-module buffers; match-bonus labels; wild-card ties;
per-game baseline agents in the batched evaluation; CLI options that do not apply are refused; ``cardrl train``
evaluates against every baseline of every game."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.agents import QAgent, RandomAgent
from cardrl.agents.q_agent import greedy_index
from cardrl.algorithms.common.env_runner import SegmentLabels
from cardrl.algorithms.dmc.buffers import FrameBuffer
from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.cli import main
from cardrl.envs import make_env
from cardrl.eval.lockstep import evaluate_scorer
from cardrl.games.guandan import GuanDanGame
from cardrl.games.guandan.moves import Category, hand_from_string
from cardrl.games.registry import get_game


# ---- 1. bounded, fresh buffers; each module updated as soon as its batch is ready ---------------------------------
def _chunk(n: int, start: int) -> dict[str, np.ndarray]:
    return {"target": np.arange(start, start + n, dtype=np.float32), "obs": np.zeros((n, 3), dtype=np.int8)}


def test_frame_buffer_serves_the_newest_frames_and_drops_the_oldest():
    buf = FrameBuffer(capacity=10)
    buf.add(_chunk(4, 0), version=1, made_at=100.0)
    buf.add(_chunk(4, 4), version=2, made_at=101.0)
    buf.add(_chunk(4, 8), version=3, made_at=102.0)  # 12 frames: the 2 oldest are dropped
    assert len(buf) == 10 and buf.dropped == 2
    taken = buf.take(6, current_version=5, now=110.0)
    assert taken.columns["target"].tolist() == [6, 7, 8, 9, 10, 11]  # the newest 6, oldest first
    assert taken.age_updates == pytest.approx((2 * 3 + 4 * 2) / 6)
    assert taken.age_seconds == pytest.approx((2 * 9 + 4 * 8) / 6)
    assert len(buf) == 4 and buf.take(4, 5).columns["target"].tolist() == [2, 3, 4, 5]
    assert buf.nbytes == 0
    with pytest.raises(ValueError, match="fewer than"):
        buf.take(1, 5)
    with pytest.raises(ValueError, match="capacity"):
        FrameBuffer(0)


def test_frame_buffer_owns_its_frames_and_pins_no_reply_in_the_object_store(ray_local):
    import ray

    reply = ray.get(ray.put({"target": np.arange(300_000, dtype=np.float32), "obs": np.zeros((300_000, 3), np.int8)}))
    assert not reply["target"].flags.writeable  # read in place from Ray's object store
    buf = FrameBuffer(capacity=100)
    buf.add({k: v[-150:] for k, v in reply.items()}, version=1)  # a few frames of a big reply; 50 dropped at once
    held = buf.take(100, current_version=1).columns
    assert held["target"].tolist() == list(range(299_900, 300_000))
    assert not any(np.shares_memory(held[k], reply[k]) for k in reply)
    buf.add({k: v[:40] for k, v in reply.items()}, version=2)
    buf.take(10, current_version=2)  # keeps a slice of the 40 frames: counted as the 40 the buffer copied
    assert buf.nbytes == 40 * (4 + 3)


def _west_apart(agent_id, episode=None, *args, **kwargs) -> str:
    return "west_net" if agent_id == "west" else "others_net"


def test_each_module_updates_on_its_own_batch_from_bounded_fresh_buffers(ray_local):
    """Two modules fed at very different rates (Big2's west seat alone, and the other three seats): each is
    updated as soon as its own batch is ready, so the busy one three times as often; no buffer grows past its
    capacity, every sampled frame is trained on, held or counted as dropped, and the data each update trains on is
    at most a few updates old: no update waits for the slowest module."""
    config = (DMCConfig().game("big2")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=16, rollout_fragment_length=200)
              .training(frames_per_update=300, hidden_sizes=[32], buffer_frames=900).debugging(seed=3))
    config.policy_mapping_fn = _west_apart
    algo = config.build_algo()
    try:
        for _ in range(30):
            result = algo.train()
            assert result["buffer_frames"] <= 2 * 900
        updates = result["module_updates"]
        assert updates["others_net"] >= 2.5 * updates["west_net"] >= 2.5
        sampled = result["module_frames_sampled"]
        for m in ("west_net", "others_net"):
            assert sampled[m] == 300 * updates[m] + len(algo._buffers[m]) + algo._buffers[m].dropped
        assert result["frames_trained"] == 300 * sum(updates.values())
        assert 0 <= result["data_age_updates"] < 3 and result["data_age_s"] >= 0
        assert result["buffer_mb"] < 5
    finally:
        algo.stop()
    with pytest.raises(ValueError, match="buffer_frames=100 must be an int >= frames_per_update"):
        DMCConfig().training(buffer_frames=100).validate()


# ---- 2. GuanDan's match bonus on every deal of a finished match ---------------------------------------------------
def test_match_bonus_labels_every_deal_with_its_points_plus_the_bonus():
    """DanZero+ adds +-1 to every deal's samples of a finished match; each deal's frames wait for the match's end
    and get that deal's own points plus the bonus, not the whole bonus with the last deal."""
    env = make_env("guandan", match_bonus=True)
    env.reset(seed=5)
    labels, rng = SegmentLabels(), np.random.default_rng(0)
    labelled: list[tuple[str, list, float]] = []
    while not (all(env.terminations.values()) or all(env.truncations.values())):
        agent, deal = env.agent_selection, env.deals_done
        labels.add(agent, deal)
        env.step(int(rng.choice(env.legal_moves())))
        out = labels.after_step(env)
        assert not out or env.game.is_over  # nothing is labelled before the match ends
        labelled += out
    game = env.game
    assert game.match_winner is not None and len(game.deal_results) > 1
    bonus = {s: (1.0 if s % 2 == game.match_winner else -1.0) for s in range(4)}
    seen_deals = set()
    for agent, frames, ret in labelled:
        seat = env.possible_agents.index(agent)
        for deal in frames:
            result = game.deal_results[deal]
            points = result["reward"] if seat % 2 == result["team"] else -result["reward"]
            assert ret == points + bonus[seat]
            seen_deals.add(deal)
    assert seen_deals == set(range(len(game.deal_results)))


def test_match_bonus_targets_stay_per_deal_in_training(ray_local):
    config = (DMCConfig().game("guandan", match_bonus=True)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=2, rollout_fragment_length=3000)
              .training(epsilon=1.0, frames_per_update=200, hidden_sizes=[16]).debugging(seed=2))
    algo = config.build_algo()
    try:
        result = algo.env_runner.sample(num_frames=3000)
    finally:
        algo.stop()
    targets = np.concatenate([cols["target"] for cols in result["batch"].values()])
    assert len(targets) >= 3000 and np.abs(targets).max() <= 4  # a deal's points (<= 3) plus the +-1 bonus


# ---- 3. GuanDan wild-card ties ------------------------------------------------------------------------------------
def _wild_straights() -> tuple[GuanDanGame, list[int]]:
    """A lead where one set of cards (the heart wild 2h with 3d 4c 5s 6d) makes two straights: 2-6 and 3-7."""
    game = GuanDanGame(match=False).reset(0)
    hands = np.zeros((4, 54), dtype=np.int8)
    hands[0] = hand_from_string("2h 3d 4c 5s 6d 9s")
    for seat, card in ((1, "5c"), (2, "6c"), (3, "7c")):
        hands[seat] = hand_from_string(card)
    game.set_hands(hands, current_player=0)
    cards = sorted(hand_from_string("2h 3d 4c 5s 6d").nonzero()[0].tolist())
    same = [int(i) for i, m in zip(game.legal_moves(), game.legal_move_values())
            if m.category == Category.STRAIGHT and sorted(m.cards) == cards]
    return game, same


def test_equal_q_goes_to_the_stronger_move_everywhere():
    game, same = _wild_straights()
    moves = [game.move_of(i) for i in same]
    assert len(same) == 2 and moves[0].rank < moves[1].rank
    assert (game.move_cards(same)[0] == game.move_cards(same)[1]).all()  # DanZero's action features are equal
    q = np.array([0.5, 0.5])
    assert greedy_index(q) == 0  # argmax alone takes the first, the weaker straight
    assert greedy_index(q, game.move_strength(same)) == 1 and greedy_index(q, lambda: game.move_strength(same)) == 1
    assert greedy_index(np.array([0.6, 0.5]), game.move_strength(same)) == 0  # a real difference still wins

    class SameQ:  # a Q-network that cannot tell the two apart (equal features), as any network with these inputs
        net = type("Net", (), {"state_dim": 513, "history_shape": None, "action_dim": 54})()

        def eval(self):
            return self

        def q_values(self, state, history, actions):
            import torch

            return torch.as_tensor(actions.sum(axis=1) * 0.0 + 1.0)

    agent = QAgent(dict.fromkeys(get_game("guandan").agents, SameQ()), "guandan")
    assert agent.act(game.view(0), np.array(same)) == same[1]


def test_keyed_action_features_tell_the_two_uses_apart():
    game, same = _wild_straights()
    keyed = get_game("guandan").make_features("danzero_keyed")
    feats = keyed.action_features(game, same)
    assert feats.shape == (2, 84) and keyed.action_dim == 84
    assert (feats[:, :54] == game.move_cards(same)).all() and not (feats[0] == feats[1]).all()
    assert get_game("guandan").make_features().action_dim == 54  # DanZero's 567-dim input stays the default


def test_dmc_trains_with_the_keyed_action_features(ray_local):
    config = (DMCConfig().game("guandan", match=False, features="danzero_keyed")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=4, rollout_fragment_length=200)
              .training(frames_per_update=200, hidden_sizes=[16]).debugging(seed=1))
    algo = config.build_algo()
    try:
        result = algo.train()
        assert algo.q_modules()["player_0"].net.action_dim == 84 and result["frames_trained"] >= 200
    finally:
        algo.stop()


# ---- 6. each game of a batched evaluation has its own baseline ----------------------------------------------------
def test_batched_evaluation_does_not_depend_on_the_batch_size():
    """A stochastic baseline plays each game of the batch from its own seeded agent: the result is the same for any
    number of games in lock-step (one shared agent let interleaved games consume each other's random draws)."""
    weights = np.random.default_rng(0).normal(size=54)

    def score(agent, obs, actions):
        return [a @ weights + o[:5].sum() * 0.01 for o, a in zip(obs, actions)]

    results = [evaluate_scorer(score, lambda slot: RandomAgent(7), "doudizhu", deals=12, seed=3, batch=b)
               for b in (1, 5, 24)]
    assert results[0] == results[1] == results[2]


# ---- 4, 5. the CLI: run directories per game, options that do not apply, evaluation against every baseline ------
def test_options_that_do_not_apply_are_refused(capsys):
    assert main(["train", "big2", "--reward", "wp", "--stop-frames", "10"]) == 2
    err = capsys.readouterr().err
    assert "--reward wp does not apply to big2" in err and "cards" in err
    assert main(["eval", "doudizhu", "--a", "rule", "--b", "random", "--deals", "2", "--max-deals", "3"]) == 2
    assert "--max-deals does not apply" in capsys.readouterr().err
    assert main(["eval", "doudizhu", "--a", "rule", "--b", "random", "--deals", "2", "--out", "x"]) == 2
    assert "--out does not apply" in capsys.readouterr().err
    assert main(["eval", "guandan", "--a", "rule", "--b", "random", "--deals", "2", "--kickers", "douzero"]) == 2
    assert "--kickers does not apply to guandan" in capsys.readouterr().err
    assert main(["eval", "guandan", "--a", "rule", "--b", "random", "--deals", "2", "--chunk-size", "1"]) == 2
    assert "--chunk-size does not apply" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "doudizhu", "--stop-time", "10"])
    assert "use a number with a unit" in capsys.readouterr().err


BASELINES = {"doudizhu": ["random", "rule", "mcs-greedy", "rlcard"], "big2": ["random", "rule", "mcs-greedy"],
             "guandan": ["random", "rule", "rule-control", "mcs-greedy"]}


@pytest.mark.parametrize("game", list(BASELINES))
def test_train_evaluates_against_every_baseline_into_its_own_run_directory(game, ray_local, tmp_path, monkeypatch,
                                                                        capsys):
    monkeypatch.chdir(tmp_path)
    frames = 400
    rc = main(["train", game, "--stop-frames", str(frames), "--num-env-runners", "0", "--num-envs-per-env-runner",
               "4", "--frames-per-update", "200", "--hidden-sizes", "16", "--eval-every", "1s", "--eval-deals", "2",
               "--eval-against", *BASELINES[game]])
    out = capsys.readouterr().out
    assert rc == 0, out
    run = tmp_path / "runs" / f"dmc_{game}"
    assert (run / "checkpoint").is_dir() and (run / "progress.jsonl").is_file()
    unit = "points per deal" if get_game(game).protocol.unit == "match" else "ADP"
    for spec in BASELINES[game]:
        assert f"final {unit} vs {spec} over 2 deals" in out
