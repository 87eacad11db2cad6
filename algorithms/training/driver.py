"""What an algorithm gives the run loop (:mod:`cardrl.algorithms.training.loop`): how to build it, its progress fields
and line, how its agent is evaluated, and how its checkpoints are checked. Everything else of a run (Ray start-up,
the stop rule, when to evaluate, checkpoints, resume, the progress records and the final report) is the loop's.

A new algorithm writes one :class:`Driver` (its ``train.py``) and names it in
:data:`cardrl.algorithms.training.registry.ALGORITHMS`; docs/extending.md walks through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from cardrl.algorithms.training.run_spec import RunSpec

__all__ = ["Driver", "Evaluation"]


class Evaluation(Protocol):
    """How an algorithm's agent is evaluated against baseline agent specs (``--eval-against``)."""

    def baselines(self, config: Any, run_spec: RunSpec, specs: list[str]) -> Any:
        """The baselines of ``specs``, checked now (a bad spec fails before training starts)."""

    def evaluate(self, algo: Any, run_spec: RunSpec, baselines: Any) -> dict[str, Any]:
        """The record's evaluation fields: ``eval`` (baseline spec -> ``{"adp", "adp_low", "adp_high", ...}``: the
        mean score in the game's unit with its 95% interval) and any others the algorithm adds."""

    def line(self, record: dict[str, Any], run_spec: RunSpec) -> str:
        """The progress line's part for the evaluation fields beside ``eval`` (empty when there are none)."""

    def report_final(self, algo: Any, final: dict[str, Any], run_spec: RunSpec, baselines: Any) -> None:
        """Print the final evaluation of ``final`` (the final record), adding any fields it measures now."""


@dataclass(frozen=True)
class Driver:
    """An algorithm as ``cardrl train --algo NAME`` runs it (its options, settings dataclass and the optional run
    options it takes, are data in :mod:`cardrl.algorithms.training.run_spec`).

    ``build_config(run_spec, say)`` returns the algorithm's RLlib config of a run (``say`` prints notes about choices
    made for the user); ``describe(algo, config, run_spec, out)`` the lines printed before training;
    ``progress(result, run_spec)`` the record fields of one ``algo.train()`` result (``frames_trained`` among them)
    and the progress line's part for them; ``frames_trained(algo)`` the frames it has trained (a resumed run's too; 0
    where it does not resume); ``check(run_spec)`` refuses combinations of options before anything starts;
    ``verify_checkpoint(path)`` raises ValueError for an incomplete checkpoint (``--resume`` skips it);
    ``resumed_note`` ends the line that says a run was resumed; ``init_weights(algo, source)`` loads exported
    weights into a new run's networks (``--init-weights``) and returns the line that says so.
    """

    name: str
    title: str
    agent_kind: str
    build_config: Callable[[RunSpec, Callable[[str], Any]], Any]
    describe: Callable[[Any, Any, RunSpec, Path], list[str]]
    progress: Callable[[dict, RunSpec], tuple[dict, str]]
    evaluation: Evaluation
    frames_trained: Callable[[Any], int] = lambda algo: 0
    check: Callable[[RunSpec], None] = lambda run_spec: None
    verify_checkpoint: Callable[[Path], Any] | None = None
    resumed_note: str = ""
    init_weights: Callable[[Any, str], str] | None = None
