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


VIEWPORT = (1280, 900)  # the page as a laptop shows it; the screenshots in docs/web/ are this size


def find_browser() -> tuple[str, str] | None:
    binary = next((shutil.which(b) for b in CHROMIUM if shutil.which(b)), None)
    driver = shutil.which("chromedriver")
    return (binary, driver) if binary and driver else None


def start_browser():
    """A selenium Chrome driver over headless chromium with a fresh profile and a 1280x900 page, or a skip (a failure when
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
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": VIEWPORT[0], "height": VIEWPORT[1],
                                                                  "deviceScaleFactor": 1, "mobile": False})
    driver.set_page_load_timeout(30)
    driver.profile_dir = profile
    return driver


def stop_browser(driver) -> None:
    driver.quit()
    shutil.rmtree(driver.profile_dir, ignore_errors=True)


# ---- the pages' helpers ----------------------------------------------------------------------------------------------
WAIT_S = 60


def wait(driver, test, timeout_s: float = WAIT_S):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout_s, poll_frequency=0.1).until(lambda d: test(d))


def by_id(driver, name):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, name)


def select(driver, name, text):
    from selenium.webdriver.support.ui import Select

    Select(by_id(driver, name)).select_by_visible_text(text)


def idle(driver) -> bool:
    """No request of the page is under way."""
    return not by_id(driver, "busy").is_displayed()


def no_error(driver) -> None:
    box = by_id(driver, "error")
    assert not box.is_displayed(), box.text


def open_page(driver, server, page):
    """The page loaded afresh (a change of the address's #part alone would keep the last page's state)."""
    driver.get("about:blank")
    driver.get(f"{server}/#{page}")
    wait(driver, lambda d: len(by_id(d, "play-game").find_elements("tag name", "option")) == 3)


def load_record(driver, server, name, title):
    open_page(driver, server, "replay")
    wait(driver, lambda d: name in by_id(d, "replay-record").text)
    select(driver, "replay-record", name)
    by_id(driver, "replay-load").click()
    wait(driver, lambda d: title in by_id(d, "replay-title").text)
