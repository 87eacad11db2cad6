"""``learner_precision="bfloat16"``: the learner's training forward runs under ``torch.autocast(cpu, bfloat16)``; its
weights, gradients, optimizer state and losses stay float32. On frames a real env runner played, the bfloat16 forward's
Q-values and opponent-model outputs are within bfloat16 rounding of float32's, and the gradient of DMC's loss (the Q
loss plus the opponent model's) points the same way as float32's (cosine similarity per parameter tensor, the bar
below; docs/performance.md, "bfloat16 learner")."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner
from cardrl.algorithms.dmc.q_module import DMCQModule, Q
from helpers.dmc_configs import small_dmc_config

MIN_COSINE = 0.99  # the gradient of every parameter tensor, bfloat16 forward against float32


def _om_config(precision: str = "float32") -> DMCConfig:
    config = (DMCConfig().game("doudizhu", features="unified")
              .training(opponent_model="luo_tan", learner_precision=precision, hidden_sizes=[64, 64])
              .debugging(seed=3))
    config.validate()
    return config


def _played_frames(config: DMCConfig, n: int) -> dict[str, dict[str, torch.Tensor]]:
    runner = DMCEnvRunner(config=config, worker_index=1)
    try:
        batch = runner.sample(num_frames=n)["batch"]
    finally:
        runner.stop()
    return {mid: {key: torch.from_numpy(np.asarray(col)) for key, col in cols.items()} for mid, cols in batch.items()}


def _forward_and_grads(learner, mid: str, batch: dict[str, torch.Tensor], precision: torch.dtype | None):
    module = learner.module[mid]
    module.train_precision = precision
    module.zero_grad(set_to_none=True)
    out = module.forward_train(dict(batch))
    loss = learner.compute_loss_for_module(module_id=mid, config=learner.config, batch=batch, fwd_out=out)
    loss.backward()
    grads = {name: p.grad.detach().clone() for name, p in module.named_parameters() if p.grad is not None}
    module.train_precision = None
    return out, loss.detach(), grads


def test_the_bfloat16_forward_and_gradient_follow_float32_on_played_frames():
    config = _om_config()
    batch = _played_frames(config, 400)
    learner = config.build_learner(env=None)
    learner.build()
    mid = next(iter(batch))
    out32, loss32, grads32 = _forward_and_grads(learner, mid, batch[mid], None)
    out16, loss16, grads16 = _forward_and_grads(learner, mid, batch[mid], torch.bfloat16)
    assert all(v.dtype == torch.float32 for v in out16.values() if torch.is_tensor(v) and v.is_floating_point())
    assert len(out16) > 1  # the opponent model's outputs came back too
    np.testing.assert_allclose(out16[Q].detach().numpy(), out32[Q].detach().numpy(), rtol=0.05, atol=0.05)
    assert not torch.equal(out16[Q], out32[Q])  # not a vacuous agreement: the products did run in bfloat16
    assert float(loss16) == pytest.approx(float(loss32), rel=0.05)
    assert set(grads16) == set(grads32) and grads32
    cosines = {name: float(torch.nn.functional.cosine_similarity(grads16[name].flatten(), g.flatten(), dim=0))
               for name, g in grads32.items() if g.norm() > 0}
    assert min(cosines.values()) >= MIN_COSINE, sorted(cosines.items(), key=lambda kv: kv[1])[:3]
    assert all(p.dtype == torch.float32 for p in learner.module[mid].parameters())


def test_a_learner_built_with_bfloat16_sets_its_q_modules_and_nothing_else():
    learner = _om_config("bfloat16").build_learner(env=None)
    learner.build()
    modules = [learner.module[mid] for mid in learner.module.keys()]
    assert modules and all(m.train_precision == torch.bfloat16 for m in modules if isinstance(m, DMCQModule))
    plain = _om_config().build_learner(env=None)
    plain.build()
    assert all(plain.module[mid].train_precision is None for mid in plain.module.keys())
    with pytest.raises(ValueError, match="learner_precision='float16' is unknown; allowed: 'float32', 'bfloat16'"):
        DMCConfig().training(learner_precision="float16").validate()


def test_a_bfloat16_learner_trains_and_restores_in_real_ray(ray_local, tmp_path):
    config = small_dmc_config(0, seed=5, q_model="mlp").training(learner_precision="bfloat16")
    algo = config.build_algo()
    try:
        for _ in range(2):
            result = algo.train()
        learner = algo.learner_group._learner
        losses = [float(s["q_loss"]) for m, s in result["learners"].items() if m in learner.module.keys()]
        assert result["frames_trained"] > 0 and losses and np.isfinite(losses).all()
        assert all(learner.module[mid].train_precision == torch.bfloat16 for mid in learner.module.keys())
        path = algo.save_to_path(str(tmp_path / "bf16"))
    finally:
        algo.stop()
    restored = config.build_algo()
    try:
        restored.restore_from_path(path)
        modules = restored.learner_group._learner.module
        assert all(modules[mid].train_precision == torch.bfloat16 for mid in modules.keys())
        assert restored.train()["frames_trained"] > result["frames_trained"]
    finally:
        restored.stop()
