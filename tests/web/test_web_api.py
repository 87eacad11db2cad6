"""cardrl serve's JSON API over HTTP against the running server (the real command line on a loopback port): replay,
play, compare, runs, and every kind of bad input answered with a clear JSON error and the session unharmed."""

from __future__ import annotations


import pytest
import requests

from cardrl.eval.records import read_record
from cardrl.games.registry import get_game
from cardrl.play.session import notation_for
from cardrl.web.catalog import short_agent_id


def get(url, path, status=200):
    r = requests.get(url + path, timeout=60)
    assert r.status_code == status, r.text
    return r.json()


def post(url, path, body, status=200):
    r = requests.post(url + path, json=body, timeout=120)
    assert r.status_code == status, r.text
    return r.json()


def test_info_lists_games_agents_runs_and_records(server, served):
    info = get(server, "/api/info")
    games = {g["name"]: g for g in info["games"]}
    assert set(games) == {"doudizhu", "big2", "guandan"}
    ckpt = short_agent_id(f"checkpoint:{served['ckpt']}")
    assert ckpt == f"checkpoint:{served['ckpt'].parent.name}/ckpt"  # no server path shown
    assert {"random", "rule", "run0", ckpt} <= set(games["doudizhu"]["agents"])
    assert "run0" not in games["big2"]["agents"]  # the run's checkpoint plays DouDiZhu only
    assert info["runs"] == ["run0"] and info["leagues"] == ["league0"] and info["records"] == 2 + 4 + 2 + 6 + 2


def test_replay_frames_show_every_hand_and_the_values(server, served):
    records = {r["name"]: r["id"] for r in get(server, "/api/records")}
    data = get(server, f"/api/records/{records['doudizhu_0000_a-landlord.json']}")
    record = read_record(served["records"] / "doudizhu_0000_a-landlord.json")
    assert data["actions"] == record.actions and len(data["frames"]) == len(record.actions) + 1
    game = get_game("doudizhu").make_engine().reset(record.seed)
    notation = notation_for("doudizhu")
    for frame, action, values in zip(data["frames"], record.actions, record.values):
        assert [s["hand"] for s in frame["seats"]] == [notation.cards_text(h, game) for h in game.cards_held()]
        assert frame["current"] == game.current_player and frame["move"]["id"] == action
        if game.current_player == 0:  # the checkpoint is the landlord: its Q of its top moves
            assert frame["values"]["kind"] == "q" and frame["values"]["moves"][0]["id"] == action
            assert [m["value"] for m in frame["values"]["moves"]] == [v for _, v in values["moves"]]
        else:
            assert frame["values"] is None
        game.step(action)
    assert data["frames"][-1]["move"] is None and data["frames"][-1]["result"]


def test_replay_of_a_guandan_match_shows_tribute_levels_and_both_deals(server):
    records = {r["name"]: r["id"] for r in get(server, "/api/records")}
    data = get(server, f"/api/records/{records['guandan_0000_a-team-0.json']}")
    deals = {f["deal"] for f in data["frames"]}
    assert deals == {0, 1}
    assert next(f for f in data["frames"] if f["events"])["events"][0].endswith("is out (1. place)")
    change = next(f for f in data["frames"] if f["events"] and f["events"][0].startswith("Deal 1 over"))
    assert "--- deal 2 at level" in change["events"][1]
    assert any("level" in line for line in data["frames"][0]["status"])
    moves = [f["move"]["text"] for f in data["frames"] if f["move"]]
    refused = any("refused" in e for f in data["frames"] for e in f["events"])
    assert refused or (any(m.startswith("tribute") for m in moves) and any(m.startswith("return") for m in moves))


