import pytest

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
