"""Every path option of every CLI command takes a path relative to the current directory: it is made absolute when
the command line is parsed (tests/algorithms/topk_ppo/test_topk_ppo.py runs a relative --dmc-checkpoint, --out and eval specs for real)."""

from __future__ import annotations

import os

import pytest

from cardrl.cli import parse_args


@pytest.mark.parametrize("argv, dest, expected", [
    (["train", "guandan", "--out", "runs/x"], "out", "{cwd}/runs/x"),
    (["train", "guandan", "--restore", "ck"], "restore", "{cwd}/ck"),
    (["train", "guandan", "--algo", "topk-ppo", "--dmc-checkpoint", "dmc/checkpoint"], "dmc_checkpoint",
     "{cwd}/dmc/checkpoint"),
    (["train", "guandan", "--eval-against", "rule", "checkpoint:dmc/checkpoint"], "eval_against",
     ["rule", "checkpoint:{cwd}/dmc/checkpoint"]),
    (["eval", "guandan", "--a", "checkpoint:a/ck", "--b", "topk-ppo:b/ck:greedy"], ("a", "b"),
     ("checkpoint:{cwd}/a/ck", "topk-ppo:{cwd}/b/ck:greedy")),
    (["eval", "doudizhu", "--league", "random", "douzero:dz", "ppo:p/ck"], "league",
     ["random", "douzero:{cwd}/dz", "ppo:{cwd}/p/ck"]),
    (["eval", "doudizhu", "--a", "random", "--deal-file", "d.npz", "--save-deals", "s.npz", "--out", "t"],
     ("deal_file", "save_deals", "out"), ("{cwd}/d.npz", "{cwd}/s.npz", "{cwd}/t")),
    (["play", "guandan", "--opponents", "rule", "checkpoint:ck"], "opponents", ["rule", "checkpoint:{cwd}/ck"]),
    (["plot", "runs/x", "--out", "c.png"], ("run_dir", "out"), ("{cwd}/runs/x", "{cwd}/c.png")),
    (["report", "runs/x", "--out", "r.html"], ("run_dir", "out"), ("{cwd}/runs/x", "{cwd}/r.html")),
    (["tune", "guandan", "--space", "s.json", "--out", "sw", "--metric-against", "checkpoint:ck"],
     ("space", "out", "metric_against"), ("{cwd}/s.json", "{cwd}/sw", "checkpoint:{cwd}/ck")),
])
def test_every_path_option_is_resolved_against_the_cwd_when_parsed(argv, dest, expected, tmp_path, monkeypatch):
    """A relative path means the directory the command was given in, whatever directory the run reads it from
    later (Ray workers; pyarrow's file systems refuse relative paths: "URI has empty scheme")."""
    monkeypatch.chdir(tmp_path)
    args = parse_args(argv)
    dests, wanted = (dest, expected) if isinstance(dest, tuple) else ((dest,), (expected,))
    cwd = os.getcwd()
    for d, want in zip(dests, wanted):
        want = [w.format(cwd=cwd) for w in want] if isinstance(want, list) else want.format(cwd=cwd)
        assert getattr(args, d) == want, d


def test_specs_without_a_path_and_bad_specs_are_left_to_their_own_checks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = parse_args(["eval", "guandan", "--a", "random:3", "--b", "nonsense:x"])
    assert (args.a, args.b) == ("random:3", "nonsense:x")  # refused later, naming the allowed kinds