def test_replay_of_a_whole_game_record_shows_the_bids_their_values_then_the_landlord(server, served):
    records = {r["name"]: r["id"] for r in get(server, "/api/records")}
    data = get(server, f"/api/records/{records['bidding/doudizhu_0000_a-seat-0.json']}")
    record = read_record(served["records"] / "bidding" / "doudizhu_0000_a-seat-0.json")
    assert data["options"]["bidding"] is True and data["actions"] == record.actions
    game = get_game("doudizhu").make_engine(bidding=True).reset(record.seed)
    bids = 0
    for frame, action in zip(data["frames"], record.actions):
        if game.phase != "bid":
            break
        bids += 1
        assert frame["move"]["text"].startswith("bid ") and frame["status"][0].startswith("Bidding")
        assert all(s["label"] == f"seat {s['seat']}" for s in frame["seats"])
        values = frame["values"]
        if game.current_player == 0:  # the learned bidder's Q of every legal bid, its bid the best
            assert values["kind"] == "q" and values["moves"][0]["id"] == action
            assert {m["id"] for m in values["moves"]} == {int(a) for a in game.legal_moves()}
            assert all(m["text"].startswith("bid ") for m in values["moves"])
        else:
            assert values is None
        game.step(action)
    after = data["frames"][bids]
    assert any(f"seat {game.landlord} is the landlord at bid {game.bid}" in e for e in after["events"])
    assert after["status"][0].startswith(f"Landlord: landlord (seat {game.landlord}), bid {game.bid}")
    assert "Bottom cards" in after["status"][1]


def _play_to_end(url, state, choose):
    steps = 0
    while not state["over"]:
        assert state["your_turn"] and state["legal"]
        state = post(url, f"/api/play/{state['session']}/move", {"action": choose(state)})
        steps += 1
        assert steps < 200
    return state


def test_play_doudizhu_against_the_checkpoint_with_hints(server):
    state = post(server, "/api/play", {"game": "doudizhu", "seat": 1, "agent": "run0", "hint_agent": "run0",
                                       "seed": 12})
    legal = {m["id"] for m in state["legal"]}
    assert state["hints"]["kind"] == "q" and {m["id"] for m in state["hints"]["moves"]} <= legal
    values = [m["value"] for m in state["hints"]["moves"]]
    assert values == sorted(values, reverse=True)
    hands = [s["hand"] for s in state["seats"]]
    assert hands[1] and hands[0] is None and hands[2] is None  # only the person's own hand
    end = _play_to_end(server, state, lambda s: s["hints"]["moves"][0]["id"])
    assert end["result"] and all(s["hand"] is not None for s in end["seats"])
    game = get_game("doudizhu").engine_class.replay(12, end["actions"])
    assert game.is_over and any(str(int(p)) in " ".join(end["result"]) for p in game.payoffs())


def test_play_big2_by_typed_cards_and_bad_moves_are_refused_with_the_session_unharmed(server):
    state = post(server, "/api/play", {"game": "big2", "seat": 0, "agent": "rule", "seed": 4})
    sid = state["session"]
    err = post(server, f"/api/play/{sid}/move", {"text": "RJ RJ"}, 400)["error"]
    assert err.startswith("not a legal move")
    assert "not a legal move now" in post(server, f"/api/play/{sid}/move", {"action": 10**6}, 400)["error"]
    assert "give one of 'action'" in post(server, f"/api/play/{sid}/move", {}, 400)["error"]
    assert "invalid request" in post(server, f"/api/play/{sid}/move", {"action": "three"}, 422)["error"]
    assert get(server, f"/api/play/{sid}") == state  # unharmed
    text = state["legal"][0]["text"]
    after = post(server, f"/api/play/{sid}/move", {"text": text})
    assert after["log"][len(state["log"])]["text"] == text
    end = _play_to_end(server, after, lambda s: s["legal"][-1]["id"])
    assert "the game is over" in post(server, f"/api/play/{sid}/move", {"action": 0}, 400)["error"]
    assert any("Payoffs" in line for line in end["result"])


def test_play_the_whole_doudizhu_game_bids_included_against_a_learned_bidder(server, served):
    bidder = f"checkpoint:{served['bidding_ckpt']}"
    state = post(server, "/api/play", {"game": "doudizhu", "seat": 1, "agent": bidder, "hint_agent": bidder,
                                       "seed": 5, "rules": {"bidding": True}})
    bid_hints = []
    while not state["over"]:
        bidding = state["phase"] == "bid"
        if bidding:
            assert all(m["text"].startswith("bid ") for m in state["legal"])
            bid_hints.append(state["hints"])
        choice = state["hints"]["moves"][0]["id"] if state["hints"] else state["legal"][0]["id"]
        state = post(server, f"/api/play/{state['session']}/move", {"action": choice})
    assert bid_hints and all(h["kind"] == "q" and h["moves"][0]["text"].startswith("bid ") for h in bid_hints)
    game = get_game("doudizhu").engine_class.replay(5, state["actions"], bidding=True)
    assert game.is_over and game.bids and any(e["text"].startswith("bid ") for e in state["log"])
    assert any("is the landlord at bid" in e for e in state["events"]) and state["result"]


