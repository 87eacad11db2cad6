"""The training benchmark: DouZero log/CSV parsers on captured output, the rate estimator, a real short run of our
DMC (and, slow, of DouZero's trainer); output structure only, no speed assertions."""

from __future__ import annotations

import argparse
import re
import time

import pytest

from cardrl.bench import train as bt
from cardrl.bench import train_format as tf
from cardrl.bench import train_douzero, train_rates
from helpers.bench_train_results import ours_result

# Captured from douzero 1.1.0's train() on this machine (stderr), stats block included.
DOUZERO_LOG = """\
Saving logs' fields to /tmp/dz_sample/bench/fields.csv
[INFO:24490 utils:118 2026-11-22 22:04:40,430] Device cpu Actor 1 started.
[INFO:24444 dmc:233 2026-11-22 22:04:42,489] After 0 (L:0 U:0 D:0) frames: @ 0.0 fps (avg@ 0.0 fps) (L:0.0 U:0.0 D:0.0) Stats:
{'loss_landlord': 0,
 'mean_episode_return_landlord_up': 0}
[INFO:24444 dmc:233 2026-11-22 22:05:42,670] After 6400 (L:3200 U:0 D:3200) frames: @ 1279.6 fps (avg@ 106.6 fps) (L:639.8 U:0.0 D:639.8) Stats:
{'loss_landlord': 2.063774824142456,
 'loss_landlord_down': 2.0372509956359863,
"""

# Captured logs.csv of the same run (its FileWriter), plus a last line cut short by the kill.
DOUZERO_CSV = """\
# _tick,_time,frames,mean_episode_return_landlord,loss_landlord,mean_episode_return_landlord_up,loss_landlord_up,mean_episode_return_landlord_down,loss_landlord_down
0,1795385134.8391125,0,-0.26174497604370117,2.063774824142456,0,0,0,0
1,1795385138.1648688,3200,-0.26174497604370117,2.063774824142456,0,0,0.28947368264198303,2.0372509956359863
2,1795385141.929444,6400,-0.26174497604370117,2.063774824142456,0.27272728085517883,2.0304245948791504,0.28947368264198303,2.0372509956359863
3,1795385160.5,9600,-0.26174497604370117,2.063774824142456,0.27272728085517883,2.03042459"""


# ---- parsers --------------------------------------------------------------------------------------
def test_parse_douzero_log_reads_the_after_lines():
    lines = train_douzero.parse_douzero_log(DOUZERO_LOG)
    assert [line["frames"] for line in lines] == [0, 6400]
    last = lines[-1]
    assert (last["L"], last["U"], last["D"]) == (3200, 0, 3200)
    assert last["fps"] == 1279.6 and last["fps_avg"] == 106.6
    stamp = time.mktime(time.strptime("2026-11-22 22:05:42", "%Y-%m-%d %H:%M:%S")) + 0.670
    assert last["time"] == pytest.approx(stamp)
    assert lines[1]["time"] - lines[0]["time"] == pytest.approx(60.181)


def test_logged_lines_count_only_intervals_inside_the_window():
    lines = train_douzero.parse_douzero_log(DOUZERO_LOG)
    t_first, t_second = lines[0]["time"], lines[1]["time"]
    assert train_douzero.logged_in_window(lines, t_first, t_second) == [lines[1]]
    assert train_douzero.logged_in_window(lines, t_first + 0.001, t_second) == []  # its interval began before the window
    assert train_douzero.logged_in_window(lines, t_first, t_second - 0.001) == []


def test_parse_douzero_log_ignores_other_text():
    assert train_douzero.parse_douzero_log("Creating log directory: x\nAfter 5 frames\n[INFO:1 dmc:2 bad] After 3") == []


def test_read_douzero_csv_names_the_position_of_each_update(tmp_path):
    path = tmp_path / "logs.csv"
    path.write_text(DOUZERO_CSV)
    updates = train_douzero.read_douzero_csv(path)
    assert [u[1] for u in updates] == ["landlord", "landlord_down", "landlord_up"]  # the cut row is dropped
    assert [u[2] for u in updates] == [3200, 3200, 3200]
    assert updates[0][0] == pytest.approx(1795385134.8391125)


