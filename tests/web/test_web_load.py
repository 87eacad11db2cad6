"""Loopback load test of cardrl serve: 20 play sessions at once against a DMC checkpoint agent, each played to the
end; every move is answered, the latency per request is printed (p50, p99), and no session ever sees a card that is
not its own seat's."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import requests

from cardrl.games.registry import get_game
from cardrl.play.session import notation_for

SESSIONS = 20


def _own_hands(seed: int, seat: int, actions: list[int]) -> set[str]:
    """Every hand ``seat`` held during the deal (the texts its session may show)."""
    notation = notation_for("doudizhu")
    game = get_game("doudizhu").make_engine().reset(seed)
    hands = {notation.cards_text(game.cards_held()[seat], game)}
    for action in actions:
        game.step(action)
        hands.add(notation.cards_text(game.cards_held()[seat], game))
    return hands


def _session(url: str, i: int) -> tuple[list[float], list[dict]]:
    http = requests.Session()
    http.get(url + "/", timeout=60)  # a browser of its own: the page's client cookie (the session limits are per client)
    latencies, states = [], []

    def call(method, path, body=None):
        start = time.perf_counter()
        r = http.request(method, url + path, json=body, timeout=120)
        latencies.append(time.perf_counter() - start)
        assert r.status_code == 200, r.text
        states.append(r.json())
        return states[-1]

    state = call("POST", "/api/play", {"game": "doudizhu", "seat": i % 3, "agent": "run0", "seed": 1000 + i})
    while not state["over"]:
        state = call("POST", f"/api/play/{state['session']}/move", {"action": state["legal"][0]["id"]})
    return latencies, states


@pytest.mark.slow
def test_twenty_concurrent_sessions_against_a_checkpoint(server):
    start = time.perf_counter()  # the first game loads the checkpoint (once for every session): timed apart
    first = requests.post(server + "/api/play", json={"game": "doudizhu", "agent": "run0", "seed": 1}, timeout=300)
    assert first.status_code == 200, first.text
    print(f"\nfirst game (loads the checkpoint): {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    with ThreadPoolExecutor(SESSIONS) as pool:
        results = list(pool.map(lambda i: _session(server, i), range(SESSIONS)))
    wall = time.perf_counter() - start
    starts = np.array([lat[0] for lat, _ in results]) * 1000
    moves = np.array([x for lat, _ in results for x in lat[1:]]) * 1000
    print(f"{SESSIONS} concurrent sessions, {len(moves) + len(starts)} requests in {wall:.1f} s: move latency p50 "
          f"{np.percentile(moves, 50):.0f} ms, p99 {np.percentile(moves, 99):.0f} ms, max {moves.max():.0f} ms "
          f"({len(moves)} moves); new game p50 {np.percentile(starts, 50):.0f} ms, max {starts.max():.0f} ms")
    ids = set()
    for i, (_, states) in enumerate(results):
        seat, seed, end = i % 3, 1000 + i, states[-1]
        assert end["over"] and end["seed"] == str(seed) and end["seat"] == seat
        ids.add(end["session"])
        own = _own_hands(seed, seat, end["actions"])
        for state in states:
            assert state["session"] == end["session"]
            for s in state["seats"]:
                if s["seat"] == seat:
                    assert s["hand"] in own  # its own cards, of its own deal
                elif not state["over"]:
                    assert s["hand"] is None  # never another hand while the game is on
    assert len(ids) == SESSIONS
