"""A free TCP port on loopback, for the tests' own servers (Ray heads, cardrl serve)."""

from cardrl.bench.local_cluster import free_port

__all__ = ["free_port"]
