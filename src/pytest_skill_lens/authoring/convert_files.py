"""The ``files`` of an ``evals.json`` entry, read into ``workspace.files`` text.

A YAML case seeds its workspace with inline text, so each file is read now, by the rules
the loader applies to an ``evals.json`` (inside the skill directory, regular, UTF-8, at
most 1,000,000 bytes). A path that names a folder, which the loader refuses, is read as
every regular file below it, keyed by its path as written plus the rest of its path. A
file that cannot be read becomes a note, never a silently missing input.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..suite.errors import AuthoringError
from ..suite.evals_json import MAX_FILE_BYTES
from ..suite.regular_files import read_regular, special_kind
from .convert_model import Note

MAX_FOLDER_FILES = 200


@dataclass(frozen=True)
class ReadFiles:
    files: dict[str, str]
    notes: tuple[Note, ...]


def read_files(paths: list[str], skill_dir: Path | None, key: str = "files") -> ReadFiles:
    """Each path's text keyed as the workspace will see it; a note per path not read."""
    files: dict[str, str] = {}
    notes: list[Note] = []
    for index, relative in enumerate(paths):
        field = f"{key}[{index}]"
        if skill_dir is None:
            notes.append(
                Note(
                    field,
                    relative,
                    "no SKILL.md was found beside the evals.json or "
                    "above it, so the path could not be resolved: add the file's "
                    "text under workspace: files:",
                )
            )
            continue
        found, problem = _read_path(relative, skill_dir)
        if problem is not None:
            notes.append(Note(field, relative, problem))
        files.update(found)
    return ReadFiles(files, tuple(notes))


def _read_path(relative: str, skill_dir: Path) -> tuple[dict[str, str], str | None]:
    root = skill_dir.resolve()
    target = (skill_dir / relative).resolve()
    if not relative or Path(relative).is_absolute() or root not in target.parents:
        return {}, "not a path inside the skill directory: name a file relative to it"
    if target.is_dir():
        return _read_folder(relative, target, root)
    text, problem = _read_one(target)
    if problem is not None:
        return {}, problem
    return {relative: text}, None


def _read_folder(relative: str, folder: Path, root: Path) -> tuple[dict[str, str], str | None]:
    found: dict[str, str] = {}
    prefix = relative.rstrip("/")
    for directory, subdirectories, names in os.walk(folder):  # links to folders: not entered
        subdirectories.sort()
        for name in sorted(names):
            path = Path(directory) / name
            if len(found) >= MAX_FOLDER_FILES:
                return (
                    {},
                    f"a folder of more than {MAX_FOLDER_FILES} files: list the inputs a case needs",
                )
            if root not in path.resolve().parents:
                return (
                    {},
                    f"{path.relative_to(folder)} in the folder leads outside the skill directory",
                )
            text, problem = _read_one(path)
            if problem is not None:
                return {}, f"{path.relative_to(folder)} in the folder: {problem}"
            found[f"{prefix}/{path.relative_to(folder).as_posix()}"] = text
    if not found:
        return {}, "an empty folder: a workspace starts with files, not folders"
    return found, None


def _read_one(path: Path) -> tuple[str, str | None]:
    if not path.exists() and special_kind(path) is None:
        return "", "does not exist"
    kind = special_kind(path)
    if kind is not None:
        return "", f"is {kind}, not a regular file"
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return "", f"is larger than {MAX_FILE_BYTES:,} bytes: use a smaller input"
        data = read_regular(path)
    except OSError as exc:
        return "", f"cannot be read: {exc.strerror or exc}"
    except AuthoringError as exc:  # swapped for a FIFO after the look above
        return "", exc.problem
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return "", "is not UTF-8 text: only text can seed a workspace"
