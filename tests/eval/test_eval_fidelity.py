"""An agent is evaluated the way it was trained (docs/architecture.md, layer 8): an ODMC agent (Luo & Tan 2024,
Sec. 4.3, eq. 2) with its pruning unless told to play unpruned; an oracle-guided agent (OADMCDou, Luo et al. 2024,
eq. 1) scored with a zero oracle block (deployable) and, labelled beside it, with the block it was trained on
(lambda x the true hands). Real tiny DMC algorithms, trained one iteration on a local Ray."""

from __future__ import annotations


import numpy as np
import pytest

from cardrl.agents.base import agent_view
from cardrl.algorithms.dmc.agent_loaders import parse_checkpoint_options
from cardrl.algorithms.dmc.dmc import DMCConfig
from cardrl.algorithms.dmc.play_options import PlayOptions
from cardrl.algorithms.dmc.oracle import ORACLE, oracle_block, oracle_block_of_view
from cardrl.algorithms.dmc.schedules import OracleSchedule
from cardrl.eval.agents import build_agent
from cardrl.games.registry import get_game
from cardrl.search.prune import MCSViewPruner, prune_moves

GAMES = [("doudizhu", {}), ("big2", {}), ("guandan", {"match": False})]


def _positions(game: str, options: dict, deals: int, seed: int = 0):
    """(engine, seat, legal) at every decision of ``deals`` seeded deals played by random moves."""
    spec = get_game(game)
    engine = spec.make_engine(**spec.full_options(options))
    rng = np.random.default_rng(seed)
    for deal in range(deals):
        engine.reset(deal)
        while not engine.is_over:
            legal = engine.legal_moves()
            yield engine, engine.current_player, legal
            engine.step(int(rng.choice(legal)))


# ---- quick: the view forms equal what the actor computes from the engine ----------------------------------------------
@pytest.mark.parametrize("game,options", GAMES)
def test_pruning_from_a_view_keeps_the_moves_the_actor_kept(game, options):
    """Eq. 2 reads only what the player sees, so an agent (which gets a view) prunes exactly as the ODMC actor (which
    reads the engine) did in training, for the paper's slack and a fixed one."""
    dropped = 0
    for slack, extra in (("paper", 0.0), ("paper", 1.5), (1.0, 0.0)):
        pruner = MCSViewPruner(game, options, slack, extra)
        for engine, seat, legal in _positions(game, options, deals=4):
            kept = prune_moves(engine, legal, slack=slack, extra=extra)
            assert np.array_equal(pruner(engine.view(seat), legal), kept)
            dropped += len(legal) - len(kept)
    assert dropped > 0  # the check saw pruning act


@pytest.mark.parametrize("game,options", GAMES)
def test_the_oracle_block_of_an_oracle_view_is_the_actors_block(game, options):
    for engine, seat, _ in _positions(game, options, deals=2):
        assert np.array_equal(oracle_block_of_view(engine.oracle_view(seat)), oracle_block(engine, seat))
    with pytest.raises(ValueError, match="oracle_view"):
        oracle_block_of_view(engine.view(seat))


def test_checkpoint_spec_options_parse_and_refuse():
    assert parse_checkpoint_options(None) == (None, False, False)
    assert parse_checkpoint_options("landlord") == ("landlord", False, False)
    assert parse_checkpoint_options("oracle") == (None, True, False)
    assert parse_checkpoint_options("shared,unpruned,oracle") == ("shared", True, True)
    with pytest.raises(ValueError, match="at most one MODULE"):
        parse_checkpoint_options("landlord,landlord_up")
    with pytest.raises(ValueError, match="repeat"):
        parse_checkpoint_options("oracle,oracle")
    with pytest.raises(ValueError, match="empty word"):
        parse_checkpoint_options("oracle,")


