"""DMC Q-modules and learner (algorithms/dmc/dmc_rl_module.py, dmc_learner.py).

- shapes and the three batch forms (row-aligned, grouped by ``obs_index``, ``q_values``) agree;
- DouZero's own model classes (``douzero.dmc.models``) and ours exchange state_dicts and give the same Q-values;
- a real local LearnerGroup (num_learners=0, CPU) trains the three DouDiZhu role modules: the loss falls on a
  fixed batch, gradients are clipped to the configured global norm, updates equal DouZero's own learner step
  (MSE + RMSprop + clip_grad_norm_), and get_state/set_state restores weights and optimizer state.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ray.rllib.policy.sample_batch import MultiAgentBatch, SampleBatch

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.dmc_learner import DMCTorchLearner, dmc_mse_loss
from cardrl.algorithms.dmc.dmc_rl_module import DouZeroQModule, MLPQModule, dmc_module_spec
from cardrl.algorithms.dmc.q_module import (ACTION, DOUZERO_ROLE_DIMS, HISTORY, OBS, OBS_INDEX, Q, STATE, TARGET,
                                            RoleDims)

ROLES = tuple(DOUZERO_ROLE_DIMS)


@pytest.fixture
def douzero_models():
    """DouZero's own model classes (the douzero package, a test extra): only the tests that compare with them skip
    without it."""
    return pytest.importorskip("douzero.dmc.models")


def test_dmc_config_defaults_are_douzeros():
    """The real DMCConfig's defaults are DouZero's (douzero/dmc/arguments.py): RMSprop lr 1e-4, alpha 0.99, eps 1e-5,
    momentum 0, gradient clipping 40 by global norm, epsilon 0.01, batch 32 x unroll 100 = 3,200 frames per update."""
    config = DMCConfig().game("doudizhu")
    assert (config.lr, config.rmsprop_alpha, config.rmsprop_eps, getattr(config, "rmsprop_momentum", 0.0)) == (
        1e-4, 0.99, 1e-5, 0.0)
    assert (config.grad_clip, config.grad_clip_by) == (40.0, "global_norm")
    assert (config.epsilon, config.frames_per_update, config.q_model) == (0.01, 3200, "douzero_lstm")
    assert config.get_default_learner_class() is DMCTorchLearner


def _build_learner_group(seed: int, **overrides):
    config = DMCConfig().game("doudizhu").learners(num_learners=0, num_gpus_per_learner=0).debugging(seed=seed)
    for key, value in overrides.items():
        setattr(config, key, value)
    return config.build_learner_group(rl_module_spec=dmc_module_spec("douzero_lstm", DOUZERO_ROLE_DIMS))


def _learner(learner_group) -> DMCTorchLearner:
    (result,) = list(learner_group.foreach_learner(lambda learner: learner))
    return result.get()


def _rows(rng: np.random.Generator, dims: RoleDims, n: int, target_scale: float = 2.0) -> dict[str, np.ndarray]:
    """n synthetic DMC samples in the EnvRunner's compact dtypes (0/1 uint8 features, float32 returns)."""
    return {
        STATE: rng.integers(0, 2, (n, dims.state_dim), dtype=np.uint8),
        HISTORY: rng.integers(0, 2, (n, *dims.history_shape), dtype=np.uint8),
        ACTION: rng.integers(0, 2, (n, dims.action_dim), dtype=np.uint8),
        TARGET: (target_scale * rng.choice([-1.0, 1.0], n)).astype(np.float32),
    }


def _batch(seed: int, n: int = 32, roles=ROLES, target_scale: float = 2.0) -> MultiAgentBatch:
    rng = np.random.default_rng(seed)
    policy_batches = {r: SampleBatch(_rows(rng, DOUZERO_ROLE_DIMS[r], n, target_scale)) for r in roles}
    return MultiAgentBatch(policy_batches, env_steps=n * len(roles))


