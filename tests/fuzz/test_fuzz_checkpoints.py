"""Fuzzing checkpoint loading: one real tiny DMC checkpoint (DouDiZhu, MLP), copied and damaged in many ways.

Each copy has one file truncated, overwritten in place, appended to or deleted (with or without the completion
marker ``cardrl_checkpoint.json``: checkpoints written before cardrl wrote one have none), or its recorded game or
features changed. Every loading path (DMC's ``restore_from_path`` and ``Algorithm.from_checkpoint``, the
``checkpoint:PATH`` agent spec that evaluation and play build, ``cardrl eval`` and ``cardrl play``) either loads a
working checkpoint or refuses with a ValueError / FileNotFoundError naming the checkpoint (the CLIs: exit code 2, one
line, no traceback), never an error from deep inside pickle, torch or RLlib. With the marker, any change to a file's
bytes is refused (its SHA-256). docs/operations.md, "Fuzzing".
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardrl.algorithms.dmc.checkpointing import MANIFEST, write_manifest
from cardrl.algorithms.dmc.counters import DMC_COUNTERS
from cardrl.cli import main
from cardrl.envs import make_env
from cardrl.eval.agents import build_agent
from helpers.local_ray import init_local_ray
from helpers.dmc_configs import small_dmc_config
from helpers.fuzz import fuzz_settings

CLEAR = (ValueError, FileNotFoundError)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(the checkpoint's directory, the algorithm that wrote it: restores go into it)."""
    init_local_ray()
    algo = small_dmc_config(q_model="mlp", hidden_sizes=[8]).build_algo()
    algo.train()
    path = Path(algo.save_to_path(str(tmp_path_factory.mktemp("fuzz_ckpt") / "good")))
    yield path, algo
    algo.stop()


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def _copy(path: Path, tmp: Path) -> Path:
    out = tmp / "copy"
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(path, out)
    return out


def _damage(root: Path, name: str, op: tuple, keep_manifest: bool) -> bool:
    """Apply ``op`` to ``root/name``; whether its bytes changed."""
    file = root / name
    data = file.read_bytes()
    kind = op[0]
    if kind == "delete":
        file.unlink()
    elif kind == "truncate":
        file.write_bytes(data[:int(op[1] * len(data))])
    elif kind == "overwrite":
        at = int(op[1] * max(len(data) - 1, 0))
        file.write_bytes(data[:at] + op[2] + data[at + len(op[2]):])
    else:  # append
        file.write_bytes(data + op[1])
    if not keep_manifest and name != MANIFEST and (root / MANIFEST).exists():
        (root / MANIFEST).unlink()
    return not file.exists() or file.read_bytes() != data


OPS = st.one_of(st.tuples(st.just("delete")),
                st.tuples(st.just("truncate"), st.floats(0, 0.999)),
                st.tuples(st.just("overwrite"), st.floats(0, 1), st.binary(min_size=1, max_size=16)),
                st.tuples(st.just("append"), st.binary(min_size=1, max_size=8)))


def _plays(agent) -> None:
    """A loaded agent must play: one move of a real position."""
    env = make_env("doudizhu")
    env.reset(seed=1)
    view = env.game.view(env.game.current_player)
    assert int(agent.act(view, env.legal_moves())) in set(env.legal_moves().tolist())


def _check_refusal(err: Exception, root: Path) -> None:
    assert isinstance(err, CLEAR), f"{type(err).__name__} from deep inside: {err}"
    assert str(root) in str(err), f"the error does not name the checkpoint: {err}"


