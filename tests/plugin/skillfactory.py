"""Build real skill folders for ``pytester`` tests.

Import it from a test module in ``tests/plugin`` with ``from skillfactory import ...``
(pytest's default ``prepend`` import mode puts this directory on ``sys.path``).

The API is small on purpose, so every plugin test writes skills the same way:

* :func:`make_skill` writes ``<root>/<dirname or name>/SKILL.md`` and, when given
  cases, one eval file (``evals/cases.yaml`` unless told otherwise);
* :func:`write_file` writes any other file (dedented), creating parent folders;
* :func:`spy_runner_conftest` is the text of a ``conftest.py`` registering a runner
  that records every call in a file, so a test can prove no runner was called;
* :func:`scripted_runner_conftest` is the text of a ``conftest.py`` registering the
  runner ``scripted``, which answers each case with the result a test wrote for it;
* :func:`make_scripted_skills` writes skills whose cases are named in a list, with that
  conftest answering each case by a function of its name;
* :data:`QUIET_PLUGINS` goes on every inner run's command line.

To run such a folder and read the JSON report it writes, see ``runs.py``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "QUIET_PLUGINS",
    "SPY_CALLS_FILE",
    "cases_text",
    "make_scripted_skills",
    "make_skill",
    "scripted_runner_conftest",
    "spy_runner_conftest",
    "write_file",
]

SPY_CALLS_FILE = "runner-calls.txt"

# Speed only: hypothesis's pytest plugin imports hypothesis at the end of every in-process
# run, which no inner run needs (see also conftest.py). Add these to an inner run's
# arguments to leave the plugin out of it.
QUIET_PLUGINS = ("-p", "no:hypothesispytest", "-p", "no:langsmith_plugin")


def write_file(path: Path, text: str) -> Path:
    """Write ``text`` (dedented) to ``path``, creating parent folders; return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def cases_text(cases: str | Sequence[Mapping[str, Any]]) -> str:
    """Eval-file text: a string is used as written (dedented); a list becomes ``cases:``."""
    if isinstance(cases, str):
        return textwrap.dedent(cases)
    return yaml.safe_dump({"cases": [dict(c) for c in cases]}, sort_keys=False)


def make_skill(
    root: Path,
    name: str,
    cases_yaml: str | Sequence[Mapping[str, Any]] | None = None,
    *,
    frontmatter: str | None = None,
    evals_file: str = "evals/cases.yaml",
    dirname: str | None = None,
    body: str = "Follow the task.\n",
) -> Path:
    """Write one skill and return its directory (``root / (dirname or name)``).

    ``frontmatter`` is the text between the ``---`` lines, used as written; by
    default it is ``name: <name>`` plus a description. ``cases_yaml`` is the eval
    file's text, or a list of case mappings; ``None`` writes no eval file.
    ``evals_file`` is relative to the skill directory (e.g. ``"x.eval.yaml"``).
    """
    directory = root / (dirname or name)
    if frontmatter is None:
        frontmatter = f"name: {name}\ndescription: The {name} test skill.\n"
    frontmatter = textwrap.dedent(frontmatter)
    if not frontmatter.endswith("\n"):
        frontmatter += "\n"
    write_file(directory / "SKILL.md", f"---\n{frontmatter}---\n# {name}\n\n{body}")
    if cases_yaml is not None:
        write_file(directory / evals_file, cases_text(cases_yaml))
    return directory


def spy_runner_conftest(
    name: str = "spy", output: str = "spy says hello", calls_file: str = SPY_CALLS_FILE
) -> str:
    """A ``conftest.py`` registering runner ``name``, which answers ``output`` and
    appends ``<skill>::<case>`` to ``calls_file`` (beside the conftest) on every call."""
    return textwrap.dedent(
        f"""\
        from pathlib import Path

        from pytest_skill_lens.run.result import RunResult

        CALLS = Path(__file__).parent / {calls_file!r}


        class SpyRunner:
            name = {name!r}

            def run(self, skill, case, workspace):
                with CALLS.open("a", encoding="utf-8") as f:
                    f.write(f"{{skill.name}}::{{case.name}}\\n")
                return RunResult(output={output!r}, model="spy")


        def pytest_skill_lens_runners(config):
            return {{{name!r}: lambda context: SpyRunner()}}
        """
    )


