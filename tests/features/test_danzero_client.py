"""DanZero's 567 inputs as the authors' client lays them out (cardrl/features/danzero_client.py, docs/export.md), and
the ``onnx:MODEL.onnx`` agent of a DanZero-format model: the encoder against a model of the client replayed on seeded
deals (tests/helpers/danzero_client_replay.py, on the client's own card names); the client's card order; the flags'
own rules; a small 567-input ONNX model built here played through the agent spec."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cardrl.features.danzero import SLICES, DanZeroFeatures
from cardrl.features.danzero_client import (CLIENT_KINDS, CLIENT_SLICES, DANLM_KINDS, DanZeroClientFeatures,
                                           client_wild_flags)
from cardrl.games.guandan.moves import parse_cards
from cardrl.games.registry import get_game
from helpers.danzero_client_replay import ClientBook, client_numbers, counts
from helpers.danzero_client_replay import wild_flags as replayed_flags

GAME = "guandan"
ONE_DEAL = {"match": False}


def _kinds(hand) -> list[int]:
    return [k for k in range(54) for _ in range(int(hand[k]))]


def _client_states(deals: int, seed: int = 0, levels=("2",)):
    """(cardrl's client-layout state, the replayed client's state) at every decision of seeded random deals."""
    encoder = DanZeroClientFeatures()
    spec = get_game(GAME)
    rng = np.random.default_rng(seed)
    for deal in range(deals):
        engine = spec.make_engine(**spec.full_options({**ONE_DEAL, "level": levels[deal % len(levels)]}))
        engine.reset(seed + deal)
        book = ClientBook()
        start = {p: client_numbers(_kinds(engine.hands[p])) for p in range(4)}
        played = {p: [] for p in range(4)}
        while not engine.is_over:
            seat = engine.current_player
            view = engine.view(seat)
            others = [n for p in range(4) if p != seat for n in played[p]]
            levels_now = (int(view.team_levels[view.team]), int(view.team_levels[1 - view.team]), int(view.level))
            yield encoder.encode_view(view), book.state(seat, client_numbers(_kinds(view.hand)), start[seat], others,
                                                        levels_now)
            engine.step(int(rng.choice(engine.legal_moves())))
            who, move = engine.history[-1]
            book.record(who, client_numbers(move.cards))
            played[who] += client_numbers(move.cards)


def test_the_client_layout_equals_the_replayed_client_at_every_decision():
    """Every decision of 12 seeded deals at three levels (the wild card changes with the level): the 513 values equal
    the client's, block by block. (The one difference the encoder's docstring allows, a seat skipped at jie feng with
    two players out, was not met here nor in 80 more deals, 10,677 decisions.)"""
    decisions, differing = 0, {}
    for ours, theirs in _client_states(12, levels=("2", "7", "A")):
        decisions += 1
        for name, where in CLIENT_SLICES.items():
            if not np.array_equal(ours[where], theirs[where]):
                differing[name] = differing.get(name, 0) + 1
    assert decisions > 1000
    assert not differing, differing


def test_the_client_card_order_is_its_suits_hearts_spades_clubs_diamonds_per_rank():
    """Position 4 * rank + s holds suit s of (H, S, C, D): '2h' is position 0, '2d' 3, 'Ah' 48, the jokers 52, 53."""
    for text, position in (("2h", 0), ("2s", 1), ("2c", 2), ("2d", 3), ("3h", 4), ("Ah", 48), ("Ad", 51), ("BJ", 52),
                           ("RJ", 53)):
        kind = parse_cards(text)[0]
        assert int(np.flatnonzero(CLIENT_KINDS == kind)[0]) == position
        assert int(np.flatnonzero(counts(client_numbers([kind])))[0]) == position
    assert sorted(CLIENT_KINDS.tolist()) == list(range(54))


@pytest.mark.parametrize("seed", range(40))
def test_the_flags_follow_the_clients_rules_on_random_hands(seed):
    rng = np.random.default_rng(seed)
    hand = np.zeros(54)
    np.add.at(hand, rng.choice(108, 27, replace=False) % 54, 1)
    level = int(rng.integers(13))
    hand[4 * level] = max(hand[4 * level], 1)  # hold a wild card (the heart of the level: client position 4 * level)
    assert np.array_equal(client_wild_flags(hand, level), replayed_flags(hand, level))


def test_the_blocks_are_cardrls_danzero_blocks_moved_and_reordered():
    """The blocks that differ only in place and card order carry cardrl's danzero values (kinds permuted)."""
    spec = get_game(GAME)
    engine = spec.make_engine(**spec.full_options(ONE_DEAL))
    engine.reset(3)
    for _ in range(9):
        engine.step(int(engine.legal_moves()[-1]))
    view = engine.view(engine.current_player)
    papers, client = DanZeroFeatures().encode_view(view), DanZeroClientFeatures().encode_view(view)
    for block in ("hand", "unseen"):
        assert np.array_equal(client[CLIENT_SLICES[block]], papers[SLICES[block]][CLIENT_KINDS])
    assert np.array_equal(client[CLIENT_SLICES["played"]].reshape(3, 54), papers[SLICES["played"]].reshape(3, 54)[:,
                          CLIENT_KINDS])
    for block in ("cards_left", "levels"):
        assert np.array_equal(client[CLIENT_SLICES[block]], papers[SLICES[block]])


