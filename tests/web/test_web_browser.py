"""cardrl serve in a real headless browser (Debian's chromium through selenium's chromedriver), against the running
server: replay a saved GuanDan match to its end, compare two agents, play a whole DouDiZhu deal and a Big2 deal by
clicking, with hints (slow tests; the quick smoke test replays a checkpoint's Q-values). Screenshots go to the test's tmp directory (CARDRL_SCREENSHOTS=DIR keeps them there)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cardrl.games.registry import get_game
from helpers.browser import start_browser, stop_browser

WAIT_S = 60


@pytest.fixture(scope="module")
def browser():
    driver = start_browser()
    yield driver
    stop_browser(driver)


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("CARDRL_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return lambda driver, name: driver.save_screenshot(str(folder / f"{name}.png"))


def _wait(driver, test):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT_S, poll_frequency=0.1).until(lambda d: test(d))


def _by_id(driver, name):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, name)


def _select(driver, name, text):
    from selenium.webdriver.support.ui import Select

    Select(_by_id(driver, name)).select_by_visible_text(text)


def _no_error(driver):
    box = _by_id(driver, "error")
    assert not box.is_displayed(), box.text


def _open(driver, server, page):
    driver.get(f"{server}/#{page}")
    _wait(driver, lambda d: len(_by_id(d, "play-game").find_elements("tag name", "option")) == 3)


def _load_record(driver, server, name, title):
    _open(driver, server, "replay")
    _wait(driver, lambda d: name in _by_id(d, "replay-record").text)
    _select(driver, "replay-record", name)
    _by_id(driver, "replay-load").click()
    _wait(driver, lambda d: title in _by_id(d, "replay-title").text)


@pytest.mark.slow
def test_replay_a_guandan_match_to_its_end(browser, server, shots):
    _load_record(browser, server, "guandan_0000_a-team-0.json", "GuanDan")
    seats = browser.find_elements("css selector", "#replay-table .seat")
    assert len(seats) == 4 and all(s.find_elements("css selector", ".hand .c") for s in seats)  # every hand shown
    for _ in range(3):
        _by_id(browser, "replay-fwd").click()
    assert _by_id(browser, "replay-pos").text.startswith("move 4 of")
    _by_id(browser, "replay-back").click()
    assert _by_id(browser, "replay-pos").text.startswith("move 3 of")
    _select(browser, "replay-speed", "very fast")
    _by_id(browser, "replay-play").click()
    _wait(browser, lambda d: "(end)" in _by_id(d, "replay-pos").text)
    assert "Game over" in _by_id(browser, "replay-table").text and "Deal 2 at level" in _by_id(browser,
                                                                                               "replay-table").text
    _no_error(browser)
    shots(browser, "replay_guandan_end")


def test_replay_shows_the_q_values_of_a_checkpoint(browser, server, shots):
    _load_record(browser, server, "doudizhu_0000_a-landlord.json", "DouDiZhu")
    table = _by_id(browser, "replay-table").text
    assert "Q of the top moves" in table
    assert browser.find_elements("css selector", "#replay-table .values tr.chosen")
    shots(browser, "replay_doudizhu_values")
    _load_record(browser, server, "bidding/doudizhu_0000_a-seat-0.json", "A seat 0")  # the whole game: bids, then landlord
    assert "Bidding: bids so far none yet" in _by_id(browser, "replay-table").text
    while "Bidding" in _by_id(browser, "replay-table").text:
        _by_id(browser, "replay-fwd").click()
    assert "is the landlord at bid" in _by_id(browser, "replay-table").text
    assert "Bottom cards" in _by_id(browser, "replay-table").text
    _by_id(browser, "replay-back").click()
    shots(browser, "replay_doudizhu_bidding")


def test_the_play_form_offers_the_games_rule_options_and_shows_the_servers_refusal(browser, server, shots):
    _open(browser, server, "play")
    assert not _by_id(browser, "play-deals-box").is_displayed()  # DouDiZhu plays one deal
    _select(browser, "play-game", "GuanDan")
    assert _by_id(browser, "play-deals-box").is_displayed()
    fields = [e.get_attribute("data-name") for e in browser.find_elements("css selector", "#play-rules .rule")]
    assert fields == ["match", "level", "a_level_attempts", "return_level_card", "match_bonus", "tribute_decisions"]
    level = browser.find_element("css selector", "#play-rules input[data-name=level]")
    level.clear()
    level.send_keys("Z")
    _by_id(browser, "play-start").click()
    _wait(browser, lambda d: _by_id(d, "error").is_displayed())
    assert "GuanDan rule options: level 'Z' is no rank" in _by_id(browser, "error").text
    shots(browser, "play_form_rule_options")


@pytest.mark.slow
def test_compare_two_agents_marks_the_first_difference(browser, server, shots):
    _open(browser, server, "compare")
    _select(browser, "compare-a", "run0")
    _select(browser, "compare-b", "rule")
    _by_id(browser, "compare-seed").clear()
    _by_id(browser, "compare-seed").send_keys("9")
    _by_id(browser, "compare-run").click()
    _wait(browser, lambda d: _by_id(d, "compare-view").is_displayed())
    _no_error(browser)
    summary = _by_id(browser, "compare-summary").text
    assert "first differ at move" in summary or "the same way" in summary
    if "first differ" in summary:
        assert len(browser.find_elements("css selector", ".decision.diff")) == 2  # marked on both sides
    assert "run0 in seats 0" in _by_id(browser, "compare-left-title").text
    shots(browser, "compare")


def _play_by_clicking(browser, server, game, seat, agent, hint=None, rules=(), first=None, seed=None):
    _open(browser, server, "play")
    _select(browser, "play-game", game)
    if seed is not None:
        _by_id(browser, "play-seed").send_keys(str(seed))
    for name in rules:  # rule options' checkboxes
        browser.find_element("css selector", f"#play-rules input[data-name={name}]").click()
    _select(browser, "play-seat", seat)
    _select(browser, "play-agent", agent)
    if hint:
        _select(browser, "play-hint", hint)
    _by_id(browser, "play-start").click()
    _wait(browser, lambda d: _by_id(d, "play-view").is_displayed() and not _by_id(d, "busy").is_displayed())
    clicks = []  # the moves clicked
    while not _by_id(browser, "play-result").is_displayed():
        _no_error(browser)
        buttons = browser.find_elements("css selector", "#play-moves button.move")
        assert buttons, "no legal move to click"
        if not clicks and hint:
            assert "hint: the agent's values" in _by_id(browser, "play-hints").text
        if not clicks and first:
            first(browser)
        before = _by_id(browser, "play-log").get_attribute("innerHTML")
        clicks.append(buttons[-1].get_attribute("title"))
        buttons[-1].click()
        _wait(browser, lambda d: not _by_id(d, "busy").is_displayed()
              and (_by_id(d, "play-log").get_attribute("innerHTML") != before or _by_id(d, "error").is_displayed()))
        assert len(clicks) < 120
    return clicks


@pytest.mark.slow
def test_play_a_whole_doudizhu_deal_by_clicking_with_hints(browser, server, served, shots):
    clicks = _play_by_clicking(browser, server, "DouDiZhu", "1: landlord_down", "run0", hint="run0")
    assert clicks and "Game over" in _by_id(browser, "play-result").text
    shots(browser, "play_doudizhu_result")
    bidder = f"checkpoint:{served['bidding_ckpt']}"  # the whole game: the person bids too
    # a deal on which the person (seat 2) bids first: otherwise the others may bid 3 before the person's turn
    seed = next(s for s in range(100) if get_game("doudizhu").make_engine(bidding=True).reset(s).first_bidder == 2)
    clicks = _play_by_clicking(browser, server, "DouDiZhu", "2", bidder, hint=bidder, rules=["bidding"],
                               first=lambda b: shots(b, "play_doudizhu_bidding"), seed=seed)
    assert clicks[0].startswith("bid ") and "Game over" in _by_id(browser, "play-result").text
    shots(browser, "play_doudizhu_bidding_result")


@pytest.mark.slow
def test_play_a_whole_big2_deal_by_clicking_and_an_illegal_typed_move_is_explained(browser, server, shots):
    _open(browser, server, "play")
    _select(browser, "play-game", "Big2")
    _by_id(browser, "play-seed").send_keys("4")
    _by_id(browser, "play-start").click()
    _wait(browser, lambda d: _by_id(d, "play-view").is_displayed() and not _by_id(d, "busy").is_displayed())
    _by_id(browser, "play-text").send_keys("RJ RJ")
    _by_id(browser, "play-send").click()
    _wait(browser, lambda d: _by_id(d, "error").is_displayed())
    assert "not a legal move" in _by_id(browser, "error").text
    shots(browser, "play_big2_illegal")
    clicks = _play_by_clicking(browser, server, "Big2", "0: west", "rule")
    assert clicks and "Payoffs" in _by_id(browser, "play-result").text
    shots(browser, "play_big2_result")
