"""Command-line options and ini keys, all in one ``skill-lens`` group, declared from the
one table of flags (:mod:`.flags`), which also says how each value is read."""

from __future__ import annotations

import argparse

import pytest

from .flags import FLAGS


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("skill-lens", "evaluate Agent Skills (pytest-skill-lens)")
    for flag in FLAGS:
        if flag.kind == "switch":  # --x sets it, --no-x clears a skill-lens.toml's true
            group.addoption(
                flag.option, action="store_true", default=None, dest=flag.dest, help=flag.help
            )
            no = f"--skill-lens-no-{flag.name}"
            group.addoption(no, action="store_false", dest=flag.dest, help=argparse.SUPPRESS)
        elif flag.kind == "many":
            default: list[str] | None = [] if flag.key is None else None  # None: no runner flag
            group.addoption(
                flag.option,
                action="append",
                default=default,
                metavar=flag.metavar,
                dest=flag.dest,
                help=flag.help,
            )
        elif flag.kind == "optional":  # alone: const True; a value is read by the flag
            group.addoption(
                flag.option,
                nargs="?",
                const=True,
                default=None,
                metavar=flag.metavar,
                dest=flag.dest,
                help=flag.help,
            )
        else:
            group.addoption(
                flag.option, default=None, metavar=flag.metavar, dest=flag.dest, help=flag.help
            )
    parser.addini(
        "skill_lens_paths",
        "skill paths collected when no test paths are given",
        type="paths",
        default=[],
    )
