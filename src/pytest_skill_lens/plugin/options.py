"""Command-line options and ini keys, all in one ``skill-lens`` group.

Values are taken as text and checked in :mod:`.configure`, not by argparse:
argparse would turn a bad value into pytest's usage error (exit 4), while a
mistake in a skill-lens flag is a user error that exits 2 with the fix.
"""

from __future__ import annotations

import argparse
from typing import Any

import pytest


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("skill-lens", "evaluate Agent Skills (pytest-skill-lens)")
    add = group.addoption
    add(
        "--skill-lens",
        action="append",
        default=[],
        metavar="PATH",
        dest="skill_lens_paths",
        help="collect the skills under PATH (repeatable): a dir holding SKILL.md is one skill",
    )
    add(
        "--skill-lens-runner",
        action="append",
        default=None,
        metavar="NAME",
        dest="skill_lens_runners",
        help="runner to perform cases (repeatable; replaces default_runner)",
    )
    _value(add, "model", "MODEL", "model id for keyed runners")
    _value(add, "base-url", "URL", "OpenAI-compatible endpoint for keyed runners")
    _value(add, "judge", "NAME", "judge that grades judge: rubrics (replaces judge in the toml)")
    _value(add, "judge-model", "MODEL", "model id for a keyed judge")
    _value(add, "evals", "PATH", "read eval cases from PATH instead of beside each SKILL.md")
    _value(add, "config", "FILE", "skill-lens.toml to use (default: searched upward from the cwd)")
    _value(
        add,
        "baseline",
        "none|previous|placebo",
        "also run a baseline arm: no skill, the previous version, or neutral text",
    )
    _value(add, "repeat", "N", "run every case N times per arm")
    _value(add, "min-pass-rate", "RATE", "required candidate pass rate, 0.0-1.0 (default 1.0)")
    _value(add, "min-delta", "DELTA", "required pass-rate gain over the baseline arm")
    _value(
        add,
        "min-delta-confidence",
        "LEVEL",
        "also require the delta's interval at LEVEL (e.g. 0.95) to clear --skill-lens-min-delta",
    )
    _value(
        add,
        "min-case-pass-rate",
        "RATE",
        "required pass rate of every candidate case across its repetitions, 0.0-1.0",
    )
    _value(add, "max-spend", "USD", "start no new case once this much has been spent")
    _value(add, "concurrency", "N", "cases run at once")
    _value(add, "case-timeout", "S", "seconds one case's runner and judge calls may take (600)")
    _value(
        add,
        "progress-interval",
        "S",
        "seconds between progress lines when the output is no terminal (30; 0: no progress)",
    )
    _tristate(add, "keep-workspace", "keep every case's workspace and print where")
    _tristate(add, "allow-scripts", "let the agent run the skill's bundled scripts")
    _value(add, "product-sandbox", "auto|required|off", "how product runners are contained")
    _tristate(add, "full-output", "print whole outputs in failure reports (no 500-char cap)")
    _tristate(add, "strict-skill-md", "make every SKILL.md warning an authoring error (exit 2)")
    _value(add, "json", "PATH", "write the JSON report to PATH")
    _value(add, "markdown", "PATH", "write a Markdown summary to PATH")
    _value(add, "markdown-max-chars", "N", "fit the Markdown summary into N characters")
    _value(add, "html", "PATH", "write a self-contained HTML report to PATH")
    _value(add, "shard", "K/N", "run only shard K of N, every case whole on one shard")
    _value(
        add,
        "record",
        "none|once|all",
        "cassettes: replay only (none), record what is missing (once), re-record (all)",
    )
    _value(add, "cassettes", "DIR", "where cassettes live (default: cassettes/ by each eval file)")
    parser.addini(
        "skill_lens_paths",
        "skill paths collected when no test paths are given",
        type="paths",
        default=[],
    )


def _value(add: Any, name: str, metavar: str, help_text: str) -> None:
    dest = "skill_lens_" + name.replace("-", "_")
    add(f"--skill-lens-{name}", default=None, metavar=metavar, dest=dest, help=help_text)


def _tristate(add: Any, name: str, help_text: str) -> None:
    dest = "skill_lens_" + name.replace("-", "_")
    add(f"--skill-lens-{name}", action="store_true", default=None, dest=dest, help=help_text)
    add(f"--skill-lens-no-{name}", action="store_false", dest=dest, help=argparse.SUPPRESS)