def _danzero_model(path, seed: int = 0, width: int = 567):
    """A small DanZero-format Q-network (567 -> 32 -> 1, tanh) as ONNX, the way a user would bring one."""
    import torch

    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(width, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1)).eval()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notes
        torch.onnx.export(model, (torch.zeros(3, width),), str(path), dynamo=False, input_names=["x"],
                          output_names=["q"], dynamic_axes={"x": {0: "n"}, "q": {0: "n"}})
    return model


def test_a_danzero_format_onnx_model_plays_through_the_onnx_spec(tmp_path):
    """``onnx:MODEL.onnx`` in GuanDan: on seeded positions the agent's move has the highest Q of the model applied to
    the client-layout [state | action] rows (the client's x_batch: the states are checked against the replayed client
    above, the action rows here)."""
    import torch

    from cardrl.eval.agents import build_agent
    from helpers.agreement import positions

    model = _danzero_model(tmp_path / "danzero.onnx")
    agent = build_agent(f"onnx:{tmp_path / 'danzero.onnx'}:danzero_client", GAME, ONE_DEAL)
    encoder = DanZeroClientFeatures()
    checked = 0
    for view, legal in positions(GAME, ONE_DEAL, 150, seed=2):
        rows = encoder.rows(view, legal)
        with torch.no_grad():
            q = model(torch.from_numpy(rows)).numpy().reshape(-1)
        chosen = agent.act(view, legal)
        assert q[int(np.searchsorted(legal, chosen))] >= q.max() - 1e-5
        actions = np.stack([counts(client_numbers(m.cards)) for m in view.moves_of(legal)])
        assert np.array_equal(rows[:, 513:], actions)  # the action rows in the client's card order
        checked += 1
    assert checked == 150


def test_onnx_model_files_that_are_not_danzero_format_are_refused(tmp_path):
    from cardrl.eval.agents import build_agent

    _danzero_model(tmp_path / "wide.onnx", width=600)
    with pytest.raises(ValueError, match=r"takes \(n, 567\)"):
        build_agent(f"onnx:{tmp_path / 'wide.onnx'}", GAME, ONE_DEAL)
    _danzero_model(tmp_path / "danzero.onnx")
    with pytest.raises(ValueError, match="DanZero's features; doudizhu has none"):
        build_agent(f"onnx:{tmp_path / 'danzero.onnx'}", "doudizhu")
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not an ONNX model"):
        build_agent(f"onnx:{tmp_path / 'junk.onnx'}", GAME, ONE_DEAL)


def test_danlms_card_order_is_the_card_number_and_everything_else_the_clients():
    """DanLM's models read position ``13 * suit + rank`` where the client writes ``4 * rank + suit`` (suits H, S, C,
    D; the jokers last in both): every 54-value block is the client's permuted so, the flags, cards left and levels
    are the client's."""
    spec = get_game(GAME)
    engine = spec.make_engine(**spec.full_options({**ONE_DEAL, "level": "7"}))
    engine.reset(5)
    for _ in range(14):
        engine.step(int(engine.legal_moves()[-1]))
    view = engine.view(engine.current_player)
    client, danlm = DanZeroClientFeatures(), DanZeroClientFeatures("danlm")
    to_danlm = np.array([4 * rank + suit for suit in range(4) for rank in range(13)] + [52, 53])
    assert np.array_equal(DANLM_KINDS, CLIENT_KINDS[to_danlm])
    a, b = client.encode_view(view), danlm.encode_view(view)
    for block in ("hand", "unseen", "latest_action", "partner_last_action"):
        assert np.array_equal(b[CLIENT_SLICES[block]], a[CLIENT_SLICES[block]][to_danlm]), block
    assert np.array_equal(b[CLIENT_SLICES["played"]].reshape(3, 54), a[CLIENT_SLICES["played"]].reshape(3, 54)[:,
                          to_danlm])
    for block in ("wild_flags", "cards_left", "levels"):
        assert np.array_equal(b[CLIENT_SLICES[block]], a[CLIENT_SLICES[block]]), block
    legal = engine.legal_moves()
    assert np.array_equal(danlm.action_features(view, legal), client.action_features(view, legal)[:, to_danlm])
    assert b[CLIENT_SLICES["hand"]][13 * 0 + 5] == view.hand[4 * 5 + 2]  # H7 (hearts, the client's suit 0)
    assert danlm.name == "danlm_v1" and client.name == "danzero_client_v1"


def test_a_bare_model_reads_danlms_order_unless_its_spec_names_the_clients(tmp_path):
    import torch

    from cardrl.eval.agents import build_agent
    from helpers.agreement import positions

    model = _danzero_model(tmp_path / "danzero.onnx", seed=4)
    default = build_agent(f"onnx:{tmp_path / 'danzero.onnx'}", GAME, ONE_DEAL)
    named = build_agent(f"onnx:{tmp_path / 'danzero.onnx'}:danlm", GAME, ONE_DEAL)
    encoder = DanZeroClientFeatures("danlm")
    for view, legal in positions(GAME, ONE_DEAL, 40, seed=5):
        with torch.no_grad():
            q = model(torch.from_numpy(encoder.rows(view, legal))).numpy().reshape(-1)
        for agent in (default, named):
            assert q[int(np.searchsorted(legal, agent.act(view, legal)))] >= q.max() - 1e-5
    with pytest.raises(ValueError, match="card order is one of danzero_client, danlm"):
        build_agent(f"onnx:{tmp_path / 'danzero.onnx'}:player_0", GAME, ONE_DEAL)
    with pytest.raises(ValueError, match="DanZero-format card orders: danzero_client, danlm"):
        DanZeroClientFeatures("suits")
