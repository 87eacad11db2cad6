"""The model zoo's entries: trained agents shipped inside the package (docs/strength.md, "The zoo").

Each entry is a directory of this package, named after what it plays (``doudizhu``, ``big2``, ``guandan``,
``doudizhu-whole-game``), holding a ``weights:``-format export (:mod:`cardrl.agents.exported`: JSON and safetensors,
no pickle), its card (:data:`CARD_FILE`: how it was trained, where it came from, how it was exported) and its
strength: one ``cardrl eval`` result file per opponent (:mod:`cardrl.zoo.strength`). The agent spec ``zoo:NAME``
plays an entry in ``cardrl eval``, ``play`` and ``serve``; ``cardrl zoo add`` (a maintainer's command) puts one in.

:func:`default_agent` is the opponent and hint source ``cardrl play`` and the web app's Play page use when none is
named: the zoo agent of the game when its card's mean against the game's rule agent is above 0, else the rule agent.
So a stronger zoo agent becomes the default when it is added, with no change to the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from cardrl.agents.base import Agent
from cardrl.agents.exported import AGENT_FILE, load_weights_agent
from cardrl.agents.loaders import AgentLoader, register_agent_loader
from cardrl.games.registry import game_names
from cardrl.zoo.strength import read_strength

__all__ = ["ZOO_ROOT", "CARD_FILE", "CARD_MARKDOWN", "WHOLE_GAME_SUFFIX", "MAX_ZOO_BYTES", "RULE_AGENT", "entry_names",
           "zoo_entries", "entry_dir", "entry_game", "read_card", "weight_files", "zoo_weight_bytes", "default_agent",
           "load_zoo_agent", "register"]

ZOO_ROOT = Path(__file__).resolve().parent
CARD_FILE = "card.json"
CARD_MARKDOWN = "CARD.md"
WHOLE_GAME_SUFFIX = "-whole-game"  # GAME-whole-game: a game with bidding (DouDiZhu's), played from the bids
MAX_ZOO_BYTES = 25_000_000  # every entry's weight files together
RULE_AGENT = "rule"  # the agent kind every game has, and the default when no zoo agent beats it


def entry_names() -> tuple[str, ...]:
    """The names an entry may have: each game's, and the whole game of each game with bidding (DouDiZhu's)."""
    from cardrl.games.registry import get_game

    whole = [f"{g}{WHOLE_GAME_SUFFIX}" for g in game_names() if get_game(g).protocol.bidding_option is not None]
    return (*game_names(), *whole)


def entry_game(name: str) -> str:
    """The game an entry plays (the whole-game entry plays DouDiZhu, with bidding)."""
    return name.removesuffix(WHOLE_GAME_SUFFIX)


def zoo_entries(root: str | Path = ZOO_ROOT) -> dict[str, Path]:
    """name -> directory of every complete entry (an export and a card) under ``root``."""
    root = Path(root)
    return {name: root / name for name in entry_names()
            if (root / name / AGENT_FILE).is_file() and (root / name / CARD_FILE).is_file()}


def _listing(root: Path) -> str:
    have = sorted(zoo_entries(root))
    return ("it has " + ", ".join(f"zoo:{n}" for n in have)) if have else "it has no entries"


def entry_dir(name: str, root: str | Path = ZOO_ROOT) -> Path:
    """The directory of entry ``name``; ValueError saying what the zoo has when it is not there."""
    root = Path(root)
    if name not in entry_names():
        raise ValueError(f"zoo:{name}: not a zoo entry name; names are {', '.join(entry_names())} "
                         f"({_listing(root)})")
    entries = zoo_entries(root)
    if name not in entries:
        raise ValueError(f"zoo:{name}: the zoo has no {name} agent yet (none has been trained and added); "
                         f"{_listing(root)} (cardrl zoo list)")
    return entries[name]


def read_card(name: str, root: str | Path = ZOO_ROOT) -> dict:
    """The card of entry ``name`` (:data:`CARD_FILE`)."""
    file = entry_dir(name, root) / CARD_FILE
    try:
        card = json.loads(file.read_text())
    except ValueError as err:
        raise ValueError(f"{file}: not JSON ({err})") from None
    if not isinstance(card, dict) or card.get("name") != name:
        raise ValueError(f"{file}: not the card of zoo entry {name!r}")
    return card


def weight_files(directory: str | Path) -> list[Path]:
    """The weight files of an export directory (the files its JSON names)."""
    directory = Path(directory)
    record = json.loads((directory / AGENT_FILE).read_text())
    return [directory / net["file"] for net in record["networks"].values()]


def zoo_weight_bytes(root: str | Path = ZOO_ROOT) -> int:
    """The size of every entry's weight files together."""
    return sum(f.stat().st_size for d in zoo_entries(root).values() for f in weight_files(d))


def default_agent(game: str, root: str | Path = ZOO_ROOT, *, bidding: bool = False) -> str:
    """The agent spec a game's opponents and hints default to: ``zoo:GAME`` when that entry's mean against the rule
    agent (its result file) is above 0, else ``rule`` (module docstring). ``bidding`` (the whole game): the
    whole-game entry when it is there and beats the rule agent, else the card-play default bidding by rule."""
    entries = zoo_entries(root)
    whole = f"{game}{WHOLE_GAME_SUFFIX}"
    if bidding and whole in entries and _beats_rule(entries[whole]):
        return f"zoo:{whole}"
    if game not in entries or not _beats_rule(entries[game]):
        return RULE_AGENT
    return f"zoo:{game}+bidder={RULE_AGENT}" if bidding else f"zoo:{game}"


def _beats_rule(directory: Path) -> bool:
    """The entry's mean against the rule agent, as its result file has it, is above 0."""
    row = read_strength(directory).get(RULE_AGENT)
    return row is not None and row.mean > 0


def load_zoo_agent(name: str, game: str, options: Mapping[str, Any], module: str | None,
                   root: str | Path = ZOO_ROOT) -> Agent:
    """The agent of the ``zoo:NAME`` spec kind: the entry's ``weights:`` export."""
    if module is not None:
        raise ValueError(f"zoo:{name}:{module}: zoo:NAME takes no :MODULE")
    directory = entry_dir(name, root)
    if entry_game(name) != game:
        raise ValueError(f"zoo:{name} plays {entry_game(name)}, not {game}; the {game} entry is zoo:{game}")
    return load_weights_agent(str(directory), game, options, None)


def register() -> None:
    """Register the ``zoo`` agent-spec kind (the ``cardrl.agent_loaders`` entry point)."""
    register_agent_loader(AgentLoader("zoo", load_zoo_agent, "zoo:GAME", runs_code=False, takes_path=False),
                          replace=True)
