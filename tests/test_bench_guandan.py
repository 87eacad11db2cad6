"""``cardrl bench env guandan``: the GuanDan environment benchmark runs, reports every part, and says no peer exists."""

from cardrl.bench import main_bench_env
from cardrl.bench_guandan import NO_PEER, bench_env_guandan, format_bench_env_guandan
from cardrl.cli import GAMES, build_parser


def test_bench_reports_every_part():
    result = bench_env_guandan(seconds=0.05)
    ours = result["ours"]
    for part in ("engine", "features", "env"):
        assert ours[part]["games"] >= 1 and ours[part]["steps_per_s"] > 0
    assert ours["encode_us"] > 0
    lead = ours["lead27"]
    assert lead["p99_us"] >= 0 and lead["mean_us"] > 0 and lead["moves"] > 27  # a 27-card lead has > 27 moves
    assert result["peers"] == {} and result["summary"] == [NO_PEER]
    text = format_bench_env_guandan(result)
    assert "guandan_v0" in text and "p99 us" in text and text.endswith(NO_PEER)


def test_command_line(capsys):
    assert "guandan" in GAMES
    args = build_parser().parse_args(["bench", "env", "guandan", "--seconds", "0.02"])
    assert args.game == "guandan"
    assert main_bench_env(["guandan", "--seconds", "0.02"]) == 0
    assert "GuanDan env benchmark" in capsys.readouterr().out
