"""DMC on the whole game of DouDiZhu (algorithms/dmc/bidding.py; AlphaDou): the bidding decisions' labels against the
engine's payoff, the all-pass redeal labelled 0, the exploration schedule, the options that compose and those refused,
and a short real training run that checkpoints, restores and whose checkpoint agent bids over whole games."""

from collections import defaultdict
from contextlib import contextmanager

import numpy as np
import pytest
import torch

from cardrl.agents.q_agent import QAgent
from cardrl.algorithms.dmc.bidding import BidEpsilon, is_bid_module, parse_bid_epsilon
from cardrl.algorithms.dmc.dmc_env_runner import DMCEnvRunner
from cardrl.features.bidding import BID_BLOCK, bid_block_of_game
from cardrl.games.doudizhu import ROLES, DouDizhuGame
from helpers.dmc_configs import small_dmc_config


def _runner(**training) -> DMCEnvRunner:
    config = small_dmc_config(bidding=True, q_model="mlp", **training)
    config.num_envs_per_env_runner = 1
    config.validate()
    return DMCEnvRunner(config=config, worker_index=1)


def _deals(runner: DMCEnvRunner, deals: int):
    """Tick the runner's one game until ``deals`` deals ended; per tick the finished game (or None) and the columns
    labelled in that tick."""
    finished: list = []
    reset = runner._reset

    def capture(i):
        game = runner.envs[i].game
        if game.phase is not None and game.is_over:
            finished.append(game.copy())
        reset(i)

    runner._reset = capture
    ticks = []
    while len(finished) < deals:
        out = defaultdict(lambda: defaultdict(list))
        done = len(finished)
        runner._tick(out)
        cols = {m: {k: np.concatenate(v) for k, v in c.items()} for m, c in out.items()}
        ticks.append((finished[-1] if len(finished) > done else None, cols))
    return ticks


def _payoff(game, seat: int) -> float:
    """The deal's ADP for ``seat``, from its rules: bid x 2^bombs, twice that for the landlord, + for the winners."""
    base = game.bid * 2.0 ** game.bomb_count
    landlord_won = game.winner == game.landlord
    sign = 1.0 if (seat == game.landlord) == landlord_won else -1.0
    return sign * base * (2.0 if seat == game.landlord else 1.0)


def test_every_decision_of_a_deal_carries_that_deals_return_for_the_final_role():
    runner = _runner(bid_epsilon="1:1:1", epsilon=0.2)  # every bid explored
    checked = bids_checked = 0
    multipliers = set()
    for game, cols in _deals(runner, 6):
        if game is None:
            continue
        multipliers.add(game.bid * 2 ** game.bomb_count)
        assert np.allclose([_payoff(game, s) for s in range(3)], game.payoffs())
        for mid, c in cols.items():
            if is_bid_module(mid):  # bid_k: the k-th bidder of the final deal, its payoff as it is (landlord x2)
                seat = (game.first_bidder + int(mid[-1])) % 3
                assert c["target"].tolist() == [_payoff(game, seat)] * len(c["target"])
                assert len(c["target"]) == 1 and int(c["obs"][0, 69 + int(mid[-1])]) == 1
                bids_checked += 1
            else:  # card play: the role's payoff, the landlord's halved (DouZero's targets), the bid block
                seat = game.seat_of(mid)
                scale = 0.5 if mid == "landlord" else 1.0
                assert np.all(c["target"] == _payoff(game, seat) * scale)
                assert np.all(c[BID_BLOCK] == bid_block_of_game(game))
            checked += len(c["target"])
        assert sum(len(c["target"]) for m, c in cols.items() if is_bid_module(m)) == len(game.bids)
    assert bids_checked >= 6 and checked > 100
    assert len(multipliers) > 1  # deals at different stakes: the bid's multiplier is in every label


def test_an_all_pass_deal_is_dealt_again_and_its_bids_are_labelled_zero():
    runner = _runner(bid_epsilon="0:0:1")
    for mid in ("bid_0", "bid_1", "bid_2"):  # equal Q for every bid: the greedy choice is the first, pass
        for p in runner.module[mid].parameters():
            torch.nn.init.zeros_(p)
    game = runner.envs[0].game
    labelled = []
    for _ in range(9):
        out = defaultdict(lambda: defaultdict(list))
        runner._tick(out)
        labelled += [(m, t) for m, c in out.items() for t in np.concatenate(c["target"]).tolist()]
    assert game.redeals == 3 and game.phase == "bid"
    assert sorted(labelled) == sorted([(f"bid_{k}", 0.0) for k in range(3)] * 3)


