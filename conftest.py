"""Repository-level pytest configuration.

The plugin itself is loaded through its ``pytest11`` entry point; nothing here
changes how it behaves. ``pytester`` (enabled in pyproject.toml) drives pytest
the way a user does in the tests.
"""
