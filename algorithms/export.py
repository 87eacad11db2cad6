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
import shutil
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cardrl.algorithms.export_record import agent_record, json_text, network_record
from cardrl.checkpoint_trust import warn_if_untrusted
from cardrl.atomic_file import replace_text

__all__ = ["add_export_arguments", "check_export", "main_export", "export_checkpoint", "export_fp16_checked",
           "Fp16Check", "EXPORT_FORMATS", "FP16_MIN_AGREEMENT", "FP16_POSITIONS"]

EXPORT_FORMATS = ("onnx", "safetensors")
_OPSET = 17
_PACKAGES = {"onnx": ("onnx", "onnxruntime"), "safetensors": ("safetensors",)}
FP16_MIN_AGREEMENT = 0.999  # float16 weights are kept when their moves agree with float32's this often
FP16_POSITIONS = 2000  # seeded positions (two or more legal moves) the check plays


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
    parser.add_argument("--fp16", action="store_true",
                        help="safetensors only: store the weights as float16 (half the size); written only when the "
                             "fp16 agent chooses the fp32 agent's move on at least 99.9%% of seeded positions")
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
    if getattr(args, "fp16", False) and args.format != "safetensors":
        raise ValueError("--fp16 applies to --format safetensors (ONNX: --int8)")
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
    if getattr(args, "fp16", False):
        record, check = export_fp16_checked(args.checkpoint, args.out)
        print(f"cardrl export: fp16 agrees with fp32 on {check.agreement:.2%} of {check.positions} seeded positions "
              f"(at least {FP16_MIN_AGREEMENT:.1%} needed)")
    else:
        record = export_checkpoint(args.checkpoint, args.out, args.format, int8=args.int8)
    files = [(net["file"], (Path(args.out) / net["file"]).stat().st_size) for net in record["networks"].values()]
    spec_kind = "onnx" if args.format == "onnx" else "weights"
    print(f"cardrl export: {record['game']} {len(files)} network(s) as {record['precision']} {args.format} in "
          f"{time.perf_counter() - started:.1f}s: " + ", ".join(f"{name} ({size / 1e6:.2f} MB)" for name, size in files))
    for name, net in record["networks"].items():
        print(f"  {name}: {net['kind']}, largest |Q - checkpoint Q| on 256 random inputs {net['check_max_abs_diff']:.2g}")
    print(f"  play it: cardrl eval {record['game']} --a {spec_kind}:{args.out} --b rule  (docs/export.md)")
    return 0


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


def export_checkpoint(checkpoint: str | Path, out: str | Path, fmt: str, *, int8: bool = False,
                      fp16: bool = False) -> dict:
    """Write the Q-networks of a DMC ``checkpoint`` as ``fmt`` files and ``cardrl_agent.json`` into ``out``; returns
    the JSON record (module docstring). ``fp16``: safetensors in float16 (unchecked here: :func:`export_fp16_checked`
    compares its moves with fp32's)."""
    from cardrl.agents.exported import AGENT_FILE
    from cardrl.algorithms.dmc.agent_loaders import load_checkpoint_modules
    from cardrl.algorithms.dmc.dmc_rl_module import Q_MODULE_CLASSES

    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"--format {fmt!r}: allowed {list(EXPORT_FORMATS)}")
    if fp16 and fmt != "safetensors":
        raise ValueError(f"fp16 applies to safetensors, not {fmt!r}")
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
    suffix = ".int8.onnx" if int8 else (".onnx" if fmt == "onnx" else (".fp16" if fp16 else "") + ".safetensors")
    networks = {name: network_record(modules[agent], kinds.get(type(modules[agent]), type(modules[agent]).__name__))
                for agent, name in mapping.items()}
    opponent_models = sorted(name for name, record in networks.items()
                             if record["opponent_model"] is not None and record["opponent_model_config"] is None)
    if fmt == "safetensors" and opponent_models:
        raise ValueError(f"the network(s) {opponent_models} carry an opponent model that weights:DIR does not "
                         f"rebuild (it rebuilds Luo & Tan's): export them with --format onnx")
    out.mkdir(parents=True, exist_ok=True)
    _write_networks(modules, mapping, networks, out, suffix, fmt, int8, fp16)
    agent = agent_record(fmt, "int8" if int8 else ("float16" if fp16 else "float32"), spec, options, features,
                          encoder, mapping, networks, counters, root)
    replace_text(out / AGENT_FILE, json_text(agent))  # last: a directory without it is an export that did not finish
    return agent


