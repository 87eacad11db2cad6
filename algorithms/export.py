"""``cardrl export CHECKPOINT --format onnx|safetensors [--int8] --out DIR``: a DMC checkpoint's Q-networks as files
that play without RLlib and without pickle (docs/export.md).

Each Q-network of the checkpoint (one per DouDiZhu role with DouZero's features, one shared network otherwise) is
written as an ONNX model (``torch.onnx.export``; ``--int8``: onnxruntime's dynamic quantization of the weights) or as
safetensors weights, beside ``DIR/cardrl_agent.json`` (:data:`~cardrl.agents.exported.AGENT_FILE`): the game and its
rule options, the feature encoder and its layout, each network's kind, input sizes and file, which seat plays which
network, the action encoding, how the agent plays (ODMC's pruning, as trained) and cardrl's version. The agent-spec
kinds ``onnx:DIR`` and ``weights:DIR`` (:mod:`cardrl.agents.exported`) play them and choose the checkpoint agent's
moves.

An ONNX network takes ``state`` (1, S), ``history`` (1, T, H) (networks with a history) and ``action`` (n, A), the
encoder's values for one observation and its n legal moves, and returns ``q`` (n,): the checkpoint module's grouped
scoring (:meth:`~cardrl.algorithms.dmc.q_module.DMCQModule.q_from_groups`), input blocks (oracle, bidding) fed zeros as
a deployed agent's are, an opponent model's predictions computed inside. safetensors holds the parameters under the
module's names; an opponent model is not rebuilt in plain torch, so such a network exports as ONNX only.

Not exported (a one-line error): the bidding networks of a whole-game checkpoint, top-k PPO's policy (its candidates
come from a frozen DMC network inside the policy module, with sampling; not done yet) and RLlib's PPO with the
masked module (``ppo:PATH``). Layer 8: this module reads checkpoints with the algorithms' own loaders; the CLI runs it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from cardrl.checkpoint_trust import warn_if_untrusted

__all__ = ["add_export_arguments", "check_export", "main_export", "export_checkpoint", "EXPORT_FORMATS"]

EXPORT_FORMATS = ("onnx", "safetensors")
_OPSET = 17
_PACKAGES = {"onnx": ("onnx", "onnxruntime"), "safetensors": ("safetensors",)}


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    from cardrl.args import path_arg

    parser.add_argument("checkpoint", type=path_arg, metavar="CHECKPOINT",
                        help="a cardrl DMC algorithm checkpoint directory (a run's RUN_DIR/checkpoint)")
    parser.add_argument("--format", required=True, choices=EXPORT_FORMATS,
                        help="onnx: ONNX models (play with onnx:DIR, onnxruntime); safetensors: the weights (play "
                             "with weights:DIR, torch); neither is a pickle")
    parser.add_argument("--int8", action="store_true",
                        help="ONNX only: quantize the weights to int8 (onnxruntime's dynamic quantization; about 4x "
                             "smaller, moves may differ where Q-values are close)")
    parser.add_argument("--out", required=True, type=path_arg, metavar="DIR",
                        help="directory to write (created; refused when it holds files, unless --force)")
    parser.add_argument("--force", action="store_true", help="write into --out even when it holds files")


def _checkpoint_kind(root: Path) -> tuple[str, dict]:
    """``("dmc", counters)`` of a DMC algorithm checkpoint; ValueError naming what it is otherwise."""
    from cardrl.algorithms.common.checkpoint_state import read_checkpoint_state

    if not root.is_dir():
        raise FileNotFoundError(f"checkpoint directory {root} does not exist")
    if (root / "checkpoint").is_dir() and not any(root.glob("algorithm_state.*")):
        raise ValueError(f"{root} is a run directory, not a checkpoint: export {root / 'checkpoint'}")
    if not any(root.glob("algorithm_state.*")):
        raise ValueError(f"{root} is not an algorithm checkpoint (no algorithm_state.pkl): export reads the game, "
                         f"features and rule options an algorithm checkpoint records")
    state = read_checkpoint_state(root)  # ValueError for a corrupt state file
    if state.get("dmc_counters"):
        return "dmc", dict(state["dmc_counters"])
    if state.get("topk_ppo_counters"):
        raise ValueError(f"{root} is a top-k PPO checkpoint: export covers DMC Q-networks only (top-k PPO's policy "
                         f"samples among candidates of a frozen DMC network inside it; play it with topk-ppo:PATH)")
    raise ValueError(f"{root} is an RLlib checkpoint but not a cardrl DMC one (RLlib's PPO with the masked module, "
                     f"ppo:PATH, is not exported: export covers DMC Q-networks only)")


def _game_of(counters: dict):
    from cardrl.games.registry import get_game

    try:
        return get_game(str(counters.get("game")))
    except (KeyError, ValueError):
        raise ValueError(f"the checkpoint was trained on {counters.get('game')!r}, which this cardrl does not "
                         f"know") from None


def _rule_options(spec, counters: dict) -> dict:
    recorded = {k: v for k, v in dict(counters.get("rule_options") or {}).items() if k in spec.rule_options}
    if "kickers" in spec.rule_options and "kickers" in counters:
        recorded.setdefault("kickers", counters["kickers"])
    return spec.full_options(recorded)


def check_export(args: argparse.Namespace) -> None:
    """What ``cardrl export`` checks before it loads a network: the packages of the format, --int8's format, the
    output directory, the checkpoint's kind (ValueError / FileNotFoundError naming what is wrong)."""
    if args.int8 and args.format != "onnx":
        raise ValueError("--int8 applies to --format onnx (safetensors keeps the weights as trained)")
    for package in _PACKAGES[args.format]:
        try:
            __import__(package)
        except ImportError:
            raise ValueError(f"--format {args.format} needs the package {package!r}: pip install "
                             f"'cardrl[export]'") from None
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a directory")
    if out.is_dir() and any(out.iterdir()) and not args.force:
        raise ValueError(f"--out {out} is not empty (give --force to write into it)")
    if out.resolve() == Path(args.checkpoint).resolve() or Path(args.checkpoint).resolve() in out.resolve().parents:
        raise ValueError(f"--out {out} is inside the checkpoint {args.checkpoint}: write the export elsewhere")
    warn_if_untrusted(args.checkpoint, "cardrl export")  # reading its state unpickles it
    kind, counters = _checkpoint_kind(Path(args.checkpoint))
    if counters.get("bidding"):
        raise ValueError(f"{args.checkpoint} is a whole-game checkpoint (bidding networks): export covers card-play "
                         f"Q-networks with a fixed landlord only")
    _game_of(counters)