_SCRIPTED_RUNNER = '''\
import time

from pytest_skill_lens.run.result import RunResult, ToolCall

SCRIPT = {script!r}


class Scripted:
    """Answers each case by its name from SCRIPT (a case missing there is a KeyError)."""

    name = "scripted"

    def run(self, skill, case, workspace):
        # A session's own step, keyed "<case>/<its task>", comes before the case's.
        step = dict(SCRIPT.get(case.name + "/" + str(case.task)) or SCRIPT[case.name])
        if "show_file" in step:  # answer with a workspace file's text, as a later session would
            shown = workspace / step.pop("show_file")
            step["output"] = shown.read_text() if shown.is_file() else "(no such file)"
        for path, text in step.pop("write", dict()).items():  # plain file I/O in the root it got
            target = workspace / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        if "sleep" in step:
            time.sleep(step.pop("sleep"))
        if "raise" in step:
            raise RuntimeError(step["raise"])
        calls = [ToolCall(name, args) for name, args in step.pop("tool_calls", [])]
        return RunResult(tool_calls=calls, **step)


def pytest_skill_lens_runners(config):
    return {{"scripted": lambda context: Scripted()}}
'''


def scripted_runner_conftest(script: Mapping[str, Mapping[str, Any]], extra: str = "") -> str:
    """A ``conftest.py`` registering runner ``scripted``, which answers case ``name`` with
    ``script[name]`` (a case missing from ``script`` makes the runner raise ``KeyError``).

    A step's keys are :class:`RunResult` fields (``output``, ``error``, ``input_tokens``,
    ``cost_usd``, ``model``, ...), except for:

    * ``"tool_calls"``: a list of ``[tool name, arguments]`` pairs, each made a ``ToolCall``;
    * ``"write"``: ``{relative path: text}`` written into the workspace the runner was handed;
    * ``"show_file"``: a workspace path whose text (read before ``"write"``) becomes the
      output, or ``"(no such file)"``;
    * ``"raise"``: the runner raises ``RuntimeError(<that text>)`` instead of answering;
    * ``"sleep"``: seconds to sleep first (so that cases finish out of their planned order).

    A session of a ``sessions:`` case is answered by ``script["<case>/<its task>"]`` when
    there is one, else by ``script[<case>]``.

    ``extra`` is more conftest code (dedented), appended as written: e.g. judges.
    """
    text = _SCRIPTED_RUNNER.format(script={name: dict(step) for name, step in script.items()})
    if extra:
        text += "\n\n" + textwrap.dedent(extra)
    return text


def make_scripted_skills(
    root: Path,
    skills: Mapping[str, Sequence[str] | None],
    step: Callable[[str], Mapping[str, Any]],
    case: Mapping[str, Any],
) -> None:
    """Under ``root``: ``skills/<name>`` for each of ``skills``, with one case per name in
    its list (``{"name": <name>, "task": "t", **case}``; ``None`` writes no eval file), and
    a ``conftest.py`` whose runner ``scripted`` answers each case with ``step(<its name>)``
    (see :func:`scripted_runner_conftest`)."""
    (root / "skills").mkdir(parents=True, exist_ok=True)
    for name, case_names in skills.items():
        cases = None
        if case_names is not None:
            cases = [{"name": case_name, "task": "t", **case} for case_name in case_names]
        make_skill(root / "skills", name, cases)
    script = {case_name: step(case_name) for names in skills.values() for case_name in names or []}
    write_file(root / "conftest.py", scripted_runner_conftest(script))
