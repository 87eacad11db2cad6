"""A free TCP port on loopback, for the tests' own servers (Ray heads, cardrl serve)."""

import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
