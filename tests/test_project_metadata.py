"""The package says what it is and where it lives: the Apache-2.0 LICENSE that pyproject names, and the project
URLs (homepage, documentation, issues) a package index shows."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_license_file_is_the_apache_2_0_text_pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "Apache-2.0"}
    text = (ROOT / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    assert len(text.splitlines()) > 190  # the full text, not a pointer to it


def test_project_urls():
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert set(urls) >= {"Homepage", "Documentation", "Issues"}
    assert all(url.startswith("https://github.com/cardrl/cardrl") for url in urls.values())
