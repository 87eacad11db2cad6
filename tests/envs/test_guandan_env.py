"""The PettingZoo env guandan_v0, its per-level action ids, and the RLlib adapter over it."""

import numpy as np
import pytest

from cardrl.envs import guandan_v0
from cardrl.envs import make_env
from cardrl.envs.rllib import RLlibMultiAgentEnv
from cardrl.games.guandan.table import MAX_TABLE_SIZE, NUM_ACTIONS, NUM_SPECIAL, level_table
from cardrl.games.registry import get_game
from cardrl.features.danzero import DanZeroFeatures
from cardrl.games.guandan import IllegalMoveError
from cardrl.games.guandan.moves import Category, Move, Rank, hand_from_string, parse_cards
from helpers.aec_play import play_random, snapshot
from helpers.rllib_episode import play_random_episode


def test_spaces_and_first_observation():
    env = guandan_v0.env(match=False)
    env.reset(seed=3)
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert NUM_ACTIONS == NUM_SPECIAL + MAX_TABLE_SIZE == 108 + 135_071
    for a in env.possible_agents:
        assert env.action_space(a).n == NUM_ACTIONS
        assert env.observation_space(a)["observation"].shape == (513,)
        assert env.observation_space(a)["action_mask"].shape == (NUM_ACTIONS,)
    obs, reward, term, trunc, info = env.last()
    raw = env.unwrapped
    assert env.agent_selection == f"player_{raw.game.current_player}" and info["seat"] == raw.game.current_player
    mask = obs["action_mask"]
    assert mask.dtype == np.int8 and mask.sum() == len(raw.legal_moves()) == len(raw.legal_move_values())
    assert set(np.flatnonzero(mask)) == set(raw.legal_moves().tolist())
    assert mask[NUM_SPECIAL] == 0  # id 108 is pass: the leader may not pass
    assert obs["observation"][:54].sum() == 27
    assert np.array_equal(obs["observation"], raw.observation_vector(env.agent_selection))
    other = next(a for a in env.possible_agents if a != env.agent_selection)
    assert env.observe(other)["action_mask"].sum() == 0


def test_ids_round_trip_and_action_features():
    env = guandan_v0.raw_env(match=False)
    feats = DanZeroFeatures()
    for seed in range(3):
        env.reset(seed=seed)
        ids, values = env.legal_moves(), env.legal_move_values()
        assert [env.move_of(int(i)) for i in ids] == values
        assert np.array_equal(env.action_features(ids), feats.move_vectors(values))
    with pytest.raises(TypeError, match=r"an action must be an int move id, got float 1.0"):
        env.move_of(1.0)
    table = level_table(Rank(0))
    assert len(table) == MAX_TABLE_SIZE  # level 2 has the largest universe (the others: slow test below)
    cats = [table.move_of(i).category for i in range(0, len(table), 997)]
    assert cats == sorted(cats)  # ids are sorted by category first
    assert table.move_of(0).is_pass


@pytest.mark.slow
def test_every_level_table_fits_the_action_space():
    sizes = [len(level_table(level)) for level in Rank]
    assert max(sizes) == MAX_TABLE_SIZE and min(sizes) == 132_170  # pass + 132,169 .. 135,070


@pytest.mark.parametrize("options", [dict(match=False), dict(max_deals=3), dict(max_deals=3, match_bonus=True),
                                     dict(max_deals=2, tribute_decisions=True)])
def test_rewards_are_deal_points_and_sum_to_the_payoffs(options):
    env = guandan_v0.env(**options)
    rng = np.random.default_rng(0)
    for seed in range(2):
        env.reset(seed=seed)
        total = play_random(env, rng)
        game = env.unwrapped.game
        payoffs = game.payoffs()
        assert [total[a] for a in env.possible_agents] == payoffs.tolist()
        assert total["player_0"] == total["player_2"] == -total["player_1"] == -total["player_3"]
        assert len(game.deal_rewards) == (1 if not options.get("match", True) else options["max_deals"])


def test_rewards_arrive_when_each_deal_ends():
    env = guandan_v0.raw_env(max_deals=3)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    seen = []
    while env.agents and not any(env.terminations.values()) and not any(env.truncations.values()):
        deals = len(env.game.deal_rewards)
        env.step(int(rng.choice(env.legal_moves())))
        step_rewards = np.array([env.rewards[a] for a in env.possible_agents])
        if len(env.game.deal_rewards) > deals:
            seen.append(step_rewards)
            assert np.array_equal(step_rewards, env.game.deal_rewards[-1])
        else:
            assert not step_rewards.any()
    assert len(seen) == 3 and all(abs(r[0]) in (1, 2, 3) for r in seen)
    assert all(env.truncations.values())  # max_deals cut the match without a winner


