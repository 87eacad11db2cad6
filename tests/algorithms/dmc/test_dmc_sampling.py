"""The DMC runner's fast path: only greedy choices are scored, one batched argmax, and the GPU-inference option."""

from __future__ import annotations

import argparse
from collections import defaultdict
from functools import partial

import numpy as np
import pytest
import torch
from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner, greedy_choices
from cardrl.algorithms.dmc.settings import DMCSettings
from cardrl.algorithms.training.settings import add_arguments
from helpers.dmc_configs import small_dmc_config

from cardrl.agents.q_agent import greedy_index

small_config = partial(small_dmc_config, 0, seed=5)


def test_greedy_choices_equal_greedy_index_position_by_position():
    rng = np.random.default_rng(0)
    for _ in range(200):
        counts = rng.integers(1, 9, size=rng.integers(1, 12))
        q = rng.normal(size=int(counts.sum())).astype(np.float32)
        if rng.random() < 0.5:  # exact and near ties (within the relative tolerance) in some positions
            q[rng.integers(len(q), size=3)] = q[0]
            q[rng.integers(len(q))] = np.nextafter(q[0], np.float32(-np.inf))
        first, ties = greedy_choices(q, counts)
        start = 0
        for u, n in enumerate(counts):
            part = q[start:start + n]
            assert first[u] == greedy_index(part)  # the first highest Q, as np.argmax
            strength = np.arange(n)[::-1]
            tied = np.flatnonzero(part >= part.max() - 1e-6 * max(1.0, abs(float(part.max()))))
            assert bool(ties[u]) == (len(tied) > 1)
            if not ties[u]:  # then the strength is never asked for: the same move either way
                assert greedy_index(part, strength) == first[u]
            start += n


def _frames(runner: DMCEnvRunner, n: int) -> dict:
    return runner.sample(num_frames=n)["batch"]


def test_the_actors_q_is_kept_exactly_when_the_learner_reads_it():
    """Without ADMC the runner scores only the greedy choices and ships no actor_q; with ADMC every frame carries the
    Q of its chosen move under the weights that chose it (recomputed here from the shipped obs and action)."""
    plain = DMCEnvRunner(config=small_config(), worker_index=1)
    try:
        batch = _frames(plain, 200)
        assert batch and all("actor_q" not in cols for cols in batch.values())
        assert all(set(cols) >= {"obs", "action", "target"} for cols in batch.values())
    finally:
        plain.stop()
    admc = DMCEnvRunner(config=small_config(q_clip="admc"), worker_index=1)
    try:
        batch = _frames(admc, 200)
        for mid, cols in batch.items():
            assert cols["actor_q"].dtype == np.float32 and len(cols["actor_q"]) == len(cols["target"])
            module = admc.module[mid]
            obs = torch.from_numpy(cols["obs"].astype(np.float32))
            action = torch.from_numpy(cols["action"].astype(np.float32))
            q = module.score(obs, action, torch.arange(len(obs))).numpy()
            np.testing.assert_allclose(cols["actor_q"], q, rtol=1e-4, atol=1e-5)
    finally:
        admc.stop()


def test_greedy_moves_are_the_argmax_of_the_q_values():
    """epsilon = 0 and ADMC's actor_q kept: every frame's actor_q is the highest Q among that position's legal moves,
    i.e. the batched argmax chose as greedy_index would."""
    runner = DMCEnvRunner(config=small_config(q_clip="admc", epsilon=0.0), worker_index=1)
    try:
        seen = 0
        for _ in range(40):
            env = runner.envs[0]
            agent = env.agent_selection
            legal = env.legal_moves()
            obs = env.observation_vector(agent)
            feats = env.action_features(legal)
            module = runner.module[runner.agent_to_module[agent]]
            q = module.score(torch.from_numpy(obs[None]), torch.from_numpy(feats),
                             torch.zeros(len(legal), dtype=torch.long)).numpy()
            out = defaultdict(lambda: defaultdict(list))
            runner._tick(out)
            frame = runner._labels[0].trajectories[agent][-1] if runner._labels[0].trajectories.get(agent) else None
            if frame is None:  # the game ended with this move
                continue
            np.testing.assert_array_equal(frame[1], feats[greedy_index(q)])
            assert frame[2] == pytest.approx(float(q.max()), rel=1e-5, abs=1e-6)
            seen += 1
        assert seen > 20
    finally:
        runner.stop()


def test_gpu_inference_is_a_dmc_option_with_a_cli_flag():
    parser = argparse.ArgumentParser()
    add_arguments(parser, DMCSettings)
    assert parser.parse_args(["--gpu-inference"]).gpu_inference is True
    assert parser.parse_args([]).gpu_inference is False
    assert "GPU" in parser.format_help()
    assert DMCConfig().training(gpu_inference=True).gpu_inference is True


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: the option is accepted here")
def test_gpu_inference_is_refused_without_a_gpu():
    with pytest.raises(ValueError, match="gpu_inference=True puts the env runners' Q-networks on a GPU, but there "
                                         "is none here"):
        small_config(gpu_inference=True).validate()
    small_config(gpu_inference=False).validate()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_gpu_inference_scores_on_the_gpu_as_on_the_cpu():
    config = small_config(gpu_inference=True, q_clip="admc")
    config.validate()
    assert config.num_gpus_per_env_runner == 0  # a check changes nothing
    config.reserve_runner_gpus()  # as build_algo() does
    assert 0 < config.num_gpus_per_env_runner <= 1
    runner = DMCEnvRunner(config=config, worker_index=1)
    try:
        assert next(runner.module[runner.agent_to_module["landlord"]].parameters()).is_cuda
        batch = _frames(runner, 100)
        for mid, cols in batch.items():
            module = runner.module[mid].to("cpu")
            obs = torch.from_numpy(cols["obs"].astype(np.float32))
            q = module.score(obs, torch.from_numpy(cols["action"].astype(np.float32)), torch.arange(len(obs)))
            np.testing.assert_allclose(cols["actor_q"], q.numpy(), rtol=1e-3, atol=1e-4)
    finally:
        runner.stop()


def test_bfloat16_actors_choose_by_nearly_the_same_q_values():
    """actor_precision="bfloat16": the runner's products in bfloat16, its weights and the learner float32; the actor's
    Q of each frame is within bfloat16 rounding of the float32 Q."""
    runner = DMCEnvRunner(config=small_config(q_clip="admc", actor_precision="bfloat16"), worker_index=1)
    try:
        assert all(p.dtype == torch.float32 for mid in runner.module.keys() for p in runner.module[mid].parameters())
        batch = _frames(runner, 150)
        for mid, cols in batch.items():
            module = runner.module[mid]
            obs = torch.from_numpy(cols["obs"].astype(np.float32))
            q = module.score(obs, torch.from_numpy(cols["action"].astype(np.float32)), torch.arange(len(obs)))
            np.testing.assert_allclose(cols["actor_q"], q.numpy(), rtol=0.05, atol=0.02)
    finally:
        runner.stop()
    with pytest.raises(ValueError, match="actor_precision='float16' is unknown; allowed: 'float32', 'bfloat16'"):
        small_config(actor_precision="float16").validate()
