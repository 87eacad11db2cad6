"""cardrl serve's Play API as the card-clicking page uses it (the real command line on a loopback port): a move by
the selected cards, a selection refused with the reason and the legal moves that use those cards, deal after deal
with a running score, a GuanDan match paused between its deals; seeds as exact strings; record ids that stay."""

from __future__ import annotations

from collections import Counter

import requests

from cardrl.games.registry import get_game
from helpers.web_server import BIG_SEED


def post(url, path, body=None, status=200):
    r = requests.post(url + path, json=body, timeout=120)
    assert r.status_code == status, r.text
    return r.json()


def get(url, path, status=200):
    r = requests.get(url + path, timeout=60)
    assert r.status_code == status, r.text
    return r.json()


def _move_of_cards(state, count):
    """A legal move of ``count`` cards, or None."""
    return next((m for m in state["legal"] if len(m["cards"]) == count), None)


def test_the_hand_is_sent_card_by_card_and_each_legal_move_names_its_cards(server):
    state = post(server, "/api/play", {"game": "guandan", "agent": "rule", "seed": "11", "rules": {"match": False}})
    assert state["seed"] == "11" and len(state["my_cards"]) == 27
    hand = Counter(c["token"] for c in state["my_cards"])
    assert all(not Counter(m["cards"]) - hand for m in state["legal"])  # every move's cards are in the hand
    level = state["status"][0].split("at level ")[1][0]
    for card in state["my_cards"]:
        assert ("wild" in card["marks"]) == card["token"].endswith("*")
        assert ("level" in card["marks"] or "wild" in card["marks"]) == card["token"].startswith(level)


def test_selected_cards_play_their_move_and_a_refused_selection_offers_the_moves_using_them(server):
    state = post(server, "/api/play", {"game": "doudizhu", "seat": 0, "agent": "rule", "seed": 12})
    sid = state["session"]
    pair = _move_of_cards(state, 2)
    longer = next(m for m in state["legal"] if len(set(m["cards"]) - {"B", "R"}) >= 2)  # a straight, a trio + 1
    two = sorted(set(longer["cards"]) - {"B", "R"})[:2]  # two ranks that are no DouDiZhu move together
    refused = post(server, f"/api/play/{sid}/move", {"cards": two}, 400)
    assert "is not a DouDiZhu move" in refused["error"] and "'all'" not in refused["error"]
    assert refused["moves_kind"] == "using" and longer["id"] in {m["id"] for m in refused["moves"]}
    legal = {m["id"]: m for m in state["legal"]}
    assert all(not Counter(two) - Counter(legal[m["id"]]["cards"]) for m in refused["moves"])
    assert get(server, f"/api/play/{sid}") == state  # unchanged
    assert "no cards selected" in post(server, f"/api/play/{sid}/move", {"cards": []}, 400)["error"]
    after = post(server, f"/api/play/{sid}/move", {"cards": pair["cards"]})
    assert after["log"][0]["text"] == pair["text"]


def test_deal_after_deal_with_a_running_score(server):
    state = post(server, "/api/play", {"game": "big2", "seat": 0, "agent": "rule", "seed": "4"})
    sid, scores = state["session"], []
    assert state["score"] == {"games": 0, "total": 0.0, "this_game": 0.0}
    assert "still being played" in post(server, f"/api/play/{sid}/next", None, 400)["error"]
    for deal in range(2):
        while not state["over"]:
            state = post(server, f"/api/play/{sid}/move", {"action": state["legal"][-1]["id"]})
        scores.append(state["score"]["this_game"])
        assert state["score"]["games"] == deal + 1 and state["score"]["total"] == sum(scores)
        assert "the game is over: press Next deal" in post(server, f"/api/play/{sid}/move", {"action": 0}, 400)["error"]
        state = post(server, f"/api/play/{sid}/next")
        assert state["seed"] == str(5 + deal) and not state["over"] and state["session"] == sid
    assert state["score"]["games"] == 2 and state["score"]["total"] == sum(scores)


def test_a_guandan_match_stops_between_its_deals_until_the_next_deal_is_asked_for(server):
    state = post(server, "/api/play", {"game": "guandan", "seat": 0, "agent": "rule", "seed": 7, "deals": 2,
                                       "rules": {"tribute_decisions": True}})
    sid = state["session"]
    while state["deal_over"] is None:
        assert not state["over"] and state["your_turn"]
        state = post(server, f"/api/play/{sid}/move", {"action": state["legal"][0]["id"]})
    assert state["deal_over"][0].startswith("Deal 1 over") and not state["your_turn"] and not state["legal"]
    assert state["score"]["this_game"] == state["score"]["total"] != 0  # the first deal's points
    assert "this deal is over: press Next deal" in post(server, f"/api/play/{sid}/move", {"action": 0}, 400)["error"]
    again = get(server, f"/api/play/{sid}")
    assert again["deal_over"] == state["deal_over"] and again["log"] == state["log"]  # the agents waited too
    state = post(server, f"/api/play/{sid}/next")
    assert state["deal_over"] is None and (state["your_turn"] or state["over"])
    assert state["deal"] == 1


def test_seeds_travel_as_exact_strings(server):
    records = {r["name"]: r["id"] for r in get(server, "/api/records")}
    record = get(server, f"/api/records/{records['big_seed/doudizhu_0000_a-landlord.json']}")
    assert record["seed"] == str(BIG_SEED)
    compared = post(server, "/api/compare", {"game": "doudizhu", "a": "rule", "b": "random", "seed": str(BIG_SEED)})
    assert compared["seed"] == str(BIG_SEED)
    assert compared["left"]["frames"][0]["seats"] == record["frames"][0]["seats"]  # the same deal
    state = post(server, "/api/play", {"game": "doudizhu", "agent": "rule", "seed": str(BIG_SEED)})
    game = get_game("doudizhu").make_engine().reset(BIG_SEED)
    assert state["seed"] == str(BIG_SEED) and state["seats"][0]["left"] == int(game.cards_left()[0])
    for bad in ("12x", str(2**63), "-3", ""):
        assert "deal seed" in post(server, "/api/play", {"game": "doudizhu", "seed": bad}, 422)["error"]


def test_record_ids_are_derived_from_the_file_and_stay_while_records_are_added(server, served):
    before = get(server, "/api/records")
    new = served["records"] / "aaa_first.json"  # sorts first: a position-based id would move every other one
    new.write_text((served["records"] / "big2_0000_a-seat-0.json").read_text())
    try:
        after = {r["name"]: r["id"] for r in get(server, "/api/records")}
        assert all(after[r["name"]] == r["id"] for r in before) and "aaa_first.json" in after
        assert get(server, f"/api/records/{after['aaa_first.json']}")["game"] == "big2"
    finally:
        new.unlink()


def test_compare_gives_a_net_payoff_of_a_against_b(server):
    d = post(server, "/api/compare", {"game": "doudizhu", "a": "rule", "b": "rule", "seed": 9})
    assert d["first_difference"] is None and d["a_net"] == 0 and d["a_score"] == d["b_score"] != 0
    d = post(server, "/api/compare", {"game": "big2", "a": "rule", "b": "random", "seed": 3, "arrangement": 2})
    left, right = d["left"]["payoffs"][2], d["right"]["payoffs"][2]
    assert (d["a_score"], d["b_score"], d["a_net"]) == (left, right, left - right)