@dataclass(frozen=True)
class Fp16Check:
    """How often the float16 agent chose the float32 agent's move (:func:`export_fp16_checked`)."""

    positions: int
    agreement: float
    seed: int

    @property
    def accepted(self) -> bool:
        return self.agreement >= FP16_MIN_AGREEMENT

    def to_dict(self) -> dict:
        return {"positions": self.positions, "agreement": self.agreement, "seed": self.seed,
                "min_agreement": FP16_MIN_AGREEMENT, "accepted": self.accepted}


def fp16_agreement(fp32_dir: str | Path, fp16_dir: str | Path, record: dict, positions: int = FP16_POSITIONS,
                   seed: int = 0) -> Fp16Check:
    """Play ``positions`` seeded positions (:func:`cardrl.eval.agreement.positions`) with both exports' agents."""
    from cardrl.eval.agents import build_agent
    from cardrl.eval.agreement import agreement

    game, options = record["game"], record.get("rule_options") or {}
    agents = {"fp32": build_agent(f"weights:{fp32_dir}", game, options),
              "fp16": build_agent(f"weights:{fp16_dir}", game, options)}
    rates, _ = agreement(agents, "fp32", game, options, positions, seed)
    return Fp16Check(positions, rates["fp16"], seed)


def export_fp16_checked(checkpoint: str | Path, out: str | Path, positions: int = FP16_POSITIONS
                        ) -> tuple[dict, Fp16Check]:
    """Export float16 safetensors to ``out`` when its agent chooses the float32 agent's move on at least
    :data:`FP16_MIN_AGREEMENT` of ``positions`` seeded positions; else write float32 to ``out`` and raise ValueError
    with the figures. Returns the record written and the check."""
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="cardrl_fp16_") as tmp:
        fp32, fp16 = Path(tmp) / "fp32", Path(tmp) / "fp16"
        export_checkpoint(checkpoint, fp32, "safetensors")
        record = export_checkpoint(checkpoint, fp16, "safetensors", fp16=True)
        check = fp16_agreement(fp32, fp16, record, positions)
        record["fp16_check"] = check.to_dict()
        kept = fp16 if check.accepted else fp32
        if check.accepted:
            (fp16 / _agent_file()).write_text(json_text(record))
        out.mkdir(parents=True, exist_ok=True)
        for file in sorted(kept.iterdir(), key=lambda f: f.name == _agent_file()):  # the JSON last
            shutil.copyfile(file, out / file.name)
    if not check.accepted:
        raise ValueError(f"--fp16 refused: the float16 agent chose the float32 agent's move on {check.agreement:.2%} "
                         f"of {positions:,} seeded positions ({FP16_MIN_AGREEMENT:.1%} needed); float32 weights "
                         f"written to {out} instead")
    return record, check


def _agent_file() -> str:
    from cardrl.agents.exported import AGENT_FILE

    return AGENT_FILE


def _write_networks(modules: dict, mapping: dict, networks: dict, out: Path, suffix: str, fmt: str,
                    int8: bool, fp16: bool = False) -> None:
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

            save_file({k: _stored(v, fp16) for k, v in module.state_dict().items()}, str(file))
        record["file"] = file.name
        record["check_max_abs_diff"] = _check_network(module, record, file, fmt)


def _stored(tensor, fp16: bool):
    """A parameter as written: float32, or float16 with ``fp16``."""
    tensor = tensor.detach().cpu().contiguous()
    return tensor.half() if fp16 else tensor.float()
