"""Keeping a skill directory's own Python out of the run.

Under ``--skill-lens`` a skill's directory (one holding a ``SKILL.md``, and all
below it) is data: its ``conftest.py`` files are never loaded and its Python
files never imported, or evaluating an untrusted skill would run its code
before any sandbox. pytest loads conftests in two places, and both are covered:

* collection: a :class:`pytest.Directory` collector loads its directory's
  conftest, so a skill's directory gets a plain collector instead
  (:class:`~.collect.SkillDir`), and its nodes call hooks as the directory above
  the skill sees them (:class:`SkillHooks`);
* start-up: the "initial" conftests of the paths given (and of their ``test*``
  subdirectories) load before any collector exists, so
  :func:`initial_conftest_anchors` tells pytest paths outside every skill that
  load the same conftests minus the skills' own.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..suite.discovery import holds_skill, skill_home

if TYPE_CHECKING:
    from pluggy import HookRelay


class SkillHooks:
    """A node inside a skill directory: its hooks are those of the directory above the skill.

    pytest picks the conftests whose hooks apply to a node by the node's own
    directory; the skill's were never loaded, so that would drop every
    conftest, including the project's. The directory above the skill gives
    exactly the conftests that apply there (the ones that register runners or
    wrap fixtures), and never the skill's.
    """

    session: pytest.Session
    path: Path
    config: pytest.Config
    _skill_lens_ihook: tuple[int, HookRelay] | None  # the kept proxy: see ihook

    @property
    def ihook(self) -> HookRelay:
        # Asked a dozen times per item: the proxy is kept until another conftest loads
        # (conftests are only ever added), as it then might have to be left out.
        conftests = getattr(self.config.pluginmanager, "_conftest_plugins", None)
        if conftests is None:  # a pytest without that set: asked afresh every time
            return self.session.gethookproxy(self._hooks_dir())
        kept: tuple[int, HookRelay] | None = getattr(self, "_skill_lens_ihook", None)
        if kept is not None and kept[0] == len(conftests):
            return kept[1]
        proxy = self.session.gethookproxy(self._hooks_dir())
        self._skill_lens_ihook = (len(conftests), proxy)
        return proxy

    def _hooks_dir(self) -> Path:
        node: Any = self
        while node is not None:
            where = getattr(node, "skill_hooks_dir", None)
            if where is not None:
                return where  # type: ignore[no-any-return]
            node = node.parent
        return self.path


def plugin_enabled(early_config: pytest.Config) -> bool:
    return bool(
        getattr(early_config.known_args_namespace, "skill_lens_paths", None)
        or early_config.getini("skill_lens_paths")
    )


def skill_paths_as_arguments(early_config: pytest.Config) -> None:
    """With no positional path, read initial conftests from the skill paths, not ``testpaths``.

    pytest would fall back to ``testpaths`` (or the invocation directory) and import
    their conftests before configure narrows collection to the skill paths
    (``configure._choose_args``); a skills-only job must not depend on a unit-test
    conftest it never collects. A path that does not exist is left to configure,
    which names it (exit 2); with none left, only the invocation directory's own
    conftest is read, never its ``test*`` subdirectories'.
    """
    namespace = early_config.known_args_namespace
    if namespace.file_or_dir:
        return
    here = early_config.invocation_params.dir
    given = namespace.skill_lens_paths or early_config.getini("skill_lens_paths")
    existing = [str(path) for path in given if _exists(here / str(path))]
    if not existing:
        loader = _loader_file(here)
        existing = [str(loader)] if loader is not None else []
    namespace.file_or_dir = existing


def initial_conftest_anchors(early_config: pytest.Config) -> list[str] | None:
    """Paths to read the initial conftests from, or ``None`` to leave pytest's own.

    pytest reads the conftests of each path it is given (or of its
    ``testpaths``, or of the invocation directory) and of their ``test*``
    subdirectories, each with every conftest above it. When none of those is
    in a skill, nothing changes. Otherwise every one is replaced by a file
    whose directory is the nearest one outside any skill: a file, because
    pytest would search a directory's ``test*`` subdirectories again.
    """
    namespace = early_config.known_args_namespace
    if namespace.noconftest:
        return None
    directories = [path if path.is_dir() else path.parent for path in _pytest_anchors(early_config)]
    homes = [skill_home(directory) for directory in directories]
    if all(home is None for home in homes):
        return None
    anchors: list[str] = []
    for directory, home in zip(directories, homes, strict=True):
        outside = home.parent if home is not None else directory
        loader = _loader_file(outside)
        if loader is not None and str(loader) not in anchors:
            anchors.append(str(loader))
    if not anchors:
        # pytest would fall back to the invocation directory, which is in a skill.
        raise pytest.UsageError(
            "skill-lens: no directory outside the skill was found to read conftest.py "
            "files from; run pytest from outside the skill's directory"
        )
    return anchors


def _pytest_anchors(early_config: pytest.Config) -> list[Path]:
    """The directories and files pytest itself reads initial conftests from.

    The same choice as pytest's: the paths given, else ``testpaths`` when run
    from the root directory, else the invocation directory; each directory
    with its ``test*`` subdirectories.
    """
    namespace = early_config.known_args_namespace
    here = early_config.invocation_params.dir
    args = [str(arg) for arg in namespace.file_or_dir or ()]
    if not args and here == early_config.rootpath:
        for path in early_config.getini("testpaths"):
            args.extend([path] if namespace.pyargs else sorted(glob.iglob(path, recursive=True)))
    anchors: list[Path] = []
    for arg in args:
        anchor = Path(os.path.abspath(here / arg.partition("::")[0]))
        if not _exists(anchor):
            continue
        anchors.append(anchor)
        if anchor.is_dir():
            anchors.extend(_test_subdirectories(anchor))
    if not anchors:
        anchors = [here, *_test_subdirectories(here)]
    return anchors


def _test_subdirectories(directory: Path) -> list[Path]:
    return [path for path in directory.glob("test*") if path.is_dir()]


def _loader_file(directory: Path) -> Path | None:
    """An existing file whose directory's conftests are exactly those of ``directory``.

    Its own ``conftest.py`` if it has one; else any file in it; else the same
    for its parent (a directory without a single file holds no conftest).
    """
    for candidate in (directory, *directory.parents):
        conftest = candidate / "conftest.py"
        if conftest.is_file():
            return conftest
        found = _some_file(candidate)
        if found is not None:
            return found
    return None


def _some_file(directory: Path) -> Path | None:
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                # pytest reads "::" in a path as the start of a test name.
                if "::" not in entry.name and entry.is_file(follow_symlinks=False):
                    return Path(entry.path)
    except OSError:
        return None
    return None


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # e.g. a very long option taken for a path
        return False


def skill_dir_hooks(path: Path, parent: pytest.Collector) -> Path | None:
    """For a directory pytest is about to collect: the directory whose hooks apply to
    it when it is (in) a skill, or ``None`` when it is not.

    Below a plain directory collector only ``path`` itself can start a skill;
    anywhere else (an initial path), every directory above it is looked at.
    """
    if isinstance(parent, pytest.Directory):
        return path.parent if holds_skill(path) else None
    home = skill_home(path)
    return home.parent if home is not None else None
