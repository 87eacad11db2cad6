"""Oracle guiding and ADMC (OADMCDou, Luo et al. 2024, eq. 1-5) and the coach network (DouZero+, Zhao et al. 2022,
Sec. IV-B): schedules, the oracle block, the ADMC loss by hand (with Q_old's edge cases), the coach's beta, rejection
rule and loss, end-to-end training with checkpoints and restored schedules, and the configs refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardrl.algorithms.dmc.admc import admc_clipped_q, admc_loss, range_clipped_loss
from cardrl.algorithms.dmc.coach import COACH, CoachModule, coach_loss, coach_module_spec, rejects
from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.oracle import ORACLE, apply_lambda, oracle_block
from cardrl.algorithms.dmc.schedules import DOUZERO_PLUS_BETA, BetaSchedule, OracleSchedule, parse_oracle
from cardrl.features.deals import PAD, RANK_PAD, initial_hands, rank_ids, winning_side
from cardrl.games.registry import get_game, register_game, unregister_game


# ---- the oracle ------------------------------------------------------------------------------------------------------
def test_lambda_schedule_values_at_chosen_frames():
    s = parse_oracle("1.0:0.0:1000")
    assert [s.value(f) for f in (0, 250, 500, 1000, 5000)] == [1.0, 0.75, 0.5, 0.0, 0.0]  # then 0 for the rest
    s = parse_oracle("0.8:0.2:100:300")
    assert [s.value(f) for f in (0, 100, 200, 300, 400)] == pytest.approx([0.8, 0.8, 0.5, 0.2, 0.2])
    assert parse_oracle("1:1:1").value(10**9) == 1.0  # PerfectDou: lambda stays 1
    with pytest.raises(ValueError, match="START:END:FRAMES"):
        parse_oracle("1.0-0.0")
    assert OracleSchedule(1.5, 0.0, 10).problems() == ["oracle lambda start=1.5 must lie in [0, 1]"]
    assert "ends (frame 100) before it starts (frame 300)" in OracleSchedule(1.0, 0.0, 100, 300).problems()[0]


@pytest.mark.parametrize("game", ["doudizhu", "big2", "guandan"])
def test_the_oracle_block_is_the_other_hands(game):
    engine = get_game(game).make_engine().reset(3)
    seat = engine.current_player
    block = oracle_block(engine, seat)
    n = engine.num_players
    assert block.shape == (54 * (n - 1),)
    oracle = engine.oracle_view(seat)
    for j in range(1, n):
        assert (block[54 * (j - 1):54 * j] == engine.cards_held()[(seat + j) % n]).all()
        assert block[54 * (j - 1):54 * j].sum() == oracle.cards_left[(seat + j) % n]
    rng = np.random.default_rng(0)
    assert np.allclose(apply_lambda(block, 0.25, "scale", rng), 0.25 * block)
    shown = [apply_lambda(block, 0.3, "bernoulli", rng) for _ in range(400)]
    assert all((b == block).all() or not b.any() for b in shown)
    assert 0.2 < np.mean([b.any() for b in shown]) < 0.4


def test_the_runner_feeds_lambda_times_the_true_hands_and_evaluation_feeds_zeros(ray_local):
    """During training the block of every frame is lambda x the other players' cards (checked against the unseen
    cards in DouZero's own features); the Q-network without the block (evaluation, saved agents) reads zeros."""
    config = (DMCConfig().game("doudizhu").env_runners(num_env_runners=0, num_envs_per_env_runner=4,
                                                        rollout_fragment_length=300)
              .training(frames_per_update=300, hidden_sizes=[16], oracle="1:0:1000").debugging(seed=1))
    algo = config.build_algo()
    try:
        result = algo.env_runner.sample(num_frames=300, schedules={"oracle_lambda": 0.5})
        module = algo.q_modules()["landlord"]
    finally:
        algo.stop()
    for cols in result["batch"].values():
        block = cols[ORACLE].astype(np.float32)
        unseen = cols["obs"][:, 54:108].astype(np.float32)  # DouZero's state: the other hands' union (thermometer)
        per_rank = block[:, :54] + block[:, 54:]
        assert np.allclose(per_rank.reshape(-1, 54)[:, :52].reshape(-1, 13, 4).sum(-1),
                           0.5 * unseen[:, :52].reshape(-1, 13, 4).sum(-1))
        assert set(np.unique(block)) <= {0.0, 0.5}
    obs = torch.rand(2, 319 + 810)
    actions, index = torch.rand(3, 54), torch.tensor([0, 1, 1])
    zeros = module.score(obs, actions, index, {ORACLE: torch.zeros(2, 108)})
    assert torch.equal(module.score(obs, actions, index), zeros)
    assert not torch.equal(module.score(obs, actions, index, {ORACLE: torch.ones(2, 108)}), zeros)


