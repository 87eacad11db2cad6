"""`cardrl report RUN_DIR` on a short real run (the README's command, tiny): one self-contained HTML page with the
run's command and options, the learning curves inlined as a PNG, the latest evaluation, the checkpoint; it parses,
its image decodes, it fetches nothing; with Chromium installed (Debian's `chromium`) it renders in a headless
browser. The run also shows that the final evaluation is recorded in progress.jsonl, so a short run plots."""

from __future__ import annotations

import base64
import json
import shlex
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from cardrl.cli import main, parse_args, train_spec
from cardrl.eval.report import build_report
from cardrl.run_dir import read_progress

PNG = b"\x89PNG\r\n\x1a\n"
SHORT_RUN = ["train", "doudizhu", "--stop-frames", "1200", "--num-env-runners", "0", "--num-envs-per-env-runner", "8",
             "--frames-per-update", "200", "--eval-every", "0", "--eval-every-frames", "400", "--eval-deals", "10"]


class _Page(HTMLParser):
    """The parts of a page the test looks at: tags seen, images, headings, links to elsewhere, the text."""

    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.images: list[dict] = []
        self.headings: list[str] = []
        self.remote: list[str] = []
        self.text: list[str] = []
        self._in_heading = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "img":
            self.images.append(attrs)
        if tag in ("h1", "h2"):
            self._in_heading = True
            self.headings.append("")
        for key in ("src", "href"):
            if attrs.get(key) and not attrs[key].startswith("data:"):
                self.remote.append(attrs[key])

    def handle_endtag(self, tag):
        if tag in ("h1", "h2"):
            self._in_heading = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_heading:
            self.headings[-1] += data


def _run_short(out) -> None:
    assert main([*SHORT_RUN, "--out", str(out)]) == 0


def test_report_of_a_short_run(ray_local, tmp_path, capsys):
    run = tmp_path / "run"
    _run_short(run)
    capsys.readouterr()

    # the final evaluation is recorded: the last record, every field of an iteration's record kept
    records = read_progress(run)
    final = records[-1]
    assert final.get("final") is True and set(final["eval"]) == {"random"}
    assert set(records[-2]) - {"eval", "reached_adp_above_0"} <= set(final)
    assert final["frames_trained"] >= 1200 and final["deals"] == final["episodes"] > 0

    # config.json: the command (it parses back to the same options), the options, the DMC config
    config = json.loads((run / "config.json").read_text())
    assert config["game"] == "doudizhu" and config["spec"]["run"]["eval_deals"] == 10
    assert config["dmc"]["frames_per_update"] == 200
    again = train_spec(parse_args(shlex.split(config["command"])[1:]))
    assert again.to_dict() == config["spec"]

    assert main(["report", str(run)]) == 0
    assert capsys.readouterr().out.strip() == f"report written: {run / 'report.html'}"
    page_text = (run / "report.html").read_text()
    page = _Page()
    page.feed(page_text)
    page.close()
    assert page.tags[0] == "html" and "body" in page.tags
    assert page.headings[1:] == ["Summary", "Latest evaluation", "Learning curves", "Evaluation history", "Checkpoint",
                                 "Configuration"]
    assert not page.remote and "<script" not in page_text  # self-contained
    assert len(page.images) == 1
    src = page.images[0]["src"]
    assert src.startswith("data:image/png;base64,")
    png = base64.b64decode(src.split(",", 1)[1], validate=True)
    assert png[:8] == PNG and len(png) > 20_000
    text = " ".join(page.text)
    assert str(run / "checkpoint") in text and config["command"] in text
    ev = final["eval"]["random"]
    assert f"{ev['adp_low']:+.3f}, {ev['adp_high']:+.3f}" in text  # the latest evaluation's interval

    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed: the page was parsed, not rendered")
    shot = tmp_path / "report.png"
    subprocess.run(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1280,2400", f"--screenshot={shot}", (run / "report.html").as_uri()],
                   check=True, capture_output=True, timeout=120)
    import matplotlib.image

    pixels = matplotlib.image.imread(str(shot))
    assert pixels.shape[:2] == (2400, 1280)
    assert pixels[..., :3].std() > 0.05  # not a blank page


def test_report_of_what_is_not_a_run_is_one_error_line(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip() == f"cardrl report: error: {tmp_path / 'nope'}: no such run directory"


def test_report_of_a_synthetic_match_run_names_matches(tmp_path):
    """A GuanDan-like run's page says points per deal and shows the whole-match table (synthetic records)."""
    run = tmp_path / "gd"
    run.mkdir()
    record = {"time_s": 30.0, "iteration": 3, "frames_trained": 600, "frames_per_s": 20.0, "episodes": 2,
              "deals": 17, "losses": {"shared": 0.4}}
    final = {**record, "final": True, "reached_adp_above_0": {},
             "eval": {"random": {"team_0": 0.5, "team_1": 0.1, "adp": 0.3, "adp_low": -0.2, "adp_high": 0.8}},
             "matches": {"random": {"matches": 1, "win_rate": 0.5, "win_rate_low": 0.5, "win_rate_high": 0.5,
                                    "win_rate_exact_interval": [0.01, 0.99], "points_per_deal": 0.2,
                                    "points_per_deal_low": 0.2, "points_per_deal_high": 0.2, "deals_per_match": 8.5}}}
    (run / "progress.jsonl").write_text(json.dumps(record) + "\n" + json.dumps(final) + "\n")
    (run / "config.json").write_text(json.dumps({"game": "guandan", "title": "GuanDan", "algo": "dmc"}))
    page = build_report(run)
    assert "2 matches (17 deals)" in page and "points per deal (side A)" in page and "match win rate" in page
    assert "ADP (side A)" not in page


def test_report_shows_the_trained_oracle_block_and_unpruned_scores_labelled(tmp_path):
    """An oracle or ODMC run's page lists the headline (what it fed, from eval_label) and, below it, the scores with
    the trained block and unpruned, each labelled (synthetic records)."""
    run = tmp_path / "oracle"
    run.mkdir()
    ev = {"random": {"adp": 1.0, "adp_low": 0.5, "adp_high": 1.5}}
    final = {"time_s": 30.0, "iteration": 3, "frames_trained": 600, "final": True, "eval": ev,
             "eval_label": "zero oracle block (deployable); MCS pruning, as trained",
             "eval_oracle": {"label": "trained oracle block", "oracle_lambda": 1.0,
                             "results": {"random": {"adp": 1.25, "adp_low": 0.75, "adp_high": 1.75}}},
             "eval_unpruned": {"label": "unpruned", "results": {"random": {"adp": 0.9, "adp_low": 0.4,
                                                                            "adp_high": 1.4}},
                               "outside_kept": {"decisions": 100, "outside": 1, "rate": 0.01}}}
    (run / "progress.jsonl").write_text(json.dumps(final) + "\n")
    (run / "config.json").write_text(json.dumps({"game": "doudizhu", "algo": "dmc"}))
    page = build_report(run)
    assert "zero oracle block (deployable); MCS pruning, as trained" in page
    assert "random</code> (trained oracle block)" in page and "+1.250" in page
    assert "random</code> (unpruned)" in page and "+0.900" in page
