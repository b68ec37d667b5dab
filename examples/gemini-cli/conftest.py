"""This suite runs the real Gemini CLI, so it is left out of any run that does not name it.

``pytest --skill-lens examples`` stays free and offline under the scripted stand-in;
``pytest --skill-lens examples/gemini-cli --skill-lens-runner gemini-cli`` runs it (see
README.md beside this file).
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    runners = config.getoption("skill_lens_runners", default=None) or []
    if "gemini-cli" in runners or not collection_path.is_relative_to(HERE):
        return None
    return True