# ---- ADMC: eq. 2-5 by hand ---------------------------------------------------------------------------------------
def _eq2(q: float, q_old: float, gamma: float) -> float:
    """Eq. 2-3 literally (q_old != 0)."""
    return min(max(q / q_old, 1 - gamma), 1 + gamma) * q_old


def test_admc_equals_equations_2_to_5():
    gamma, r_min, r_max = 0.2, -2.0, 2.0
    q = torch.tensor([1.5, 3.0, 0.5, -4.0, -1.0, 2.9])
    q_old = torch.tensor([2.0, 2.0, 2.0, -3.0, 3.0, 2.5])  # in range, above, below, negative, sign flip, r_max
    target = torch.tensor([1.0, 2.0, -1.0, -2.0, 1.0, 2.0])
    want_qp = [_eq2(a, b, gamma) for a, b in zip(q.tolist(), q_old.tolist())]
    assert want_qp == pytest.approx([1.6, 2.4, 1.6, -3.6, 2.4, 2.9])
    assert admc_clipped_q(q, q_old, gamma).tolist() == pytest.approx(want_qp)
    q_hat = [min(max(v, r_min), r_max) for v in want_qp]  # eq. 4
    want = np.mean([(t - h) ** 2 for t, h in zip(target.tolist(), q_hat)])  # eq. 5
    assert float(admc_loss(q, target, q_old, gamma, r_min, r_max)) == pytest.approx(want)
    assert float(range_clipped_loss(q, target, r_min, r_max)) == pytest.approx(
        np.mean([(t - min(max(v, r_min), r_max)) ** 2 for t, v in zip(target.tolist(), q.tolist())]))


def test_admc_near_zero_q_old_keeps_a_window_and_gradients_flow_inside_it():
    q_old = torch.tensor([0.0, 1e-8, -0.3, 0.0])
    q = torch.tensor([0.5, -0.1, -0.35, 0.1], requires_grad=True)
    clipped = admc_clipped_q(q, q_old, gamma=0.2, q_floor=1.0)
    # the window is at least gamma x q_floor = 0.2 around Q_old: [-0.2, 0.2], [-0.2, 0.2], [-0.5, -0.1], [-0.2, 0.2]
    assert clipped.tolist() == pytest.approx([0.2, -0.1, -0.35, 0.1])
    clipped.sum().backward()
    assert q.grad.tolist() == [0.0, 1.0, 1.0, 1.0]  # no gradient where the clip binds
    assert torch.isfinite(admc_loss(q, torch.zeros(4), q_old, 0.2, -1, 1))


def test_reward_bounds_come_from_the_game_and_the_target_scales():
    config = DMCConfig().game("doudizhu", reward="wp")
    assert config.reward_bounds("landlord") == (-1.0, 1.0) and config.reward_bounds("landlord_down") == (-1.0, 1.0)
    assert DMCConfig().game("guandan", match_bonus=True).reward_bounds("shared") == (-4.0, 4.0)
    assert DMCConfig().game("big2").reward_bounds("shared") == (-13.0, 39.0)


# ---- the coach -----------------------------------------------------------------------------------------------------
def test_beta_schedule_and_rejection_rule():
    schedule = BetaSchedule()
    assert schedule.points == DOUZERO_PLUS_BETA
    steps = [0, 19_999, 20_000, 45_000, 79_999, 80_000, 100_000, 10**7]
    assert [schedule.value(s * 3200) for s in steps] == [0.0, 0.0, 0.10, 0.15, 0.20, 0.25, 0.30, 0.30]
    assert not rejects(np.array([0.99, 0.01]), 0.0)  # beta 0: every deal is played
    assert rejects(np.array([0.75, 0.25]), 0.3) and rejects(np.array([0.2, 0.8]), 0.3)  # P < beta or P > 1 - beta
    assert not rejects(np.array([0.65, 0.35]), 0.3)
    assert rejects(np.array([0.75, 0.1, 0.1, 0.05]), 0.3) and not rejects(np.array([0.4, 0.3, 0.2, 0.1]), 0.3)
    assert "must lie in [0, 0.5)" in BetaSchedule(((0, 0.6),)).problems()[0]


