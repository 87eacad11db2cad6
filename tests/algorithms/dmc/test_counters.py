"""DMC's counters (:class:`~cardrl.algorithms.dmc.counters.DMCCounters`): saved in the checkpoint's ``dmc_counters``
under the names checkpoints have always used, restored as a whole, and restored from older checkpoints (which lack
the counters added since: they start from their default)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from cardrl.algorithms.dmc.counters import DMC_COUNTERS, DMCCounters, DMCStats
from cardrl.algorithms.dmc.checkpointing import DMCCheckpointing

# the algorithm state's "dmc_counters" as DMC wrote it before the counters were a dataclass (the private attributes
# _frames_trained, ..., _samples_lost under these keys), with its play options and identity beside them
STATE_BEFORE_THE_DATACLASS = {
    "frames_trained": 38_400, "frames_sampled": 41_216, "episodes": 2_345, "deals": 2_345, "weights_seq_no": 301,
    "env_runner_restarts": 2, "env_runner_samples_lost": 3,
    "play_options": {"prune": None, "oracle": None},
    "game": "doudizhu_v0", "q_model": "mlp", "opponent_model": None, "features": "douzero", "oracle": False,
    "coach": False, "module_mapping": "per_seat", "hidden_sizes": None, "kickers": "douzero", "bidding": False,
}
# the first checkpoints' "dmc_counters": four counters and nothing else
STATE_OF_THE_FIRST_CHECKPOINTS = {"frames_trained": 1_536, "frames_sampled": 2_048, "episodes": 97, "weights_seq_no": 13}


def test_the_counters_keep_the_names_and_order_checkpoints_hold_them_under():
    assert [f.name for f in dataclasses.fields(DMCCounters)] == [
        "frames_trained", "frames_sampled", "episodes", "deals", "weights_seq_no", "env_runner_restarts",
        "env_runner_samples_lost"]
    counters = DMCCounters(frames_trained=5, frames_sampled=9, episodes=2, deals=3, weights_seq_no=4,
                           env_runner_restarts=1, env_runner_samples_lost=6)
    assert DMCCounters.from_dict(counters.to_dict()) == counters
    assert DMCCounters() == DMCCounters(weights_seq_no=1)  # a new run's weights are version 1


def test_a_state_written_before_the_dataclass_restores_every_counter():
    counters = DMCCounters.from_dict(STATE_BEFORE_THE_DATACLASS)  # the identity and play options beside are ignored
    assert counters == DMCCounters(frames_trained=38_400, frames_sampled=41_216, episodes=2_345, deals=2_345,
                                   weights_seq_no=301, env_runner_restarts=2, env_runner_samples_lost=3)
    assert {**counters.to_dict(), **STATE_BEFORE_THE_DATACLASS} == STATE_BEFORE_THE_DATACLASS  # the same layout


def test_the_first_checkpoints_restore_with_the_later_counters_at_zero():
    counters = DMCCounters.from_dict(STATE_OF_THE_FIRST_CHECKPOINTS)
    assert counters == DMCCounters(frames_trained=1_536, frames_sampled=2_048, episodes=97, weights_seq_no=13,
                                   deals=0, env_runner_restarts=0, env_runner_samples_lost=0)
    with pytest.raises(KeyError, match="frames_trained"):  # one every checkpoint has
        DMCCounters.from_dict({k: v for k, v in STATE_OF_THE_FIRST_CHECKPOINTS.items() if k != "frames_trained"})


@pytest.mark.parametrize("saved", [STATE_BEFORE_THE_DATACLASS, STATE_OF_THE_FIRST_CHECKPOINTS])
def test_restoring_an_older_state_replaces_the_counters_as_a_whole_and_counts_rates_from_them(saved):
    reseeded = []
    algo = SimpleNamespace(counters=DMCCounters(frames_trained=7, env_runner_samples_lost=5, weights_seq_no=9),
                           stats=DMCStats.of_modules(["landlord"]), _weights_ref="stale",
                           _reseed_runners=lambda: reseeded.append(True))
    algo.stats.module_updates["landlord"] = 4  # this process's tallies are not in checkpoints: kept
    DMCCheckpointing._restore_counters(algo, dict(saved))
    assert algo.counters == DMCCounters.from_dict(saved)
    assert algo.counters.env_runner_samples_lost == saved.get("env_runner_samples_lost", 0)
    assert algo.stats.counted_from == (saved["frames_trained"], saved["episodes"])
    assert algo.stats.module_updates == {"landlord": 4}
    assert algo._weights_ref is None and reseeded == [True]


def test_the_counters_key_is_the_one_checkpoints_use():
    assert DMC_COUNTERS == "dmc_counters"


def test_a_real_dmc_restores_a_state_in_the_older_layouts(ray_local):
    """DMC.set_state (identity checked, then the counters restored) with its own state's counters rewritten in the
    layout written before the dataclass, and without the counters the first checkpoints lacked."""
    from helpers.dmc_configs import small_dmc_config

    algo = small_dmc_config(q_model="mlp").build_algo()
    try:
        saved = algo.get_state()[DMC_COUNTERS]
        assert {k: saved[k] for k in DMCCounters().to_dict()} == DMCCounters().to_dict()
        older = {**saved, **{k: STATE_BEFORE_THE_DATACLASS[k] for k in DMCCounters().to_dict()}}
        algo.set_state({DMC_COUNTERS: older})
        assert algo.frames_trained == 38_400 and algo.counters == DMCCounters.from_dict(STATE_BEFORE_THE_DATACLASS)
        first = {k: v for k, v in older.items() if k not in ("deals", "env_runner_restarts", "env_runner_samples_lost")}
        algo.set_state({DMC_COUNTERS: {**first, "frames_trained": 1_536}})
        assert algo.frames_trained == 1_536 and algo.counters.env_runner_samples_lost == 0
        assert algo.get_state()[DMC_COUNTERS]["env_runner_samples_lost"] == 0
        with pytest.raises(AttributeError):
            algo.frames_trained = 0  # read-only: the counters are written through algo.counters
    finally:
        algo.stop()
