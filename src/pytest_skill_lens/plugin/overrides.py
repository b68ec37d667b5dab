"""Where a ``conftest.py`` or another plugin defines a case fixture of its own.

A case item asks pytest for its fixtures only where one of them is defined again
(overridden or wrapped); everywhere else it makes the same values directly, since
pytest's fixture machinery costs every item that goes through it (docs/performance.md).
pytest announces every plugin and conftest module it registers through the public
``pytest_plugin_registered`` hook, replayed for those registered earlier, and every
conftest that applies to a directory is registered before that directory's files are
collected, so the answer is known when a skill's items are made.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from pathlib import Path

# The fixtures a case item may ask pytest for (defined in .fixtures).
CASE_FIXTURES = (
    "skill_lens_sandbox",
    "skill_lens_runner",
    "skill_lens_judge",
    "skill_lens_workspace",
)


def defines_case_fixture(plugin: object, ours: Iterable[object]) -> bool:
    """Whether ``plugin`` (a module or an object) defines a ``skill_lens_*`` case fixture
    other than the plugin's own (``ours``), under its own name or under ``name=``."""
    own = {id(fixture) for fixture in ours}
    for name, value in _members(plugin):
        if id(value) in own:
            continue
        declared = getattr(value, "name", None) if callable(value) else None
        if name in CASE_FIXTURES or declared in CASE_FIXTURES:
            return True
    return False


def _members(plugin: object) -> list[tuple[str, object]]:
    """What ``plugin`` holds, read from the dictionaries themselves (as
    ``inspect.getattr_static`` would, so no property of another plugin runs, but in one
    pass: pytest asks this of every plugin at every start)."""
    if inspect.ismodule(plugin):
        return list(vars(plugin).items())
    found: dict[str, object] = {}
    for klass in reversed(type(plugin).__mro__):
        found.update(vars(klass))
    found.update(getattr(plugin, "__dict__", None) or {})
    return list(found.items())


class FixtureOverrides:
    """The directories whose ``conftest.py`` defines a case fixture; or everywhere."""

    def __init__(self, ours: Iterable[object]) -> None:
        self.ours = tuple(ours)  # the plugin's own definitions (.fixtures.OWN_FIXTURES)
        self.everywhere = False  # a plugin that is not a conftest applies to every item
        self.directories: list[Path] = []

    def note(self, plugin: object) -> None:
        if not defines_case_fixture(plugin, self.ours):
            return
        file = getattr(plugin, "__file__", None) if inspect.ismodule(plugin) else None
        if isinstance(file, str) and Path(file).name == "conftest.py":
            self.directories.append(Path(file).resolve().parent)
        else:
            self.everywhere = True

    def apply_to(self, path: Path) -> bool:
        """Whether a fixture defined again is visible to items collected from ``path``."""
        if self.everywhere:
            return True
        resolved = path.resolve()
        return any(resolved.is_relative_to(directory) for directory in self.directories)
