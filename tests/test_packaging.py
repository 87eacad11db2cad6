"""Every package folder is installed, and envs/ and algorithms/ install as cardrl.envs / cardrl.algorithms."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = {"cardrl": "cardrl", "cardrl.envs": "envs", "cardrl.algorithms": "algorithms"}
    assert config["package-dir"] == mapping
    found = set()
    for top, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            if "__pycache__" in rel.parts:
                continue
            found.add(".".join((top, *rel.parts)) if rel.parts else top)
    assert found == listed, f"missing from pyproject: {found - listed}; stale in pyproject: {listed - found}"


def test_imports_work_from_another_directory(tmp_path):
    code = ("import cardrl.envs.doudizhu_v0, cardrl.algorithms.dmc.dmc, cardrl.envs.rllib; "
            "import importlib.util as u; assert u.find_spec('envs') is None and u.find_spec('algorithms') is None, "
            "'plain envs/algorithms must not be importable'")
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)


def test_console_script_help():
    out = subprocess.run([sys.executable, "-m", "cardrl.cli", "--help"], capture_output=True, text=True,
                         check=True).stdout
    for command in ("train", "eval", "bench"):
        assert command in out
