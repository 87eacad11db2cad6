"""The node faults of ``cardrl bench chaos --nodes N`` (docs/operations.md, "A worker node dies"): its options and
their checks, what the records show after a worker node was killed (:func:`node_outcome`), and the lines of
``chaos.md`` that say the cluster's shape and the node faults. The cluster is :class:`~cardrl.bench.local_cluster.
LocalCluster`; the kill and the node added back are :class:`~cardrl.bench.chaos_run.WatchedRun`'s."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from cardrl.algorithms.training.settings import parse_duration
from cardrl.args import non_negative_int, positive_int
from cardrl.bench.checks import check_positive_durations

__all__ = ["cell", "node_outcome", "cluster_lines", "node_lines", "add_cluster_arguments", "check_cluster"]


def cell(x: Any, fmt: str = "{:,.0f}") -> str:
    """A table cell: ``x`` formatted, empty for None."""
    return "" if x is None else fmt.format(x)


def node_outcome(fault: dict, observations: Sequence, until: float | None, runner_back_s: float | None) -> dict:
    """What the records after a node kill show until ``until`` (the next fault; None: the end): trained frames lost
    (the frames at the kill less the fewest recorded after it), sample requests lost, the fewest healthy env runners
    before the lost runner came back, and the seconds from the new node's joining to the runner's restart."""
    after = [o for o in observations if o.t > fault["t"] and (until is None or o.t <= until)]
    before_back = [o for o in after if runner_back_s is None or o.t <= fault["t"] + runner_back_s]
    healthy = [o.healthy for o in before_back if o.healthy is not None]
    added = fault.get("node_added_s")
    return {"frames_lost": max(0, fault["frames_at"] - min((o.frames for o in after), default=fault["frames_at"])),
            "requests_lost": max((o.samples_lost for o in after), default=fault["samples_lost_at"])
            - fault["samples_lost_at"],
            "fewest_healthy": min(healthy) if healthy else None,
            "runner_back_after_node_s": None if added is None or runner_back_s is None else runner_back_s - added}


def cluster_lines(report: dict) -> list[str]:
    """The report's line saying the cluster's shape ([] for a run on a local Ray)."""
    cluster = report.get("cluster")
    if not cluster:
        return []
    return [f"cluster: {cluster['nodes']} Ray nodes on loopback, one per `ray start` (head {cluster['head_cpus']} "
            f"CPU(s), each worker node {cluster['node_cpus']}), the driver joining the head; a new cluster per run; "
            f"a worker node killed is SIGKILLed whole (raylet, agents, workers)  "]


def node_lines(faults: Sequence[dict]) -> list[str]:
    """chaos.md's table of the node faults ([] when there was none)."""
    nodes = [(n, f) for n, f in enumerate(faults, 1) if f["kind"] == "node"]
    if not nodes:
        return []
    lines = ["", "| # | worker node killed | processes killed | frames trained lost | sample requests lost | fewest "
             "env runners healthy | new node up after (s) | runner back after (s) | runner back after the new node "
             "(s) |", "|---|---|---|---|---|---|---|---|---|"]
    for n, f in nodes:
        roles = ", ".join(f"{r} x{f['killed'].count(r)}" if f["killed"].count(r) > 1 else r
                          for r in sorted(set(f["killed"])))
        up = cell(f.get("node_added_s"), "{:.1f}") or f.get("node_add_error", "not added")
        lines.append(f"| {n} | {f['node']} | {roles} | {cell(f.get('frames_lost'))} | "
                     f"{cell(f.get('requests_lost'))} | {cell(f.get('fewest_healthy'))} | {up} | "
                     f"{cell(f.get('runner_back_s'), '{:.1f}')} | "
                     f"{cell(f.get('runner_back_after_node_s'), '{:.1f}')} |")
    return lines


def add_cluster_arguments(parser: argparse.ArgumentParser) -> None:
    """``cardrl bench chaos``'s options of a run on a cluster and its node faults."""
    parser.add_argument("--nodes", type=non_negative_int, default=0,
                        help="run each run on a Ray cluster of its own of this many nodes on this machine (loopback: "
                             "a head and N-1 worker nodes, one `ray start` each), the driver joining it; 0: a local "
                             "Ray of the driver's own (default 0)")
    parser.add_argument("--head-cpus", type=non_negative_int, default=0,
                        help="with --nodes: the head's logical CPUs (default 0: env runners only on worker nodes, "
                             "the learner in the driver on the head)")
    parser.add_argument("--node-cpus", type=positive_int, default=1,
                        help="with --nodes: each worker node's logical CPUs (default 1: one env runner per node)")
    parser.add_argument("--kill-node-at", type=parse_duration, nargs="+", default=[],
                        help="with --nodes: SIGKILL a whole worker node that runs an env runner (its raylet and every "
                             "process on it) at these times after the chaos run's launch, e.g. 2m")
    parser.add_argument("--add-node-after", type=parse_duration, default=parse_duration("30s"),
                        help="with --kill-node-at: a new worker node joins this long after each kill (default 30s)")


def check_cluster(args: argparse.Namespace) -> None:
    """ValueError naming the option when ``--nodes`` and the node faults can not run: a cluster of a head alone, a
    node kill without a cluster or without env runners, more env runners than the cluster's CPUs."""
    check_positive_durations(add_node_after=args.add_node_after)
    if args.nodes == 1:
        raise ValueError("--nodes 1 is a head alone: give 2 or more (a head and worker nodes), or 0 for a local Ray")
    if args.kill_node_at and args.nodes < 2:
        raise ValueError("--kill-node-at kills a worker node of a cluster: give --nodes 2 or more")
    if args.kill_node_at and args.num_env_runners < 1:
        raise ValueError("--kill-node-at kills the node of an env runner: --num-env-runners must be >= 1")
    cpus = (args.nodes - 1) * args.node_cpus + args.head_cpus
    if args.nodes and args.num_env_runners > cpus:
        raise ValueError(f"--num-env-runners {args.num_env_runners} need a CPU each; a cluster of --nodes "
                         f"{args.nodes} has {cpus} (--head-cpus {args.head_cpus}, --node-cpus {args.node_cpus} per "
                         f"worker node)")
