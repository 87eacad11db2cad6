"""Test helpers shared by the test files (reference implementations, snapshots, episode loops)."""
