"""cardrl serve's hardening over HTTP (docs/web.md, "Security and robustness"): a request-size limit, finite numbers
only, JSON errors for every failure (no 500 from input, however deeply nested), no absolute server path in a
message, the Host header checked on a loopback server (DNS rebinding), and play sessions limited per client."""

from __future__ import annotations

import json
import socket

import pytest
import requests

from cardrl.web.guard import MAX_BODY_BYTES, public_message, strict_json
from helpers.web_server import ThreadServer, free_port


def _post_raw(url, path, text, headers=None):
    return requests.post(url + path, data=text.encode(), timeout=60,
                         headers={"Content-Type": "application/json", **(headers or {})})


def test_a_body_over_the_size_limit_is_refused_before_it_is_read_whole(server):
    big = json.dumps({"game": "doudizhu", "rules": {"kickers": "x" * (2 * MAX_BODY_BYTES)}})
    r = _post_raw(server, "/api/play", big)
    assert r.status_code == 413 and f"larger than {MAX_BODY_BYTES} bytes" in r.json()["error"]
    with socket.create_connection(("127.0.0.1", int(server.rsplit(":", 1)[1])), timeout=10) as sock:  # 50 MB declared
        sock.sendall(b"POST /api/play HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 50000000\r\n\r\n{")
        answer = b""
        while b"larger than" not in answer and (chunk := sock.recv(4096)):
            answer += chunk
        answer = answer.decode()
    assert answer.startswith("HTTP/1.1 413") and "larger than" in answer


@pytest.mark.parametrize("text, message", [
    ('{"game": "big2", "rules": {"penalty_multipliers": {"10": 1e400}}}', "1e400 is not a finite number"),
    ('{"game": "big2", "seed": NaN}', "NaN is not a finite number"),
    ('{"game": "big2", "rules": {"penalty_multipliers": {"10": -Infinity}}}', "-Infinity is not a finite number"),
    ('{"game": "big2", "rules": {"penalty_multipliers": "{\\"10\\": 1e400}"}}', "1e400 is not a finite number"),
    ('{"game": "big2", "rules": {"penalty_multipliers": {"10": 1e300}}}', "out of range"),
    ('{"game": "big2", "rules": {"penalty_multipliers": "{\\"10\\": 1e300}"}}', "out of range"),
    ('{"game": "big2", "seed": ' + "9" * 40 + "}", "too large"),
])
def test_only_finite_numbers_are_accepted(server, text, message):
    r = _post_raw(server, "/api/play", text)
    assert r.status_code == 400 and message in r.json()["error"], r.text


def test_a_body_is_read_as_strict_json_whatever_its_content_type(server):
    for content_type in ("text/plain", "application/x-www-form-urlencoded", ""):
        r = _post_raw(server, "/api/play", '{"game": "big2", "seed": NaN}', {"Content-Type": content_type})
        assert r.status_code == 400 and "NaN is not a finite number" in r.json()["error"], r.text


@pytest.mark.parametrize("rules", [
    {"penalty_multipliers": "[" * 400 + "]" * 400},  # nested JSON inside a rule option's string
    {"penalty_multipliers": "[" * 50_000},
    {"penalty_multipliers": {"10": [[[[[[1]]]]]]}},
    {"level": {"a": [1, {"b": None}]}},
])
def test_nested_or_odd_rule_options_get_a_json_400_never_a_500(server, rules):
    game = "guandan" if "level" in rules else "big2"
    r = requests.post(server + "/api/play", json={"game": game, "rules": rules}, timeout=60)
    assert r.status_code in (400, 413) and r.json()["error"], r.text


def test_a_deeply_nested_body_gets_a_json_400(server):
    r = _post_raw(server, "/api/compare", "[" * 100_000 + "]" * 100_000)
    assert r.status_code in (400, 413) and r.json()["error"]
    r = _post_raw(server, "/api/compare", '{"a": ' * 40 + "1" + "}" * 40)
    assert r.status_code == 400 and "nested too deeply" in r.json()["error"]


def test_messages_carry_no_absolute_server_path(tmp_path):
    from cardrl.web.app import create_app
    from cardrl.web.catalog import build_catalog

    missing = tmp_path / "secret_folder" / "checkpoint"
    app = create_app(build_catalog([], [f"checkpoint:{missing}"]))
    server = ThreadServer(app, free_port()).start()
    try:
        info = requests.get(server.url + "/api/info", timeout=30).json()
        agent = next(a for a in info["games"][0]["agents"] if a.startswith("checkpoint:"))
        assert agent == "checkpoint:secret_folder/checkpoint"
        r = requests.post(server.url + "/api/play", json={"game": "doudizhu", "agent": agent}, timeout=60)
        assert r.status_code >= 400 and "error" in r.json()
        assert str(tmp_path) not in r.text and str(tmp_path) not in json.dumps(info), r.text
    finally:
        server.stop()


def test_public_message_cuts_paths_and_long_values():
    text = public_message("loading 'checkpoint:/tmp/a/b/run/checkpoint' failed: /home/me/x.pt; GET /api/nothing")
    assert text == "loading 'checkpoint:…/checkpoint' failed: …/x.pt; GET /api/nothing"
    assert len(public_message("bad value " + "x" * 5_000_000)) < 700


def test_strict_json_reads_plain_json_and_refuses_the_rest():
    assert strict_json('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    for text in ("NaN", "[Infinity]", "1e999", "[" * 33 + "]" * 33, "[" * 10_000):
        with pytest.raises(ValueError):
            strict_json(text)


@pytest.mark.parametrize("host, status", [
    ("evil.example", 403), ("evil.example:8000", 403), ("127.0.0.1.nip.io", 403),
    ("localhost", 200), ("127.0.0.1:1234", 200), ("[::1]:80", 200),
])
def test_a_loopback_server_answers_only_its_own_host_names(server, host, status):
    r = requests.get(server + "/api/info", headers={"Host": host}, timeout=30)
    assert r.status_code == status and (status == 200 or "DNS rebinding" in r.json()["error"]), r.text


def test_another_address_lets_any_host_name_in():
    from cardrl.web.app import create_app
    from cardrl.web.catalog import build_catalog

    server = ThreadServer(create_app(build_catalog([]), allowed_hosts=None), free_port()).start()
    try:
        assert requests.get(server.url + "/api/info", headers={"Host": "cards.lan:8000"}, timeout=30).ok
    finally:
        server.stop()


def test_a_burst_of_games_from_one_client_drops_its_own_oldest_and_blocks_no_one():
    from cardrl.web.app import create_app
    from cardrl.web.catalog import build_catalog

    server = ThreadServer(create_app(build_catalog([]), max_sessions=3), free_port()).start()
    body = {"game": "big2", "agent": "random", "seed": 4}
    try:
        person = requests.Session()
        person.get(server.url + "/", timeout=30)  # the page sets the browser's client cookie
        mine = person.post(server.url + "/api/play", json=body, timeout=30).json()["session"]
        burst = [requests.post(server.url + "/api/play", json=body, timeout=30) for _ in range(12)]
        assert all(r.status_code == 200 for r in burst)  # never "try again in a minute"
        assert person.get(f"{server.url}/api/play/{mine}", timeout=30).ok  # another client's game goes on
        first, last = burst[0].json()["session"], burst[-1].json()["session"]
        assert requests.get(f"{server.url}/api/play/{first}", timeout=30).status_code == 404  # the burst's oldest
        assert requests.get(f"{server.url}/api/play/{last}", timeout=30).ok
    finally:
        server.stop()
