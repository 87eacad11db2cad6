"""``cardrl serve`` never loads a checkpoint from a path a request names (docs/operations.md, "Security"): every request
field that names an agent (a game's opponent and hint agent, both sides of a comparison), given a checkpoint path in
every spec form, is refused as an unknown agent, and the pickles planted there never run; record and run ids that
are paths are refused too. The served run's own checkpoint, named by its path instead of its id, is refused the same."""

from __future__ import annotations

from urllib.parse import quote

import pytest
import requests

from helpers.pickle_payload import payload_checkpoint


@pytest.fixture(scope="module")
def stranger(tmp_path_factory):
    """(a checkpoint directory whose every pickle creates ``marker`` when loaded, marker)."""
    root = tmp_path_factory.mktemp("stranger")
    marker = root / "code_ran"
    return payload_checkpoint(root / "checkpoint", marker), marker


def _specs(path) -> list[str]:
    return [f"checkpoint:{path}", str(path), f"topk-ppo:{path}", f"ppo:{path}", f"checkpoint:{path}+bidder=rule",
            f"rule+bidder=checkpoint:{path}"]


def _requests(spec: str) -> list[tuple[str, dict]]:
    return [("/api/play", {"game": "doudizhu", "agent": spec}),
            ("/api/play", {"game": "doudizhu", "agent": "random", "hint_agent": spec}),
            ("/api/compare", {"game": "doudizhu", "a": spec, "b": "rule"}),
            ("/api/compare", {"game": "doudizhu", "a": "rule", "b": spec})]


def test_no_request_names_a_checkpoint_to_load(server, served, stranger):
    path, marker = stranger
    for named in (path, served["run"] / "checkpoint"):
        for spec in _specs(named):
            for route, body in _requests(spec):
                r = requests.post(server + route, json=body, timeout=60)
                assert r.status_code == 404 and "unknown agent" in r.json()["error"], (route, body, r.text)
    assert not marker.exists()


def test_no_request_names_a_file_to_read(server, stranger):
    path, marker = stranger
    for route in (f"/api/records/{quote(str(path / 'algorithm_state.pkl'), safe='')}",
                  f"/runs/{quote(str(path), safe='')}/report"):
        r = requests.get(server + route, timeout=60)
        assert r.status_code == 404, (route, r.text)
    assert not marker.exists()
