"""The shapes of ``cardrl serve``'s request bodies (docs/web.md, "The JSON API"), checked before anything runs.

Deal seeds go both ways as strings of digits: a seed of a saved game is often above 2**53, which a browser's
numbers cannot hold exactly. A request may still send a seed as a JSON integer (read exactly on the server)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

__all__ = ["MAX_SEED", "parse_seed", "Seed", "PlayRequest", "MoveRequest", "CompareRequest"]

MAX_SEED = 2**63 - 1
MAX_SELECTED = 40  # cards in one selection: GuanDan's largest move has 10, a hand 27


def parse_seed(value: Any) -> int:
    """A deal seed from a request: a string of digits (or a JSON integer) 0..2**63-1; ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"a deal seed is a string of digits 0..{MAX_SEED}")
    text = str(value).strip()
    if not text.isdigit() or len(text) > len(str(MAX_SEED)) or int(text) > MAX_SEED:
        raise ValueError(f"a deal seed is a whole number 0..{MAX_SEED} (as a string of digits), got {text[:30]!r}")
    return int(text)


Seed = Annotated[int, BeforeValidator(parse_seed)]
Rules = Annotated[dict[str, Any], Field(default_factory=dict, max_length=16)]


class PlayRequest(BaseModel):
    game: str = Field(max_length=40)
    seat: int = Field(0, ge=0, le=7)
    agent: str | None = Field(None, max_length=300)  # None: the game's default (cardrl.zoo.catalog.default_agent)
    hint_agent: str | None = Field(None, max_length=300)
    seed: Seed | None = None
    deals: int = Field(1, ge=1, le=50)
    rules: Rules


class MoveRequest(BaseModel):
    """One of: ``action`` (a legal move id), ``text`` (typed as in ``cardrl play``), ``cards`` (the tokens of the
    selected cards, as the state's ``my_cards`` names them)."""

    action: int | None = Field(None, ge=0)
    text: str | None = Field(None, max_length=200)
    cards: list[Annotated[str, Field(max_length=8)]] | None = Field(None, max_length=MAX_SELECTED)


class CompareRequest(BaseModel):
    game: str = Field(max_length=40)
    a: str = Field(max_length=300)
    b: str = Field(max_length=300)
    seed: Seed = 0
    arrangement: int = Field(0, ge=0, le=7)
    rules: Rules