def test_the_bidding_exploration_decays_from_point_three_to_point_zero_three():
    schedule = parse_bid_epsilon(small_dmc_config(bidding=True).bid_epsilon)
    assert schedule == BidEpsilon(0.3, 0.03, 10_000_000)
    assert schedule.value(0) == pytest.approx(0.3)
    assert schedule.value(5_000_000) == pytest.approx(0.165)
    assert schedule.value(10_000_000) == schedule.value(10**9) == pytest.approx(0.03)
    config = small_dmc_config(bidding=True, bid_epsilon="0.5:0.1:100")
    assert config.schedule_values(50)["bid_epsilon"] == pytest.approx(0.3)
    assert "bid_epsilon" not in small_dmc_config().schedule_values(50)
    runner = _runner(bid_epsilon="1:1:1")
    runner.sample(num_frames=1, schedules={"bid_epsilon": 0.25})
    assert runner.bid_epsilon == 0.25 and runner.epsilon == 0.01
    with pytest.raises(ValueError, match="START:END:FRAMES"):
        parse_bid_epsilon("0.3")


@pytest.mark.parametrize("options, message", [
    ({"coach": True}, "does not compose with coach"),
    ({"opponent_model": "douzero_plus"}, "does not compose with opponent_model"),
    ({"target_baseline": "seat_mean"}, "does not compose with target_baseline"),
    ({"module_mapping": "shared"}, "module_mapping='shared' is not supported with bidding"),
    ({"bid_networks": "per_seat"}, "bid_networks='per_seat' is unknown"),
    ({"bid_epsilon": "2:0:10"}, "must lie in \\[0, 1\\]"),
    ({"bid_hidden_sizes": (0,)}, r"bid_hidden_sizes=\(0,\) must be a non-empty list, each an int >= 1"),
    ({"bid_frames_per_update": 0}, "bid_frames_per_update=0 must be an int >= 1"),
])
def test_options_that_do_not_compose_with_bidding_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        small_dmc_config(bidding=True, **options).validate()


def test_bidding_outside_doudizhu_or_its_options_without_it_are_refused():
    with pytest.raises(ValueError, match="big2 has no bidding phase"):
        small_dmc_config(bidding=True).game("big2").validate()
    with pytest.raises(ValueError, match="features='unified' is not supported with bidding"):
        small_dmc_config(bidding=True).game("doudizhu", features="unified").validate()
    with pytest.raises(ValueError, match="set but bidding is off"):
        small_dmc_config(bid_networks="shared").validate()
    config = small_dmc_config()
    config.env_config = {"bidding": True}  # past .game(), which makes it DMC's option
    with pytest.raises(ValueError, match="DMC's bidding option is off"):
        config.validate()
    with pytest.raises(ValueError, match="bid_frames_per_update=33 must be a multiple of num_learners=2"):
        small_dmc_config(bidding=True, bid_frames_per_update=33).learners(num_learners=2).validate()
    assert small_dmc_config().game("doudizhu", bidding=True).bidding is True


def test_odmc_admc_and_the_oracle_compose_with_bidding():
    runner = _runner(prune="mcs", q_clip="admc", oracle="1:0:1000", bid_networks="shared")
    out = runner.sample(num_frames=300, schedules={"oracle_lambda": 1.0, "bid_epsilon": 0.3})
    batch = out["batch"]
    assert set(batch) == {"bid", *ROLES}
    assert "oracle" not in batch["bid"] and "actor_q" in batch["bid"]
    assert all("oracle" in batch[r] and BID_BLOCK in batch[r] and "actor_q" in batch[r] for r in ROLES)
    assert runner.pruner.legal_seen > 0
    config = small_dmc_config(bidding=True, q_clip="admc")
    reach = 2 * 3 * 2.0 ** 14
    assert config.reward_bounds("bid_0") == (-reach, reach)
    assert config.reward_bounds("landlord") == config.reward_bounds("landlord_up") == (-reach / 2, reach / 2)


@contextmanager
def _built(config):
    """The algorithm of ``config``, stopped on the way out."""
    algo = config.build_algo()
    try:
        yield algo
    finally:
        algo.stop()


def _train_until_every_network_updated(algo, iterations: int = 6) -> dict:
    for _ in range(iterations):
        result = algo.train()
        updates = result["module_updates"]
        if updates.get("bid_0", 0) >= 1 and all(updates[r] >= 1 for r in ROLES):
            break
    assert updates["bid_0"] >= 1 and all(updates[r] >= 1 for r in ROLES)
    return result