def main_export(args: argparse.Namespace) -> int:
    """``cardrl export``: check, export, say what was written."""
    check_export(args)
    started = time.perf_counter()
    record = export_checkpoint(args.checkpoint, args.out, args.format, int8=args.int8)
    files = [(net["file"], (Path(args.out) / net["file"]).stat().st_size) for net in record["networks"].values()]
    spec_kind = "onnx" if args.format == "onnx" else "weights"
    print(f"cardrl export: {record['game']} {len(files)} network(s) as {record['precision']} {args.format} in "
          f"{time.perf_counter() - started:.1f}s: " + ", ".join(f"{name} ({size / 1e6:.2f} MB)" for name, size in files))
    for name, net in record["networks"].items():
        print(f"  {name}: {net['kind']}, largest |Q - checkpoint Q| on 256 random inputs {net['check_max_abs_diff']:.2g}")
    print(f"  play it: cardrl eval {record['game']} --a {spec_kind}:{args.out} --b rule  (docs/export.md)")
    return 0


def _network_record(module, kind: str) -> dict:
    net = module.net
    return {"kind": kind, "state_dim": int(net.state_dim),
            "history_shape": None if net.history_shape is None else [int(d) for d in net.history_shape],
            "action_dim": int(net.action_dim), "hidden_sizes": [int(h) for h in net.hidden_sizes],
            "activation": net.activation, "lstm_hidden": int(net.lstm_hidden),
            "block_width": int(sum(dim for _, dim in net.input_blocks)),
            "input_blocks_fed_zeros": [name for name, _ in net.input_blocks],
            "opponent_model": None if net.opponent_model is None else dict(net.opponent_model).get("kind")}


