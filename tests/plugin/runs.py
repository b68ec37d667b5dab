"""Run the plugin in a ``pytester`` test as a user would, and read the JSON report it wrote.

Import it from a test module in ``tests/plugin`` with ``from runs import ...``, beside
``skillfactory`` (which writes the skills such a run finds).

* :class:`LensRun` names once how a module runs the plugin (skills folder, runners, report
  files, in process or in a child); calling it with a ``pytester`` and more arguments runs it.
* :class:`Report` is a JSON report as written, with accessors for the parts tests read most;
  :meth:`LensRun.report` reads the one its run wrote;
* :func:`run_scripted_skill` writes one skill and a scripted runner's answers, runs it, and
  hands back the outcomes by case;
* :func:`run_module` runs ``python -m <module>`` (:func:`run_merge`: the merge) on the
  reports a run wrote;
* :func:`served_by` is the arguments that point a run's model at a local scripted server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from skillfactory import QUIET_PLUGINS, make_skill, scripted_runner_conftest

__all__ = [
    "SCRIPTED",
    "LensRun",
    "Report",
    "run_merge",
    "run_module",
    "run_scripted_skill",
    "served_by",
]


def _refuse_constant(name: str) -> Any:
    raise AssertionError(f"the report holds {name}, which JSON does not allow")


class Report(dict[str, Any]):
    """A JSON report (the mapping itself), with typed accessors for its common parts."""

    @classmethod
    def read(cls, path: Path) -> Report:
        """Strictly: valid UTF-8, a JSON object, and no NaN or Infinity anywhere."""
        text = path.read_bytes().decode("utf-8")
        data = json.loads(text, parse_constant=_refuse_constant)
        assert isinstance(data, dict), f"{path}: the report is not a JSON object"
        return cls(data)

    @property
    def outcomes(self) -> list[dict[str, Any]]:
        outcomes: list[dict[str, Any]] = self["outcomes"]
        return outcomes

    @property
    def summary(self) -> dict[str, Any]:
        summary: dict[str, Any] = self["summary"]
        return summary

    @property
    def gate(self) -> dict[str, Any]:
        gate: dict[str, Any] = self["gate"]
        return gate

    def by_case(self) -> dict[str, dict[str, Any]]:
        """The outcomes by case name; a name that repeats (arms, runners, repeats) fails."""
        names = [o["case_name"] for o in self.outcomes]
        repeated = sorted({name for name in names if names.count(name) > 1})
        assert not repeated, f"case names repeat in the outcomes: {repeated}"
        return {o["case_name"]: o for o in self.outcomes}

    def statuses(self) -> dict[str, str]:
        """Each case's status, by case name (see :meth:`by_case`)."""
        return {name: o["status"] for name, o in self.by_case().items()}


@dataclass(frozen=True)
class LensRun:
    """How a module runs the plugin: ``--skill-lens <skills>``, each runner, the reports.

    ``options`` go before the arguments of each call (e.g. ``("-v",)``); ``subprocess``
    runs pytest in a child process (with ``timeout`` as a hang guard); ``quiet`` adds
    :data:`skillfactory.QUIET_PLUGINS`.
    """

    runner: str | Sequence[str] = ()
    json: str | None = None
    markdown: str | None = None
    junit: str | None = None
    options: Sequence[str] = ()
    skills: str = "skills"
    subprocess: bool = False
    timeout: float | None = None
    quiet: bool = True

    def argv(self, *args: str) -> list[str]:
        runners = [self.runner] if isinstance(self.runner, str) else list(self.runner)
        argv = ["--skill-lens", self.skills]
        for runner in runners:
            argv += ["--skill-lens-runner", runner]
        for flag, path in (
            ("--skill-lens-json", self.json),
            ("--skill-lens-markdown", self.markdown),
            ("--junitxml", self.junit),
        ):
            if path is not None:
                argv += [flag, path]
        return [*argv, *self.options, *(QUIET_PLUGINS if self.quiet else ()), *args]

    def __call__(self, pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
        if self.subprocess:
            return pytester.runpytest_subprocess(*self.argv(*args), timeout=self.timeout)
        return pytester.runpytest(*self.argv(*args))

    def report(self, pytester: pytest.Pytester) -> Report:
        """The JSON report this run wrote (under ``pytester.path``)."""
        assert self.json is not None, "this run writes no JSON report"
        return Report.read(pytester.path / self.json)

    def outcomes_by_case(self, pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
        """:meth:`Report.by_case` of the report this run wrote; none when it wrote none."""
        assert self.json is not None, "this run writes no JSON report"
        if not (pytester.path / self.json).is_file():
            return {}
        return self.report(pytester).by_case()


SCRIPTED = LensRun(runner="scripted", json="report.json")


def run_scripted_skill(
    pytester: pytest.Pytester,
    name: str,
    cases_yaml: str,
    script: Mapping[str, Mapping[str, Any]],
    lens: LensRun = SCRIPTED,
) -> tuple[pytest.RunResult, dict[str, dict[str, Any]]]:
    """Skill ``name`` with ``cases_yaml``, answered by ``script`` (see
    :func:`skillfactory.scripted_runner_conftest`), with an empty ``skill-lens.toml``, run
    by ``lens``; the result and the outcomes by case name (none when no report was written)."""
    make_skill(pytester.path / "skills", name, cases_yaml)
    pytester.makeconftest(scripted_runner_conftest(script))
    (pytester.path / "skill-lens.toml").write_text("", encoding="utf-8")
    return lens(pytester), lens.outcomes_by_case(pytester)


def run_module(
    pytester: pytest.Pytester, module: str, *args: str
) -> subprocess.CompletedProcess[str]:
    """``python -m <module> <args>`` in ``pytester.path``, as a CI job that only has the
    reports a run wrote runs it."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def run_merge(pytester: pytest.Pytester, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pytest_skill_lens.merge <args>`` (see :func:`run_module`)."""
    return run_module(pytester, "pytest_skill_lens.merge", *args)


def served_by(url: str, model: str = "openai:gpt-4o-mini") -> tuple[str, ...]:
    """The arguments that send a run's model requests to the server at ``url``."""
    return ("--skill-lens-base-url", url, "--skill-lens-model", model)
