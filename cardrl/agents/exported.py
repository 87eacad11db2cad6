"""Agents from exported files, without RLlib and without pickle: the agent-spec kinds ``onnx:PATH`` and
``weights:DIR`` (docs/export.md).

``cardrl export CHECKPOINT --format onnx|safetensors --out DIR`` writes each Q-network of a DMC checkpoint as an
ONNX model or as safetensors weights, beside ``DIR/cardrl_agent.json`` (:data:`AGENT_FILE`): the game, its rule
options, the feature encoder and its layout, each network's kind and input sizes, which seat plays which network,
the action encoding, how the agent was trained to play (ODMC's pruning) and cardrl's version.

- ``onnx:DIR`` plays those ONNX models with onnxruntime; ``onnx:MODEL.onnx`` (GuanDan) plays a DanZero-format model a
  user supplies: one input of 567 values per legal move, [513 state | 54 action] as the authors' client lays them out
  (:mod:`cardrl.features.danzero_client`), one Q-value per row out; the cards in DanLM's order (its public models),
  or in the authors' client's with ``onnx:MODEL.onnx:danzero_client``.
- ``weights:DIR`` rebuilds each network in plain torch (:class:`~cardrl.agents.torch_qnet.TorchQNet`) and loads the
  parameters with ``safetensors.torch.load_file``.

Both are data: loading them runs no code from the file (an RLlib checkpoint is a pickle, docs/operations.md). Each
plays greedily as :class:`~cardrl.agents.q_agent.QAgent` does (the same tie rule), so it chooses the checkpoint
agent's moves. The JSON is checked against this cardrl before anything plays: the game, the feature layout, the size
of the move set.

:func:`register` adds both kinds to :mod:`cardrl.agents.loaders` (the ``cardrl.agent_loaders`` entry point in
pyproject.toml).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from cardrl.agents.loaders import AgentLoader, register_agent_loader
from cardrl.agents.q_agent import QAgent
from cardrl.features.layout import encoder_layout, layout_differences
from cardrl.games.registry import get_game

__all__ = ["AGENT_FILE", "FORMAT_VERSION", "FORMATS", "read_agent_file", "network_files", "network_tensors",
           "load_onnx_agent", "load_weights_agent", "OnnxQNet", "register", "cardrl_version", "BARE_MODEL_ORDER"]

AGENT_FILE = "cardrl_agent.json"
FORMAT_VERSION = 1
FORMATS = {"onnx": "onnx", "weights": "safetensors"}  # spec kind -> the export format it reads
BARE_MODEL_ORDER = "danlm"  # a bare .onnx file's card order unless its spec names one: the public ONNX models' own


def _danzero_inputs() -> tuple[str, ...]:
    """The input layouts of a DanZero-format model (rows of [state | action]): one per card order of
    :data:`cardrl.features.danzero_client.CARD_ORDERS`, imported on first use like the encoder itself."""
    from cardrl.features.danzero_client import CARD_ORDERS

    return tuple(CARD_ORDERS)


def cardrl_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cardrl")
    except PackageNotFoundError:  # pragma: no cover (a checkout that was never installed)
        return "unknown"


def _missing(package: str, kind: str) -> ValueError:
    return ValueError(f"{kind}: agents need the package {package!r}: pip install 'cardrl[export]'")


def read_agent_file(directory: str | Path, kind: str) -> dict:
    """``DIR/cardrl_agent.json`` read and checked for the spec ``kind`` (``onnx`` or ``weights``); ValueError or
    FileNotFoundError naming what is wrong."""
    root = Path(directory)
    if not root.is_dir():
        raise FileNotFoundError(f"{kind}:{directory}: the directory does not exist")
    file = root / AGENT_FILE
    if not file.is_file():
        raise FileNotFoundError(f"{kind}:{directory}: no {AGENT_FILE} (write one with cardrl export; docs/export.md)")
    try:
        record = json.loads(file.read_text())
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{kind}:{directory}: {AGENT_FILE} is not JSON ({err})") from None
    if not isinstance(record, dict) or record.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{kind}:{directory}: {AGENT_FILE} is not a cardrl agent description of format version "
                         f"{FORMAT_VERSION}")
    missing = [k for k in ("game", "format", "modules", "networks", "features") if k not in record]
    if missing:
        raise ValueError(f"{kind}:{directory}: {AGENT_FILE} lacks {missing}")
    if record["format"] != FORMATS[kind]:
        other = next((k for k, f in FORMATS.items() if f == record["format"]), None)
        raise ValueError(f"{kind}:{directory} holds {record['format']!r} files"
                         + (f": load it as {other}:{directory}" if other else ""))
    return record


def _check_fits(record: Mapping[str, Any], where: str, game: str, options: Mapping[str, Any]):
    """The game spec and the encoder of an agent record, after checking that it fits ``game`` and ``options``."""
    spec = get_game(game)
    if record["game"] not in (spec.name, spec.env_name):
        raise ValueError(f"{where} plays {record['game']!r}, not {game!r}")
    features = record.get("features")
    if record.get("input") in _danzero_inputs():
        from cardrl.features.danzero_client import DanZeroClientFeatures

        encoder = DanZeroClientFeatures(record["input"])
    else:
        encoder = spec.make_features(features)
    saved = record.get("feature_layout")
    if saved is not None:
        problems = layout_differences(saved, encoder_layout(encoder, spec.agents))
        if problems:
            raise ValueError(f"{where} does not fit this cardrl's {spec.name} (" + "; ".join(problems) + ")")
    num_actions = spec.make_engine(**options).num_actions
    if record.get("num_actions") not in (None, num_actions):
        raise ValueError(f"{where} was exported for {record['num_actions']} actions; {spec.name} with these rule "
                         f"options has {num_actions} (rule options it was trained with: {record.get('rule_options')})")
    return spec, encoder


def _move_filter(record: Mapping[str, Any], game: str, options: Mapping[str, Any]):
    """ODMC's pruning when the agent was trained with it (recorded under ``play``), else None."""
    play = record.get("play") or {}
    if play.get("prune") != "mcs":
        return None
    from cardrl.search.prune import MCSViewPruner

    return MCSViewPruner(game, options, play.get("prune_slack", "paper"), float(play.get("prune_extra") or 0.0))


