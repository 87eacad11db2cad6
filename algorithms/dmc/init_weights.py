"""``cardrl train --init-weights weights:DIR | zoo:NAME``: a DMC run whose Q-networks start from exported weights
(``cardrl export CHECKPOINT --format safetensors --out DIR``, or a zoo entry) instead of random ones.

What it is for: continuing a long run on another machine from its last export (a checkpoint is machine-local; an
export is a few megabytes of safetensors that a repository can carry), and fine-tuning a zoo agent. What starts fresh:
the optimizer's state, the frame counters and the schedules (what ``--resume`` would have kept); the weights are the
export's, float16 exports widened to float32. The networks must be the ones the run builds: the same game, features,
Q-network and opponent model, checked name by name and shape by shape, with what the export was trained with in the
error. docs/operations.md, "Carrying a run to another machine".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["read_init_weights", "load_init_weights", "INIT_WEIGHTS_KINDS"]

INIT_WEIGHTS_KINDS = ("weights", "zoo")


def _directory(source: str, game: str) -> Path:
    kind, _, rest = source.partition(":")
    if kind not in INIT_WEIGHTS_KINDS or not rest:
        raise ValueError(f"--init-weights {source!r}: give weights:DIR (a directory cardrl export --format "
                         f"safetensors wrote) or zoo:NAME (an entry of cardrl zoo list)")
    if kind == "zoo":
        from cardrl.zoo.catalog import entry_dir, entry_game

        if entry_game(rest) != game:
            raise ValueError(f"--init-weights {source}: zoo:{rest} plays {entry_game(rest)}, not {game}")
        return entry_dir(rest)
    return Path(rest)


def read_init_weights(source: str, game: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The agent record (``cardrl_agent.json``) and each network's float32 tensors of ``source``; ValueError or
    FileNotFoundError naming what is wrong (an unknown kind, another game, a file that is not safetensors)."""
    from cardrl.agents.exported import network_tensors, read_agent_file

    directory = _directory(source, game)
    record = read_agent_file(directory, "weights")
    if record["game"] not in (game, f"{game}_v0"):
        raise ValueError(f"--init-weights {source}: the weights play {record['game']!r}, not {game!r}")
    networks = network_tensors(record, directory, f"--init-weights {source}")
    return record, {name: {k: v.float() for k, v in tensors.items()} for name, tensors in networks.items()}


def _trained_with(record: dict[str, Any], name: str) -> str:
    net = dict(record["networks"].get(name) or {})
    return (f"features {record.get('features')!r}, q_model {net.get('kind')!r}, opponent model "
            f"{net.get('opponent_model')!r}, hidden sizes {net.get('hidden_sizes')}")


def _differences(own: dict[str, tuple], tensors: dict[str, Any]) -> list[str]:
    problems = [f"missing {sorted(set(own) - set(tensors))}"] if set(own) - set(tensors) else []
    if set(tensors) - set(own):
        problems.append(f"unexpected {sorted(set(tensors) - set(own))}")
    problems += [f"{k}: {tuple(tensors[k].shape)} in the weights, {shape} here"
                 for k, shape in own.items() if k in tensors and tuple(tensors[k].shape) != shape]
    return problems


def _q_module_shapes(learner: Any) -> dict[str, dict[str, tuple]]:
    from cardrl.algorithms.dmc.q_module import DMCQModule

    return {mid: {k: tuple(v.shape) for k, v in learner.module[mid].state_dict().items()}
            for mid in learner.module.keys() if isinstance(learner.module[mid], DMCQModule)}


def load_init_weights(algo: Any, source: str) -> str:
    """Load ``source``'s networks into every Q-module of ``algo``'s learners (each module by its id: a shared network
    ``shared``, DouZero's three by role) and send them to the env runners; returns the line that says so. ValueError,
    before anything is loaded, when a module has no network in the export or a tensor's name or shape differs."""
    record, networks = read_init_weights(source, algo.config.game_spec.name)
    shapes = [call.get() for call in algo.learner_group.foreach_learner(_q_module_shapes)][0]
    for mid, own in shapes.items():
        if mid not in networks:
            raise ValueError(f"--init-weights {source}: this run trains the module {mid!r}, the weights hold "
                             f"{sorted(networks)} (trained with {_trained_with(record, next(iter(networks)))}); "
                             f"give the options they were trained with")
        problems = _differences(own, networks[mid])
        if problems:
            raise ValueError(f"--init-weights {source}: module {mid!r} does not fit (" + "; ".join(problems[:6])
                             + f"); the weights were trained with {_trained_with(record, mid)}: give those options")
    states = {mid: networks[mid] for mid in shapes}

    def load(learner: Any) -> None:
        for mid, tensors in states.items():
            learner.module[mid].load_state_dict(tensors)

    for call in algo.learner_group.foreach_learner(load):
        call.get()  # raises a learner's error here
    algo._sync_weights()  # the runners load the new weights with their next sample request
    frames = dict(record.get("source") or {}).get("frames_trained")
    return (f"initial weights from {source} ({', '.join(shapes)}"
            + (f"; exported after {frames:,} frames" if isinstance(frames, int) else "")
            + "): the optimizer state, counters and schedules start fresh")