def test_play_options_block_scale_and_labels():
    """Scale mode feeds lambda x the hands; bernoulli (the hands shown with probability lambda in training) feeds the
    hands whenever lambda > 0; lambda 0 has no trained block to feed."""
    schedule = OracleSchedule(1.0, 0.0, 1000)
    assert PlayOptions(oracle=schedule, frames_trained=250).block_scale == pytest.approx(0.75)
    assert PlayOptions(oracle=schedule, oracle_mode="bernoulli", frames_trained=250).block_scale == 1.0
    done = PlayOptions(oracle=schedule, frames_trained=1000)
    assert not done.has_trained_block
    with pytest.raises(ValueError, match="lambda is 0"):
        done.check_trained_block("here")
    with pytest.raises(ValueError, match="without oracle guiding"):
        PlayOptions().check_trained_block("here")
    assert PlayOptions(oracle=schedule, frames_trained=250).label(trained_block=True).startswith(
        "trained oracle block: lambda 0.750 x the true hands")
    assert PlayOptions(prune="mcs").label() == "no oracle block; MCS pruning (slack N/n + d), as trained"
    options = PlayOptions(prune="mcs", prune_slack=3.0, prune_extra=1.0, oracle=schedule, oracle_mode="bernoulli")
    assert PlayOptions.from_dict(options.to_dict(), 5) == PlayOptions(**{**options.__dict__, "frames_trained": 5})


def test_eval_unpruned_needs_prune():
    from cardrl.cli import main

    assert main(["train", "doudizhu", "--eval-unpruned", "--stop-frames", "1"]) == 2


# ---- end to end: checkpoints and the driver's evaluation records -----------------------------------------------------
def _train_one_iteration(tmp_path, **training):
    config = (DMCConfig().game("doudizhu").env_runners(num_env_runners=0, num_envs_per_env_runner=8,
                                                        rollout_fragment_length=200)
              .training(frames_per_update=200, hidden_sizes=[16], **training).debugging(seed=3))
    algo = config.build_algo()
    algo.train()
    return algo, algo.save_to_path(str(tmp_path / "checkpoint"))


def _eval_args(**extra):
    """The run spec the evaluations read (game, seed, deals; ``extra`` run or DMC options)."""
    from cardrl.algorithms.training.run_spec import RunSpec

    return RunSpec.build("doudizhu", eval_deals=3, seed=0, **extra)


def test_oracle_checkpoint_is_fed_the_trained_block_with_oracle_and_zeros_without(ray_local, tmp_path):
    """``checkpoint:PATH:oracle`` feeds lambda (of the schedule at the checkpoint's frames) x the true hidden hands of
    the deal; ``checkpoint:PATH`` feeds zeros; the driver's records carry both scores, labelled."""
    from cardrl.algorithms.dmc.train_evaluation import evaluation_baselines, evaluations

    algo, path = _train_one_iteration(tmp_path, oracle="1:0:100000")
    try:
        frames = algo.frames_trained
        records = evaluations(algo, evaluation_baselines(algo.config, ["random"], _eval_args()), _eval_args())
    finally:
        algo.stop()
    lam = 1 - frames / 100000
    assert 0 < lam < 1
    assert records["eval_label"] == "zero oracle block (deployable); no pruning"
    assert set(records["eval"]) == {"random"} and "adp" in records["eval"]["random"]
    assert records["eval_oracle"]["oracle_lambda"] == pytest.approx(lam)
    assert records["eval_oracle"]["label"].startswith(f"trained oracle block: lambda {lam:.3f} x the true hands")
    assert "adp" in records["eval_oracle"]["results"]["random"]

    assert PlayOptions.of_checkpoint(path).trained_lambda == pytest.approx(lam)
    fed: list = []
    oracle_agent = build_agent(f"checkpoint:{path}:oracle", "doudizhu")
    plain = build_agent(f"checkpoint:{path}", "doudizhu")
    assert oracle_agent.sees_hidden_cards and not plain.sees_hidden_cards

    def recording(q_values):
        def record(state, history, actions, blocks=None):
            fed.append(blocks)
            return q_values(state, history, actions, blocks)
        return record

    for agent in (oracle_agent, plain):
        for module in agent.modules.values():  # a real module, its input blocks recorded
            module.q_values = recording(module.q_values)
    engine = get_game("doudizhu").make_engine().reset(11)  # a seeded deal
    checked = 0
    while not engine.is_over:
        seat, legal = engine.current_player, engine.legal_moves()
        if len(legal) > 1:
            fed.clear()
            plain.act(agent_view(plain, engine, seat), legal)
            assert fed == [None]  # zeros: the module reads no block
            fed.clear()
            move = oracle_agent.act(agent_view(oracle_agent, engine, seat), legal)
            hidden = engine.cards_held()
            expected = np.concatenate([hidden[(seat + j) % 3] for j in (1, 2)]).astype(np.float32) * np.float32(lam)
            assert len(fed) == 1 and np.allclose(fed[0][ORACLE], expected)
            assert fed[0][ORACLE].sum() == pytest.approx(lam * (engine.cards_left().sum() - engine.cards_left()[seat]),
                                                         rel=1e-5)
            checked += 1
        else:
            move = int(legal[0])
        engine.step(int(move))
    assert checked > 5
    with pytest.raises(ValueError, match="trained without, and plays every legal move"):
        build_agent(f"checkpoint:{path}:unpruned", "doudizhu")