def test_tribute_decisions_are_actions():
    env = guandan_v0.raw_env(max_deals=2, tribute_decisions=True)
    rng = np.random.default_rng(2)
    for seed in range(6):
        env.reset(seed=seed)
        while env.game.deal_index == 0:
            env.step(int(rng.choice(env.legal_moves())))
        if env.game.phase != "tribute":
            continue  # a refused tribute
        ids = env.legal_moves()
        assert (ids < 54).all()
        assert env.action_features(ids).sum(axis=1).tolist() == [1.0] * len(ids)
        assert env.move_of(int(ids[0])).category == Category.TRIBUTE
        with pytest.raises(IllegalMoveError, match="tribute"):
            env.step(NUM_SPECIAL + 1)
        env.step(int(ids[0]))
        while env.game.phase == "tribute":
            env.step(int(env.legal_moves()[0]))
        assert env.game.phase == "return" and (env.legal_moves() >= 54).all() and (env.legal_moves() < 108).all()
        receiver = env.game.current_player
        assert env.game.hands[receiver].sum() == 28  # holds the tribute until it returns a card
        for agent in env.possible_agents:
            x = env.observe(agent)["observation"]
            assert x[216:300].sum() == 3 and x[300:462].sum() == 0  # cards-left one-hots stay in their block
        assert env.observe(f"player_{receiver}")["observation"][:54].sum() == 28
        return
    pytest.fail("no tribute in 6 matches")


def test_bad_actions_raise_clear_errors_and_change_nothing():
    """GuanDan's own refusals; bad types and ids out of range: test_env_contract.py."""
    env = guandan_v0.env(match=False)
    env.reset(seed=5)
    raw = env.unwrapped
    before = snapshot(env)
    with pytest.raises(IllegalMoveError, match="may not pass"):
        env.step(NUM_SPECIAL)
    with pytest.raises(IllegalMoveError, match="tribute"):
        env.step(3)  # a tribute id during play
    hand = raw.game.hands[raw.game.current_player]
    not_held = next(NUM_SPECIAL + i for i in range(1, 60) if not hand[raw.move_of(NUM_SPECIAL + i).cards[0]])
    with pytest.raises(IllegalMoveError, match="does not hold"):
        env.step(not_held)
    assert snapshot(env) == before
    env.step(int(raw.legal_moves()[0]))  # still playable after the rejections


def test_id_past_a_smaller_level_table_is_rejected():
    env = guandan_v0.env(match=False, level="5")  # 132,169 moves + pass
    env.reset(seed=1)
    size = len(env.unwrapped.table)
    assert size == 132_170 < MAX_TABLE_SIZE
    before = snapshot(env)
    with pytest.raises(IllegalMoveError, match="no move at level 5"):
        env.step(NUM_SPECIAL + size)
    assert snapshot(env) == before


def test_follow_that_does_not_beat_is_rejected():
    env = guandan_v0.env(match=False)
    env.reset(seed=11)
    raw = env.unwrapped
    g = raw.game
    hands = np.zeros((4, 54), dtype=np.int8)
    hands[0], hands[1] = hand_from_string("9d 9c 3s"), hand_from_string("4d 4c Kd")
    hands[2], hands[3] = hand_from_string("5s"), hand_from_string("6s")
    g.set_hands(hands, current_player=0)
    raw._legal_ids = None
    env.unwrapped.agent_selection = "player_0"
    raw.step(int(next(i for i, m in zip(raw.legal_moves(), raw.legal_move_values())
                      if m.category == Category.PAIR)))
    before = snapshot(env)
    low_pair = NUM_SPECIAL + int(raw.table.ids_of([Move(Category.PAIR, 2, parse_cards("4d 4c"))])[0])
    with pytest.raises(IllegalMoveError, match="does not beat"):
        env.step(low_pair)
    assert snapshot(env) == before


def test_bad_options():
    """Bad seeds and render modes: test_env_contract.py."""
    with pytest.raises(ValueError, match="max_deals"):
        guandan_v0.env(max_deals=0)
    with pytest.raises(ValueError, match="level '1' is no rank"):
        guandan_v0.env(level="1")
    with pytest.raises(TypeError, match="ambiguous"):
        guandan_v0.env(level=3)
    with pytest.raises(TypeError, match="match"):
        guandan_v0.env(match="yes")
    with pytest.raises(TypeError, match="tribute_decisions"):
        guandan_v0.env(tribute_decisions=1)


def test_ansi_render():
    env = guandan_v0.env(match=False, render_mode="ansi")
    env.reset(seed=4)
    env.step(int(env.unwrapped.legal_moves()[0]))
    text = env.render()
    assert "seat 0 (team 0)" in text and "to beat:" in text and "[26]" in text
    quiet = guandan_v0.env(match=False)
    quiet.reset(seed=4)
    assert quiet.render() is None


def test_rllib_adapter_plays_a_deal():
    assert get_game("guandan").env_name == "guandan_v0" and get_game("guandan_v0").name == "guandan"
    assert get_game("doudizhu").env_name == "doudizhu_v0"  # the other games stay registered
    env = RLlibMultiAgentEnv(make_env("guandan", match=False))
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=0)
    assert len(obs) == 1
    rewards = play_random_episode(env, obs, rng)
    assert sum(rewards.values()) == 0 and rewards["player_0"] != 0


def test_the_largest_lead_found_maps_onto_ids():
    """The hill-climbed lead of the module docstring (15,947 legal moves at level 8): every move has an id."""
    from cardrl.games.guandan.moves import cards_to_counts, legal_moves

    hand = cards_to_counts(list(range(4, 28)) + [26, 28, 31])  # 3..8 of every suit, 9d 9s, both wild 8h
    moves = legal_moves(hand, None, "8")
    assert hand.sum() == 27 and len(moves) == 15_947
    table = level_table("8")
    ids = table.ids_of(moves)
    assert len(set(ids.tolist())) == len(moves)
    assert [table.move_of(int(i)) for i in ids[::500]] == moves[::500]
    with pytest.raises(ValueError, match="not a move"):
        table.ids_of([Move(Category.PAIR, 2, parse_cards("4d 5c"))])