def test_coach_reads_rank_ids_with_an_embedding_per_seat_as_douzero_plus():
    """DouZero+'s coach (the authors' code): each seat's hand as DouZero's card values (3..14 for 3..A, 17 for the
    2, 20 and 30 for the jokers), each seat its own Embedding(31, 256), mean-pooled over the seat's cards."""
    coach = coach_module_spec(seats=3, width=20, sides=2).build()
    assert coach.card_ids == "ranks" and not hasattr(coach, "embed") and len(coach.embeds) == 3
    assert [tuple(e.weight.shape) for e in coach.embeds] == [(31, 256)] * 3
    assert len({id(e) for e in coach.embeds}) == 3
    engine = get_game("doudizhu").make_engine().reset(1)
    ids = coach.encode_deal(get_game("doudizhu"), engine)
    assert ids.shape == (3, 20) and ids.dtype == np.int16
    assert (ids[1:, 17:] == RANK_PAD).all() and (ids[0] != RANK_PAD).all()  # landlord 20 cards, peasants 17
    for seat, counts in enumerate(engine.cards_held()):  # each rank as often as the seat holds cards of it
        ranks = counts[:52].reshape(13, 4).sum(1).tolist() + counts[52:].tolist()
        want = sorted(v for v, n in zip([*range(3, 15), 17, 20, 30], ranks) for _ in range(n))
        assert sorted(ids[seat][ids[seat] != RANK_PAD].tolist()) == want
    assert rank_ids(np.array([0, 3, 4, 47, 48, 51, 52, 53, PAD])).tolist() == [3, 3, 4, 14, 17, 17, 20, 30, RANK_PAD]
    with pytest.raises(ValueError, match="card kinds must lie in 0..54"):
        rank_ids(np.array([55]))
    # the pooled code of a seat is the mean of its own embedding's rows over its cards, by hand
    x = torch.as_tensor(ids[None])
    held = ids[1][ids[1] != RANK_PAD]
    by_hand = coach.embeds[1].weight[torch.as_tensor(held, dtype=torch.long)].mean(0)
    pooled = coach.embedded(x.long())[0, 1][:len(held)].mean(0)
    assert torch.allclose(pooled, by_hand)
    changed = coach.logits(x).detach().clone()
    with torch.no_grad():
        coach.embeds[2].weight[3] += 1.0  # a 3 in landlord_up's embedding changes nothing unless landlord_up has one
    assert torch.equal(coach.logits(x), changed) == (3 not in ids[2].tolist())
    with pytest.raises(ValueError, match="card_ids='suits' is unknown"):
        coach_module_spec(seats=3, width=20, sides=2, card_ids="suits")


def test_coach_network_shapes_loss_and_brier_by_hand():
    spec = coach_module_spec(seats=3, width=20, sides=2, card_ids="kinds")  # cardrl's earlier form, an option
    coach = spec.build()
    assert isinstance(coach, CoachModule) and coach.embed.embedding_dim == 256 and coach.embed.num_embeddings == 55
    assert [l.out_features for l in coach.per_seat[0] if isinstance(l, torch.nn.Linear)] == [128, 128, 128]
    assert [l.out_features for l in coach.head if isinstance(l, torch.nn.Linear)] == [256, 128, 64, 2]
    engine = get_game("doudizhu").make_engine().reset(1)
    hands = initial_hands(engine, 20)
    assert hands.shape == (3, 20) and (hands[1:, 17:] == PAD).all() and (hands[0] != PAD).all()
    p = coach.probabilities(hands)
    assert p.shape == (2,) and p.sum() == pytest.approx(1.0)
    logits = torch.tensor([[2.0, 0.0], [0.0, 1.0]])
    side = torch.tensor([0, 0])
    loss, metrics = coach_loss(logits, side)
    probs = torch.softmax(logits, -1)
    assert float(loss) == pytest.approx(float(-torch.log(probs[[0, 1], [0, 0]]).mean()))
    assert float(metrics["coach_brier"]) == pytest.approx(float(((probs[:, 0] - 1) ** 2).mean()))  # (P - y)^2
    assert winning_side(np.array([2.0, -1.0, -1.0]), ((0,), (1, 2))) == 0
    assert winning_side(np.array([-2.0, 1.0, 1.0]), ((0,), (1, 2))) == 1
    assert winning_side(np.zeros(4), ((0,), (1,))) is None


# ---- configs refused ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options,message", [
    ({"oracle": "1.5:0:100"}, "oracle lambda start=1.5 must lie in"),
    ({"oracle": "1:0:100:50"}, "before it starts"),
    ({"q_clip": "admc", "admc_gamma": 0.0}, r"admc_gamma=0.0 must be a number in \(0, 1\)"),
    ({"q_clip": "admc", "admc_gamma": 1.5}, r"admc_gamma=1.5 must be a number in \(0, 1\)"),
    ({"admc_gamma": 0.5}, "q_clip is not 'admc'"),
    ({"q_clip": "ratio"}, "q_clip='ratio' is unknown"),
    ({"oracle_mode": "bernoulli"}, "oracle is None"),
    ({"coach_batch": 64}, "coach is False"),
    ({"coach_input": "kinds"}, "coach_input are set but coach is False"),
    ({"coach": True, "coach_input": "suits"}, "coach_input='suits' is unknown"),
    ({"coach": True, "coach_beta": ((10, 0.1),)}, "from step 0"),
])
def test_bad_paper_options_are_refused_at_validate(options, message):
    with pytest.raises(ValueError, match=message):
        DMCConfig().game("doudizhu").training(**options).validate()


