"""Command-line options and ini keys, all in one ``skill-lens`` group."""

from __future__ import annotations

import argparse
from typing import Any

import pytest


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0.0 and 1.0, got {value}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


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
    add("--skill-lens-model", metavar="MODEL", default=None, help="model id for keyed runners")
    add("--skill-lens-base-url", metavar="URL", default=None, help="OpenAI-compatible endpoint")
    add(
        "--skill-lens-judge-model", metavar="MODEL", default=None, help="model id for a keyed judge"
    )
    add(
        "--skill-lens-evals",
        metavar="PATH",
        default=None,
        help="read eval cases from PATH instead of discovering them beside each SKILL.md",
    )
    add(
        "--skill-lens-config",
        metavar="FILE",
        default=None,
        help="skill-lens.toml to use (default: searched upward from the current directory)",
    )
    add(
        "--skill-lens-baseline",
        choices=("none", "previous"),
        default=None,
        help="also run a baseline arm: no skill, or the previous version from git",
    )
    add(
        "--skill-lens-repeat",
        type=_positive_int,
        default=None,
        metavar="N",
        help="run every case N times per arm",
    )
    add(
        "--skill-lens-min-pass-rate",
        type=_fraction,
        default=None,
        metavar="RATE",
        help="required candidate pass rate, 0.0-1.0 (default 1.0)",
    )
    add(
        "--skill-lens-min-delta",
        type=_number,
        default=None,
        metavar="DELTA",
        help="required pass-rate gain over the baseline arm",
    )
    add(
        "--skill-lens-max-spend",
        type=_number,
        default=None,
        metavar="USD",
        help="start no new case once this much has been spent",
    )
    add(
        "--skill-lens-concurrency",
        type=_positive_int,
        default=None,
        metavar="N",
        help="cases run at once",
    )
    _tristate(add, "keep-workspace", "keep every case's workspace and print where")
    _tristate(add, "allow-scripts", "let the agent run the skill's bundled scripts")
    add(
        "--skill-lens-product-sandbox",
        choices=("auto", "required", "off"),
        default=None,
        help="how product runners are contained",
    )
    _tristate(add, "full-output", "print whole outputs in failure reports (no 500-char cap)")
    add("--skill-lens-json", metavar="PATH", default=None, help="write the JSON report to PATH")
    add("--skill-lens-markdown", metavar="PATH", default=None, help="write a Markdown summary")
    add(
        "--skill-lens-markdown-max-chars",
        type=_positive_int,
        default=None,
        metavar="N",
        help="fit the Markdown summary into N characters",
    )
    parser.addini(
        "skill_lens_paths",
        "skill paths collected when no test paths are given",
        type="paths",
        default=[],
    )


def _tristate(add: Any, name: str, help_text: str) -> None:
    dest = "skill_lens_" + name.replace("-", "_")
    add(f"--skill-lens-{name}", action="store_true", default=None, dest=dest, help=help_text)
    add(f"--skill-lens-no-{name}", action="store_false", dest=dest, help=argparse.SUPPRESS)
