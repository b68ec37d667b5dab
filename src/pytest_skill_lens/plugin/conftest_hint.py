"""Why a runner or judge a ``conftest.py`` registers is unknown to this run.

pytest reads a ``conftest.py`` only in the rootdir, the paths given on the command
line and the directories it collects from, so a runner registered in
``tests/conftest.py`` is unknown to ``pytest --skill-lens skills``. When a name turns
out unknown, the project is searched (bounded: it only runs for a run that is
refused anyway) for a ``conftest.py`` that mentions the hook and the name but was
not loaded, and the message says where it is and how to load it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from ..suite.discovery import holds_skill, skill_home
from ..suite.errors import AuthoringError
from ..suite.quoting import shown
from ..suite.regular_files import read_regular, special_kind

_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "env"})
_MAX_DIRECTORIES = 2_000  # a project's own tree; a run refused anyway never waits long
_MAX_DEPTH = 6
_MAX_BYTES = 1_000_000
_ANCESTORS = 5  # conftest.py files above the rootdir, which pytest does not read either


def unloaded_conftest_hint(config: pytest.Config, hook: str, name: str, skill_paths: str) -> str:
    """A ``note:`` line naming a conftest.py that registers ``name`` but was not loaded,
    or ``""`` when none is found."""
    loaded = _loaded_conftests(config)
    quoted = (f'"{name}"'.encode(), f"'{name}'".encode())
    for path in _candidates(config):
        if path.resolve() in loaded:
            continue
        try:
            if special_kind(path) is not None or path.stat().st_size > _MAX_BYTES:
                continue
            text = read_regular(path)
        except (OSError, AuthoringError):  # a hint never turns into a second error
            continue
        if hook.encode() in text and any(q in text for q in quoted):
            try:
                shown_path = path.relative_to(config.invocation_params.dir).as_posix()
            except ValueError:
                shown_path = str(path)
            directory = path.parent
            return (
                f"\n  note: {shown_path} registers {shown(name)} ({hook}), but this run does "
                "not load it: pytest reads a conftest.py only in the rootdir "
                f"({config.rootpath}), the paths on the command line and the directories it "
                f"collects from; add {_arg(config, directory)} to the command line "
                f"(pytest {_arg(config, directory)} --skill-lens {skill_paths}), or move the "
                f"hook into a conftest.py at or above {skill_paths}"
            )
    return ""


def _arg(config: pytest.Config, directory: Path) -> str:
    try:
        return directory.relative_to(config.invocation_params.dir).as_posix() or "."
    except ValueError:
        return str(directory)


def _loaded_conftests(config: pytest.Config) -> set[Path]:
    files: set[Path] = set()
    for plugin in config.pluginmanager.get_plugins():
        file = getattr(plugin, "__file__", None)
        if isinstance(file, str) and os.path.basename(file) == "conftest.py":
            files.add(Path(file).resolve())
    return files


def conftest_to_come(config: pytest.Config, roots: Iterable[Path]) -> bool:
    """Whether collecting ``roots`` may still load a conftest.py this run has not loaded.

    Only conftests outside every skill count (a skill's own is never loaded), so a
    name unknown now can be refused before collection when this is ``False``.
    """
    loaded = _loaded_conftests(config)
    tops = [root if root.is_dir() else root.parent for root in roots]
    outside = [top for top in tops if skill_home(top) is None]
    # A search cut at its bound cannot say that none is to come.
    return any(
        path is None or path.resolve() not in loaded
        for path in _conftests_below(outside, skip_skills=True)
    )


def _candidates(config: pytest.Config) -> Iterator[Path]:
    """conftest.py files in the rootdir's and the invocation directory's trees, then in the
    directories above them."""
    tops = list(dict.fromkeys([config.rootpath, config.invocation_params.dir]))
    yield from (path for path in _conftests_below(tops, skip_skills=False) if path is not None)
    for top in tops:
        for parent in top.parents[:_ANCESTORS]:
            yield parent / "conftest.py"


def _conftests_below(tops: list[Path], *, skip_skills: bool) -> Iterator[Path | None]:
    """conftest.py files in the trees of ``tops`` (bounded): links are not followed, hidden
    and tool directories skipped, and skill directories too when ``skip_skills``. ``None``
    comes last when a bound left a directory unread."""
    seen, cut = 0, False
    for top in tops:
        pending = [(top, 0)]
        while pending:
            if seen >= _MAX_DIRECTORIES:
                yield None
                return
            directory, depth = pending.pop()
            seen += 1
            try:
                entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name == "conftest.py" and entry.is_file(follow_symlinks=False):
                    yield Path(entry.path)
                elif (
                    entry.is_dir(follow_symlinks=False)
                    and not entry.name.startswith(".")
                    and entry.name not in _SKIPPED_DIRS
                    and not (skip_skills and holds_skill(Path(entry.path)))
                ):
                    if depth < _MAX_DEPTH:
                        pending.append((Path(entry.path), depth + 1))
                    else:
                        cut = True
    if cut:
        yield None