def _scoring_module(module):
    """The module's grouped scoring of one observation's n actions as a traceable torch module."""
    import torch

    class Scoring(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.module = module

        def forward(self, state, *rest):
            history, action = (None, rest[0]) if len(rest) == 1 else rest
            index = torch.zeros_like(action[:, 0], dtype=torch.long)
            return self.module.q_from_groups(state, history, action, index)

    return Scoring().eval()


def _random_inputs(record: dict, n: int, seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    state = rng.integers(0, 2, (1, record["state_dim"])).astype(np.float32)
    history = None if record["history_shape"] is None else \
        rng.integers(0, 2, (1, *record["history_shape"])).astype(np.float32)
    return state, history, rng.integers(0, 2, (n, record["action_dim"])).astype(np.float32)


def _torch_inputs(state, history, actions) -> tuple:
    import torch

    return tuple(torch.from_numpy(x) for x in (state, history, actions) if x is not None)


def _write_onnx(module, record: dict, file: Path, int8: bool) -> None:
    import torch

    names = ["state", *([] if record["history_shape"] is None else ["history"]), "action"]
    example = _torch_inputs(*_random_inputs(record, 4, 0))
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and LSTM batch-size notes
        fp32 = Path(tmp) / "fp32.onnx"
        with torch.no_grad():
            torch.onnx.export(_scoring_module(module), example, str(fp32), dynamo=False, opset_version=_OPSET,
                              input_names=names, output_names=["q"],
                              dynamic_axes={"action": {0: "n"}, "q": {0: "n"}})
        if int8:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            quantize_dynamic(str(fp32), str(file), weight_type=QuantType.QInt8)
        else:
            shutil.copyfile(fp32, file)


def _check_network(module, record: dict, file: Path, fmt: str) -> float:
    """The largest |Q difference| between the written file and the module on 256 random actions of one observation."""
    import torch

    from cardrl.agents.exported import OnnxQNet
    from cardrl.agents.torch_qnet import TorchQNet

    state, history, actions = _random_inputs(record, 256, 1)
    with torch.no_grad():
        want = _scoring_module(module)(*_torch_inputs(state, history, actions)).numpy()
    if fmt == "onnx":
        net = OnnxQNet(file, record["state_dim"], record["history_shape"], record["action_dim"], str(file))
    else:
        from safetensors.torch import load_file

        net = TorchQNet(record, load_file(str(file)), str(file))
    return float(np.max(np.abs(net.q_values(state[0], None if history is None else history[0], actions) - want)))


def _json_text(record: dict) -> str:
    """Indented JSON with each list of plain values on one line (the layout's blocks, the sizes)."""
    import re

    text = json.dumps(record, indent=1, default=str)
    return re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text) + "\n"


def export_checkpoint(checkpoint: str | Path, out: str | Path, fmt: str, *, int8: bool = False) -> dict:
    """Write the Q-networks of a DMC ``checkpoint`` as ``fmt`` files and ``cardrl_agent.json`` into ``out``; returns
    the JSON record (module docstring)."""
    from cardrl.agents.exported import AGENT_FILE
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_modules
    from cardrl.algorithms.dmc.dmc_rl_module import Q_MODULE_CLASSES

    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"--format {fmt!r}: allowed {list(EXPORT_FORMATS)}")
    if fmt == "safetensors":
        import safetensors.torch  # noqa: F401  (a missing package fails before anything is written)
    root = Path(checkpoint)
    _, counters = _checkpoint_kind(root)
    spec = _game_of(counters)
    options = _rule_options(spec, counters)
    modules = load_checkpoint_modules(root, spec.name, options)
    shared = len({id(m) for m in modules.values()}) == 1
    mapping = {agent: ("shared" if shared else agent) for agent in spec.agents}
    kinds = {cls: name for name, cls in Q_MODULE_CLASSES.items()}
    features = counters.get("features")
    encoder = spec.make_features(features)
    out = Path(out)
    suffix = ".int8.onnx" if int8 else (".onnx" if fmt == "onnx" else ".safetensors")
    networks = {name: _network_record(modules[agent], kinds.get(type(modules[agent]), type(modules[agent]).__name__))
                for agent, name in mapping.items()}
    opponent_models = sorted(name for name, record in networks.items() if record["opponent_model"] is not None)
    if fmt == "safetensors" and opponent_models:
        raise ValueError(f"the network(s) {opponent_models} carry an opponent model, which weights:DIR does not "
                         f"rebuild: export them with --format onnx")
    out.mkdir(parents=True, exist_ok=True)
    _write_networks(modules, mapping, networks, out, suffix, fmt, int8)
    agent = _agent_record(fmt, int8, spec, options, features, encoder, mapping, networks, counters, root)
    tmp = out / (AGENT_FILE + ".tmp")
    tmp.write_text(_json_text(agent))
    tmp.replace(out / AGENT_FILE)  # last: a directory without it is an export that did not finish
    return agent


