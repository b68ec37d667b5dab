"""Per-session state, kept in ``config.stash``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # kept out of the import path of a run without --skill-lens
    from ..gate.record import GateResult, RunRecord
    from ..perform.outcome import Outcome
    from ..run.runner import Runner
    from ..run.sandbox import SandboxDecision
    from ..score.check import Evaluator
    from ..score.judge import Judge
    from ..settings import Settings
    from ..spec.parse_cache import ParseCache


@dataclass
class SessionState:
    settings: Settings
    config_path: Path | None
    roots: list[Path]
    runner_names: list[str]
    evals_override: Path | None = None
    parse_cache: ParseCache | None = None  # None without pytest's cache provider
    json_path: Path | None = None
    markdown_path: Path | None = None
    markdown_max_chars: int | None = None
    scripts: dict[str, str | None] | None = None  # {sandbox, detail, hardening} when scripts on
    # Filled during collection (in the xdist controller: merged from the workers).
    skills_by_name: dict[str, Path] = field(default_factory=dict)  # casefolded name -> SKILL.md
    skipped_skills: set[str] = field(default_factory=set)
    deselected_skills: set[str] = field(default_factory=set)
    deselected_by: set[str] = field(default_factory=set)  # "-k" / "-m"
    planned: dict[str, dict[str, object]] = field(default_factory=dict)  # nodeid -> identity
    collection_errors: int = 0
    registry_checked: bool = False
    registry_error: str | None = None
    registry_error_reported: bool = False
    foreign_markers: set[str] | None = None  # markers other plugins registered
    deselected_cases: set[str] = field(default_factory=set)  # skills with a deselected case
    # Skills that bundle runnable scripts while execution is off: name -> how many.
    idle_scripts: dict[str, int] = field(default_factory=dict)
    # Filled while items run.
    outcomes: dict[str, Outcome] = field(default_factory=dict)  # nodeid -> outcome
    other_failures: int = 0  # failures of ordinary tests in a mixed run
    # Built once per (runner name, sandbox decision), shared by every item.
    runners: dict[tuple[str, SandboxDecision | None], Runner] = field(default_factory=dict)
    # Sandboxes a skill_lens_sandbox fixture override put scripts under (labels).
    sandbox_overrides: set[str] = field(default_factory=set)
    judge: Judge | None = None
    tag_markers: dict[str, pytest.MarkDecorator | None] = field(default_factory=dict)
    evaluators: tuple[Evaluator, ...] | None = None  # conftest-added, asked for once
    # Filled at session end.
    gate: GateResult | None = None
    record: RunRecord | None = None
    write_errors: list[str] = field(default_factory=list)


STATE_KEY = pytest.StashKey[SessionState]()


def get_state(config: pytest.Config) -> SessionState | None:
    return config.stash.get(STATE_KEY, None)


def listing_only(config: pytest.Config) -> bool:
    """Whether this run only lists (``--collect-only``, ``--fixtures-per-test``,
    ``--fixtures``): nothing runs, so nothing is preflighted for spend or gated."""
    option = config.option
    return bool(
        option.collectonly
        or getattr(option, "show_fixtures_per_test", False)
        or getattr(option, "showfixtures", False)
    )
