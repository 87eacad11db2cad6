"""cardrl.web.selection: a hand card by card and a selection of cards read as a move, for every game by the same
code (the notation and the engine's move cards say what differs)."""

from __future__ import annotations

from collections import Counter

import pytest

from cardrl.games.registry import get_game
from cardrl.play.input import display_order
from cardrl.play.session import notation_for
from cardrl.web.selection import card_tokens, hand_cards, move_cards_json, read_selection, web_message


def _deal(name: str, seed: int, **options):
    game = get_game(name).make_engine(**options).reset(seed)
    notation = notation_for(name)
    return game, notation, display_order(notation, game, game.legal_moves())


@pytest.mark.parametrize("name", ["doudizhu", "big2", "guandan"])
def test_every_legal_move_is_read_back_from_its_own_cards(name):
    game, notation, legal = _deal(name, 3)
    seat = int(game.current_player)
    hand = [c["token"] for c in hand_cards(notation, game, seat)]
    assert " ".join(hand).replace(" ", "") == notation.cards_text(game.cards_held()[seat], game).replace(" ", "")
    groups = Counter(tuple(sorted(cards)) for cards in move_cards_json(notation, game, legal))
    step = max(1, len(legal) // 40)  # every move of DouDiZhu's and Big2's lead, every 8th of GuanDan's 300
    for action, cards in list(zip(legal, move_cards_json(notation, game, legal)))[::step]:
        assert not Counter(cards) - Counter(hand)
        found = read_selection(notation, game, cards, legal)
        if groups[tuple(sorted(cards))] == 1:
            assert found.action == action
        else:  # several moves of the same cards (a pass and a bid have none; a wild card stands for ranks)
            assert action in found.choices


def test_a_guandan_wild_card_standing_for_different_ranks_offers_the_choice():
    for seed in range(200):
        game, notation, legal = _deal("guandan", seed, match=False)
        moves = move_cards_json(notation, game, legal)
        groups = Counter(tuple(sorted(cards)) for cards in moves if cards)
        same = next((cards for cards, n in groups.items() if n > 1 and any(t.endswith("*") for t in cards)), None)
        if same is not None:
            break
    assert same is not None
    found = read_selection(notation, game, list(same), legal)
    assert found.action is None and len(found.choices) == groups[same] > 1
    assert {notation.move_text(game, a) for a in found.choices} == {
        notation.move_text(game, a) for a, cards in zip(legal, moves) if tuple(sorted(cards)) == same}


def test_the_guandan_hand_is_in_the_games_order_with_the_wild_and_level_cards_marked():
    game, notation, _ = _deal("guandan", 5, match=False, level="9")
    cards = hand_cards(notation, game, 0)
    assert [c["token"] for c in cards] == card_tokens(notation, game, game.cards_held()[0])
    assert [c["token"] for c in cards] == notation.cards_text(game.cards_held()[0], game).split()
    for card in cards:
        wild, level = "wild" in card["marks"], "level" in card["marks"]
        assert wild == (card["token"] == "9h*") and level == (card["token"][0] == "9" and not wild)


def test_a_selection_that_is_no_move_lists_the_moves_that_use_its_cards():
    game, notation, legal = _deal("doudizhu", 12)
    found = read_selection(notation, game, ["3", "4"], legal)
    assert found.action is None and not found.choices
    moves = dict(zip(legal, move_cards_json(notation, game, legal)))
    assert all(not Counter(["3", "4"]) - Counter(moves[a]) for a in found.using)
    assert [len(moves[a]) for a in found.using] == sorted(len(moves[a]) for a in found.using)  # smallest first


def test_the_terminals_commands_are_not_named_on_the_page():
    assert web_message("33 is not a DouDiZhu move (see help, or 'all' for the legal moves)") == \
        "33 is not a DouDiZhu move"
    assert web_message("you may not pass: you lead, so you must play (type 'all' to see the legal moves)") == \
        "you may not pass: you lead, so you must play"
    assert web_message("cannot read 'zz': bad; or type pass, #N for a move of the list, all, help or quit") == \
        "cannot read 'zz': bad"