@pytest.mark.parametrize("body, status, message", [
    ({"game": "doudizhu", "agent": "run0", "rules": {"bidding": True}}, 400,
     "cannot play the whole game (bidding): it cannot play against you"),
    ({"game": "doudizhu", "rules": {"nope": 1}}, 400,
     "unknown DouDiZhu rule option(s) ['nope'] here; allowed: ['kickers', 'bidding', 'spring']"),
    ({"game": "doudizhu", "rules": {"kickers": "many"}}, 400, "kickers='many'; allowed: 'douzero', 'distinct'"),
    ({"game": "doudizhu", "rules": {"bidding": "yes"}}, 400, "bidding='yes'; allowed: True, False"),
    ({"game": "big2", "rules": {"bidding": True}}, 400, "allowed: ['straight_order', 'open_with_three_diamonds'"),
    ({"game": "big2", "rules": {"straight_order": "up"}}, 400, "allowed: ('bigzero', 'low')"),
    ({"game": "guandan", "rules": {"max_deals": 3}}, 400, "unknown GuanDan rule option(s) ['max_deals']"),
    ({"game": "guandan", "rules": {"match": "maybe"}}, 400, "match must be a bool, got str 'maybe'; allowed: true"),
    ({"game": "guandan", "rules": {"level": "Z"}}, 400, "level 'Z' is no rank"),
    ({"game": "guandan", "deals": 51}, 422, "deals"),
])
def test_bad_rule_options_are_refused_naming_what_is_allowed(server, body, status, message):
    r = requests.post(server + "/api/play", json=body, timeout=30)
    assert r.status_code == status and message in r.json()["error"], r.text


def test_play_form_options_reach_the_engine(server):
    state = post(server, "/api/play", {"game": "guandan", "agent": "rule", "seed": 3,
                                       "rules": {"match": False, "level": "5"}})
    assert state["status"][0].startswith("Deal 1 at level 5"), state["status"]
    state = post(server, "/api/play", {"game": "guandan", "agent": "rule", "seed": 3, "deals": 2,
                                       "rules": {"tribute_decisions": "true"}})
    assert state["status"][0].startswith("Deal 1 of 2 at level 2"), state["status"]
    info = {g["name"]: g for g in get(server, "/api/info")["games"]}
    assert [f["name"] for f in info["guandan"]["rules"]] == ["match", "level", "a_level_attempts",
                                                            "return_level_card", "match_bonus", "tribute_decisions"]
    assert not next(f for f in info["guandan"]["rules"] if f["name"] == "match")["compare"]
    assert len(info["doudizhu"]["whole_game_arrangements"]) == 6 and info["big2"]["whole_game_arrangements"] is None


def test_compare_the_whole_game_with_bidding(server, served):
    bidder = f"checkpoint:{served['bidding_ckpt']}"
    d = post(server, "/api/compare", {"game": "doudizhu", "a": bidder, "b": "rule", "seed": 9, "arrangement": 3,
                                      "rules": {"bidding": True}})
    assert d["label"] == "A seats 1+2" and d["left"]["options"]["bidding"] is True
    assert d["left"]["frames"][0]["move"]["text"].startswith("bid ")
    assert "cannot play the whole game" in post(server, "/api/compare", {
        "game": "doudizhu", "a": "run0", "b": "rule", "rules": {"bidding": True}}, 400)["error"]
    assert "DouDiZhu has 6" in post(server, "/api/compare", {
        "game": "doudizhu", "a": "rule", "b": "rule", "arrangement": 6, "rules": {"bidding": True}}, 400)["error"]