def test_odmc_checkpoint_plays_only_kept_moves_unless_unpruned(ray_local, tmp_path, monkeypatch):
    """An agent and a scorer of an ODMC config (``prune="mcs"``, slack settings read from the checkpoint) only ever
    choose kept moves; ``:unpruned`` and ``--eval-unpruned`` choose among all legal moves, and count how often the
    choice lies outside the kept set."""
    from cardrl.algorithms.dmc.train_evaluation import evaluation_baselines, evaluations
    from cardrl.eval.lockstep import ScorerHooks, evaluate_scorer

    algo, path = _train_one_iteration(tmp_path, prune="mcs", prune_extra=0.5)
    try:
        args = _eval_args(eval_unpruned=True, prune="mcs")
        records = evaluations(algo, evaluation_baselines(algo.config, ["random"], args), args)
        play = algo.play_options()
        make = evaluation_baselines(algo.config, ["random"], args)["random"]
        pruner = play.engine_pruner()
        pruned = evaluate_scorer(algo.scorer(), make, "doudizhu", deals=3,
                                 hooks=ScorerHooks(move_filter=pruner, count_outside=pruner))
    finally:
        algo.stop()
    assert records["eval_label"] == "no oracle block; MCS pruning (slack N/n + d + 0.5), as trained"
    assert records["eval_unpruned"]["label"] == "no oracle block; unpruned (trained with MCS pruning)"
    counts = records["eval_unpruned"]["outside_kept"]
    assert counts["outside"] > 0 and counts["rate"] == counts["outside"] / counts["decisions"]
    assert "outside_kept" not in records["eval"]["random"]
    assert pruned["outside_kept"]["outside"] == 0 and pruned["outside_kept"]["decisions"] > 0

    trained = PlayOptions.of_checkpoint(path)
    assert (trained.prune, trained.prune_slack, trained.prune_extra) == ("mcs", "paper", 0.5)
    agent = build_agent(f"checkpoint:{path}", "doudizhu")
    unpruned = build_agent(f"checkpoint:{path}:unpruned", "doudizhu")
    outside = 0
    for engine, seat, legal in _positions("doudizhu", {}, deals=6, seed=1):
        kept = prune_moves(engine, legal, extra=0.5)
        assert agent.act(engine.view(seat), legal) in kept
        outside += unpruned.act(engine.view(seat), legal) not in kept
    assert outside > 0
    with pytest.raises(ValueError, match="trained without oracle"):
        build_agent(f"checkpoint:{path}:oracle", "doudizhu")

    # a checkpoint written before the play_options record: read from the RLlib config it was written with
    from cardrl.algorithms.dmc import counters as dmc_counters

    counters = dmc_counters.read_checkpoint_counters(path)
    monkeypatch.setattr(dmc_counters, "read_checkpoint_counters",
                        lambda root: {k: v for k, v in counters.items() if k != "play_options"})
    older = PlayOptions.of_checkpoint(path)
    assert (older.prune, older.prune_slack, older.prune_extra) == ("mcs", "paper", 0.5)
    assert older.frames_trained == trained.frames_trained > 0
