"""Checkpoint identity: a DMC checkpoint records the versioned layout of its feature encoder, every rule option of the
game and the action-space size; restoring it (and loading it as a ``checkpoint:PATH`` agent) under a layout that
differs with the same names (blocks of other sizes or order, another version), other rule options or another
action space is refused naming the difference; a checkpoint written before these keys existed is read as having
today's (docs/operations.md, "Checkpoint identity")."""

from __future__ import annotations

import pytest

from cardrl.algorithms.common.checkpoint_identity import LAYOUT_KEYS
from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_modules
from cardrl.features.douzero import DouZeroFeatures
from cardrl.features.layout import encoder_layout, layout_differences
from cardrl.games.registry import game_names, get_game
from helpers.dmc_configs import small_dmc_config


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A real DouDiZhu DMC checkpoint (MLP, default features and rules), written once for the module."""
    from helpers.local_ray import init_local_ray

    init_local_ray()
    algo = small_dmc_config(q_model="mlp").build_algo()
    try:
        path = algo.save_to_path(str(tmp_path_factory.mktemp("identity") / "checkpoint"))
        counters = algo.get_state()["dmc_counters"]
    finally:
        algo.stop()
    return path, counters


def _restore(config, path) -> None:
    algo = config.build_algo()
    try:
        algo.restore_from_path(path)
    finally:
        algo.stop()


@pytest.mark.parametrize("game", game_names())
def test_every_encoder_has_a_version_and_blocks_that_tile_its_state(game):
    spec = get_game(game)
    for name in spec.features:
        encoder = spec.make_features(name)
        layout = encoder_layout(encoder, spec.agents)
        assert isinstance(encoder.version, int) and encoder.version >= 1 and layout["encoder"] == encoder.name
        for agent in spec.agents:
            blocks = layout["state"][agent]
            top, end = [], 0
            for block_name, start, stop in blocks:  # in order; a block either follows the last or nests in it
                assert start < stop and (start == end or (top and start >= top[-1][0] and stop <= top[-1][1])), blocks
                if start == end:
                    top.append((start, stop))
                    end = stop
            assert end == encoder.state_dim(agent), (name, agent, blocks)


@pytest.mark.parametrize("seed", [0, 1])
def test_douzero_blocks_are_where_the_encoder_writes(seed):
    """DouZero's blocks read off real observations: each one-hot block (cards left, bombs) holds exactly one 1, and
    the hand block is the seat's hand."""
    from cardrl.envs import make_env

    env = make_env("doudizhu")
    env.reset(seed=seed)
    for _ in range(3):
        agent = env.agent_selection
        obs = env.observe(agent)["observation"]
        blocks = {name: obs[start:stop] for name, start, stop in DouZeroFeatures().state_blocks(agent)}
        one_hot = ("up_left", "down_left", "bombs") if agent == "landlord" else ("landlord_left", "mate_left", "bombs")
        assert all(blocks[name].sum() == 1 for name in one_hot), agent
        seat = (env.game.landlord + ("landlord", "landlord_down", "landlord_up").index(agent)) % 3
        assert blocks["hand"].sum() == env.game.hands[seat].sum() > 0  # one 1 per card held
        env.step(int(env.legal_moves()[0]))


def test_layout_differences_name_the_first_block_that_differs(monkeypatch):
    agents = get_game("doudizhu").agents
    before = encoder_layout(DouZeroFeatures(), agents)
    assert layout_differences(before, before) == []
    swapped = dict(DouZeroFeatures.BLOCKS)
    swapped["landlord"] = (*swapped["landlord"][:3], swapped["landlord"][4], swapped["landlord"][3],
                           *swapped["landlord"][5:])
    monkeypatch.setattr(DouZeroFeatures, "BLOCKS", swapped)
    diffs = layout_differences(before, encoder_layout(DouZeroFeatures(), agents))
    assert diffs == ["landlord state block 3: checkpoint has 'up_played' [162:216] (54 values), these features have "
                     "'down_played' [162:216] (54 values) (state 319 values in 8 blocks, now 319 in 8)"]


def test_a_changed_encoder_layout_is_refused_on_restore_and_as_an_agent(ray_local, checkpoint, monkeypatch):
    path, _ = checkpoint
    _restore(small_dmc_config(q_model="mlp"), path)  # the layout it was written with: restores
    assert load_checkpoint_modules(path, "doudizhu")
    grown = {**DouZeroFeatures.BLOCKS, "peasant": (("hand", 54), ("unseen", 54), ("landlord_played", 54),
                                                   ("mate_played", 54), ("last_move", 54), ("landlord_last_move", 54),
                                                   ("mate_last_move", 54), ("landlord_left", 21), ("mate_left", 16),
                                                   ("bombs", 15))}
    monkeypatch.setattr(DouZeroFeatures, "BLOCKS", grown)  # same sizes in all, blocks cut elsewhere
    with pytest.raises(ValueError, match=r"feature layout: landlord_down state block 7: checkpoint has "
                                         r"'landlord_left' \[378:398\] \(20 values\), these features have "
                                         r"'landlord_left' \[378:399\] \(21 values\)"):
        _restore(small_dmc_config(q_model="mlp"), path)
    with pytest.raises(ValueError, match=r"does not fit this cardrl's doudizhu \(feature layout: landlord_down "
                                         r"state block 7"):
        load_checkpoint_modules(path, "doudizhu")
    monkeypatch.undo()
    monkeypatch.setattr(DouZeroFeatures, "version", 2)
    with pytest.raises(ValueError, match="feature layout: version: checkpoint has 1, these features have 2"):
        _restore(small_dmc_config(q_model="mlp"), path)


def test_other_rule_options_are_refused(ray_local, checkpoint):
    path, counters = checkpoint
    assert counters["rule_options"] == {"kickers": "douzero", "bidding": False, "spring": False}
    config = small_dmc_config(q_model="mlp").game("doudizhu", spring=True)
    with pytest.raises(ValueError, match="rule option spring: checkpoint has False, this config has True"):
        _restore(config, path)


def test_another_action_space_is_refused(ray_local, checkpoint):
    path, counters = checkpoint
    assert counters["num_actions"] == 27472  # DouZero's move list (docs/rules.md)
    distinct = small_dmc_config(q_model="mlp").game("doudizhu", kickers="distinct")
    want = get_game("doudizhu").make_engine(kickers="distinct").num_actions
    with pytest.raises(ValueError, match=f"action space: checkpoint has 27472 actions, this config has {want}"):
        _restore(distinct, path)
    with pytest.raises(ValueError, match=f"action space: checkpoint has 27472 actions, this config has {want}"):
        _agent_counters_check(counters, {"kickers": "distinct"})


def _agent_counters_check(counters, options):
    """The agent loader's check of recorded keys alone (its kickers check would speak first on a real load)."""
    from cardrl.algorithms.common.checkpoint_identity import recorded_layout_problems

    spec = get_game("doudizhu")
    problems = recorded_layout_problems(counters, spec, spec.full_options(options))
    if problems:
        raise ValueError("; ".join(problems))


def test_a_checkpoint_older_than_the_layout_keys_still_restores(ray_local, checkpoint):
    _, counters = checkpoint
    older = {k: v for k, v in counters.items() if k not in LAYOUT_KEYS}
    algo = small_dmc_config(q_model="mlp").build_algo()
    try:
        algo.set_state({"dmc_counters": older})
        with pytest.raises(ValueError, match="action space: checkpoint has 9 actions"):
            algo.set_state({"dmc_counters": {**older, "num_actions": 9}})
    finally:
        algo.stop()
