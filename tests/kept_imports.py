"""Speed only: modules that pytester's in-process runs import stay loaded for later runs.

pytester drops every module first imported inside an in-process run (``runpytest``,
``inline_run``) when the run ends, and every module first imported during a test when
the test ends. So each run would import the plugin, pydantic and a framework's lazily
loaded parts (``openai.resources``, ``langchain_core.tracers``) again: about 0.7 s a run
for the plugin alone on this project's machines, where ``PYTHONDONTWRITEBYTECODE=1``
leaves pytest no cache for the modules it rewrites (a pytest11 plugin's, like ours).

:class:`ImportKeeper` records, at the end of each in-process run, the modules it imported
first from the plugin or from an installed library, and imports them in this process
once the test is over and pytester has cleaned up; later runs find them loaded, the way
one long-lived process would.

Nothing a test proves depends on it: whether collection imports a framework, and what a
run does without an extra installed, are checked in subprocesses
(``runpytest_subprocess``), which start from nothing.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import pytest_skill_lens

# Where a kept module comes from: the plugin, or an installed distribution; never a
# test's own files (a conftest.py, a test module), which belong to one run.
LIBRARY_ROOTS = tuple(
    {
        os.path.join(Path(pytest_skill_lens.__file__).resolve().parent, ""),
        *(
            os.path.join(Path(sysconfig.get_paths()[key]).resolve(), "")
            for key in ("purelib", "platlib")
        ),
    }
)
# pytest's own modules stay as this session loaded them.
_NEVER = ("_pytest", "pytest", "pluggy")


def _kept(name: str, module: ModuleType | None, roots: tuple[str, ...]) -> bool:
    if module is None or name.split(".")[0] in _NEVER or name.endswith("__main__"):
        return False  # None: a module a conftest blocked on purpose
    file = getattr(module, "__file__", None)
    return isinstance(file, str) and str(Path(file).resolve()).startswith(roots)


class _RunRecorder:
    """A plugin of one in-process run: at its end, the modules it imported first."""

    def __init__(self, names: set[str], roots: tuple[str, ...]) -> None:
        self._before = set(sys.modules)
        self._names = names
        self._roots = roots

    def pytest_unconfigure(self) -> None:
        for name, module in list(sys.modules.items()):
            if name not in self._before and _kept(name, module, self._roots):
                self._names.add(name)


class ImportKeeper:
    """One per test process: what in-process runs imported, imported here after each test.

    ``roots``: the directories (each ending in a separator) a kept module's file is in.
    """

    def __init__(self, roots: tuple[str, ...] = LIBRARY_ROOTS) -> None:
        self._roots = roots
        self._pending: set[str] = set()

    def watch(self, pytester: pytest.Pytester) -> pytest.Pytester:
        """``pytester``, whose in-process runs report what they import to this keeper."""
        run_inline = pytester.inline_run

        def inline_run(*args: Any, plugins: Sequence[object] = (), **kwargs: Any) -> Any:
            recorder = _RunRecorder(self._pending, self._roots)
            return run_inline(*args, plugins=[*plugins, recorder], **kwargs)

        pytester.inline_run = inline_run  # type: ignore[method-assign]
        return pytester

    def import_pending(self) -> list[str]:
        """Import what the runs recorded (call it once pytester has put sys.modules back);
        the names imported."""
        pending, self._pending = self._pending, set()
        imported = []
        for name in sorted(pending):
            if name not in sys.modules:
                # Speed only: a module that will not import on its own here is simply
                # imported by the next run again.
                with contextlib.suppress(Exception):
                    importlib.import_module(name)
                    imported.append(name)
        return imported
