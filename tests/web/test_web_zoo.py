"""cardrl serve offers the zoo's agents and its Play page defaults to the game's default agent (the zoo agent when
its card shows it beats the rule agent, else the rule agent; docs/strength.md): ``/api/info`` names it per game, the
page selects it for the opponents and the hints, and a play request that names no agent gets it."""

from __future__ import annotations

import requests

from cardrl.zoo.catalog import default_agent, entry_game, zoo_entries


def test_the_play_page_defaults_to_the_default_agent_and_offers_the_zoo(server):
    info = {g["name"]: g for g in requests.get(server + "/api/info", timeout=60).json()["games"]}
    for game, g in info.items():
        assert g["default_agent"] == default_agent(game)
        assert g["default_agent"] in g["agents"]
    for name in zoo_entries():
        assert f"zoo:{name}" in info[entry_game(name)]["agents"]
    r = requests.post(server + "/api/play", json={"game": "big2", "seed": 4}, timeout=120)
    assert r.status_code == 200, r.text
    assert set(r.json()["seats_agents"].values()) == {default_agent("big2")}


def test_the_page_script_selects_the_default_agent_on_the_play_page(server):
    script = requests.get(server + "/static/app.js", timeout=60).text
    assert 'const preferred = prefix === "play" ? g.default_agent : "rule";' in script
