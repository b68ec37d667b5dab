"""tests/kept_imports.py: what an in-process run imports from a library stays loaded here,
and nothing of the run's own files, nor a module its conftest blocked, ever does."""

from __future__ import annotations

import os
import sys

import pytest

from kept_imports import ImportKeeper

CONFTEST = """\
import sys

sys.modules["kept_probe_blocked"] = None  # as if it were not installed
import kept_probe_library
import local_helper
"""


def test_a_library_module_is_imported_again_and_the_runs_own_files_are_not(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = pytester.mkdir("library")
    (library / "kept_probe_library.py").write_text("VALUE = 1\n", encoding="utf-8")
    (library / "kept_probe_blocked.py").write_text("VALUE = 3\n", encoding="utf-8")
    (pytester.path / "local_helper.py").write_text("VALUE = 2\n", encoding="utf-8")
    pytester.makeconftest(CONFTEST)
    monkeypatch.syspath_prepend(str(library))
    keeper = ImportKeeper(roots=(os.path.join(library, ""),))
    keeper.watch(pytester)

    result = pytester.runpytest("-p", "no:hypothesispytest")

    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED  # the conftest imported both
    assert "kept_probe_library" not in sys.modules  # pytester dropped it when the run ended
    assert keeper.import_pending() == ["kept_probe_library"]
    assert sys.modules["kept_probe_library"].VALUE == 1
    assert "kept_probe_blocked" not in sys.modules
    from_the_run = [
        name
        for name, module in list(sys.modules.items())
        if str(getattr(module, "__file__", None) or "").startswith(str(pytester.path))
    ]
    assert from_the_run == ["kept_probe_library"]  # not local_helper, not the conftest
    assert keeper.import_pending() == []  # each module once