def test_whole_game_training_checkpoints_restores_and_its_agent_bids(ray_local, tmp_path):
    from cardrl.agents.loaders import agent_loader

    small = {"bidding": True, "q_model": "mlp", "bid_frames_per_update": 32}
    with _built(small_dmc_config(num_env_runners=1, **small)) as algo:
        frames = _train_until_every_network_updated(algo)["frames_trained"]
        path = algo.save_to_path(str(tmp_path / "ckpt"))
    with _built(small_dmc_config(**small)) as restored:
        restored.restore_from_path(path)
        assert restored.train()["frames_trained"] > frames
        card_player = QAgent(restored.q_modules(), "doudizhu")  # without its bidding networks: no bidding
        bidding_view = DouDizhuGame(bidding=True).reset(0).view(0)
        with pytest.raises(ValueError, match="no bidding networks"):
            card_player.act(bidding_view, np.arange(27472, 27476))
        assert card_player.bids is False
    with _built(small_dmc_config(q_model="mlp")) as fixed, pytest.raises(ValueError, match="bidding"):
        fixed.restore_from_path(path)

    for deals in ({"bidding": True}, {"bidding": False}):  # its bid actions do not make it refuse either deals
        assert agent_loader("checkpoint").load(path, "doudizhu", deals, None).bids is True
    agent = agent_loader("checkpoint").load(path, "doudizhu", {}, None)
    assert agent.bids is True and sorted(agent.bid_modules) == ["bid_0", "bid_1", "bid_2"]
    filtered = []  # an ODMC agent's pruning (its move filter) applies to card play only

    def card_play_only(view, legal):
        assert view.phase != "bid"
        filtered.append(len(legal))
        return legal

    agent.move_filter = card_play_only
    game = DouDizhuGame(bidding=True)
    for seed in range(8):
        game.reset(seed)
        bids = 0
        while not game.is_over:
            legal = game.legal_moves()
            move = agent.act(game.view(game.current_player), legal)
            assert move in legal
            bids += game.phase == "bid"
            game.step(move)
        assert bids >= 1 and game.landlord >= 0 and game.payoffs().sum() == 0
    assert filtered


def test_a_bidding_runs_evaluations_play_the_whole_game(ray_local, tmp_path, capsys):
    """`cardrl train --bidding` evaluates on whole-game duplicate deals (its bidding networks bid; a baseline that does
    not bid plays with the rule bidder) and keeps the fixed-landlord score beside it."""
    from cardrl.cli import main
    from cardrl.run_dir import read_progress

    out = tmp_path / "run"
    rc = main(["train", "doudizhu", "--bidding", "--stop-frames", "400", "--num-env-runners", "0",
               "--num-envs-per-env-runner", "4", "--frames-per-update", "64", "--bid-frames-per-update", "8",
               "--model", "mlp", "--eval-every", "0", "--eval-every-frames", "200", "--eval-deals", "3",
               "--eval-against", "random", "rlcard",
               "--out", str(out)])
    printed = capsys.readouterr().out
    assert rc == 0
    final = read_progress(out)[-1]
    assert final["final"] and set(final["eval"]) == {"random", "rlcard"}
    assert final["eval"]["rlcard"]["played_as"] == "rlcard+bidder=rule" and final["eval"]["random"]["played_as"] \
        == "random"
    for ev in final["eval"].values():
        assert ev["deals"] == 3 and ev["adp_low"] <= ev["adp"] <= ev["adp_high"]
        # 6 games a deal, the trained agent alone in 3 of them and paired in 3: 9 of the 18 seats of each deal
        assert ev["landlord_rate"] == ev["landlord_games"] / (9 * 3)
        assert 0 <= ev["redeal_rate"] <= 1 and 0 <= ev["baseline"]["landlord_rate"] <= 1
        # every game has one landlord: the two sides' landlord games sum to the games played
        assert ev["landlord_games"] + round(ev["baseline"]["landlord_rate"] * 9 * 3) == 6 * 3
    assert set(final["eval_fixed_landlord"]["results"]) == {"random", "rlcard"}
    assert "landlord_rate" not in final["eval_fixed_landlord"]["results"]["random"]
    evaluated = [r for r in read_progress(out) if "eval" in r and not r.get("final")]
    assert evaluated and all("landlord_rate" in ev for ev in evaluated[0]["eval"].values())
    assert "| vs rlcard: landlord rate" in printed and "redeals" in printed
    assert "final whole-game ADP vs rlcard+bidder=rule over 3 deals x 6 arrangements" in printed
    assert "final ADP vs random, card play on fixed-landlord deals" in printed
