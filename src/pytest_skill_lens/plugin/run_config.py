"""The run's configuration: decided once in ``pytest_configure``, read-only after."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # kept out of the import path of a run without --skill-lens
    from ..settings import Settings


@dataclass(frozen=True)
class RunConfig:
    """What flags, ini keys and ``skill-lens.toml`` settled (see :mod:`.configure`)."""

    settings: Settings
    config_path: Path | None  # None: the defaults, no skill-lens.toml
    roots: tuple[Path, ...]  # the skill paths, resolved
    runner_names: tuple[str, ...]
    evals_override: Path | None = None  # --skill-lens-evals
    json_path: Path | None = None
    markdown_path: Path | None = None
    markdown_max_chars: int | None = None
    # The one sandbox decision, when scripts are on: {sandbox, detail, hardening}.
    scripts: Mapping[str, str | None] | None = None
