"""A slow or failing agent never takes cardrl serve down: the page gets a JSON error (504 after the time limit, 500
with the agent's error), the game is stopped with the reason, and the server goes on answering other requests; an
agent whose moves are still running past the limit is refused (503) until they finish, the others are served."""

from __future__ import annotations

import time

import numpy as np
import pytest
import requests

from cardrl.agents.base import Agent
from cardrl.agents.loaders import AgentLoader, register_agent_loader
from helpers.web_server import ThreadServer, free_port


class _Slow(Agent):
    def __init__(self, seconds: float):
        self.seconds = seconds

    def act(self, view, legal_moves) -> int:
        time.sleep(self.seconds)
        return int(np.asarray(legal_moves)[0])


class _Crash(Agent):
    def act(self, view, legal_moves) -> int:
        raise RuntimeError("the network file is corrupt")


@pytest.fixture(scope="module")
def app_server():
    from cardrl.web.app import create_app
    from cardrl.web.catalog import build_catalog

    register_agent_loader(AgentLoader("slowtest", lambda path, game, options, module: _Slow(float(path)),
                                      "slowtest:SECONDS"), replace=True)
    register_agent_loader(AgentLoader("crashtest", lambda path, game, options, module: _Crash(), "crashtest:X"),
                          replace=True)
    catalog = build_catalog([], ["slowtest:3", "crashtest:x"])
    server = ThreadServer(create_app(catalog, agent_timeout_s=0.5), free_port()).start()
    yield server.url
    server.stop()


@pytest.mark.parametrize("agent, status, message", [
    ("slowtest:3", 504, "took longer than 0.5 s"),
    ("crashtest:x", 500, "failed: RuntimeError: the network file is corrupt"),
])
def test_a_slow_or_crashing_agent_gives_an_error_and_the_server_goes_on(app_server, agent, status, message):
    # deal 4 of Big2: seat 2 holds the 3 of diamonds and leads, so the agents move before the person at seat 0
    r = requests.post(app_server + "/api/play", json={"game": "big2", "seat": 0, "agent": agent, "seed": 4},
                      timeout=30)
    assert r.status_code == status and message in r.json()["error"], r.text
    assert requests.get(app_server + "/api/info", timeout=5).ok
    ok = requests.post(app_server + "/api/play", json={"game": "big2", "agent": "rule", "seed": 4}, timeout=30)
    assert ok.status_code == 200 and ok.json()["your_turn"]


def test_an_agent_stuck_past_its_time_limit_is_refused_until_its_moves_finish_and_others_are_served():
    from cardrl.web.app import create_app
    from cardrl.web.catalog import build_catalog

    register_agent_loader(AgentLoader("slowtest", lambda path, game, options, module: _Slow(float(path)),
                                      "slowtest:SECONDS"), replace=True)
    server = ThreadServer(create_app(build_catalog([], ["slowtest:2"]), agent_timeout_s=0.4, max_stuck=1),
                          free_port()).start()
    body = {"game": "big2", "seat": 0, "agent": "slowtest:2", "seed": 4}  # seat 2 moves first (3 of diamonds)
    try:
        first = requests.post(server.url + "/api/play", json=body, timeout=30)
        assert first.status_code == 504, first.text
        start = time.monotonic()
        refused = requests.post(server.url + "/api/play", json=body, timeout=30)
        assert refused.status_code == 503 and time.monotonic() - start < 0.4, refused.text  # at once, no thread
        assert "1 earlier call(s) of 'slowtest:2' are still running past their time limit" in refused.json()["error"]
        ok = requests.post(server.url + "/api/play", json={**body, "agent": "rule"}, timeout=30)
        assert ok.status_code == 200 and ok.json()["your_turn"]  # another agent: served meanwhile
        deadline = time.monotonic() + 10
        while requests.post(server.url + "/api/play", json=body, timeout=30).status_code == 503:
            assert time.monotonic() < deadline, "the stuck move never released its place"
            time.sleep(0.2)
        assert time.monotonic() - start > 1.0  # accepted again (and timed out again) once the first move ended
    finally:
        server.stop()
