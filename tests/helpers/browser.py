"""Headless Debian chromium driven by selenium for the web tests: found on PATH, or the test skips saying why (fails
instead when CARDRL_REQUIRE_BROWSER=1, as .ci/run sets after installing it)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000")


def find_browser() -> tuple[str, str] | None:
    binary = next((shutil.which(b) for b in CHROMIUM if shutil.which(b)), None)
    driver = shutil.which("chromedriver")
    return (binary, driver) if binary and driver else None


def start_browser():
    """A selenium Chrome driver over headless chromium with a fresh profile, or a skip (a failure when
    CARDRL_REQUIRE_BROWSER=1)."""
    found = find_browser()
    if found is None:
        why = ("no chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver; .ci/run "
               "installs them)")
        if os.environ.get("CARDRL_REQUIRE_BROWSER") == "1":
            pytest.fail(why + ", and CARDRL_REQUIRE_BROWSER=1 requires them")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    profile = tempfile.mkdtemp(prefix="cardrl-chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(found[1]), options=options)
    driver.set_page_load_timeout(30)
    driver.profile_dir = profile
    return driver


def stop_browser(driver) -> None:
    driver.quit()
    shutil.rmtree(driver.profile_dir, ignore_errors=True)