@pytest.mark.parametrize("method, path, body, status, message", [
    ("get", "/api/play/not-a-session", None, 404, "no play session 'not-a-session'"),
    ("post", "/api/play/not-a-session/move", {"action": 1}, 404, "start a new game"),
    ("post", "/api/play", {"game": "doudizhu", "agent": "checkpoint:/etc"}, 404, "unknown agent 'checkpoint:/etc'"),
    ("post", "/api/play", {"game": "chess"}, 400, "unknown game 'chess'; allowed: doudizhu, big2, guandan"),
    ("post", "/api/play", {"game": "big2", "seat": 4}, 400, "Big2 has seats 0..3"),
    ("post", "/api/play", {"game": "big2", "deals": 3}, 400, "Big2 plays one deal"),
    ("post", "/api/play", {"game": "big2", "seed": -1}, 422, "seed"),
    ("post", "/api/compare", {"game": "big2", "a": "rule", "b": "nope"}, 404, "unknown agent 'nope'"),
    ("post", "/api/compare", {"game": "doudizhu", "a": "rule", "b": "rule", "arrangement": 5}, 400,
     "DouDiZhu has 2"),
    ("get", "/api/records/r999", None, 404, "no game record 'r999'"),
    ("get", "/api/records/..%2F..%2Fetc%2Fpasswd", None, 404, "Not Found"),
    ("get", "/api/records/../../etc/passwd", None, 404, "Not Found"),
    ("get", "/static/../../../etc/passwd", None, 404, "Not Found"),
    ("get", "/runs/run7/report", None, 404, "no run 'run7'"),
    ("get", "/api/nothing", None, 404, "Not Found: GET /api/nothing"),
])
def test_bad_requests_get_clear_json_errors(server, method, path, body, status, message):
    r = getattr(requests, method)(server + path, json=body, timeout=30)
    assert r.status_code == status and message in r.json()["error"], r.text


def test_compare_two_agents_on_one_deal_with_seats_swapped(server):
    d = post(server, "/api/compare", {"game": "doudizhu", "a": "run0", "b": "rule", "seed": 9, "arrangement": 0})
    left, right = d["left"], d["right"]
    assert left["seats_agents"] == ["run0", "rule", "rule"] and right["seats_agents"] == ["rule", "run0", "run0"]
    assert left["frames"][0]["seats"] == right["frames"][0]["seats"]  # the same deal
    diff = d["first_difference"]
    assert left["actions"][:diff] == right["actions"][:diff]
    assert diff is None or diff == len(left["actions"]) or left["actions"][diff] != right["actions"][diff]
    assert all(f["values"] is None or f["values"]["kind"] == "q" for f in left["frames"])


def test_runs_show_the_report_and_league_tables(server):
    runs = get(server, "/api/runs")
    assert runs[0]["id"] == "run0" and runs[0]["latest_eval"]["random"]["adp"] == 1.2 and runs[0]["checkpoint"]
    assert runs[0]["latest_eval_lines"] == ["+1.20 [+0.70, +1.70] vs random", "-0.40 [-0.90, +0.10] vs rule"]
    png = requests.get(server + "/runs/run0/curves.png", timeout=60)
    assert png.status_code == 200 and png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"
    page = requests.get(server + "/runs/run0/report", timeout=60)
    assert page.status_code == 200 and "Learning curves" in page.text and "data:image/png;base64," in page.text
    league = get(server, "/api/leagues")[0]
    assert league["name"] == "league.csv" and {r[1] for r in league["rows"]} == {"rule", "random"}


def test_pages_and_static_files_are_served(server):
    page = requests.get(server + "/", timeout=10)
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert requests.get(server + "/static/app.js", timeout=10).text.startswith("// cardrl serve")


def test_the_cli_refuses_bad_paths_and_ports(tmp_path, capsys):
    from cardrl.cli import main

    (tmp_path / "x.txt").write_text("hello")
    assert main(["serve", str(tmp_path / "x.txt")]) == 2
    assert "not a run directory, a directory of game records" in capsys.readouterr().err
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be 0..65535" in capsys.readouterr().err
    assert main(["serve", "--agent", "nonsense:"]) == 2
    assert "does not parse" in capsys.readouterr().err
    assert main(["serve", "--max-stuck", "0"]) == 2
    assert "--max-stuck must be 1..64, got 0" in capsys.readouterr().err
