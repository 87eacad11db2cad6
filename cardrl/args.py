"""argparse value types shared by cardrl's commands (``train``, ``eval``, ``play``, ``tune``, ``plot``, ``report``).

Paths are made absolute when the command line is parsed: a run may read them from another working directory (Ray
workers), and pyarrow's file systems, which RLlib's checkpoints go through, refuse a relative path ("URI has empty
scheme")."""

from __future__ import annotations

import argparse
import os

__all__ = ["path_arg", "agent_spec_arg"]


def path_arg(text: str) -> str:
    """A path option's value made absolute against the current directory when the command line is parsed: the run
    may read it from another directory (Ray workers), and pyarrow's file systems, which RLlib's checkpoints go
    through, refuse a relative path ("URI has empty scheme")."""
    if not str(text).strip():
        raise argparse.ArgumentTypeError("a path must not be empty")
    return os.path.abspath(os.path.expanduser(str(text)))


def agent_spec_arg(text: str) -> str:
    """An agent spec with its path (``checkpoint:PATH[:MODULE]``, ``topk-ppo:PATH``, ...) made absolute when the
    command line is parsed (:func:`path_arg`); other specs, and specs that do not parse (refused later with the
    allowed forms), unchanged."""
    from cardrl.eval.agents import parse_agent_spec  # imported late: the eval package imports the games

    try:
        spec = parse_agent_spec(text)
    except ValueError:
        return text
    if spec.path is None:
        return spec.text
    return f"{spec.kind}:{path_arg(spec.path)}" + (f":{spec.module}" if spec.module is not None else "")
