"""`cardrl train` names what it counts and measures as the game's evaluation protocol does: a game whose episode is
a match (GuanDan) prints matches and deals, points per deal and the match win rate, never "episodes" or "ADP"; a
game whose episode is a deal prints deals and ADP."""

from __future__ import annotations

import re

from cardrl.cli import main
from cardrl.games.registry import game_names, get_game
from cardrl.run_dir import read_progress

TINY = ["--num-env-runners", "0", "--num-envs-per-env-runner", "4", "--frames-per-update", "200", "--hidden-sizes",
        "16", "--eval-every", "1s", "--eval-deals", "10", "--eval-against", "random"]


def _train(game, tmp_path, capsys, frames=400) -> tuple[str, list[dict]]:
    assert main(["train", game, "--stop-frames", str(frames), *TINY, "--out", str(tmp_path / game)]) == 0
    return capsys.readouterr().out, read_progress(tmp_path / game)


def test_a_match_game_says_matches_deals_points_per_deal_and_match_win_rate(ray_local, tmp_path, capsys):
    game = next(g for g in game_names() if get_game(g).protocol.unit == "match")
    out, records = _train(game, tmp_path, capsys)
    lines = [line for line in out.splitlines() if "| frames" in line]
    assert lines and all(re.search(r"\| matches \d+ \(\d+ deals\) \|", line) for line in lines), lines
    assert "episodes" not in out and "ADP" not in out
    assert all("| points/deal vs random " in line for line in lines if " vs random " in line)
    assert "final points per deal vs random over 10 deals x 2 (teams swapped): " in out
    assert re.search(r"final match win rate vs random over 1 match x 2 \(teams swapped\): [01]\.\d{3} \[", out)
    assert "deals per match" in out
    assert records[-1]["deals"] > 0  # deals are counted while no match has ended yet
    final = records[-1]
    assert final["final"] and final["matches"]["random"]["matches"] == 1 and "adp" in final["eval"]["random"]


def test_final_matches_0_ends_a_match_game_without_whole_matches(ray_local, tmp_path, capsys):
    """``--final-matches 0``: a run another continues (the benchmark's first stage) skips the matches at its end."""
    game = next(g for g in game_names() if get_game(g).protocol.unit == "match")
    assert main(["train", game, "--stop-frames", "400", *TINY, "--final-matches", "0", "--out", str(tmp_path)]) == 0
    out, records = capsys.readouterr().out, read_progress(tmp_path)
    assert "final points per deal vs random over 10 deals x 2 (teams swapped): " in out  # the deals still played
    assert "match win rate" not in out and records[-1]["final"] and "matches" not in records[-1]


def test_a_deal_game_says_deals_and_adp(ray_local, tmp_path, capsys):
    game = next(g for g in game_names() if get_game(g).protocol.unit == "deal")
    out, records = _train(game, tmp_path, capsys, frames=200)
    lines = [line for line in out.splitlines() if "| frames" in line]
    assert lines and all(re.search(r"\| deals \d+ \|", line) for line in lines) and "episodes" not in out
    assert all("| ADP vs random " in line for line in lines if " vs random " in line)
    arrangements = len(get_game(game).protocol.arrangements)
    assert f"final ADP vs random over 10 deals x {arrangements} arrangements: " in out and "points" not in out
    assert "match win rate" not in out and "matches" not in records[-1]
    assert records[-1]["deals"] == records[-1]["episodes"]
