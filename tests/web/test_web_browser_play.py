"""cardrl serve's Play page in a real headless browser, by clicking as a card player does: a whole DouDiZhu deal
played by selecting cards (a selection refused with the reason and the moves using those cards, a hint clicked and
played), the next deal with the session's score, the whole game's bids by buttons, a GuanDan tribute paid by clicking
a card, a Big2 deal, and the form's rule options refused by the server."""

from __future__ import annotations

import pytest
import requests

from helpers.browser import by_id, idle, no_error, open_page, select, wait


def _start(browser, server, game, seat=None, agent="rule", hint=None, seed=None, deals=None, rules=()):
    open_page(browser, server, "play")
    select(browser, "play-game", game)
    for name in rules:  # rule options' checkboxes
        browser.find_element("css selector", f"#play-rules input[data-name={name}]").click()
    if seat:
        select(browser, "play-seat", seat)
    select(browser, "play-agent", agent)
    if hint:
        select(browser, "play-hint", hint)
    if seed is not None:
        by_id(browser, "play-seed").send_keys(str(seed))
    if deals is not None:
        by_id(browser, "play-deals").clear()
        by_id(browser, "play-deals").send_keys(str(deals))
    by_id(browser, "play-start").click()
    wait(browser, lambda d: by_id(d, "play-view").is_displayed() and idle(d))
    no_error(browser)


def _state(browser):
    return browser.execute_script("return play.state")


def _click_cards(browser, tokens):
    """Select ``tokens`` by clicking the hand's cards (each click redraws the hand)."""
    hand = [c["token"] for c in _state(browser)["my_cards"]]
    chosen = []
    for token in tokens:
        chosen.append(next(i for i, t in enumerate(hand) if t == token and i not in chosen))
        browser.find_element("css selector", f'#play-hand button.card[data-i="{chosen[-1]}"]').click()
    selected = browser.find_elements("css selector", "#play-hand button.card.selected")
    assert sorted(int(b.get_attribute("data-i")) for b in selected) == sorted(chosen)


def _press(browser, button):
    """Click a button that sends a move; wait for the answer (a new state, or the reason it was refused)."""
    before = len(_state(browser)["log"]), _state(browser)["deal"]
    by_id(browser, button).click()
    wait(browser, lambda d: idle(d) and ((len(_state(d)["log"]), _state(d)["deal"]) != before
                                         or by_id(d, "play-offered").text or _state(d)["over"]))


def _play_one_turn(browser, choose):
    """Play the move ``choose(state)`` picks: its cards clicked, then Play (Pass or the word's button without)."""
    move = choose(_state(browser))
    if move["cards"]:
        _click_cards(browser, move["cards"])
        _press(browser, "play-go")
    elif "pass" in move["text"]:
        _press(browser, "play-pass")
    else:
        browser.find_element("css selector", f'#play-words button[data-id="{move["id"]}"]').click()
        wait(browser, idle)
    assert not by_id(browser, "play-offered").text, by_id(browser, "play-offered").text


def _play_to_the_end(browser, turns: int = 0) -> None:
    """Our turns by the most cards each (at most 40 in all) until the deal is over."""
    while not _state(browser)["over"]:
        _play_one_turn(browser, _most_cards)
        turns += 1
        assert turns < 40


def _most_cards(state):
    return max(state["legal"], key=lambda m: (len(m["cards"]), -state["legal"].index(m)))


@pytest.mark.slow
def test_play_a_whole_doudizhu_deal_by_selecting_cards_and_a_hint(browser, server, shots):
    _start(browser, server, "DouDiZhu", "0: landlord", "run0", hint="run0", seed=12)
    state = _state(browser)
    longer = next(m for m in state["legal"] if len(set(m["cards"]) - {"B", "R"}) >= 2)
    _click_cards(browser, sorted(set(longer["cards"]) - {"B", "R"})[:2])  # two ranks that are no move together
    _press(browser, "play-go")
    offered = by_id(browser, "play-offered").text
    assert "is not a DouDiZhu move" in offered and "Legal moves with these cards" in offered
    assert longer["id"] in [int(b.get_attribute("data-id")) for b in
                            browser.find_elements("css selector", "#play-offered button.move")]
    assert _state(browser)["log"] == state["log"]  # refused: nothing played
    by_id(browser, "play-clear").click()
    assert not browser.find_elements("css selector", "#play-hand .selected") and not by_id(browser, "play-offered").text
    best = state["hints"]["moves"][0]
    browser.find_element("css selector", f'#play-hints tr[data-id="{best["id"]}"]').click()  # a hint selects its cards
    assert len(browser.find_elements("css selector", "#play-hand .selected")) == len(
        next(m for m in state["legal"] if m["id"] == best["id"])["cards"])
    shots(browser, "play")
    _press(browser, "play-go")
    assert _state(browser)["log"][0]["text"] == best["text"]
    _play_to_the_end(browser, turns=1)
    assert "Game over" in by_id(browser, "play-result").text and "1 game finished" in by_id(browser, "play-score").text
    total = _state(browser)["score"]["total"]
    shots(browser, "play_doudizhu_result")
    by_id(browser, "play-next").click()  # the next deal of the session, the score kept
    wait(browser, lambda d: idle(d) and _state(d)["seed"] == "13")
    assert not by_id(browser, "play-result").is_displayed() and _state(browser)["score"]["total"] == total
    no_error(browser)


