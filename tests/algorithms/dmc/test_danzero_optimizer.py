"""DanZero's optimizer: TF1's RMSPropOptimizer (mean square from ones, epsilon inside the square root, decay 0.9),
checked against TF1's update rule computed by hand, and used by DMC with ``optimizer="rmsprop_tf1"``."""

from __future__ import annotations

import math

import pytest
import torch

from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.optimizers import TF1RMSprop

GRADS = [[0.5, -2.0, 1e-3], [0.1, 3.0, -1e-3], [-0.7, 0.0, 2e-3], [0.2, -1.0, 0.5]]


def _tf1_by_hand(start: list[float], grads: list[list[float]], lr: float, decay: float, eps: float,
                 momentum: float) -> list[list[float]]:
    """tf.raw_ops.ApplyRMSProp, one scalar at a time: ms <- decay ms + (1 - decay) g^2 (ms starts at 1);
    mom <- momentum mom + lr g / sqrt(ms + eps) (mom starts at 0); var <- var - mom."""
    var, ms, mom, out = list(start), [1.0] * len(start), [0.0] * len(start), []
    for g in grads:
        for i, gi in enumerate(g):
            ms[i] = decay * ms[i] + (1 - decay) * gi * gi
            mom[i] = momentum * mom[i] + lr * gi / math.sqrt(ms[i] + eps)
            var[i] -= mom[i]
        out.append(list(var))
    return out


@pytest.mark.parametrize("momentum", [0.0, 0.5])
def test_tf1_rmsprop_follows_tf1s_update_rule_step_by_step(momentum):
    start = [0.3, -1.0, 2.0]
    p = torch.nn.Parameter(torch.tensor(start, dtype=torch.float64))
    opt = TF1RMSprop([p], lr=1e-2, decay=0.9, eps=1e-5, momentum=momentum)
    expected = _tf1_by_hand(start, GRADS, 1e-2, 0.9, 1e-5, momentum)
    for g, want in zip(GRADS, expected):
        p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        assert p.detach().tolist() == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_tf1_steps_are_far_smaller_than_torchs_at_a_small_gradient():
    """The issue's figures: at a gradient of 1e-3, torch's RMSprop (alpha 0.99, mean square from zero) steps about
    9,000 times further than TF1's on the first update and still about 8 times after 100."""
    def step_sizes(make):
        p = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))
        opt, sizes = make([p]), []
        for _ in range(100):
            before = p.item()
            p.grad = torch.full((1,), 1e-3, dtype=torch.float64)
            opt.step()
            sizes.append(before - p.item())
        return sizes

    tf1 = step_sizes(lambda ps: TF1RMSprop(ps, lr=1e-3, decay=0.9, eps=1e-5))
    torch_ = step_sizes(lambda ps: torch.optim.RMSprop(ps, lr=1e-3, alpha=0.99, eps=1e-5))
    assert tf1[0] == pytest.approx(1e-3 * 1e-3 / math.sqrt(0.9 + 0.1 * 1e-6 + 1e-5))
    assert 8000 < torch_[0] / tf1[0] < 9500
    assert 7 < torch_[99] / tf1[99] < 8.5


def test_tf1_rmsprop_refuses_bad_constants():
    p = torch.nn.Parameter(torch.zeros(1))
    with pytest.raises(ValueError, match=r"decay=1.0 must be in \[0, 1\)"):
        TF1RMSprop([p], decay=1.0)
    with pytest.raises(ValueError, match="optimizer='adam' is unknown; allowed: 'rmsprop', 'rmsprop_tf1'"):
        DMCConfig().game("guandan").training(optimizer="adam").validate()


def test_dmc_learner_uses_tf1_rmsprop_when_asked(ray_local):
    config = (DMCConfig().game("guandan")
              .env_runners(num_env_runners=0, num_envs_per_env_runner=2, rollout_fragment_length=200)
              .training(optimizer="rmsprop_tf1", rmsprop_alpha=0.9, rmsprop_eps=1e-5, lr=1e-3,
                        frames_per_update=200, hidden_sizes=[16]).debugging(seed=1))
    algo = config.build_algo()
    try:
        learner = algo.learner_group._learner
        opt = learner.get_optimizer("shared")
        assert isinstance(opt, TF1RMSprop)
        group = opt.param_groups[0]
        assert (group["lr"], group["decay"], group["eps"], group["momentum"]) == (1e-3, 0.9, 1e-5, 0.0)
        before = [p.detach().clone() for p in learner.module["shared"].parameters()]
        while algo.train()["module_updates"].get("shared", 0) < 1:
            pass
        after = list(learner.module["shared"].parameters())
        assert any(not torch.equal(b, a) for b, a in zip(before, after))
        assert all(torch.all(opt.state[p]["ms"] > 0) for p in after if p in opt.state)
    finally:
        algo.stop()
    plain = DMCConfig().game("guandan")
    assert plain.optimizer == "rmsprop"  # DouZero's torch RMSprop stays the default


def test_corrected_rmsprop_divides_the_mean_square_by_one_minus_alpha_to_the_t():
    """optimizer="rmsprop_corrected": v_t = a v + (1 - a) g^2, step = lr g / (sqrt(v_t / (1 - a^t)) + eps), by hand
    over four steps; its first step is lr-sized where torch's RMSprop's is about 1 / sqrt(1 - a) = 10 times it."""
    from types import SimpleNamespace

    from cardrl.algorithms.dmc.dmc_learner import make_rmsprop

    w = torch.nn.Parameter(torch.tensor([0.5, -1.0]))
    opt = make_rmsprop([w], SimpleNamespace(optimizer="rmsprop_corrected", rmsprop_alpha=0.99, rmsprop_eps=1e-5))
    for group in opt.param_groups:
        group["lr"] = 1e-2
    expected, v = w.detach().clone(), torch.zeros(2)
    for t in range(1, 5):
        grad = torch.tensor([0.1 * t, -0.3])
        w.grad = grad.clone()
        opt.step()
        v = 0.99 * v + 0.01 * grad ** 2
        expected = expected - 1e-2 * grad / ((v / (1 - 0.99 ** t)).sqrt() + 1e-5)
        assert torch.allclose(w.detach(), expected, atol=1e-7)
    torch_w = torch.nn.Parameter(torch.tensor([0.0]))
    torch_opt = torch.optim.RMSprop([torch_w], lr=1e-2, alpha=0.99, eps=1e-5)
    torch_w.grad = torch.tensor([1e-3])
    torch_opt.step()
    assert abs(float(torch_w)) == pytest.approx(1e-2 * 1e-3 / (math.sqrt(0.01 * 1e-6) + 1e-5), rel=1e-4)  # 9.1 lr
    with pytest.raises(ValueError, match="no momentum"):
        make_rmsprop([w], SimpleNamespace(optimizer="rmsprop_corrected", rmsprop_alpha=0.99, rmsprop_eps=1e-5,
                                          rmsprop_momentum=0.9))
    DMCConfig().game("doudizhu").training(optimizer="rmsprop_corrected").validate()
