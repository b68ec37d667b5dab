"""Skill delivery: the skill written where a product discovers skills, as an install would.

``<working dir>/<skills_dir>/<name>/`` receives SKILL.md as written (its text, with
``\\r\\n`` normalised to ``\\n`` and no further translation) and every file the skill's
bundle ships (:mod:`..workspace.bundle`: never the eval files, version control, dependency
directories or secret files). Each is written as a regular file, read through any
link; a link is never copied as a link. A write never follows a link either
(:func:`..workspace.containment.write_within`), so a link a product planted in an earlier
session cannot redirect the next delivery outside the working directory.

A placebo arm (suite/placebo.py) is delivered as its own neutral ``SKILL.md`` alone.

Delivery overwrites and never deletes: under ``sessions:`` an edit a session made to a
delivered file is undone before the next one, and a file it added stays.

A product's own configuration in the working directory is never delivered: no delivered
file may land where any product reads its configuration (suite/product_config.py), and
a configuration file the product's flags still read (``inert``: Claude Code's
``.claude/settings.json``) is overwritten with inert content when one is there, so
what an earlier session wrote there never configures the next.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ...suite.paths import path_problem
from ...suite.placebo import PLACEBO_VARIANT, skill_md_text
from ...suite.product_config import ConfigPath, config_path_problem
from ...suite.skill import Skill
from ..workspace.bundle import MAX_BUNDLE_BYTES, Bundle
from ..workspace.containment import Refused, read_regular, why, write_within
from .description import delivers_no_skill

SKILL_FILE = "SKILL.md"


class DeliveryFailed(Exception):
    """The skill could not be written; the message says what and why."""


def directory_entry_problem(name: str) -> str | None:
    """Why ``name`` cannot be one directory entry under the skills directory, or ``None``."""
    if not name or name in (".", "..") or any(c in name for c in "/\\\0"):
        return f"the skill name {name!r} is not one directory entry"
    return None


def deliver(
    skill: Skill, cwd: Path, skills_dir: str, *, inert: Sequence[ConfigPath] = ()
) -> Path | None:
    """Write ``skill`` under ``cwd / skills_dir`` and make ``inert`` files inert; the
    skill's directory, or ``None`` when the arm has no skill (``--baseline none``).
    Raises :class:`DeliveryFailed`."""
    root = Path(cwd).resolve()
    for entry in inert:
        if entry.inert is not None and os.path.lexists(root / entry.path):
            # Replaces whatever is there (a link too), never writing through it.
            _write(root, entry.path, entry.inert, inert=True)
    if delivers_no_skill(skill):
        return None
    problem = directory_entry_problem(skill.name) or path_problem(skills_dir)
    if problem is not None:
        raise DeliveryFailed(f"cannot deliver the skill: {problem}")
    for neighbour in skill.neighbours:  # installed beside it, each as a skill of its own
        problem = directory_entry_problem(neighbour.name)
        if problem is not None:
            raise DeliveryFailed(f"cannot deliver the neighbour {neighbour.name!r}: {problem}")
        _install(root, f"{skills_dir}/{neighbour.name}", neighbour)
    target = f"{skills_dir}/{skill.name}"
    if skill.variant == PLACEBO_VARIANT:  # its neutral SKILL.md alone: files are content
        _write(root, f"{target}/{SKILL_FILE}", skill_md_text(skill).encode("utf-8"))
        return root / target
    _install(root, target, skill)
    return root / target


def _install(root: Path, target: str, skill: Skill) -> None:
    """``skill``'s SKILL.md and bundle under ``root / target``."""
    _write(root, f"{target}/{SKILL_FILE}", _skill_text(skill))
    bundle = Bundle.of(skill.directory, also_withheld=skill.withheld)
    if bundle.refusal is not None:
        raise DeliveryFailed(f"cannot deliver the skill's files: {bundle.refusal}")
    for relpath in bundle.files():
        _write(root, f"{target}/{relpath}", _bundled(bundle, relpath))


def _skill_text(skill: Skill) -> bytes:
    data = _read(skill.path, SKILL_FILE)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DeliveryFailed(f"cannot deliver {SKILL_FILE}: it is not valid UTF-8") from None
    return text.replace("\r\n", "\n").encode("utf-8")


def _bundled(bundle: Bundle, relpath: str) -> bytes:
    real = bundle.resolve(relpath)
    if isinstance(real, str):  # it changed since the scan
        raise DeliveryFailed(f"cannot deliver {relpath!r}: {real}")
    return _read(real, relpath)


def _read(real: Path, shown: str) -> bytes:
    try:
        info = os.stat(real)
        # The bundle's scan already kept out a hard link onto a withheld file; this
        # is the file it vetted, examined again on the open descriptor.
        return read_regular(
            real, shown, MAX_BUNDLE_BYTES, vetted=(info.st_dev, info.st_ino), where="the skill"
        )
    except Refused as exc:
        raise DeliveryFailed(f"cannot deliver {shown}: {exc}") from None
    except OSError as exc:
        raise DeliveryFailed(f"cannot deliver {shown}: {why(exc)}") from None


def _write(root: Path, relpath: str, data: bytes, *, inert: bool = False) -> None:
    configures = None if inert else config_path_problem(relpath)
    if configures is not None:
        raise DeliveryFailed(f"cannot deliver {relpath}: {configures}")
    try:
        write_within(root, root / relpath, data, relpath)
    except Refused as exc:
        raise DeliveryFailed(f"cannot deliver {relpath}: {exc}") from None
    except OSError as exc:
        raise DeliveryFailed(f"cannot deliver {relpath}: {why(exc)}") from None