@pytest.mark.slow
def test_the_whole_doudizhu_game_bids_by_buttons_then_plays_by_cards(browser, server, served):
    from cardrl.games.registry import get_game

    bidder = f"checkpoint:{served['bidding_ckpt'].parent.name}/bidding_ckpt"
    seed = next(s for s in range(100) if get_game("doudizhu").make_engine(bidding=True).reset(s).first_bidder == 2)
    _start(browser, server, "DouDiZhu", "2", bidder, hint=bidder, seed=seed, rules=["bidding"])
    assert "No move plays cards now" in by_id(browser, "play-selected").text
    assert [b.text for b in browser.find_elements("css selector", "#play-words button")] == ["bid 1", "bid 2", "bid 3"]
    by_id(browser, "play-hint-button").click()  # the learned bidder's best bid, then Play
    best = _state(browser)["hints"]["moves"][0]
    _press(browser, "play-go")
    assert _state(browser)["log"][0]["text"] == best["text"]
    _play_to_the_end(browser)
    assert "Game over" in by_id(browser, "play-result").text
    assert any(e["text"].startswith("bid ") for e in _state(browser)["log"])  # the bids are the deal's first moves


@pytest.mark.slow
def test_a_guandan_tribute_is_paid_by_clicking_a_card(browser, server, shots):
    for seed in range(6):  # a deal the person (who passes whenever allowed) finishes last, so pays the tribute
        _start(browser, server, "GuanDan", "0: player_0", "rule", seed=seed, deals=2, rules=["tribute_decisions"])
        state = _state(browser)
        while state["deal_over"] is None:  # the first deal, quickly through the API the page uses
            state = requests.post(f"{server}/api/play/{state['session']}/move", json={"action": state["legal"][0]["id"]},
                                  timeout=60).json()
        browser.execute_script("guarded(refreshPlay)")
        wait(browser, lambda d: idle(d) and by_id(d, "play-result").is_displayed())
        if state["phase"] == "tribute" and state["current"] == 0:
            break
    assert "Deal over" in by_id(browser, "play-result").text and "Deal 1 over" in by_id(browser, "play-result").text
    by_id(browser, "play-next").click()
    wait(browser, lambda d: idle(d) and _state(d)["your_turn"])
    assert "You pay tribute" in by_id(browser, "play-table").text
    givable = browser.find_elements("css selector", "#play-hand button.card:not(.off)")
    assert 0 < len(givable) < len(_state(browser)["my_cards"])  # only the cards a tribute may be
    card = givable[0].get_attribute("title").split(" ")[0].rstrip("*")
    givable[0].click()
    shots(browser, "play_guandan_tribute")
    _press(browser, "play-go")
    no_error(browser)
    assert f"seat 0 gave {card}" in by_id(browser, "play-table").text


@pytest.mark.slow
def test_play_a_whole_big2_deal_by_selecting_cards_and_a_typed_move_is_explained(browser, server, shots):
    _start(browser, server, "Big2", seed=4)
    by_id(browser, "play-text").send_keys("RJ RJ")
    by_id(browser, "play-send").click()
    wait(browser, lambda d: idle(d) and by_id(d, "play-offered").text)
    assert "not a legal move" in by_id(browser, "play-offered").text and "'all'" not in by_id(browser, "play-offered").text
    browser.find_element("css selector", "#play-all summary").click()  # the numbered list: a click selects a move
    listed = browser.find_elements("css selector", "#play-moves button.move")
    legal = _state(browser)["legal"]
    assert len(listed) == len(legal) and listed[0].text.startswith("#1")
    listed[-1].click()
    assert len(browser.find_elements("css selector", "#play-hand .selected")) == len(legal[-1]["cards"])
    by_id(browser, "play-clear").click()
    browser.find_element("css selector", "#play-all summary").click()
    turns = 0
    while not _state(browser)["over"]:
        _play_one_turn(browser, _most_cards)
        turns += 1
        assert turns < 60
    assert "Payoffs" in by_id(browser, "play-result").text
    shots(browser, "play_big2_result")


def test_the_play_form_offers_the_games_rule_options_and_shows_the_servers_refusal(browser, server, shots):
    open_page(browser, server, "play")
    assert not by_id(browser, "play-deals-box").is_displayed()  # DouDiZhu plays one deal
    select(browser, "play-game", "GuanDan")
    assert by_id(browser, "play-deals-box").is_displayed()
    fields = [e.get_attribute("data-name") for e in browser.find_elements("css selector", "#play-rules .rule")]
    assert fields == ["match", "level", "a_level_attempts", "return_level_card", "match_bonus", "tribute_decisions"]
    level = browser.find_element("css selector", "#play-rules input[data-name=level]")
    level.clear()
    level.send_keys("Z")
    by_id(browser, "play-start").click()
    wait(browser, lambda d: by_id(d, "error").is_displayed())
    assert "GuanDan rule options: level 'Z' is no rank" in by_id(browser, "error").text
    shots(browser, "play_form_rule_options")
