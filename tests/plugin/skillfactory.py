"""Build real skill folders for ``pytester`` tests.

Import it from a test module in ``tests/plugin`` with ``from skillfactory import ...``
(pytest's default ``prepend`` import mode puts this directory on ``sys.path``).

The API is small on purpose, so every plugin test writes skills the same way:

* :func:`make_skill` writes ``<root>/<dirname or name>/SKILL.md`` and, when given
  cases, one eval file (``evals/cases.yaml`` unless told otherwise);
* :func:`write_file` writes any other file (dedented), creating parent folders;
* :func:`spy_runner_conftest` is the text of a ``conftest.py`` registering a runner
  that records every call in a file, so a test can prove no runner was called.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "SPY_CALLS_FILE",
    "cases_text",
    "make_skill",
    "spy_runner_conftest",
    "write_file",
]

SPY_CALLS_FILE = "runner-calls.txt"


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