def _write_networks(modules: dict, mapping: dict, networks: dict, out: Path, suffix: str, fmt: str,
                    int8: bool) -> None:
    """Each network's file (one per network, however many seats play it), checked against its module."""
    for agent, name in mapping.items():
        record, module = networks[name], modules[agent]
        if "file" in record:
            continue
        file = out / f"{name}{suffix}"
        if fmt == "onnx":
            _write_onnx(module, record, file, int8)
        else:
            from safetensors.torch import save_file

            save_file({k: v.detach().cpu().contiguous().float() for k, v in module.state_dict().items()}, str(file))
        record["file"] = file.name
        record["check_max_abs_diff"] = _check_network(module, record, file, fmt)


def _agent_record(fmt: str, int8: bool, spec, options: dict, features, encoder, mapping: dict, networks: dict,
                  counters: dict, root: Path) -> dict:
    """``cardrl_agent.json``'s record (module docstring)."""
    from cardrl.agents.exported import FORMAT_VERSION, cardrl_version
    from cardrl.features.layout import encoder_layout

    play = dict(counters.get("play_options") or {})
    return {
        "format_version": FORMAT_VERSION, "format": fmt, "precision": "int8" if int8 else "float32",
        "cardrl_version": cardrl_version(), "game": spec.name, "env_name": spec.env_name,
        "rule_options": json.loads(json.dumps(options, default=str)),
        "features": features, "feature_layout": encoder_layout(encoder, spec.agents),
        "num_actions": int(spec.make_engine(**options).num_actions),
        "action_encoding": {"ids": f"the env's Discrete({spec.make_engine(**options).num_actions}) action ids "
                                   f"(docs/usage.md, conventions)",
                            "vector": f"{encoder.name}'s action_features(view, legal ids): {encoder.action_dim} "
                                      f"values per legal move"},
        "network": "q", "modules": mapping, "networks": networks,
        "inputs": ({"state": "(1, S) float32", "history": "(1, T, H) float32, networks with a history",
                    "action": "(n, A) float32", "q": "(n,) float32, the move of highest q is played"}
                   if fmt == "onnx" else
                   {"parameters": "the RLlib module's state_dict names (cardrl/agents/torch_qnet.py)"}),
        "play": {"prune": play.get("prune"), "prune_slack": play.get("prune_slack", "paper"),
                 "prune_extra": play.get("prune_extra", 0.0), "ties": "the stronger move, then the first "
                                                                       "(cardrl.agents.q_agent.greedy_index)"},
        "source": {"checkpoint": root.name, "q_model": counters.get("q_model"),
                   "frames_trained": counters.get("frames_trained"), "oracle": play.get("oracle")},
        "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
