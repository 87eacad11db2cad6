"""cardrl.web.table's TrickTracker: the Play page's move log is every move of the deal being played."""

import numpy as np

from cardrl.games.registry import get_game
from cardrl.play.session import notation_for
from cardrl.web.table import TrickTracker


def _play(game_name: str, seed: int, **options):
    """A seeded random game tracked move by move; yields (engine, tracker) after every move."""
    game = get_game(game_name).make_engine(**options).reset(seed)
    tracker = TrickTracker(notation_for(game_name), game)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        action = int(rng.choice(game.legal_moves()))
        tracker.before(game, action, None)
        game.step(action)
        tracker.after(game, None)
        yield game, tracker


def test_a_one_deal_game_logs_every_move_however_long():
    for game, tracker in _play("big2", 3):
        assert tracker.deal_log() == tracker.log  # no cut: a long Big2 deal has over 60 moves
    assert len(tracker.log) == len(game.actions) > 60


def test_a_match_logs_the_current_deal_and_the_ended_one_until_the_next_moves():
    seen_deals = set()
    for game, tracker in _play("guandan", 5, max_deals=2):
        shown = tracker.deal_log()
        assert shown and shown == tracker.log[-len(shown):]
        assert {e["deal"] for e in shown} == {tracker.log[-1]["deal"]}
        before = tracker.log[:-len(shown)]
        assert not before or before[-1]["deal"] != shown[0]["deal"]  # all of the deal's moves
        seen_deals.add(shown[0]["deal"])
    assert len(seen_deals) == 2
    assert sum(len([e for e in tracker.log if e["deal"] == d]) for d in seen_deals) == len(tracker.log)
