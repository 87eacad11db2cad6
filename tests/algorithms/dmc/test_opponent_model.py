"""Opponent models (Luo & Tan 2024, Sec. 4.2, Tables 2-3; DouZero+, Zhao et al. 2022, Sec. IV-A): the networks'
shapes are the papers', the labels are the true hidden state, the losses are their formulas, the Q gradient does not
reach the opponent model, bad configs are refused, and D+OM / B+OM / G+OM train, checkpoint, restore and play."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
import torch

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.dmc_rl_module import dmc_module_spec
from cardrl.algorithms.dmc.opponent_model import (
    ILLEGAL_LOGIT, OM_CARD_LOGITS, OM_COUNT_LOGITS, OM_K_LOGITS, DouZeroPlusOpponentModel, LuoTanOpponentModel,
    douzero_plus_loss, luo_tan_loss, random_play_positions)
from cardrl.algorithms.dmc.q_module import RoleDims
from cardrl.features import labels
from cardrl.games.registry import get_game


def _luo_tan_module(players=4, card_dim=54, k_classes=20):
    om = {"kind": "luo_tan", "card_dim": card_dim, "k_classes": k_classes, "players": players}
    return dmc_module_spec("luo_tan", {"m": RoleDims(540, (4, 216), 54)}, {"opponent_model": om}).build()["m"]


# ---- shapes: the papers' tables --------------------------------------------------------------------------------------
def test_luo_tan_opponent_and_decision_models_are_tables_2_and_3():
    module = _luo_tan_module()
    om = module.opponent_model
    assert isinstance(om, LuoTanOpponentModel)
    assert (om.lstm.input_size, om.lstm.hidden_size) == (216, 128)
    trunk = [layer for layer in om.trunk if isinstance(layer, torch.nn.Linear)]
    assert [(l.in_features, l.out_features) for l in trunk] == [(1052, 1024), (1024, 512), (512, 512), (512, 512),
                                                                (512, 512)]  # Table 2: 540 + 4 x 128 inputs
    assert (om.card_head.in_features, om.card_head.out_features) == (512, 4 * 54)  # FC1..FC54 per player slot
    assert (om.k_head.in_features, om.k_head.out_features) == (512, 4 * 20)  # FC55: 20-way K per player slot
    assert om.hidden_dim == 296  # 216 card probabilities + 80 K probabilities (Table 14)
    sizes = [(l.in_features, l.out_features) for l in (*module.layers, module.head)]
    assert sizes == [(1402, 1024), (1024, 512), (512, 512), (512, 512), (512, 512), (512, 1)]  # Table 3
    assert (module.lstm.input_size, module.lstm.hidden_size) == (216, 128)
    obs = torch.zeros(3, 540 + 4 * 216)
    assert module._observation(*module.split_obs(obs), {})[0].shape == (3, 1052 + 296)
    plain = dmc_module_spec("luo_tan", {"m": RoleDims(540, (4, 216), 54)}).build()["m"]
    assert plain.layers[0].in_features == 1052 + 54  # without an opponent model


def test_douzero_plus_opponent_model_shapes():
    module = dmc_module_spec("douzero_lstm", {"landlord": RoleDims(319, (5, 162), 54)},
                             {"opponent_model": {"kind": "douzero_plus"}}).build()["landlord"]
    om = module.opponent_model
    assert isinstance(om, DouZeroPlusOpponentModel) and (om.lstm.input_size, om.lstm.hidden_size) == (162, 128)
    trunk = [layer for layer in om.trunk if isinstance(layer, torch.nn.Linear)]
    assert [(l.in_features, l.out_features) for l in trunk] == [(319 + 128, 512)] + [(512, 512)] * 3
    assert len(om.rank_heads) == 13 and len(om.joker_heads) == 2
    assert [(l.in_features, l.out_features) for l in om.rank_heads[0] if isinstance(l, torch.nn.Linear)] == [
        (512, 256), (256, 5)]
    assert (om.joker_heads[0].in_features, om.joker_heads[0].out_features) == (512, 5)
    assert om.hidden_dim == 75 and module.dense1.in_features == 128 + 319 + 75 + 54  # DouZero's dense1, +75


# ---- labels: the true hidden state -------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["doudizhu", "big2", "guandan"])
def test_labels_are_the_true_hidden_hands_and_k_of_each_opponent(game):
    spec = get_game(game)
    engine = spec.make_engine(**({"match": False} if game == "guandan" else {}))
    search = spec.make_search(engine)
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(3):
        engine.reset(seed)
        while not engine.is_over and checked < 60 * (seed + 1):
            seat = engine.current_player
            oracle = engine.oracle_view(seat)
            bits, mask = labels.hidden_card_labels(engine, seat)
            k = labels.min_combination_labels(engine, seat, search, labels.k_classes(engine))
            n = spec.num_players
            assert mask.tolist() == [False] + [True] * (n - 1) + [False] * (4 - n)
            assert (k[~mask] == -1).all()
            for slot in range(1, n):
                other = (seat + slot) % n
                hand = oracle.hands[other]
                cards = engine.cards_held()[other]
                if game == "guandan":  # two decks: "at least one", then "two"
                    assert (bits[slot, :54] == (hand >= 1)).all() and (bits[slot, 54:] == (hand >= 2)).all()
                else:
                    assert (bits[slot] == (cards > 0)).all() and bits[slot].sum() == oracle.cards_left[other]
                assert k[slot] == min(search.k_of_hand(hand, getattr(engine, "level", None)),
                                      labels.k_classes(engine) - 1)
            engine.step(int(rng.choice(engine.legal_moves())))
            checked += 1
    assert checked >= 100


@pytest.mark.parametrize("game", ["doudizhu", "big2", "guandan"])
def test_the_actor_s_memoised_labels_are_the_labels(game):
    """OpponentLabels (the actor's, a memo of each hand's bits and K) gives the two label functions' values, its memo
    starting over included (a whole GuanDan match: the level changes from deal to deal)."""
    spec = get_game(game)
    engine = spec.make_engine()
    search = spec.make_search(engine)
    of_seat = labels.OpponentLabels(search, labels.k_classes(engine), max_hands=7)
    rng = np.random.default_rng(1)
    levels, checked, seed = set(), 0, 0
    while checked < 400:  # whole deals (a whole GuanDan match) until 400 positions are checked
        engine.reset(seed)
        seed += 1
        while not engine.is_over:
            seat = engine.current_player
            bits, ks = of_seat(engine, seat)
            expected_bits, _ = labels.hidden_card_labels(engine, seat)
            assert (bits == expected_bits).all() and bits.dtype == expected_bits.dtype
            assert (ks == labels.min_combination_labels(engine, seat, search, labels.k_classes(engine))).all()
            levels.add(getattr(engine, "level", None))
            engine.step(int(rng.choice(engine.legal_moves())))
            checked += 1
    assert checked >= 400 and len(of_seat._memo) <= 7
    if game == "guandan":
        assert len(levels) > 1  # the memo's key holds the level: K of one hand differs by level


def test_the_legal_label_mask_never_masks_the_true_count():
    env = get_game("doudizhu")
    from cardrl.envs import make_env

    env = make_env("doudizhu")
    om = DouZeroPlusOpponentModel(430, (5, 162))
    rng = np.random.default_rng(1)
    positions = 0
    for seed in range(40):
        env.reset(seed=seed)
        while not env.game.is_over:
            agent, seat = env.agent_selection, env.game.current_player
            state = env.observation_vector(agent)[: env.features.state_dim(agent)]
            legal = om.legal_counts(torch.as_tensor(state[None], dtype=torch.float32))[0].numpy()
            truth = labels.next_player_rank_counts(env.game, seat)
            assert (truth <= legal).all()  # the true count is never masked
            assert legal.sum() == env.game.cards_left().sum() - env.game.cards_left()[seat]
            env.step(int(rng.choice(env.legal_moves())))
            positions += 1
    assert positions > 1500
    logits = om(torch.zeros(1, 430), torch.zeros(1, 5, 162))[OM_COUNT_LOGITS]
    assert (logits[0, :, 1:] == ILLEGAL_LOGIT).all()  # nobody holds anything: only the count 0 is legal


def test_the_prior_knows_only_the_counts_and_is_calibrated_on_average():
    game = get_game("big2").make_engine().reset(5)
    prior = labels.hidden_card_prior(game, 0)
    assert prior[0].sum() == 0 and np.allclose(prior[1:].sum(axis=1), 13)  # expected cards = cards held
    unseen = game.cards_held().sum(axis=0) - game.cards_held()[0]
    assert np.allclose(prior[1], unseen / 3)  # each unseen card is in one of three hands


def test_the_hand_size_prior_knows_the_counts_but_not_which_cards_are_seen():
    game = get_game("big2").make_engine().reset(5)
    prior = labels.hand_size_prior(game, 0)
    assert prior[0].sum() == 0 and np.allclose(prior[1:].sum(axis=1), 13)
    assert np.allclose(prior[1, :52], 13 / 52) and np.allclose(prior[1, 52:], 0)  # own cards included; no jokers
    ddz = get_game("doudizhu").make_engine().reset(5)
    n = ddz.cards_held()[1].sum()
    p = labels.hand_size_prior(ddz, 0)[1]
    assert p[0] == pytest.approx(1 - comb(50, n) / comb(54, n))  # at least one 3 among n of 54 cards
    assert p[52] == pytest.approx(n / 54)  # the black joker


def test_luo_tan_layers_start_from_he_initialisation():
    om = LuoTanOpponentModel(540, (4, 216), 54, 20, 4)
    for layer in (*om.trunk, om.card_head, om.k_head):
        if isinstance(layer, torch.nn.Linear):
            assert float(layer.weight.detach().std()) == pytest.approx((2 / layer.in_features) ** 0.5, rel=0.05)
            assert not layer.bias.any()


def test_random_play_positions_are_reproducible_and_each_deal_is_played_to_its_end():
    engine = get_game("big2").make_engine()

    def play(seed):
        seen = []
        for seat in random_play_positions(engine, 3, seed):
            assert not engine.is_over and seat == engine.current_player
            seen.append((seat, engine.cards_held().tobytes(), int(engine.cards_held().sum())))
        assert engine.is_over
        return seen

    first = play(7)
    assert play(7) == first and play(8) != first
    deals = [cards for _, cards, n in first if n == 52]  # the first position of each deal: nothing played yet
    assert len(deals) == 3 and len(set(deals)) == 3


# ---- losses: the formulas by hand --------------------------------------------------------------------------------
def test_luo_tan_loss_is_the_mean_over_its_heads_of_bce_and_cross_entropy_on_labelled_slots():
    torch.manual_seed(0)
    logits, k_logits = torch.randn(2, 4, 3), torch.randn(2, 4, 5)
    cards = torch.randint(0, 2, (2, 4, 3), dtype=torch.uint8)
    k = torch.tensor([[-1, 2, 4, -1], [-1, 0, 1, 3]], dtype=torch.int8)
    loss, metrics = luo_tan_loss({OM_CARD_LOGITS: logits, OM_K_LOGITS: k_logits}, cards, k, card_weight=0.5,
                                 k_weight=2.0)
    bce, ce, n = 0.0, 0.0, 0
    for b in range(2):
        for s in range(4):
            if k[b, s] < 0:
                continue
            p = torch.sigmoid(logits[b, s])
            y = cards[b, s].float()
            bce += float(-(y * torch.log(p) + (1 - y) * torch.log(1 - p)).sum())
            ce += float(-torch.log_softmax(k_logits[b, s], -1)[k[b, s]])
            n += 1
    # the mean over the heads (3 card heads + the K head) of each labelled slot, then over the slots
    assert float(loss) == pytest.approx((0.5 * bce / n + 2.0 * ce / n) / 4, rel=1e-5)
    assert float(metrics["om_card_logloss"]) == pytest.approx(bce / (3 * n), rel=1e-5)
    k_pred = k_logits.argmax(-1)[k >= 0]
    assert float(metrics["om_k_accuracy"]) == pytest.approx(float((k_pred == k[k >= 0].long()).float().mean()))


def test_douzero_plus_loss_is_cross_entropy_averaged_over_the_15_heads():
    torch.manual_seed(1)
    logits = torch.randn(3, 15, 5)
    counts = torch.randint(0, 5, (3, 15), dtype=torch.int8)
    loss, metrics = douzero_plus_loss({OM_COUNT_LOGITS: logits}, counts)
    by_hand = np.mean([-float(torch.log_softmax(logits[b, r], -1)[counts[b, r]]) for b in range(3) for r in range(15)])
    assert float(loss) == pytest.approx(by_hand, rel=1e-5)
    assert 0 <= float(metrics["om_count_accuracy"]) <= 1


def test_no_q_gradient_reaches_the_opponent_model():
    module = _luo_tan_module()
    obs, action = torch.rand(4, 540 + 864), torch.rand(4, 54)
    out = module.forward_train({"obs": obs, "action": action})
    out["q"].sum().backward()
    assert all(p.grad is None or not p.grad.any() for p in module.opponent_model.parameters())
    assert module.layers[0].weight.grad.abs().sum() > 0


# ---- config: what fits what ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game,env,om,message", [
    ("doudizhu", {}, "luo_tan",
     r"does not read doudizhu's douzero_v1 features; it reads, by game, the features \(--features\): doudizhu: unified;"),
    ("big2", {}, "douzero_plus", "does not read big2's luo_tan_v1 features"),
    ("guandan", {}, "douzero_plus", "does not read guandan's danzero_v1 features"),
    ("doudizhu", {}, "oracle", "opponent_model='oracle' is unknown"),
])
def test_an_opponent_model_that_does_not_fit_is_refused(game, env, om, message):
    with pytest.raises(ValueError, match=message):
        DMCConfig().game(game, **env).training(opponent_model=om).validate()


def test_om_weights_without_an_opponent_model_are_refused():
    with pytest.raises(ValueError, match="opponent_model is None"):
        DMCConfig().training(om_loss_weight=2.0).validate()


# ---- end to end --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game,env,om", [("doudizhu", {"features": "unified"}, "luo_tan"),
                                        ("big2", {}, "luo_tan"),
                                        ("doudizhu", {}, "douzero_plus"),
                                        ("guandan", {"match": False}, "luo_tan")])
def test_opponent_models_train_checkpoint_restore_and_play(game, env, om, ray_local, tmp_path):
    from cardrl.eval.agents import build_agent
    from cardrl.eval.tournament import run_tournament

    config = (DMCConfig().game(game, **env)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=8, rollout_fragment_length=200)
              .training(frames_per_update=200, hidden_sizes=[32], opponent_model=om).debugging(seed=2))
    algo = config.build_algo()
    try:
        for _ in range(4):
            result = algo.train()
        stats = {k: v for m, s in result["learners"].items() if isinstance(s, dict) for k, v in s.items()}
        assert ("om_card_logloss" in stats and "om_k_within_1" in stats) or "om_count_accuracy" in stats
        path = algo.save_to_path(str(tmp_path / "ckpt"))
        before = {m: {k: v.clone() for k, v in mod.state_dict().items()} for m, mod in algo.q_modules().items()}
    finally:
        algo.stop()
    restored = config.build_algo()
    try:
        restored.restore_from_path(path)
        after = restored.q_modules()
        for m, state in before.items():
            assert all(torch.equal(state[k], v) for k, v in after[m].state_dict().items())
            assert after[m].opponent_model is not None
        restored.train()
    finally:
        restored.stop()
    if game != "guandan":
        agent = build_agent(f"checkpoint:{path}", game)
        assert agent.features.name == config.make_env().features.name
        result = run_tournament(f"checkpoint:{path}", "random", 4, game=game, seed=3)
        assert result.games == 4 * len(get_game(game).protocol.arrangements)
    with pytest.raises(ValueError, match="opponent_model: checkpoint has"):
        plain = config.copy(copy_frozen=False).training(opponent_model=None).build_algo()
        try:
            plain.restore_from_path(path)
        finally:
            plain.stop()


# ---- gradient clipping: the Q network's and the opponent model's each to its own norm (DouZero+'s code) -------------
def test_clip_grad_groups_clips_each_group_to_its_own_norm_by_hand():
    from cardrl.algorithms.dmc.dmc_learner import clip_grad_groups

    q, om = torch.nn.Linear(2, 1), torch.nn.Linear(1, 1)  # weights (1, 2) + bias (1,); weight (1, 1) + bias (1,)
    grads = {q.weight: torch.tensor([[30.0, 40.0]]), q.bias: torch.tensor([0.0]),  # ||q|| = 50
             om.weight: torch.tensor([[3.0]]), om.bias: torch.tensor([4.0])}  # ||om|| = 5
    norms = clip_grad_groups(grads, [[q.weight, q.bias], [om.weight, om.bias]], 40.0)
    assert [float(n) for n in norms] == pytest.approx([50.0, 5.0])
    assert grads[q.weight][0].tolist() == pytest.approx([30.0 * 40 / 50, 40.0 * 40 / 50], rel=1e-6)  # clipped to 40
    assert grads[om.weight].tolist() == [[3.0]] and grads[om.bias].tolist() == [4.0]  # under its bound: unchanged
    # joint clipping (one group) would have scaled the opponent model too: 40 / sqrt(50^2 + 5^2)
    joint = {q.weight: torch.tensor([[30.0, 40.0]]), q.bias: torch.tensor([0.0]), om.weight: torch.tensor([[3.0]]),
             om.bias: torch.tensor([4.0])}
    clip_grad_groups(joint, [list(joint)], 40.0)
    assert float(joint[om.weight]) == pytest.approx(3.0 * 40 / (50**2 + 5**2) ** 0.5, rel=1e-6)
    with pytest.raises(ValueError, match="max_norm=0 must be > 0"):
        clip_grad_groups(grads, [], 0)


@pytest.mark.parametrize("om", ["douzero_plus", "luo_tan"])
def test_the_learner_clips_q_and_opponent_model_separately_unless_joint(om):
    """A real DMC learner's gradient postprocessing: ``om_grad_clip="separate"`` (default) bounds each part's norm
    by grad_clip; ``"joint"`` (cardrl's earlier form) bounds their joint norm."""
    env = {"features": "unified"} if om == "luo_tan" else {}

    def clipped(mode: str):
        config = DMCConfig().game("doudizhu", **env).training(opponent_model=om, hidden_sizes=[8], grad_clip=1.0,
                                                              om_grad_clip=mode)
        config.validate()
        learner = config.build_learner(env=None)
        learner.build()
        mid = sorted(config.get_multi_rl_module_spec().rl_module_specs)[0]
        module = learner.module[mid]
        grads = {p: torch.full_like(p, 3.0) for p in module.parameters()}
        out = learner.postprocess_gradients_for_module(module_id=mid, config=config, module_gradients_dict=grads)
        in_om = {id(p) for p in module.opponent_model.parameters()}

        def norm(part):
            return float(torch.linalg.vector_norm(torch.stack([g.norm() for k, g in out.items()
                                                               if part(id(k) in in_om)])))
        return norm(lambda x: x), norm(lambda x: not x)

    om_norm, q_norm = clipped("separate")
    assert om_norm == pytest.approx(1.0, rel=1e-3) and q_norm == pytest.approx(1.0, rel=1e-3)
    om_norm, q_norm = clipped("joint")
    assert (om_norm**2 + q_norm**2) ** 0.5 == pytest.approx(1.0, rel=1e-3) and om_norm < 0.99 and q_norm < 0.99


def test_om_grad_clip_without_an_opponent_model_or_unknown_is_refused():
    with pytest.raises(ValueError, match="om_grad_clip are set but opponent_model is None"):
        DMCConfig().training(om_grad_clip="joint").validate()
    with pytest.raises(ValueError, match="om_grad_clip='both' is unknown"):
        DMCConfig().training(opponent_model="douzero_plus", om_grad_clip="both").validate()