@pytest.mark.parametrize("path_kind", ["agent", "restore"])
def test_damaged_checkpoints_load_or_are_refused_clearly(trained, tmp_path, path_kind):
    good, algo = trained
    names = _files(good)

    @fuzz_settings(25)
    @given(name=st.sampled_from(names), op=OPS, keep_manifest=st.booleans())
    def check(name, op, keep_manifest):
        root = _copy(good, tmp_path)
        changed = _damage(root, name, op, keep_manifest)
        try:
            if path_kind == "agent":
                _plays(build_agent(f"checkpoint:{root}", "doudizhu"))
            else:
                algo.restore_from_path(str(root))
        except Exception as err:  # noqa: BLE001 (the type is what is checked)
            _check_refusal(err, root)
            return
        assert not (changed and keep_manifest and name != MANIFEST), \
            f"{op[0]} of {name} was loaded although the manifest records the file as written"

    check()


def _edit_identity(good: Path, tmp: Path, **changes) -> Path:
    """A copy whose recorded DMC identity differs (``changes``), with a manifest that matches its files: a checkpoint
    of another game or features, as far as every check before the modules is concerned."""
    root = _copy(good, tmp)
    state_file = root / "algorithm_state.pkl"
    state = pickle.loads(state_file.read_bytes())
    state[DMC_COUNTERS].update(changes)
    state_file.write_bytes(pickle.dumps(state))
    write_manifest(root, state[DMC_COUNTERS])
    return root


def test_mismatched_game_and_features_are_refused_naming_the_difference(trained, tmp_path):
    good, algo = trained
    other_game = _edit_identity(good, tmp_path / "game", game="big2_v0")
    with pytest.raises(ValueError, match=r"was trained on 'big2_v0', not on 'doudizhu'"):
        build_agent(f"checkpoint:{other_game}", "doudizhu")
    with pytest.raises(ValueError, match=r"game: checkpoint has 'big2_v0', this config has 'doudizhu_v0'"):
        algo.restore_from_path(str(other_game))
    other_features = _edit_identity(good, tmp_path / "features", features="unified")
    with pytest.raises(ValueError, match=r"does not fit"):
        build_agent(f"checkpoint:{other_features}", "doudizhu")
    with pytest.raises(ValueError, match=r"features: checkpoint has 'unified', this config has 'douzero'"):
        algo.restore_from_path(str(other_features))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        build_agent(f"checkpoint:{tmp_path / 'missing'}", "doudizhu")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        algo.restore_from_path(str(tmp_path / "missing"))


def test_regression_algorithm_from_checkpoint_checks_the_marker_first(trained, tmp_path):
    """Found: ``DMC.from_checkpoint`` unpickled the checkpoint's config before any cardrl check (a truncated
    ``class_and_ctor_args.pkl``: UnpicklingError from RLlib) and then restored with a ``filesystem`` argument, which
    skipped the marker's check (changed module weights were loaded)."""
    from cardrl.algorithms.dmc.dmc import DMC

    good, _ = trained
    for name, op, why in [("class_and_ctor_args.pkl", ("truncate", 0.5), r"\d+ bytes, written with"),
                          ("learner_group/learner/rl_module/landlord/module_state.pkl", ("overwrite", 0.5, b"\xff" * 8),
                           "its bytes differ")]:
        root = _copy(good, tmp_path)
        _damage(root, name, op, keep_manifest=True)
        with pytest.raises(ValueError, match=rf"checkpoint {root} is incomplete or corrupt: truncated or changed "
                                             rf"{name} \({why}"):
            DMC.from_checkpoint(str(root))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        DMC.from_checkpoint(str(tmp_path / "missing"))


def test_regression_restore_of_an_unreadable_component_names_the_checkpoint(trained, tmp_path):
    """Found: restoring a checkpoint without the marker whose component files were damaged raised unpickling's
    EOFError / UnpicklingError, or ValueErrors that name nothing ('unsupported pickle protocol: 6'), from RLlib."""
    good, algo = trained
    for name, op, error in [("env_runner/state.pkl", ("truncate", 0.0), "EOFError"),
                            ("learner_group/learner/state.pkl", ("truncate", 0.5), "UnpicklingError"),
                            ("learner_group/learner/rl_module/module_state.pkl", ("overwrite", 0.25, b"\x06"),
                             "ValueError: unsupported pickle protocol")]:
        root = _copy(good, tmp_path)
        _damage(root, name, op, keep_manifest=False)
        with pytest.raises(ValueError, match=rf"checkpoint {root} could not be restored .*: {error}"):
            algo.restore_from_path(str(root))


