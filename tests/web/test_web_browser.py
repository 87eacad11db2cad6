"""cardrl serve's Replay, Compare and Runs pages in a real headless browser (Debian's chromium through selenium's
chromedriver), at 1280x900, against the running server: a GuanDan match replayed to its end, a checkpoint's values,
a replay's link opened in a new browser session, a record whose seed is above 2**53 compared on the same deal, two
agents compared, the runs' evaluations and curves. Screenshots go to the test's tmp directory (CARDRL_SCREENSHOTS=DIR
keeps them there; docs/web/ holds the ones docs/web.md shows)."""

from __future__ import annotations

import pytest

from helpers.browser import by_id, idle, load_record, no_error, open_page, select, start_browser, stop_browser, wait
from helpers.web_server import BIG_SEED


@pytest.mark.slow
def test_replay_a_guandan_match_to_its_end(browser, server, shots):
    load_record(browser, server, "guandan_0000_a-team-0.json", "GuanDan")
    seats = browser.find_elements("css selector", "#replay-table .seat")
    assert len(seats) == 4 and all(s.find_elements("css selector", ".hand .c") for s in seats)  # every hand shown
    for _ in range(3):
        by_id(browser, "replay-fwd").click()
    assert by_id(browser, "replay-pos").text.startswith("move 4 of")
    by_id(browser, "replay-back").click()
    assert by_id(browser, "replay-pos").text.startswith("move 3 of")
    select(browser, "replay-speed", "very fast")
    by_id(browser, "replay-play").click()
    wait(browser, lambda d: "(end)" in by_id(d, "replay-pos").text)
    table = by_id(browser, "replay-table").text
    assert "Game over" in table and "Deal 2 at level" in table
    no_error(browser)
    shots(browser, "replay_guandan_end")


def test_replay_shows_the_q_values_of_a_checkpoint(browser, server, shots):
    load_record(browser, server, "doudizhu_0000_a-landlord.json", "DouDiZhu")
    for _ in range(3):  # the landlord's (the checkpoint's) second move
        by_id(browser, "replay-fwd").click()
    table = by_id(browser, "replay-table").text
    assert "Q of the top moves" in table
    assert browser.find_elements("css selector", "#replay-table .values tr.chosen")
    bars = [float(b.get_attribute("style").split("width:")[1].split("%")[0].strip())
            for b in browser.find_elements("css selector", "#replay-table .values .bar")]
    assert bars == sorted(bars, reverse=True) and bars[0] == 100  # the best move has the longest bar
    negative = browser.execute_script("return barWidths({kind: 'q', moves: [{value: -0.2}, {value: -0.9}, "
                                      "{value: -1.5}]})")
    assert negative[0] == 100 and negative[0] > negative[1] > negative[2] > 0  # so too when every Q is below 0
    shots(browser, "replay")
    load_record(browser, server, "bidding/doudizhu_0000_a-seat-0.json", "A seat 0")  # the whole game: bids first
    assert "Bidding: bids so far none yet" in by_id(browser, "replay-table").text
    while "Bidding" in by_id(browser, "replay-table").text:
        by_id(browser, "replay-fwd").click()
    assert "is the landlord at bid" in by_id(browser, "replay-table").text
    assert "Bottom cards" in by_id(browser, "replay-table").text
    by_id(browser, "replay-back").click()
    shots(browser, "replay_doudizhu_bidding")


def test_a_replay_link_opened_in_a_new_browser_session_lands_on_the_same_move(browser, server):
    load_record(browser, server, "guandan_0000_a-team-0.json", "GuanDan")
    for _ in range(7):
        by_id(browser, "replay-fwd").click()
    link = by_id(browser, "replay-link").get_attribute("href")
    assert link == browser.current_url and "at=7" in link
    position, table = by_id(browser, "replay-pos").text, by_id(browser, "replay-table").text
    other = start_browser()  # a fresh profile: nothing of the first session
    try:
        other.get(link)
        wait(other, lambda d: by_id(d, "replay-pos").text == position)
        assert by_id(other, "replay-table").text == table
        assert by_id(other, "replay-title").text == by_id(browser, "replay-title").text
        no_error(other)
    finally:
        stop_browser(other)


def test_a_record_with_a_seed_above_2_53_is_compared_on_the_same_deal(browser, server):
    load_record(browser, server, "big_seed/doudizhu_0000_a-landlord.json", "DouDiZhu")
    assert f"deal seed {BIG_SEED}" in by_id(browser, "replay-title").text  # exact, not rounded
    first = browser.execute_script("return replay.data.frames[0].seats")
    by_id(browser, "replay-compare").click()
    wait(browser, lambda d: by_id(d, "page-compare").is_displayed())
    assert by_id(browser, "compare-seed").get_attribute("value") == str(BIG_SEED)
    assert by_id(browser, "compare-game").get_attribute("value") == "doudizhu"
    select(browser, "compare-a", "run0")
    select(browser, "compare-b", "rule")
    by_id(browser, "compare-run").click()
    wait(browser, lambda d: by_id(d, "compare-view").is_displayed() and idle(d))
    no_error(browser)
    assert f"On deal {BIG_SEED} " in by_id(browser, "compare-summary").text
    assert browser.execute_script("return compare.data.left.frames[0].seats") == first  # the record's deal
    assert browser.execute_script("return compare.data.right.frames[0].seats") == first


@pytest.mark.slow
def test_compare_two_agents_marks_the_first_difference_and_gives_a_net(browser, server, shots):
    open_page(browser, server, "compare")
    select(browser, "compare-a", "run0")
    select(browser, "compare-b", "rule")
    by_id(browser, "compare-seed").clear()
    by_id(browser, "compare-seed").send_keys("9")
    by_id(browser, "compare-run").click()
    wait(browser, lambda d: by_id(d, "compare-view").is_displayed() and idle(d))
    no_error(browser)
    summary = by_id(browser, "compare-summary").text
    assert "first differs at move" in summary or "the same way" in summary
    assert "run0's net payoff against rule:" in summary and by_id(browser, "compare-net").text.startswith("run0 vs rule")
    if "first differs" in summary:
        assert len(browser.find_elements("css selector", ".decision.diff")) == 2  # marked on both sides
    assert by_id(browser, "compare-left-title").text == "run0 in seat 0 (A landlord), rule in the others"
    shots(browser, "compare")
    link = by_id(browser, "compare-link").get_attribute("href")
    browser.get("about:blank")
    browser.get(link)  # the comparison's link plays the same deal again, at the same move
    wait(browser, lambda d: by_id(d, "compare-view").is_displayed() and idle(d))
    assert by_id(browser, "compare-summary").text == summary


def test_runs_show_the_evaluations_formatted_and_the_curves_on_the_page(browser, server, shots):
    open_page(browser, server, "runs")
    wait(browser, lambda d: d.find_elements("css selector", ".run .evals li"))
    lines = [li.text for li in browser.find_elements("css selector", ".run .evals li")]
    assert lines == ["+1.20 [+0.70, +1.70] vs random", "-0.40 [-0.90, +0.10] vs rule"]
    wait(browser, lambda d: d.execute_script(
        "const i = document.querySelector('img.curves'); return i.complete && i.naturalWidth > 0"))
    report = browser.find_element("css selector", ".run a.report")
    assert report.get_attribute("href").endswith("/runs/run0/report") and report.get_attribute("target") == "_blank"
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 1280  # nothing off the page
    no_error(browser)
    shots(browser, "runs")
