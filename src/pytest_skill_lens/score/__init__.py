"""Checks: what a run said, did, cost, and how good it was."""