@pytest.mark.parametrize("command", ["eval", "play"])
def test_cli_refuses_a_damaged_checkpoint_in_one_line(trained, tmp_path, capsys, command):
    good, _ = trained
    root = _copy(good, tmp_path)
    _damage(root, "learner_group/learner/rl_module/landlord/module_state.pkl", ("overwrite", 0.3, b"\0" * 4), True)
    argv = (["eval", "doudizhu", "--a", f"checkpoint:{root}", "--b", "random", "--deals", "2"] if command == "eval"
            else ["play", "doudizhu", "--seat", "1", "--opponents", f"checkpoint:{root}", "--seed", "1"])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"cardrl {command}: error: checkpoint {root} is incomplete or corrupt" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_regression_module_state_with_same_size_other_bytes_is_refused(trained, tmp_path):
    """Found: bytes overwritten in a module's weights (same size) loaded silently, the agent playing corrupt weights;
    the manifest now records each file's SHA-256."""
    good, _ = trained
    root = _copy(good, tmp_path)
    _damage(root, "learner_group/learner/rl_module/landlord/module_state.pkl", ("overwrite", 0.9, b"\x01\x02"), True)
    with pytest.raises(ValueError, match=r"landlord/module_state.pkl \(its bytes differ from those written\)"):
        build_agent(f"checkpoint:{root}", "doudizhu")


def test_regression_unreadable_module_files_name_the_module(trained, tmp_path):
    """Found: a truncated or overwritten module file of a checkpoint without the marker raised unpickling's
    UnpicklingError ('pickle data was truncated') from inside RLlib."""
    good, _ = trained
    for name in ("module_state.pkl", "class_and_ctor_args.pkl"):
        root = _copy(good, tmp_path)
        _damage(root, f"learner_group/learner/rl_module/landlord/{name}", ("truncate", 0.5), keep_manifest=False)
        with pytest.raises(ValueError, match=r"is corrupt: module 'landlord' .* can not be loaded \(UnpicklingError"):
            build_agent(f"checkpoint:{root}", "doudizhu")


def test_regression_a_module_class_file_naming_no_class_is_refused(trained, tmp_path):
    """Found: a module's ``class_and_ctor_args.pkl`` damaged so that it unpickles without a class made RLlib fall back
    to its base ``RLModule``, and loading failed later with "'RLModule' object has no attribute 'eval'"."""
    good, _ = trained
    root = _copy(good, tmp_path)
    _damage(root, "learner_group/learner/rl_module/landlord_down/class_and_ctor_args.pkl", ("overwrite", 0.9375, b"\x80"),
            keep_manifest=False)
    with pytest.raises(ValueError, match=r"module 'landlord_down' .* can not be loaded \(its class_and_ctor_args.pkl "
                                         r"does not name a module class\)"):
        build_agent(f"checkpoint:{root}", "doudizhu")


def test_regression_an_algorithm_checkpoint_without_its_state_is_refused(trained, tmp_path):
    """Found: a checkpoint that lost ``algorithm_state.pkl`` (and its marker) was played as bare modules, its game
    never checked."""
    good, _ = trained
    root = _copy(good, tmp_path)
    _damage(root, "algorithm_state.pkl", ("delete",), keep_manifest=False)
    with pytest.raises(ValueError, match=r"is not an RLlib algorithm checkpoint \(it has no algorithm_state.pkl\)"):
        build_agent(f"checkpoint:{root}", "doudizhu")
    np.testing.assert_equal(sorted(_files(good)), sorted([*_files(root), "algorithm_state.pkl", MANIFEST]))
