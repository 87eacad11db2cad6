"""The bfloat16 runner's scoring copies (``bfloat16_scoring.py``): bit for bit the Q-values autocast gives with the
float32 modules, on every network DMC builds; refreshed when the runner's weights are set; the runner's own modules,
its state and its checkpoints float32."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from ray.rllib.core import COMPONENT_RL_MODULE

from cardrl.algorithms.dmc import dmc_env_runner
from cardrl.algorithms.dmc.bfloat16_scoring import BFLOAT16_LAYERS, bfloat16_copy
from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner
from cardrl.algorithms.dmc.train import build_config
from cardrl.algorithms.training.run_spec import RunSpec

NETWORKS = [  # every Q-network shape DMC builds: DouZero's, Luo & Tan's, the opponent models, oracle blocks, MLPs
    ("doudizhu", []),
    ("doudizhu", ["--features", "unified"]),
    ("doudizhu", ["--features", "unified", "--opponent-model", "luo_tan"]),
    ("doudizhu", ["--opponent-model", "douzero_plus"]),
    ("doudizhu", ["--oracle", "1:0:1000000", "--q-clip", "admc"]),
    ("doudizhu", ["--bidding"]),
    ("big2", ["--opponent-model", "luo_tan"]),
    ("guandan", ["--model", "mlp"]),
]


def _runner(game: str, flags: list[str]) -> DMCEnvRunner:
    spec = RunSpec.from_flags(game, [*flags, "--actor-precision", "bfloat16", "--num-envs-per-env-runner", "8"])
    return DMCEnvRunner(config=build_config(spec, say=lambda *_: None), worker_index=1)


SCORE_FLAT = dmc_env_runner.score_flat


def _record_scoring(monkeypatch) -> list:
    """Every scoring call of the runner: the module it scored with and its inputs (the call itself unchanged)."""
    calls = []

    def recording(module, *args):
        calls.append((module, args))
        return SCORE_FLAT(module, *args)

    monkeypatch.setattr(dmc_env_runner, "score_flat", recording)
    return calls


@pytest.mark.parametrize(("game", "flags"), NETWORKS, ids=[" ".join([g, *f]) for g, f in NETWORKS])
def test_the_copies_score_bit_for_bit_as_autocast_over_float32_weights(monkeypatch, game, flags):
    calls = _record_scoring(monkeypatch)
    runner = _runner(game, flags)
    try:
        runner.sample(num_frames=300)
        sources = {id(runner.bf16_scorers[mid]): runner.module[mid] for mid in runner.module.keys()}
        assert calls and all(id(module) in sources for module, _ in calls)
        rows = 0
        for module, args in calls:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                expected, _ = SCORE_FLAT(sources[id(module)], *args)
            got, _ = SCORE_FLAT(module, *args)
            np.testing.assert_array_equal(got, expected)
            rows += len(got)
        assert rows > 300
        for mid in runner.module.keys():
            assert all(p.dtype == torch.float32 for p in runner.module[mid].parameters())
    finally:
        runner.stop()


def test_the_copy_holds_only_the_autocast_layers_in_bfloat16():
    runner = _runner("doudizhu", ["--features", "unified", "--opponent-model", "luo_tan"])
    try:
        source = runner.module["shared"]
        twin = bfloat16_copy(source)
        kinds = set()
        for (name, layer), twin_layer in zip(source.named_modules(), twin.modules()):
            for p, q in zip(layer.parameters(recurse=False), twin_layer.parameters(recurse=False)):
                bf16 = isinstance(layer, BFLOAT16_LAYERS)
                assert q.dtype == (torch.bfloat16 if bf16 else p.dtype), name
                assert torch.equal(q, p.to(q.dtype)) and not q.requires_grad
                kinds.add(bf16)
        assert True in kinds
        assert all(p.dtype == torch.float32 for p in source.parameters())
    finally:
        runner.stop()


def test_set_weights_reach_the_copies_and_the_state_stays_float32():
    runner = _runner("doudizhu", [])
    try:
        runner.sample(num_frames=100)
        mid = next(iter(runner.module.keys()))
        state = runner.get_state()[COMPONENT_RL_MODULE]
        assert all(v.dtype == np.float32 for v in state[mid].values())  # what checkpoints and weight sync read
        new = {m: {k: v + np.float32(0.01) for k, v in s.items()} for m, s in state.items()}
        runner.set_state({COMPONENT_RL_MODULE: new})
        twin = runner.bf16_scorers[mid]
        for name, value in twin.state_dict().items():
            expected = torch.from_numpy(new[mid][name])
            assert torch.equal(value, expected.to(value.dtype)), name
        runner.sample(num_frames=100)  # scores with the refreshed copy
        assert runner.bf16_scorers[mid] is twin
    finally:
        runner.stop()


def test_a_float32_runner_scores_with_its_own_modules():
    spec = RunSpec.from_flags("doudizhu", ["--num-envs-per-env-runner", "8"])
    runner = DMCEnvRunner(config=build_config(spec, say=lambda *_: None), worker_index=1)
    try:
        assert runner.bf16_scorers is None
    finally:
        runner.stop()