def test_a_coach_on_a_game_without_a_coach_encoder_is_refused():
    from helpers.toy_game import DUEL

    register_game(DUEL, replace=True)
    try:
        with pytest.raises(ValueError, match=r"coach=True needs a game with a coach encoder \(coach_games.json in "
                           r"cardrl.algorithms.dmc\); duel has none"):
            DMCConfig().game("duel").training(coach=True).validate()
    finally:
        unregister_game("duel")


# ---- end to end ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game,env", [("doudizhu", {}), ("big2", {}), ("guandan", {"match": False})])
def test_oracle_admc_and_coach_train_checkpoint_resume_and_play(game, env, ray_local, tmp_path):
    from cardrl.eval.agents import build_agent

    config = (DMCConfig().game(game, **env)
              .env_runners(num_env_runners=0, num_envs_per_env_runner=8, rollout_fragment_length=200)
              .training(frames_per_update=200, hidden_sizes=[16], q_clip="admc", oracle="1:0:20000", coach=True,
                        coach_batch=4, coach_beta=((0, 0.0), (1, 0.2)), coach_step_frames=1000).debugging(seed=5))
    algo = config.build_algo()
    try:
        for _ in range(8):
            result = algo.train()
        frames = result["frames_trained"]
        assert result["oracle_lambda"] == pytest.approx(1 - frames / 20000)
        assert result["coach_beta"] == 0.2 and result["module_updates"][COACH] >= 1
        coach_stats = result["learners"][COACH]
        assert 0 <= float(coach_stats["coach_brier"]) <= 1
        path = algo.save_to_path(str(tmp_path / "ckpt"))
    finally:
        algo.stop()
    restored = config.build_algo()
    try:
        restored.restore_from_path(path)
        assert restored.config.schedule_values(restored.frames_trained)["oracle_lambda"] == pytest.approx(
            1 - frames / 20000)  # the schedule resumes where it stopped
        again = restored.train()
        assert again["frames_trained"] > frames and again["oracle_lambda"] < result["oracle_lambda"]
    finally:
        restored.stop()
    agent = build_agent(f"checkpoint:{path}", game, env)  # the saved agent plays without the oracle block
    engine = get_game(game).make_engine(**env).reset(2)
    assert agent.act(engine.view(engine.current_player), engine.legal_moves()) in engine.legal_moves()
    with pytest.raises(ValueError, match="oracle: checkpoint has True"):
        plain = config.copy(copy_frozen=False).training(oracle=None).build_algo()
        try:
            plain.restore_from_path(path)
        finally:
            plain.stop()


# ---- the oracle schedule's length in the presets --------------------------------------------------------------------
def _script_argv(name: str) -> list:
    """The arguments of the preset that replaced experiment script ``name``."""
    from cardrl.presets import expand

    return expand(["train", "--preset", name.removesuffix(".py")])


@pytest.mark.parametrize("script", ["oadmcdou_doudizhu.py", "oracledou_doudizhu.py", "oadmc_big2.py",
                                    "oadmc_guandan.py"])
def test_oracle_scripts_anneal_over_the_paper_s_20_days_and_a_flag_shortens_it(script):
    """OADMCDou: lambda 1 -> 0 over the first 20 days at 100,236,906 state-action pairs a day (Sec. 5)."""
    from cardrl.algorithms.dmc.schedules import OADMCDOU_ORACLE, OADMCDOU_ORACLE_FRAMES
    from cardrl.algorithms.dmc.train import build_config
    from cardrl.cli import build_parser, train_spec

    assert OADMCDOU_ORACLE_FRAMES == 2_004_738_120 and OADMCDOU_ORACLE == "1:0:2004738120"
    argv = _script_argv(script)
    config = build_config(train_spec(build_parser().parse_args(argv)), say=lambda *a: None)
    assert config.oracle == OracleSchedule(1.0, 0.0, 2_004_738_120)
    assert config.oracle.value(OADMCDOU_ORACLE_FRAMES // 2) == pytest.approx(0.5)
    shorter = build_config(train_spec(build_parser().parse_args([*argv, "--oracle", "1:0:3000000"])),
                           say=lambda *a: None)
    assert shorter.oracle == OracleSchedule(1.0, 0.0, 3_000_000)
