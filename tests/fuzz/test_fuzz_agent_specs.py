"""Fuzzing agent specs (``random[:SEED]``, ``rule``, ``checkpoint:PATH[:OPTIONS]``, ``ppo:PATH``, ``topk-ppo:PATH``,
``douzero:DIR``, ``SPEC+bidder=BIDDER``, ...): spec strings pieced together from kinds, separators, paths, whitespace
and unicode either build an agent for the game or are refused with one ValueError / FileNotFoundError line that says
what is wrong, and an unknown kind names every allowed form. docs/operations.md, "Fuzzing".
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cardrl.agents.base import Agent
from cardrl.eval.agents import BIDDER_SEP, build_agent, parse_agent_spec, spec_help
from helpers.fuzz import fuzz_settings

GAMES = ("doudizhu", "big2", "guandan")
KINDS = ("random", "rule", "rlcard", "rule-control", "mcs-greedy", "checkpoint", "douzero", "ppo", "topk-ppo")
PIECES = st.one_of(
    st.sampled_from([*KINDS, "", " ", "\t", ":", "::", BIDDER_SEP, "+bidder", "+", "=", "/no/such/dir", "7", "-1",
                     "²", "٣", "ｒａｎｄｏｍ", "é", "\u200b", "RANDOM", "unpruned", "oracle", "bid_0", ",",
                     "x"]),
    st.text(max_size=4))
SPECS = st.lists(PIECES, max_size=5).map("".join)


def _kind(text: str) -> str:
    return text.strip().partition(BIDDER_SEP)[0].partition(":")[0]


@fuzz_settings(150)
@given(text=SPECS, game=st.sampled_from(GAMES))
def test_specs_build_an_agent_or_are_refused_in_one_line(text, game):
    try:
        agent = build_agent(text, game)
    except (ValueError, FileNotFoundError) as err:
        message = str(err)
        assert message and "\n" not in message
        if text.strip() and _kind(text) not in KINDS and BIDDER_SEP not in text:
            assert "allowed:" in message and "random[:SEED]" in message and "checkpoint:PATH" in message, message
        return
    assert isinstance(agent, Agent) and agent.name == text.strip()


@fuzz_settings(40)
@given(kind=st.text(min_size=1, max_size=8).filter(lambda k: k.strip() and k.strip() not in KINDS
                                                   and ":" not in k and "+" not in k),
       rest=st.sampled_from(["", ":x", ":/no/such/dir", ":1"]))
def test_unknown_kinds_name_the_allowed_forms(kind, rest):
    try:
        parse_agent_spec(kind + rest)
    except ValueError as err:
        assert "unknown kind" in str(err) and spec_help() in str(err)
    else:
        raise AssertionError(f"{kind + rest!r} parsed")


@fuzz_settings(40)
@given(card_play=st.sampled_from(["random", "rule", "random:3"]),
       bidder=st.sampled_from(["rule", "random", "random:1"]), game=st.sampled_from(["big2", "guandan"]))
def test_regression_a_bidder_for_a_game_without_bidding_is_refused(card_play, bidder, game):
    """``SPEC+bidder=BIDDER`` on Big2 or GuanDan built an agent whose bidder was never asked: now it says so."""
    text = f"{card_play}{BIDDER_SEP}{bidder}"
    try:
        build_agent(text, game)
    except ValueError as err:
        assert "has no bidding" in str(err) and repr(card_play) in str(err)
    else:
        raise AssertionError(f"{text!r} built on {game}")


def test_regression_a_random_seed_of_non_ascii_digits_is_refused():
    """``random:²`` passed ``str.isdigit`` and died in ``int()`` with "invalid literal"; ``random:٣`` seeded 3."""
    for text in ("random:²", "random:٣", "random:１"):
        try:
            parse_agent_spec(text)
        except ValueError as err:
            assert "non-negative int seed" in str(err)
        else:
            raise AssertionError(f"{text!r} parsed")


def test_malformed_forms_say_what_is_allowed():
    cases = {"": "allowed:", "rule:x": "takes no argument", "random:x": "non-negative int seed",
             "checkpoint:": "needs a path", "random+bidder=": "SPEC+bidder=BIDDER",
             "random+bidder=rule+bidder=rule": "SPEC+bidder=BIDDER", "random+bidder=nope": "allowed:"}
    for text, said in cases.items():
        try:
            build_agent(text, "doudizhu")
        except ValueError as err:
            assert said in str(err), (text, str(err))
        else:
            raise AssertionError(f"{text!r} built")
