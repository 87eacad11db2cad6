import os
from pathlib import Path

import pytest

from helpers.browser import start_browser, stop_browser
from helpers.web_server import free_port, make_served_data, start_cli_server, wait_ready


@pytest.fixture(scope="session")
def served(tmp_path_factory):
    return make_served_data(tmp_path_factory.mktemp("served"))


@pytest.fixture(scope="session")
def server(served):
    """``cardrl serve RECORDS RUN LEAGUE --agent checkpoint:CKPT`` on a free loopback port: its base URL."""
    port = free_port()
    proc = start_cli_server([str(served["records"]), str(served["run"]), str(served["league"])],
                            [f"checkpoint:{served['ckpt']}", f"checkpoint:{served['bidding_ckpt']}"], port)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def browser():
    """Headless chromium at 1280x900 (one per test module; a test that needs a second session starts its own)."""
    driver = start_browser()
    yield driver
    stop_browser(driver)


@pytest.fixture
def shots(tmp_path):
    """``shots(driver, name)`` saves the page as NAME.png in CARDRL_SCREENSHOTS (default: the test's tmp dir)."""
    folder = Path(os.environ.get("CARDRL_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return lambda driver, name: driver.save_screenshot(str(folder / f"{name}.png"))