def test_read_douzero_csv_rejects_other_files(tmp_path):
    path = tmp_path / "logs.csv"
    path.write_text("frames,_time\n1,2\n")
    with pytest.raises(ValueError, match="not a DouZero logs.csv"):
        train_douzero.read_douzero_csv(path)


# ---- rate estimator -----------------------------------------------------------------------------
def _bursts(period: float, offsets: dict[str, float], until: float, frames: int = 3200):
    ups = [(o + k * period, pos, frames) for pos, o in offsets.items() for k in range(int(until // period) + 1)
           if o + k * period <= until]
    return sorted(ups)


def test_update_rate_sums_positions_each_between_its_own_updates():
    # each position updates every 10 s, in a burst; whatever the cut, the rate is 3 * 3200 / 10
    updates = _bursts(10.0, {"landlord": 0.0, "landlord_down": 0.5, "landlord_up": 1.0}, until=100.0)
    for seconds in (25.0, 30.2, 31.0, 59.9):
        rate = train_rates.update_rate(updates, seconds)
        assert rate["method"] == "per position"
        assert rate["frames_per_s"] == pytest.approx(960.0)
        assert rate["seconds"] == seconds
        assert set(rate["frames_per_s_by_position"]) == {"landlord", "landlord_down", "landlord_up"}
    whole = train_rates.update_rate(updates)  # no window: up to the last update
    assert whole["frames_per_s"] == pytest.approx(960.0) and whole["seconds"] == pytest.approx(100.0)


def test_update_rate_falls_back_to_all_updates_over_the_window():
    updates = [(0.0, "landlord", 3200), (1.0, "landlord_down", 3200), (2.0, "landlord_up", 3200)]
    rate = train_rates.update_rate(updates, 20.0)
    assert rate["method"] == "all"
    assert rate["frames"] == 6400 and rate["frames_per_s"] == pytest.approx(320.0)
    unknown = train_rates.update_rate([(0.0, "unknown", 3200), (4.0, "unknown", 3200)])
    assert unknown["method"] == "all" and unknown["frames_per_s"] == pytest.approx(800.0)


def test_update_rate_errors():
    with pytest.raises(ValueError, match="no updates"):
        train_rates.update_rate([])
    with pytest.raises(ValueError, match="one instant"):
        train_rates.update_rate([(5.0, "landlord", 3200)])


def test_module_updates_from_learner_lifetimes():
    result = {"frames_trained": 6400, "learners": {
        "__all_modules__": {"num_module_steps_trained_lifetime": 6400.0},
        "landlord": {"num_module_steps_trained_lifetime": 3200.0},
        "landlord_up": {"num_module_steps_trained_lifetime": 3200.0}}}
    ups, lifetimes = bt.module_updates(result, 1.0, {}, 0)
    assert ups == [(1.0, "landlord", 3200), (1.0, "landlord_up", 3200)]
    result["learners"]["landlord"]["num_module_steps_trained_lifetime"] = 6400.0
    ups, _ = bt.module_updates(result, 2.0, lifetimes, 6400)
    assert ups == [(2.0, "landlord", 3200)]
    assert bt.module_updates({"frames_trained": 9600}, 3.0, {}, 3200)[0] == [(3.0, "all", 6400)]


# ---- summary -------------------------------------------------------------------------------------
def test_summary_line():
    result = {"ours": {"frames_per_s": 1150.0}, "peers": {"douzero": {"frames_per_s": 500.0}}}
    assert tf.summary_lines(result) == ["vs douzero: 2.3x frames/s"]
    assert tf.summary_lines({"ours": {"frames_per_s": 1.0}, "peers": {}}) == []
    assert tf.summary_lines({"ours": {"frames_per_s": 1.0}, "peers": {"douzero": {"skipped": "x"}}}) == []


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match=r"game 'chess' is unknown; available: \['big2', 'doudizhu'"):
        bt.bench_train("chess", 1.0, peers=False)
    with pytest.raises(ValueError, match="seconds must be > 0"):
        bt.bench_train("doudizhu", 0.0)
    with pytest.raises(ValueError, match="num_env_runners must be >= 0"):
        bt.bench_ours("doudizhu", 1.0, num_env_runners=-1)
    with pytest.raises(SystemExit):  # the game argument's choices come from the registry
        bt.main_bench_train(["chess"])


def test_table_has_the_machine_on_top_and_every_trainer():
    ours = {"frames_per_s": 1150.0, "setup_s": 12.3, "frames_trained": 64000, "startup_s": 2.0, "build_s": 4.0,
            "first_update_s": 6.3, "frames_sampled_per_s": 1200.0, "episodes": 900, "iterations": 20, "updates": 30,
            "rate_method": "per position", "weight_lag": 0.5, "window_s": 60.0,
            "settings": {"num_env_runners": 1, **bt.OURS_SETTINGS, "options": {}, "ray_num_cpus": 2}}
    douzero = {"frames_per_s": 500.0, "setup_s": 20.0, "frames_trained": 30000, "updates": 9,
               "rate_method": "per position", "logged_fps_mean": 480.0, "logged_lines": 11, "version": "1.1.0",
               "settings": {"num_actors": 1, "actor_device": "cpu", "training_device": "cpu", "batch_size": 32,
                            "unroll_length": 100, "num_threads": 4}}
    result = {"game": "doudizhu", "seconds": 60.0, "cpus": 2, "machine": "CPU X, 2 cores, Python 3.11.7, numpy 2, "
              "torch 2", "load_before": 0.5, "ours": ours, "peers": {"douzero": douzero}}
    lines = tf.format_bench_train(result).splitlines()
    assert lines[0].startswith("cardrl bench train doudizhu: 60 s timed window")
    assert lines[1] == "machine: CPU X, 2 cores, Python 3.11.7, numpy 2, torch 2; load average 0.50 before the run"
    assert re.match(r"^trainer\s+frames/s\s+setup s\s+frames\s+settings$", lines[2])
    assert re.match(r"^cardrl DMC\s+1,150\s+12\.3\s+64,000\s+1 env runner\(s\) x 64 games", lines[3])
    assert re.match(r"^douzero 1\.1\.0\s+500\s+20\.0\s+30,000\s+1 actor\(s\) on cpu", lines[4])
    assert tf.summary_lines(result) == ["vs douzero: 2.3x frames/s"]


# ---- variants (a second run of DMC with other training options) ---------------------------------------------
def _run(frames_per_s: float, options: dict, pruning_ratio: float | None = None) -> dict:
    """A result of :func:`bt.bench_ours` as the table and the summary read it."""
    return ours_result(frames_per_s, options, pruning_ratio, q_model="luo_tan")


def test_variant_flags_are_parsed():
    args = bt._parser().parse_args(["big2", "--opponent-model", "luo_tan", "--prune", "mcs"])
    assert (args.opponent_model, args.prune) == ("luo_tan", "mcs")
    assert bt.variant_options(prune=args.prune, opponent_model=args.opponent_model) == {
        "opponent_model": "luo_tan", "prune": "mcs"}
    plain = bt._parser().parse_args(["big2"])
    assert bt.variant_options(plain.prune, plain.opponent_model) == {}
    with pytest.raises(SystemExit):
        bt._parser().parse_args(["big2", "--opponent-model", "oracle"])
    from cardrl.cli import build_parser  # the same flag under `cardrl bench train`

    cli = build_parser().parse_args(["bench", "train", "doudizhu", "--opponent-model", "douzero_plus"])
    assert cli.opponent_model == "douzero_plus" and cli.prune is None
    assert tf.variant_name({"prune": "mcs", "opponent_model": "luo_tan"}) == "opponent_model=luo_tan, prune=mcs"


def _child_commands(monkeypatch) -> dict:
    """Replace the child process by one that records its command line (``seen["cmd"]``) and reports 1 frame/s."""
    seen = {}

    def fake_run(cmd, **kwargs):
        seen["cmd"] = cmd
        return argparse.Namespace(returncode=0, stderr="", stdout=bt._RESULT_TAG + '{"frames_per_s": 1.0}\n')

    monkeypatch.setattr(bt.subprocess, "run", fake_run)
    return seen


def test_variant_options_reach_the_child_run(monkeypatch):
    seen = _child_commands(monkeypatch)
    options = {"opponent_model": "luo_tan", "prune": "mcs"}
    assert bt.bench_ours("big2", 1.0, options=options)["frames_per_s"] == 1.0
    child = bt._parser().parse_args(seen["cmd"][seen["cmd"].index("--_ours"):])  # what the child parses
    assert child._ours and child.game == "big2" and child._options == options
    bt.bench_ours("big2", 1.0)
    assert bt._parser().parse_args(seen["cmd"][3:])._options == {}


def test_variant_runs_second_and_its_ratio_is_printed(monkeypatch, capsys):
    calls = []

    def fake_bench_ours(game, seconds, num_env_runners=1, options=None, preset=None):
        calls.append((game, seconds, options))
        return _run(1000.0, {}) if options is None else _run(800.0, dict(options), 0.125)

    monkeypatch.setattr(bt, "bench_ours", fake_bench_ours)
    assert bt.main_bench_train(["big2", "--seconds", "3", "--no-peers", "--opponent-model", "luo_tan"]) == 0
    assert calls == [("big2", 3.0, None), ("big2", 3.0, {"opponent_model": "luo_tan"})]
    out = capsys.readouterr().out.splitlines()
    assert re.match(r"^cardrl DMC\s+1,000\s", out[3])
    assert re.match(r"^cardrl DMC \(opponent_model=luo_tan\)\s+800\s+12\.3\s+64,000\s+1 env runner", out[4])
    assert out[4].endswith("q_model luo_tan")
    assert any(line.startswith("cardrl DMC (opponent_model=luo_tan): setup = ") for line in out)
    assert out[-1] == "opponent_model=luo_tan vs no opponent model: 0.80x frames/s"
    calls.clear()
    bt.main_bench_train(["big2", "--seconds", "3", "--no-peers", "--opponent-model", "luo_tan", "--prune", "mcs"])
    assert calls[1][2] == {"opponent_model": "luo_tan", "prune": "mcs"}
    out = capsys.readouterr().out.splitlines()
    assert re.match(r"^cardrl ODMC \(opponent_model=luo_tan, prune=mcs\)\s+800\s", out[4])
    assert out[-1] == "opponent_model=luo_tan, prune=mcs vs plain DMC: 0.80x frames/s (pruning ratio 12.5%)"


def test_presets_run_as_cardrl_train_builds_them_and_the_second_ratio_is_printed(monkeypatch, capsys):
    calls = []

    def fake_bench_ours(game, seconds, num_env_runners=1, options=None, preset=None):
        calls.append((game, options, preset))
        run = _run(1000.0 if preset == "unified" else 1300.0, {})
        fast = preset == "unified_fast"
        run["settings"].update(preset=preset, features="unified", actor_precision="bfloat16" if fast else "float32",
                               sample_requests_in_flight=6 if fast else 1)
        return run

    monkeypatch.setattr(bt, "bench_ours", fake_bench_ours)
    assert bt.main_bench_train(["doudizhu", "--seconds", "3", "--no-peers", "--baseline", "unified",
                                "--variant", "unified_fast"]) == 0
    assert calls == [("doudizhu", None, "unified"), ("doudizhu", None, "unified_fast")]
    out = capsys.readouterr().out.splitlines()
    assert re.match(r"^cardrl unified\s+1,000\s", out[3]) and re.match(r"^cardrl unified_fast\s+1,300\s", out[4])
    assert out[3].endswith("features unified") and "request(s) in flight" not in out[3]
    assert out[4].endswith("features unified, actor bfloat16, learner float32, 6 request(s) in flight")
    assert out[-1] == "unified_fast vs unified: 1.30x frames/s"


def test_a_preset_is_built_as_cardrl_train_builds_it_and_refused_where_it_does_not_apply(monkeypatch):
    config = bt.preset_config("unified_fast", "doudizhu")
    assert (config.env_config["features"], config.actor_precision, config.max_requests_in_flight_per_env_runner) == (
        "unified", "bfloat16", 6)
    assert config.merge_env_runner_states is False and config.broadcast_env_runner_states is False
    fastest = bt.preset_config("dmc_bf16", "doudizhu")
    assert (fastest.actor_precision, fastest.learner_precision, fastest.max_requests_in_flight_per_env_runner) == (
        "bfloat16", "bfloat16", 6)

    def no_run(*args, **kwargs):
        raise AssertionError("a refused preset must not start a run")

    monkeypatch.setattr(bt, "bench_ours", no_run)
    with pytest.raises(ValueError, match=r"unknown variant 'fastest'; variants: dmc, "):
        bt.main_bench_train(["doudizhu", "--no-peers", "--variant", "fastest"])
    with pytest.raises(ValueError, match=r"variant 'douzero_plus_om' does not apply to big2"):
        bt.main_bench_train(["big2", "--no-peers", "--baseline", "douzero_plus_om"])
    with pytest.raises(ValueError, match=r"--variant unified_fast measures one second run; it can not come with "
                                         r"--prune, --opponent-model or --bidding \(prune=mcs\)"):
        bt.main_bench_train(["doudizhu", "--no-peers", "--variant", "unified_fast", "--prune", "mcs"])


def test_a_preset_reaches_the_child_run(monkeypatch):
    seen = _child_commands(monkeypatch)
    bt.bench_ours("doudizhu", 1.0, preset="unified_fast")
    child = bt._parser().parse_args(seen["cmd"][seen["cmd"].index("--_ours"):])
    assert child._preset == "unified_fast" and child._options == {}


def test_prune_alone_keeps_its_line_and_row():
    result = {"game": "big2", "seconds": 60.0, "cpus": 2, "machine": "m", "load_before": 0.5, "peers": {},
              "ours": _run(1000.0, {}), "ours_variant": _run(1120.0, {"prune": "mcs"}, 0.127)}
    assert tf.summary_lines(result) == ["prune=mcs vs no pruning: 1.12x frames/s (pruning ratio 12.7%)"]
    assert re.match(r"^cardrl ODMC \(prune=mcs\)\s+1,120\s", tf.format_bench_train(result).splitlines()[4])
    result["peers"] = {"douzero": {"frames_per_s": 500.0}}  # DouZero's line first, as before
    assert tf.summary_lines(result)[0] == "vs douzero: 2.0x frames/s"


def test_a_variant_dmc_refuses_is_refused_before_any_run(monkeypatch):
    import dataclasses

    from cardrl.games.registry import get_game, register_game, unregister_game

    def no_run(*args, **kwargs):
        raise AssertionError("a refused variant must not start a run")

    monkeypatch.setattr(bt, "bench_ours", no_run)
    # DMCConfig.validate's rule: the opponent model must read the game's (default) features
    with pytest.raises(ValueError, match=r"cardrl bench train doudizhu .*variant opponent_model=luo_tan: .*"
                                         r"opponent_model='luo_tan' does not read doudizhu's douzero_v1 features"):
        bt.main_bench_train(["doudizhu", "--seconds", "3", "--no-peers", "--opponent-model", "luo_tan"])
    with pytest.raises(ValueError, match=r"opponent_model='douzero_plus' does not read big2's luo_tan_v1 features"):
        bt.bench_train("big2", 3.0, peers=False, variant={"opponent_model": "douzero_plus", "prune": "mcs"})
    register_game(dataclasses.replace(get_game("big2"), name="big2_nosearch", env_name="big2_nosearch_v0",
                                      search=None, average_initial_cards=None))
    try:
        with pytest.raises(ValueError, match=r"variant prune=mcs: .*prune='mcs' needs a game with Minimum "
                                             r"Combination Search"):
            bt.bench_train("big2_nosearch", 3.0, peers=False, variant={"prune": "mcs"})
    finally:
        unregister_game("big2_nosearch")


def test_ours_runs_and_reports_dmcs_own_defaults():
    from cardrl.algorithms.dmc.dmc import DMCConfig

    config = DMCConfig()
    assert set(bt.OURS_SETTINGS) == {"num_envs_per_env_runner", "rollout_fragment_length", "frames_per_update"}
    assert bt.OURS_SETTINGS == {k: getattr(config, k) for k in bt.OURS_SETTINGS}


def test_child_env_has_one_thread_and_no_cluster(monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "auto")
    monkeypatch.setenv("OMP_NUM_THREADS", "8")
    env = train_rates.child_env()
    assert env["OMP_NUM_THREADS"] == "1" and "RAY_ADDRESS" not in env


# ---- real runs (a real local Ray in a child process; DouZero's own trainer) ------------------------
OURS_KEYS = {"frames_per_s", "window_s", "updates", "setup_s", "startup_s", "build_s", "first_update_s",
             "frames_trained", "frames_sampled", "episodes", "frames_sampled_per_s", "weight_lag", "settings",
             "rate_method", "process_s", "iterations"}


@pytest.fixture(scope="module")
def ours_only():
    return bt.bench_train("doudizhu", 8.0, peers=False)


@pytest.mark.slow
def test_ours_run_structure(ours_only):
    ours = ours_only["ours"]
    assert OURS_KEYS <= set(ours)
    assert ours["window_s"] >= 8.0 and ours["updates"] >= 2
    assert ours["frames_per_s"] > 0 and ours["frames_trained"] > 0
    assert ours["frames_trained"] % bt.OURS_SETTINGS["frames_per_update"] == 0
    assert ours["frames_sampled"] > 0 and ours["episodes"] > 0
    assert ours["setup_s"] == pytest.approx(ours["startup_s"] + ours["build_s"] + ours["first_update_s"], abs=0.01)
    from cardrl.algorithms.dmc.dmc import DMCConfig

    plain = DMCConfig().game("doudizhu")
    assert ours["settings"] == {"num_env_runners": 1, **bt.OURS_SETTINGS, "options": {}, "ray_num_cpus": 2,
                                "q_model": plain.q_model, "driver_sample_frames": plain.driver_sample_frames,
                                "preset": None, "features": None, "actor_precision": plain.actor_precision,
                                "learner_precision": plain.learner_precision,
                                "sample_requests_in_flight": plain.max_requests_in_flight_per_env_runner}
    assert ours_only["peers"] == {} and ours_only["ratio"] is None and ours_only["summary"] == []


@pytest.mark.slow
def test_ours_printed_table(ours_only, capsys):
    tf.print_bench_train(ours_only)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("cardrl bench train doudizhu: 8 s timed window")
    assert out[1].startswith("machine: ") and " cores, Python " in out[1]
    assert re.match(r"^trainer\s+frames/s\s+setup s\s+frames\s+settings$", out[2])
    assert re.match(r"^cardrl DMC\s+[\d,]+\s+\d+\.\d\s+[\d,]+\s+1 env runner\(s\) x 64 games", out[3])
    assert not any(line.startswith("vs douzero") for line in out)


@pytest.mark.slow
def test_opponent_model_variant_trains_with_the_default_q_model():
    from cardrl.algorithms.dmc.dmc import DMCConfig

    run = bt.bench_ours("big2", 3.0, options={"opponent_model": "luo_tan"})
    assert run["settings"]["options"] == {"opponent_model": "luo_tan"}  # read back from the child's DMCConfig
    assert run["settings"]["q_model"] == DMCConfig().game("big2").q_model
    assert run["frames_per_s"] > 0 and run["frames_trained"] > 0


@pytest.mark.slow
def test_douzero_run_structure_and_summary(ours_only):
    pytest.importorskip("douzero.dmc.dmc")
    dz = train_douzero.bench_douzero(10.0, num_actors=1)
    assert dz["frames_per_s"] > 0 and dz["setup_s"] > 0 and dz["updates"] >= 1
    assert dz["settings"]["num_actors"] == 1 and dz["window_s"] == 10.0
    assert dz["rate_method"] in ("per position", "all")
    result = {**ours_only, "peers": {"douzero": dz}}
    summary = tf.summary_lines(result)
    assert len(summary) == 1 and re.fullmatch(r"vs douzero: \d+\.\dx frames/s", summary[0])
    table = tf.format_bench_train(result).splitlines()
    assert re.match(r"^douzero 1\.1\.0\s+[\d,]+\s+\d+\.\d\s+[\d,]+\s+1 actor\(s\) on cpu", table[4])


def test_bidding_is_a_variant_measured_against_a_fixed_landlord():
    args = bt._parser().parse_args(["doudizhu", "--bidding"])
    assert bt.variant_options(args.prune, args.opponent_model, args.bidding) == {"bidding": True}
    assert bt.variant_options(None, None, False) == {}
    result = {"peers": {}, "ours": _run(1000.0, {}), "ours_variant": _run(900.0, {"bidding": True})}
    assert tf.summary_lines(result) == ["bidding=True vs a fixed landlord: 0.90x frames/s"]
    with pytest.raises(ValueError, match="variant bidding=True: .*big2 has no bidding phase"):
        bt.check_variant("big2", {"bidding": True})