def _agent(record, networks: Mapping[str, Any], where: str, game: str, options: Mapping[str, Any]) -> QAgent:
    spec, encoder = _check_fits(record, where, game, options)
    mapping = record["modules"]
    if not isinstance(mapping, dict) or any(mapping.get(a) not in networks for a in spec.agents):
        raise ValueError(f"{where}: {AGENT_FILE}'s modules must name a network for each of {list(spec.agents)}; it "
                         f"has {mapping!r} and the networks {sorted(networks)}")
    return QAgent({agent: networks[mapping[agent]] for agent in spec.agents}, game, features=encoder,
                  move_filter=_move_filter(record, game, options))


def network_files(record: Mapping[str, Any], root: Path, where: str) -> dict[str, Path]:
    """Each network's file in ``root`` named by an agent record; ValueError or FileNotFoundError (with ``where``)."""
    files = {}
    for name, net in dict(record["networks"]).items():
        file = net.get("file") if isinstance(net, dict) else None
        if not isinstance(file, str) or Path(file).name != file:
            raise ValueError(f"{where}: network {name!r} names no file of the directory ({file!r})")
        if not (root / file).is_file():
            raise FileNotFoundError(f"{where}: network {name!r}'s file {file} is missing")
        files[name] = root / file
    return files


def _onnx_session(model: bytes):
    """An onnxruntime session of ``model`` on one thread (small networks; tournaments run one agent per process)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])


class OnnxQNet:
    """One ONNX Q-network run by onnxruntime: ``q_values(state, history, actions) -> (n,)`` numpy.

    A cardrl export takes ``state`` (1, S), ``history`` (1, T, H) (when the network reads one) and ``action`` (n, A)
    and returns ``q`` (n,); a DanZero-format model (``rows=True``) takes one (n, S + A) input of [state | action]
    rows and returns (n, 1) or (n,)."""

    def __init__(self, file: Path, state_dim: int, history_shape, action_dim: int, where: str, rows: bool = False):
        from types import SimpleNamespace

        try:
            import onnxruntime  # noqa: F401
        except ImportError:
            raise _missing("onnxruntime", "onnx") from None
        self.model = Path(file).read_bytes()  # kept: a session cannot be pickled, so one sent to a Ray worker
        try:                                  # (cardrl eval --workers N) builds its own from these bytes
            self.session = _onnx_session(self.model)
        except Exception as err:  # onnxruntime raises its own types for a bad file
            raise ValueError(f"{where}: {file.name} is not an ONNX model onnxruntime can run "
                             f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''})") from None
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.rows = rows
        want = 1 if rows else (2 if history_shape is None else 3)
        if len(self.inputs) != want:
            raise ValueError(f"{where}: {file.name} takes {len(self.inputs)} inputs {self.inputs}; this network needs "
                             f"{want}")
        self.net = SimpleNamespace(state_dim=int(state_dim), action_dim=int(action_dim),
                                   history_shape=None if history_shape is None else tuple(history_shape))

    def eval(self) -> "OnnxQNet":
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items() if name != "session"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.session = _onnx_session(self.model)

    def q_values(self, state, history, actions) -> np.ndarray:
        actions = np.asarray(actions, dtype=np.float32)
        state = np.asarray(state, dtype=np.float32).reshape(1, -1)
        if self.rows:
            feed = {self.inputs[0]: np.hstack([np.broadcast_to(state, (len(actions), state.shape[1])), actions])}
        else:
            feed = {"state": state, "action": actions}
            if history is not None:
                feed["history"] = np.asarray(history, dtype=np.float32)[None]
        return np.asarray(self.session.run(None, feed)[0], dtype=np.float32).reshape(-1)


def _danzero_model_agent(file: Path, game: str, options: Mapping[str, Any], card_order: str) -> QAgent:
    """The agent of a bare DanZero-format ONNX file (``onnx:MODEL.onnx[:CARD_ORDER]``)."""
    from cardrl.features.danzero import STATE_DIM
    from cardrl.features.danzero_client import INPUT_DIM

    where = f"onnx:{file}"
    if "danzero" not in get_game(game).features:
        raise ValueError(f"{where}: a bare ONNX file is read as a DanZero-format model, which plays a game with "
                         f"DanZero's features; {game} has none (a cardrl export is a directory with {AGENT_FILE})")
    net = OnnxQNet(file, STATE_DIM, None, INPUT_DIM - STATE_DIM, where, rows=True)
    shape = net.session.get_inputs()[0].shape
    if not shape or shape[-1] != INPUT_DIM:
        raise ValueError(f"{where}: its input has shape {shape}; a DanZero-format model takes (n, {INPUT_DIM}): "
                         f"[513 state | 54 action] per legal move (docs/export.md)")
    spec = get_game(game)
    record = {"game": spec.name, "input": card_order, "features": None, "modules": {a: "q" for a in spec.agents}}
    return _agent(record, {"q": net}, where, game, options)


def load_onnx_agent(path: str, game: str, options: Mapping[str, Any], module: str | None) -> QAgent:
    """The agent of the ``onnx:PATH`` spec kind (module docstring); ``:CARD_ORDER`` only after a bare DanZero-format
    model file (``onnx:MODEL.onnx:danzero_client``; default :data:`BARE_MODEL_ORDER`)."""
    root = Path(path)
    if root.is_file():
        if module is not None and module not in _danzero_inputs():
            raise ValueError(f"onnx:{path}:{module}: a DanZero-format model's card order is one of "
                             f"{', '.join(_danzero_inputs())} (default {BARE_MODEL_ORDER}), not {module!r}")
        return _danzero_model_agent(root, game, options, module or BARE_MODEL_ORDER)
    if module is not None:
        raise ValueError(f"onnx:{path}:{module}: onnx:DIR takes no :MODULE (the seats play the networks its "
                         f"{AGENT_FILE} maps them to)")
    record = read_agent_file(root, "onnx")
    where = f"onnx:{path}"
    rows = record.get("input") in _danzero_inputs()
    networks = {}
    for name, file in network_files(record, root, where).items():
        net = record["networks"][name]
        networks[name] = OnnxQNet(file, net["state_dim"], net.get("history_shape"), net["action_dim"], where, rows)
    return _agent(record, networks, where, game, options)


def load_weights_agent(path: str, game: str, options: Mapping[str, Any], module: str | None) -> QAgent:
    """The agent of the ``weights:DIR`` spec kind: safetensors files, each loaded into the torch network its JSON
    record describes (no pickle)."""
    if module is not None:
        raise ValueError(f"weights:{path}:{module}: weights:DIR takes no :MODULE (the seats play the networks its "
                         f"{AGENT_FILE} maps them to)")
    from cardrl.agents.torch_qnet import TorchQNet

    record = read_agent_file(path, "weights")
    where = f"weights:{path}"
    networks = {name: TorchQNet(record["networks"][name], tensors, f"{where} network {name!r}")
                for name, tensors in network_tensors(record, Path(path), where).items()}
    return _agent(record, networks, where, game, options)


def network_tensors(record: Mapping[str, Any], root: Path, where: str) -> dict[str, dict[str, Any]]:
    """Each network's tensors, read from the safetensors file an agent record names in ``root`` (no pickle);
    ValueError naming the file that is not safetensors, or the missing package."""
    try:
        from safetensors import SafetensorError
        from safetensors.torch import load_file
    except ImportError:
        raise _missing("safetensors", "weights") from None
    tensors = {}
    for name, file in network_files(record, root, where).items():
        try:
            tensors[name] = load_file(str(file))
        except (SafetensorError, OSError, ValueError) as err:
            raise ValueError(f"{where}: {file.name} is not a safetensors file ({err})") from None
    return tensors


def register() -> None:
    """Register the ``onnx`` and ``weights`` agent-spec kinds (the ``cardrl.agent_loaders`` entry point)."""
    register_agent_loader(AgentLoader("onnx", load_onnx_agent, "onnx:DIR|MODEL.onnx[:danzero_client]", runs_code=False),
                          replace=True)
    register_agent_loader(AgentLoader("weights", load_weights_agent, "weights:DIR", runs_code=False), replace=True)
