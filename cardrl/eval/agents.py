"""Agents from spec strings, for tournaments and the CLI.

Spec grammar (checked by :func:`parse_agent_spec` before anything is built or played):

- ``random`` or ``random:SEED``: :class:`~cardrl.agents.RandomAgent` (without SEED the tournament gives side A
  and side B different seeds; equal SEEDs make identical players), every game.
- ``mcs-greedy``: :class:`~cardrl.agents.mcs_greedy.MCSGreedyAgent`, every game with a Minimum Combination Search.
- a game's own agent kinds (``GameSpec.agent_kinds``): ``rule`` (every game's rule agent), ``rule-control``
  (GuanDan's second style), ...
- a loaded agent ``KIND:PATH[:MODULE]`` of a registered loader (:mod:`cardrl.agents.loaders`); cardrl's DMC
  registers ``checkpoint:PATH[:OPTIONS]`` (a cardrl DMC checkpoint, played as trained: an ODMC agent with its pruning,
  an oracle agent with a zero oracle block; OPTIONS, comma-separated: ``MODULE`` that one module plays every seat,
  ``unpruned`` every legal move, ``oracle`` the oracle block it was trained on; :mod:`cardrl.algorithms.dmc.
  checkpoints`) and ``douzero:DIR`` (DouZero's public checkpoints ``landlord.ckpt``, ``landlord_down.ckpt``,
  ``landlord_up.ckpt``, DouDiZhu only).
- ``SPEC+bidder=BIDDER``: SPEC plays the cards and BIDDER (a spec of an agent that bids: ``rule``, ``random[:SEED]``,
  a checkpoint that learned bidding) makes the bids (:class:`~cardrl.agents.with_bidder.WithBidder`); how an agent
  that plays with a fixed landlord plays the whole game (DouDiZhu with bidding). Without bidding the bidder is never
  asked.

Which kinds a game has is asked of the registry; torch and Ray are imported only by loaders.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardrl.agents.base import Agent
from cardrl.agents.loaders import agent_loader, loader_kinds
from cardrl.args import path_arg
from cardrl.checkpoint_trust import warn_if_untrusted
from cardrl.games.registry import game_names, get_game

__all__ = ["AgentSpec", "parse_agent_spec", "agent_spec_arg", "build_agent", "spec_help", "check_bids", "BUILTIN_KINDS", "BIDDER_SEP"]

BUILTIN_KINDS = ("random", "mcs-greedy")
BIDDER_SEP = "+bidder="


def _game_kinds() -> set[str]:
    return {kind for g in game_names() for kind in get_game(g).agent_kinds}


def spec_help() -> str:
    """The spec forms available now (built-in, the games' own kinds, registered loaders)."""
    loaders = loader_kinds()
    kinds = ["random[:SEED]", "mcs-greedy"]
    for kind in sorted(_game_kinds()):
        games = [g for g in game_names() if kind in get_game(g).agent_kinds]
        kinds.append(kind if len(games) == len(game_names()) else f"{kind} ({', '.join(games)})")
    for kind, loader in sorted(loaders.items()):
        kinds.append(loader.usage + (f" ({', '.join(loader.games)})" if loader.games else ""))
    return " | ".join(kinds) + f"; SPEC{BIDDER_SEP}BIDDER bids with another agent (whole game)"


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: ``kind``, ``path``, ``module`` and ``seed`` as given; ``bidder`` the spec of its bidder
    (``SPEC+bidder=BIDDER``) or None."""

    text: str
    kind: str
    path: str | None = None
    module: str | None = None
    seed: int | None = None
    bidder: "AgentSpec | None" = None


def parse_agent_spec(text: str) -> AgentSpec:
    """Parse a spec string (module docstring); ValueError saying what is allowed when it does not parse."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"agent spec {text!r} does not parse; allowed: {spec_help()}")
    text = text.strip()
    if BIDDER_SEP in text:
        return _parse_paired(text)
    kind, _, rest = text.partition(":")
    if kind == "random":
        if not rest:
            return AgentSpec(text, "random")
        if not (rest.isascii() and rest.isdigit()):
            raise ValueError(f"agent spec {text!r} does not parse: random:SEED needs a non-negative int seed")
        return AgentSpec(text, "random", seed=int(rest))
    if kind == "mcs-greedy" or kind in _game_kinds():
        if rest:
            raise ValueError(f"agent spec {text!r} does not parse: {kind} takes no argument")
        return AgentSpec(text, kind)
    loader = agent_loader(kind)
    if loader is not None:
        if not rest:
            raise ValueError(f"agent spec {text!r} does not parse: {loader.usage} needs a path")
        path, module = rest, None
        head, sep, tail = rest.rpartition(":")
        if sep and head and tail and "/" not in tail and not Path(rest).exists():
            path, module = head, tail
        return AgentSpec(text, kind, path=path, module=module)
    raise ValueError(f"agent spec {text!r} does not parse: unknown kind {kind!r}; allowed: {spec_help()}")


def agent_spec_arg(text: str) -> str:
    """An agent spec with its path (``checkpoint:PATH[:MODULE]``, ``topk-ppo:PATH``, ...) made absolute when the
    command line is parsed (:func:`path_arg`); other specs, and specs that do not parse (refused later with the
    allowed forms), unchanged."""
    try:
        spec = parse_agent_spec(text)
    except ValueError:
        return text
    loader = agent_loader(spec.kind) if spec.path is not None else None
    if spec.path is None or (loader is not None and not loader.takes_path):
        return spec.text
    return f"{spec.kind}:{path_arg(spec.path)}" + (f":{spec.module}" if spec.module is not None else "")


agent_spec_arg.allowed = "an agent spec (random, rule, checkpoint:PATH, ...)"


def _parse_paired(text: str) -> AgentSpec:
    """``SPEC+bidder=BIDDER`` parsed: SPEC with its bidder's spec."""
    card_play, _, bidder = text.partition(BIDDER_SEP)
    if not card_play.strip() or not bidder.strip() or BIDDER_SEP in bidder:
        raise ValueError(f"agent spec {text!r} does not parse: write SPEC{BIDDER_SEP}BIDDER with one card-play spec "
                         f"and one bidder spec, e.g. rlcard{BIDDER_SEP}rule")
    inner = parse_agent_spec(card_play)
    return AgentSpec(text, inner.kind, inner.path, inner.module, inner.seed, bidder=parse_agent_spec(bidder))


def check_bids(agent: Agent, purpose: str = "the whole game (bidding)") -> Agent:
    """``agent`` when it can bid; else ValueError saying why and how to pair it with a bidder."""
    if not agent.bids:
        raise ValueError(f"agent {agent.name!r} cannot play {purpose}: it plays with a fixed landlord and does not "
                         f"bid; pair it with a bidder, e.g. '{agent.name}{BIDDER_SEP}rule' (bidders: rule, "
                         f"random[:SEED], or a checkpoint that learned bidding)")
    return agent


def build_agent(spec: str | AgentSpec, game: str = "doudizhu", options: dict[str, Any] | None = None,
                seed: int = 0) -> Agent:
    """Build the agent of ``spec`` for ``game`` with rule ``options`` (the deal file's). ``seed`` seeds a
    ``random`` spec without its own seed. Raises ValueError/FileNotFoundError before any game is played when the
    spec does not parse, does not apply to the game, or a checkpoint does not fit it. A checkpoint of a loader that
    may run code, not produced on this machine, is warned about before it is loaded
    (:mod:`cardrl.checkpoint_trust`)."""
    spec = spec if isinstance(spec, AgentSpec) else parse_agent_spec(spec)
    if spec.bidder is not None:
        from dataclasses import replace

        if get_game(game).protocol.bidding_option is None:
            raise ValueError(f"agent spec {spec.text!r}: {BIDDER_SEP}BIDDER pairs an agent with a bidder for a game "
                             f"whose roles are bid for; {game} has no bidding: give the card-play spec alone "
                             f"({spec.text.partition(BIDDER_SEP)[0]!r})")

        from cardrl.agents.with_bidder import WithBidder

        card_play = build_agent(replace(spec, text=spec.text.partition(BIDDER_SEP)[0], bidder=None), game, options,
                                seed)
        bidder = build_agent(spec.bidder, game, options, seed)
        return WithBidder(card_play, bidder, name=spec.text)
    game_spec = get_game(game)
    options = game_spec.full_options(options)
    if spec.kind == "random":
        from cardrl.agents import RandomAgent

        agent: Agent = RandomAgent(spec.seed if spec.seed is not None else seed)
    elif spec.kind == "mcs-greedy":
        if game_spec.search is None:
            raise ValueError(f"agent spec 'mcs-greedy' needs a game with Minimum Combination Search; {game} has none")
        from cardrl.agents.mcs_greedy import MCSGreedyAgent

        agent = MCSGreedyAgent.for_game(game, options)
    elif spec.kind in game_spec.agent_kinds:
        agent = game_spec.agent_kind(spec.kind)(options)
    elif spec.kind in _game_kinds():
        games = [g for g in game_names() if spec.kind in get_game(g).agent_kinds]
        raise ValueError(f"agent spec {spec.text!r} plays {', '.join(games)} only, not {game!r}")
    else:
        loader = agent_loader(spec.kind)
        if loader is None:  # pragma: no cover (parse_agent_spec refuses unknown kinds)
            raise ValueError(f"no loader for agent spec {spec.text!r}")
        if loader.games is not None and game not in loader.games:
            raise ValueError(f"agent spec {spec.text!r} plays {', '.join(loader.games)} only, not {game!r}")
        if loader.runs_code:
            warn_if_untrusted(spec.path, f"agent spec {spec.text!r}")
        agent = loader.load(spec.path, game, options, spec.module)
    agent.name = spec.text
    return agent
