"""Runners that drive a real agent: each imports its framework only when it runs."""