def _torch_rows(rows: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {k: torch.as_tensor(v) for k, v in rows.items() if k != TARGET}


def _module(role: str, seed: int = 0) -> DouZeroQModule:
    torch.manual_seed(seed)
    return dmc_module_spec("douzero_lstm", {role: DOUZERO_ROLE_DIMS[role]}).build()[role]


def _peek(results, role: str, key: str) -> float:
    return float(results[0][role][key].peek())


# ---------------------------------------------------------------------------------------------------------------
# Modules
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_douzero_module_shapes(role):
    module = _module(role)
    rows = _torch_rows(_rows(np.random.default_rng(1), DOUZERO_ROLE_DIMS[role], 7))
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        q = forward(rows)[Q]
        assert q.shape == (7,) and q.dtype == torch.float32
    assert module.forward_train(rows)[Q].requires_grad
    assert not module.forward_inference(rows)[Q].requires_grad
    expected_in = 128 + DOUZERO_ROLE_DIMS[role].state_dim + 54
    assert module.dense1.in_features == expected_in
    assert [getattr(module, f"dense{i}").out_features for i in range(1, 7)] == [512] * 5 + [1]


def test_role_dims_match_douzero_features():
    features = pytest.importorskip("cardrl.features.douzero").DouZeroFeatures
    for role, dims in DOUZERO_ROLE_DIMS.items():
        assert dims.state_dim == features.STATE_DIMS[role]
        assert tuple(dims.history_shape) == tuple(features.HISTORY_SHAPE)


@pytest.mark.parametrize(
    "module_factory",
    [
        lambda: _module("landlord_up", seed=3),
        lambda: MLPQModule(
            observation_space=None,
            action_space=None,
            model_config={"state_dim": 40, "history_shape": (3, 10), "action_dim": 54},
        ),
    ],
    ids=["douzero_lstm", "mlp"],
)
def test_grouped_and_single_observation_scoring_equal_row_aligned(module_factory):
    torch.manual_seed(5)
    module = module_factory()
    net = module.net
    rng = np.random.default_rng(2)
    n_obs, n_actions = 4, 23
    state = torch.as_tensor(rng.integers(0, 2, (n_obs, net.state_dim)), dtype=torch.float32)
    history = torch.as_tensor(rng.integers(0, 2, (n_obs, *net.history_shape)), dtype=torch.float32)
    action = torch.as_tensor(rng.integers(0, 2, (n_actions, net.action_dim)), dtype=torch.uint8)
    obs_index = torch.as_tensor(rng.integers(0, n_obs, n_actions), dtype=torch.long)

    grouped = module.forward_inference({STATE: state, HISTORY: history, ACTION: action, OBS_INDEX: obs_index})[Q]
    rows = module.forward_inference({STATE: state[obs_index], HISTORY: history[obs_index], ACTION: action})[Q]
    assert grouped.shape == (n_actions,)
    torch.testing.assert_close(grouped, rows, rtol=1e-5, atol=1e-6)

    mine = obs_index == 2
    single = module.q_values(state[2].numpy(), history[2].numpy(), action[mine].numpy())
    torch.testing.assert_close(single, rows[mine], rtol=1e-5, atol=1e-6)

    flat = torch.cat([state, history.flatten(1)], dim=1)  # the env's observation: state | history
    torch.testing.assert_close(module.score(flat, action, obs_index), grouped, rtol=0, atol=0)
    flat_rows = module.forward_train({OBS: flat[obs_index], ACTION: action})[Q]
    torch.testing.assert_close(flat_rows.detach(), rows, rtol=0, atol=0)


def test_hidden_sizes_none_means_the_paper_sizes():
    spec = dmc_module_spec("mlp", {"p0": RoleDims(513, None, 54)}, {"hidden_sizes": None})
    module = spec.build()["p0"]
    assert [layer.out_features for layer in module.layers] == [512] * 4
    spec = dmc_module_spec("douzero_lstm", DOUZERO_ROLE_DIMS, {"hidden_sizes": (64, 32)})
    small = spec.build()["landlord"]
    assert [small.dense1.out_features, small.dense2.out_features, small.dense3.out_features] == [64, 32, 1]


def test_mlp_module_danzero_layout_without_history():
    module = MLPQModule(observation_space=None, action_space=None, model_config={"state_dim": 513, "action_dim": 54})
    assert [layer.in_features for layer in module.layers] == [567, 512, 512, 512]
    assert module.head.in_features == 512 and module.net.activation == "tanh"
    rows = {STATE: torch.rand(6, 513), ACTION: torch.rand(6, 54)}
    q = module.forward_train(rows)[Q].detach()
    assert q.shape == (6,)
    # tanh hidden layers bound every hidden unit, so Q is bounded by the head's weights.
    with torch.no_grad():
        bound = module.head.weight.abs().sum() + module.head.bias.abs().sum()
    assert float(q.abs().max()) <= float(bound)
    expanded = module.forward_inference({STATE: rows[STATE][:1].expand(6, -1), ACTION: rows[ACTION]})[Q]
    torch.testing.assert_close(module.q_values(rows[STATE][0], None, rows[ACTION]), expanded, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "model_config, message",
    [
        ({"history_shape": (5, 162), "action_dim": 54}, "state_dim"),
        ({"state_dim": 319, "action_dim": 54}, "history_shape"),
        ({"state_dim": 319, "history_shape": (5,), "action_dim": 54}, "history_shape"),
        ({"state_dim": 0, "history_shape": (5, 162), "action_dim": 54}, "positive int"),
        ({"state_dim": 319, "history_shape": (5, 162), "action_dim": 54, "activation": "gelu"}, "activation"),
    ],
)
def test_bad_model_config_is_rejected_with_the_key_named(model_config, message):
    with pytest.raises(ValueError, match=message):
        DouZeroQModule(observation_space=None, action_space=None, model_config=model_config)


def test_bad_batches_and_model_names_are_rejected():
    module = _module("landlord")
    rows = _torch_rows(_rows(np.random.default_rng(0), DOUZERO_ROLE_DIMS["landlord"], 3))
    with pytest.raises(KeyError, match="history"):
        module.forward_inference({STATE: rows[STATE], ACTION: rows[ACTION]})
    with pytest.raises(ValueError, match="obs"):
        module.forward_inference({OBS: rows[STATE], ACTION: rows[ACTION]})
    with pytest.raises(ValueError, match="state"):
        module.forward_inference({**rows, STATE: torch.zeros(3, 430)})
    with pytest.raises(ValueError, match="obs_index"):
        module.forward_inference({**rows, ACTION: torch.zeros(5, 54)})
    with pytest.raises(ValueError, match="douzero_lstm"):
        dmc_module_spec("transformer", DOUZERO_ROLE_DIMS)
    with pytest.raises(ValueError, match="shape"):
        dmc_mse_loss(torch.zeros(3), torch.zeros(3, 1))


@pytest.mark.parametrize(
    "role, douzero_class",
    [("landlord", "LandlordLstmModel"), ("landlord_down", "FarmerLstmModel"), ("landlord_up", "FarmerLstmModel")],
)
def test_douzero_state_dicts_load_both_ways_and_give_the_same_q(role, douzero_class, douzero_models):
    torch.manual_seed(11)
    reference = getattr(douzero_models, douzero_class)()
    ours = _module(role, seed=12)
    ours.load_state_dict(reference.state_dict())  # strict: same names and shapes

    rows = _torch_rows(_rows(np.random.default_rng(3), DOUZERO_ROLE_DIMS[role], 16))
    x = torch.cat([rows[STATE], rows[ACTION]], dim=1).float()
    with torch.no_grad():
        expected = reference(rows[HISTORY].float(), x, return_value=True)["values"].squeeze(-1)
    torch.testing.assert_close(ours.forward_inference(rows)[Q], expected, rtol=0, atol=1e-6)
    single = ours.q_values(rows[STATE][0], rows[HISTORY][0], rows[ACTION])
    with torch.no_grad():
        z = rows[HISTORY][:1].float().expand(16, -1, -1)
        x0 = torch.cat([rows[STATE][:1].expand(16, -1), rows[ACTION]], dim=1).float()
        expected_single = reference(z, x0, return_value=True)["values"].squeeze(-1)
    torch.testing.assert_close(single, expected_single, rtol=1e-5, atol=1e-6)

    back = getattr(douzero_models, douzero_class)()
    back.load_state_dict(_module(role, seed=13).state_dict())  # ours -> DouZero's evaluation code


# ---------------------------------------------------------------------------------------------------------------
# Learner on a real (local) LearnerGroup
# ---------------------------------------------------------------------------------------------------------------


def test_learner_uses_douzero_optimizer_and_loss_falls_for_every_role():
    learner_group = _build_learner_group(seed=0)
    learner = _learner(learner_group)
    for role in ROLES:
        (name, optimizer), = learner.get_optimizers_for_module(role)
        group = optimizer.param_groups[0]
        assert isinstance(optimizer, torch.optim.RMSprop)
        assert (group["lr"], group["alpha"], group["eps"], group["momentum"]) == (1e-4, 0.99, 1e-5, 0.0)

    batch = _batch(seed=1)
    first = learner_group.update(batch=batch)
    for _ in range(48):
        learner_group.update(batch=batch)
    last = learner_group.update(batch=batch)
    for role in ROLES:
        before, after = _peek(first, role, "q_loss"), _peek(last, role, "q_loss")
        assert after < 0.3 * before, (role, before, after)
        assert _peek(last, role, "total_loss") == pytest.approx(after)
        assert np.isfinite(_peek(last, role, "mean_q"))
        assert _peek(last, role, "mean_target") == pytest.approx(float(np.mean(batch.policy_batches[role][TARGET])))
    learner_group.shutdown()


def test_gradients_are_clipped_to_the_configured_global_norm():
    clip = 40.0
    learner_group = _build_learner_group(seed=2, grad_clip=clip)
    learner = _learner(learner_group)
    batch = learner._convert_batch_type(_batch(seed=3, target_scale=500.0)).policy_batches
    fwd_out = learner.module.forward_train(batch)
    grads = learner.compute_gradients(learner.compute_losses(fwd_out=fwd_out, batch=batch))
    norms_before = {}
    for role in ROLES:
        (_, optimizer), = learner.get_optimizers_for_module(role)
        module_grads = learner.filter_param_dict_for_optimizer(grads, optimizer)
        norms_before[role] = float(torch.norm(torch.stack([g.norm() for g in module_grads.values()])))
    clipped = learner.postprocess_gradients(grads)
    for role in ROLES:
        (_, optimizer), = learner.get_optimizers_for_module(role)
        module_grads = learner.filter_param_dict_for_optimizer(clipped, optimizer)
        norm_after = float(torch.norm(torch.stack([g.norm() for g in module_grads.values()])))
        assert norms_before[role] > clip, "targets too small to exercise clipping"
        assert norm_after == pytest.approx(clip, rel=1e-4)

    results = learner_group.update(batch=_batch(seed=3, target_scale=500.0))
    for role in ROLES:  # RLlib logs the norm before clipping
        assert _peek(results, role, "gradients_default_optimizer_global_norm") > clip
    learner_group.shutdown()


def test_updates_equal_douzero_learner_step(douzero_models):
    """Three updates of the landlord module equal DouZero's learn(): MSE, RMSprop, clip_grad_norm_(40)."""
    learner_group = _build_learner_group(seed=4)
    learner = _learner(learner_group)
    reference = douzero_models.LandlordLstmModel()
    reference.load_state_dict(learner.module["landlord"].state_dict())
    optimizer = torch.optim.RMSprop(reference.parameters(), lr=1e-4, momentum=0.0, eps=1e-5, alpha=0.99)
    no_clip = douzero_models.LandlordLstmModel()
    no_clip.load_state_dict(learner.module["landlord"].state_dict())
    no_clip_optimizer = torch.optim.RMSprop(no_clip.parameters(), lr=1e-4, momentum=0.0, eps=1e-5, alpha=0.99)

    batch = _batch(seed=5, n=48, roles=("landlord",), target_scale=300.0)
    rows = batch.policy_batches["landlord"]
    z = torch.as_tensor(rows[HISTORY]).float()
    x = torch.cat([torch.as_tensor(rows[STATE]), torch.as_tensor(rows[ACTION])], dim=1).float()
    target = torch.as_tensor(rows[TARGET])
    for _ in range(3):
        learner_group.update(batch=batch)
        for model, optim, clip in ((reference, optimizer, True), (no_clip, no_clip_optimizer, False)):
            loss = ((model(z, x, return_value=True)["values"].squeeze(-1) - target) ** 2).mean()
            optim.zero_grad()
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 40.0)
            optim.step()

    ours = learner.module["landlord"].state_dict()
    for name, value in reference.state_dict().items():
        torch.testing.assert_close(ours[name], value, rtol=1e-4, atol=1e-6, msg=name)
    max_diff_no_clip = max(float((ours[k] - v).abs().max()) for k, v in no_clip.state_dict().items())
    assert max_diff_no_clip > 1e-5, "clipping should change the update at these target scales"
    learner_group.shutdown()


def test_learner_state_round_trip_restores_weights_and_optimizer():
    batch = _batch(seed=6)
    source = _build_learner_group(seed=7)
    for _ in range(3):
        source.update(batch=batch)
    state = source.get_state()

    restored = _build_learner_group(seed=8)
    probe = {r: _torch_rows(_rows(np.random.default_rng(9), DOUZERO_ROLE_DIMS[r], 5)) for r in ROLES}
    src_learner, dst_learner = _learner(source), _learner(restored)
    assert not torch.equal(
        src_learner.module["landlord"].forward_inference(probe["landlord"])[Q],
        dst_learner.module["landlord"].forward_inference(probe["landlord"])[Q],
    )
    restored.set_state(state)
    for role in ROLES:
        assert torch.equal(
            src_learner.module[role].forward_inference(probe[role])[Q],
            dst_learner.module[role].forward_inference(probe[role])[Q],
        )
    # Same optimizer state too: one more identical update keeps them identical.
    source.update(batch=batch)
    restored.update(batch=batch)
    for role in ROLES:
        for (name, a), b in zip(src_learner.module[role].state_dict().items(),
                                dst_learner.module[role].state_dict().values()):
            assert torch.equal(a, b), (role, name)
    source.shutdown()
    restored.shutdown()
