"""The pytest plugin (entry point ``skill_lens``): the only layer that imports pytest."""

from __future__ import annotations

from .fixtures import (
    skill_lens_judge,
    skill_lens_runner,
    skill_lens_sandbox,
    skill_lens_workspace,
)
from .hooks import (
    pytest_addhooks,
    pytest_addoption,
    pytest_configure,
    pytest_load_initial_conftests,
    pytest_report_header,
    skill_lens_config,
)

__all__ = [
    "pytest_addhooks",
    "pytest_addoption",
    "pytest_configure",
    "pytest_load_initial_conftests",
    "pytest_report_header",
    "skill_lens_config",
    "skill_lens_judge",
    "skill_lens_runner",
    "skill_lens_sandbox",
    "skill_lens_workspace",
]
