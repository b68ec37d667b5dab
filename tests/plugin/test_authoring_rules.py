"""Every authoring rule of eval-files.md, proven on a real bad skill folder.

Each rule test writes a skill into ``pytester.path``, runs pytest on it in-process and
checks three things: exit code 2; a message naming the file, the case (by name and
position), the field, the problem and the fix; and that no runner was ever called.

The ``conftest.py`` written beside the skills registers the runner ``spy`` and wraps the
built-in ``fake`` runner, so both append a line to ``calls.log`` whenever they run a
case: an absent ``calls.log`` proves nothing ran, under either runner.

The other ``test_authoring_rules_*.py`` modules import the helpers from here; the table
in ``docs/authoring-errors.md`` names the test of every rule.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import pkgutil
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

import pytest_skill_lens


def _preload() -> None:
    """Import the plugin's modules once, up front.

    pytester's in-process runs drop every module first imported inside a run, so
    without this each of the hundreds of runs here would import pydantic and the
    plugin again; imported before, they stay loaded.
    """
    for module in pkgutil.walk_packages(pytest_skill_lens.__path__, "pytest_skill_lens."):
        with contextlib.suppress(ImportError):  # an optional extra that is not installed
            importlib.import_module(module.name)


_preload()

SKILL = "order-support"  # offered as the tool ``order_support`` under mode: offered
CALLS = "calls.log"
CASES = "cases.log"  # per call, the case the runner was handed, as JSON
BAD = "case 'bad' (#2 in the file)"

CONFTEST = f"""\
import json
from pathlib import Path

from pytest_skill_lens.run.fake import FakeRunner
from pytest_skill_lens.run.result import RunResult

CALLS = Path(__file__).parent / {CALLS!r}
CASES = Path(__file__).parent / {CASES!r}


def _log(runner, case):
    with CALLS.open("a", encoding="utf-8") as f:
        f.write(f"{{runner}}::{{case.name}}\\n")
    with CASES.open("a", encoding="utf-8") as f:
        f.write(json.dumps(case.model_dump(mode="json")) + "\\n")


class SpyRunner:
    name = "spy"

    def run(self, skill, case, workspace):
        _log("spy", case)
        return RunResult(output="ok", model="spy")


def pytest_skill_lens_runners(config):
    return {{"spy": lambda context: SpyRunner()}}


# The built-in fake runner logs its calls too, for the runner-dependent rules.
_ORIGINAL = FakeRunner.__dict__["run"]


def _logged_run(self, skill, case, workspace):
    _log("fake", case)
    return _ORIGINAL(self, skill, case, workspace)


FakeRunner.run = _logged_run


def pytest_unconfigure(config):
    FakeRunner.run = _ORIGINAL
"""

GOOD_CASE = """\
  - name: fine
    task: Say hello.
"""


# --- helpers (imported by the other test_authoring_rules_*.py modules) -------------------


def write_conftest(pytester: pytest.Pytester) -> None:
    write_file(pytester.path / "conftest.py", CONFTEST)


def write_skill(
    pytester: pytest.Pytester,
    files: dict[str, str | bytes | None],
    *,
    name: str = SKILL,
    dirname: str | None = None,
    frontmatter: str | None = None,
) -> Path:
    """The spying conftest plus one skill holding ``files`` (relative to its directory).

    A ``None`` content makes a directory. Returns the skill directory.
    """
    write_conftest(pytester)
    directory = make_skill(pytester.path / "skills", name, dirname=dirname, frontmatter=frontmatter)
    for relative, content in files.items():
        path = directory / relative
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
        elif isinstance(content, bytes):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        else:
            write_file(path, content)
    return directory


def bad_case_file(body: str, *, task: bool = True, name: str | None = "bad") -> str:
    """An eval file: a good first case, then a case ``name`` holding ``body`` (its keys)."""
    lines = textwrap.dedent(body)
    if task:
        lines = "task: Say hello.\n" + lines
    if name is not None:
        lines = f"name: {name}\n" + lines
    first, _, rest = lines.partition("\n")
    return "cases:\n" + GOOD_CASE + "  - " + first + "\n" + textwrap.indent(rest, "    ")


def run(pytester: pytest.Pytester, *args: str, runner: str | None = "spy") -> pytest.RunResult:
    """The skills under ``skills``, run by ``runner`` (``None``: the default runner)."""
    lens = LensRun(runner=runner or (), options=("-p", "no:cacheprovider"), quiet=False)
    return lens(pytester, *args)


def runner_calls(pytester: pytest.Pytester) -> list[str]:
    path = pytester.path / CALLS
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def cases_seen(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    """Per case the runner ran, the case it was handed (as plain data), by name."""
    path = pytester.path / CASES
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return {entry["name"]: entry for entry in map(json.loads, lines)}


def tools_seen(pytester: pytest.Pytester) -> dict[str, list[dict[str, Any]]]:
    """Per case the runner ran, the mock tools it was handed."""
    return {name: case["tools"] for name, case in cases_seen(pytester).items()}


@dataclass(frozen=True)
class Expect:
    """What the message must say.

    ``file`` is the end of the file's path; ``case`` the full label, such as
    "case 'bad' (#2 in the file)"; ``None`` for a field or case means the message has
    none to give (a file-level problem).
    """

    file: str
    problem: str
    fix: str
    field: str | None = None
    case: str | None = None


def authoring_message(result: pytest.RunResult) -> str:
    out = result.stdout.str()
    assert "skill-lens authoring error: " in out, out
    return out.split("skill-lens authoring error: ", 1)[1].split("\n=", 1)[0].rstrip()


def assert_refused(result: pytest.RunResult, pytester: pytest.Pytester, expect: Expect) -> str:
    """Exit 2, the located message with its fix, and no runner call; returns the message."""
    assert result.ret == 2, result.stdout.str()
    message = authoring_message(result)
    place, _, rest = message.partition(": ")
    path = place.split(",")[0]
    assert path.split(":")[0].endswith(expect.file), message
    if expect.case is not None:
        assert f", {expect.case}" in place, message
    if expect.field is not None:
        assert place.endswith(f"field {expect.field!r}"), message
    problem, _, fix = rest.partition("\n  fix: ")
    assert expect.problem in problem, message
    assert fix, f"the message gives no fix: {message}"
    assert expect.fix in fix, message
    assert runner_calls(pytester) == [], "a runner was called before the error stopped the run"
    assert "passed" not in result.outlines[-1], result.stdout.str()
    return message


# --- rules on one case --------------------------------------------------------------------


@dataclass(frozen=True)
class CaseRule:
    id: str
    body: str
    field: str | None
    problem: str
    fix: str
    task: bool = True
    name: str | None = "bad"
    case: str = BAD


WS = "workspace: {}\n"

CASE_RULES = [
    # Unknown keys, at every level a user writes.
    CaseRule(
        "unknown-case-key",
        "assertion:\n  - kind: contains\n    value: ok\n",
        "assertion",
        "unknown key 'assertion'",
        "did you mean 'assertions'?",
    ),
    CaseRule(
        "unknown-assertion-key",
        "assertions:\n  - kind: contains\n    valeu: ok\n",
        "assertions[0].valeu",
        "unknown key 'valeu'",
        "did you mean 'value'?",
    ),
    CaseRule(
        "unknown-tool-key",
        "tools:\n  - name: lookup\n    retuns: x\n",
        "tools[0].retuns",
        "unknown key 'retuns'",
        "did you mean 'returns'?",
    ),
    CaseRule(
        "unknown-trajectory-key",
        "trajectory:\n  calld: [lookup]\n",
        "trajectory.calld",
        "unknown key 'calld'",
        "did you mean 'called'?",
    ),
    CaseRule(
        "unknown-call-args-key",
        "tools: [{name: lookup}]\ntrajectory:\n  call_args:\n    - tool: lookup\n"
        "      contain: {id: 1}\n",
        "trajectory.call_args[0].contain",
        "unknown key 'contain'",
        "did you mean 'contains'?",
    ),
    CaseRule(
        "unknown-budget-key",
        "budget:\n  max_token: 100\n",
        "budget.max_token",
        "unknown key 'max_token'",
        "did you mean 'max_tokens'?",
    ),
    CaseRule(
        "unknown-judge-key",
        "judge:\n  rubric: [The reply is polite]\n  rubrik: [x]\n",
        "judge.rubrik",
        "unknown key 'rubrik'",
        "did you mean 'rubric'?",
    ),
    CaseRule(
        "unknown-workspace-key",
        "workspace:\n  file: {a.md: x}\n",
        "workspace.file",
        "unknown key 'file'",
        "did you mean 'files'?",
    ),
    CaseRule(
        "unknown-lookup-entry-key",
        "tools:\n  - name: lookup\n    parameters: {id: string}\n    returns:\n"
        "      - when: {id: '1'}\n        valu: x\n",
        "tools[0].returns[0].valu",
        "unknown key 'valu'",
        "did you mean 'value'?",
    ),
    CaseRule(
        "unknown-artifact-key",
        WS + "judge:\n  rubric: [The report is complete]\n  artifacts:\n    - globb: '*.md'\n",
        "judge.artifacts[0].globb",
        "unknown key 'globb'",
        "did you mean 'glob'?",
    ),
    # Name, task and sessions.
    CaseRule(
        "name-missing",
        "",
        "name",
        "required key 'name' is missing",
        "add name:",
        name=None,
        case="case (#2 in the file)",
    ),
    CaseRule(
        "name-blank",
        "",
        "name",
        "the case name is blank",
        "give the case a short descriptive name",
        name="' '",
        case="case ' ' (#2 in the file)",
    ),
    CaseRule(
        "name-not-text",
        "",
        "name",
        "expected text, got the number 12",
        "quote the value",
        name="12",
        case="case (#2 in the file)",
    ),
    CaseRule(
        "task-and-sessions",
        "sessions: [Plan it., Continue.]\n" + WS,
        "sessions",
        "task and sessions are exclusive",
        "keep task for one prompt",
    ),
    CaseRule(
        "neither-task-nor-sessions",
        "tags: [x]\n",
        "task",
        "the case has neither task nor sessions",
        "add task:",
        task=False,
    ),
    CaseRule(
        "task-blank", "task: '  '\n", "task", "the task is blank", "write the prompt", task=False
    ),
    CaseRule(
        "task-not-text",
        "task: 5\n",
        "task",
        "expected text, got the number 5",
        "quote the value",
        task=False,
    ),
    CaseRule(
        "sessions-one-entry",
        "sessions: [Plan it.]\n" + WS,
        "sessions",
        "sessions needs at least two entries",
        "use task:",
        task=False,
    ),
    CaseRule(
        "sessions-blank-entry",
        "sessions: [Plan it., ' ']\n" + WS,
        "sessions[1]",
        "a session is blank",
        "write that session's prompt",
        task=False,
    ),
    CaseRule(
        "sessions-without-workspace",
        "sessions: [Plan it., Continue.]\n",
        "sessions",
        "sessions needs a workspace: block",
        "add workspace: {}",
        task=False,
    ),
    # Types: no coercion, and the YAML shape problems that surface as types.
    CaseRule(
        "value-number",
        "assertions:\n  - kind: contains\n    value: 1234\n",
        "assertions[0].value",
        "expected text, got the number 1234",
        "quote the value",
    ),
    CaseRule(
        "value-boolean",
        "assertions:\n  - kind: contains\n    value: true\n",
        "assertions[0].value",
        "expected text, got the boolean true",
        "quote the value",
    ),
    CaseRule(
        "duplicate-key",
        "task: Say it twice.\n",
        "task",
        "duplicate key 'task'",
        "keep one of the two",
    ),
    CaseRule(
        "recursive-alias",
        "workspace: &w\n  files:\n    a.md: *w\n",
        "workspace.files.a.md",
        "an alias refers to the node that contains it",
        "remove the self-referencing alias",
    ),
    CaseRule(
        "tags-not-a-list",
        "tags: smoke\n",
        "tags",
        "expected a list, got 'smoke'",
        "write a list",
    ),
    CaseRule("tag-not-text", "tags: [1]\n", "tags[0]", "expected text, got the number 1", "quote"),
    CaseRule(
        "mode-unknown",
        "mode: forced\n",
        "mode",
        "'forced' is not allowed here; expected 'loaded' or 'offered'",
        "write one of 'loaded' or 'offered'",
    ),
    # Unfilled scaffolds.
    CaseRule(
        "placeholder-in-value",
        "assertions:\n  - kind: contains\n    value: TODO(skill-lens)\n",
        "assertions[0].value",
        "still holds the placeholder TODO(skill-lens)",
        "replace it with the real value",
    ),
    CaseRule(
        "placeholder-in-key",
        "workspace:\n  files:\n    TODO(skill-lens): seed text\n",
        "workspace.files.TODO(skill-lens)",
        "still holds the placeholder TODO(skill-lens)",
        "replace it with the real value",
    ),
    CaseRule(
        "placeholder-in-task",
        "task: 'Refund order TODO(skill-lens)'\n",
        "task",
        "still holds the placeholder TODO(skill-lens)",
        "replace it with the real value",
        task=False,
    ),
    CaseRule(
        "placeholder-in-name",
        "",
        "name",
        "still holds the placeholder TODO(skill-lens)",
        "replace it with the real value",
        name="TODO(skill-lens)",
        case="case 'TODO(skill-lens)' (#2 in the file)",
    ),
    CaseRule(
        "placeholder-before-schema",
        "asertions:\n  - kind: contains\n    value: TODO(skill-lens)\n",
        "asertions[0].value",
        "still holds the placeholder TODO(skill-lens)",
        "replace it with the real value",
    ),
    # Assertions.
    CaseRule(
        "assertion-kind-unknown",
        "assertions:\n  - kind: contain\n    value: ok\n",
        "assertions[0].kind",
        "'contain' is not allowed here; expected 'contains', 'not_contains', 'regex', "
        "'equals', 'file-produced' or 'json-schema'",
        "write one of 'contains'",
    ),
    CaseRule(
        "regex-malformed",
        "assertions:\n  - kind: regex\n    value: '(unclosed'\n",
        "assertions[0].value",
        "the regex '(unclosed' does not compile: missing ), unterminated subpattern",
        "single-quote it",
    ),
    CaseRule(
        "text-kind-without-value",
        "assertions:\n  - kind: equals\n",
        "assertions[0].value",
        "a equals assertion needs value:",
        "add value:",
    ),
    CaseRule(
        "file-produced-with-value",
        WS + "assertions:\n  - kind: file-produced\n    file: out.md\n    value: x\n",
        "assertions[0].value",
        "a file-produced assertion takes no value:",
        "drop value:",
    ),
    CaseRule(
        "file-produced-without-file",
        WS + "assertions:\n  - kind: file-produced\n",
        "assertions[0].file",
        "file-produced needs file: or file_glob:",
        "add file:",
    ),
    CaseRule(
        "json-schema-without-schema",
        "assertions:\n  - kind: json-schema\n",
        "assertions[0].json_schema",
        "a json-schema assertion needs json_schema:",
        "add json_schema:",
    ),
    CaseRule(
        "json-schema-with-value",
        "assertions:\n  - kind: json-schema\n    value: x\n    json_schema: {type: object}\n",
        "assertions[0].value",
        "a json-schema assertion takes no value:",
        "drop value:",
    ),
    CaseRule(
        "json-schema-on-another-kind",
        "assertions:\n  - kind: contains\n    value: ok\n    json_schema: {type: object}\n",
        "assertions[0].json_schema",
        "json_schema: belongs to a json-schema assertion, not contains",
        "set kind: json-schema",
    ),
    CaseRule(
        "json-schema-invalid",
        "assertions:\n  - kind: json-schema\n    json_schema: {type: 12}\n",
        "assertions[0].json_schema",
        "json_schema is not a valid JSON Schema",
        "draft 2020-12",
    ),
    # file: and file_glob:
    CaseRule(
        "file-without-workspace",
        "assertions:\n  - kind: contains\n    value: north\n    file: report.md\n",
        "assertions[0].file",
        "the assertion reads the workspace file 'report.md', but the case has no workspace: block",
        "add workspace: {}",
    ),
    CaseRule(
        "file-produced-without-workspace",
        "assertions:\n  - kind: file-produced\n    file: report.md\n",
        "assertions[0].file",
        "the case has no workspace: block",
        "add workspace: {}",
    ),
    CaseRule(
        "json-schema-file-without-workspace",
        "assertions:\n  - kind: json-schema\n    file: out.json\n    json_schema: {type: object}\n",
        "assertions[0].file",
        "the case has no workspace: block",
        "add workspace: {}",
    ),
    CaseRule(
        "file-glob-without-workspace",
        "assertions:\n  - kind: contains\n    value: north\n    file_glob: '*.md'\n",
        "assertions[0].file_glob",
        "the case has no workspace: block",
        "add workspace: {}",
    ),
    CaseRule(
        "file-empty",
        WS + "assertions:\n  - kind: contains\n    value: x\n    file: ''\n",
        "assertions[0].file",
        "the path '' is empty",
        "name a file relative to the workspace",
    ),
    CaseRule(
        "file-absolute",
        WS + "assertions:\n  - kind: contains\n    value: x\n    file: /etc/passwd\n",
        "assertions[0].file",
        "the path '/etc/passwd' is absolute; write it relative to the workspace",
        "name a file relative to the workspace",
    ),
    CaseRule(
        "file-drive-qualified",
        WS + "assertions:\n  - kind: contains\n    value: x\n    file: 'C:report.md'\n",
        "assertions[0].file",
        "the path 'C:report.md' is absolute",
        "name a file relative to the workspace",
    ),
    CaseRule(
        "file-dot-dot",
        WS + "assertions:\n  - kind: contains\n    value: x\n    file: ../secrets.md\n",
        "assertions[0].file",
        "the path '../secrets.md' contains '..', which would leave the workspace",
        "name a file relative to the workspace",
    ),
    CaseRule(
        "file-and-file-glob",
        WS + "assertions:\n  - kind: contains\n    value: x\n    file: a.md\n"
        "    file_glob: '*.md'\n",
        "assertions[0].file_glob",
        "file: and file_glob: are both set",
        "keep one of the two",
    ),
    *(
        CaseRule(
            f"file-glob-{rule}",
            WS + f"assertions:\n  - kind: file-produced\n    file_glob: '{pattern}'\n",
            "assertions[0].file_glob",
            problem,
            "write a relative pattern with a wildcard",
        )
        for rule, pattern, problem in [
            ("double-star", "**/plan.md", "'**' is not supported"),
            (
                "no-wildcard",
                "plan.md",
                "the pattern 'plan.md' has no wildcard; use file: for a literal path",
            ),
            ("dot-dot", "../*.md", "the pattern '../*.md' contains '..'"),
            ("absolute", "/tmp/*.md", "the pattern '/tmp/*.md' is absolute"),
            ("backslash", "plans\\*.md", "the pattern 'plans\\\\*.md' holds a backslash"),
            ("trailing-slash", "plans*/", "the pattern 'plans*/' ends in '/' or '/.'"),
            ("trailing-slash-dot", "plans*/.", "the pattern 'plans*/.' ends in '/' or '/.'"),
            ("unclosed-set", "plan[ab.md", "an unclosed '[' in the pattern (in 'plan[ab.md')"),
            ("empty-set", "[z-a].md", "the set [z-a] matches no character (in '[z-a].md')"),
        ]
    ),
    CaseRule(
        "file-glob-list-of-one",
        WS + "assertions:\n  - kind: file-produced\n    file_glob: ['*.md']\n",
        "assertions[0].file_glob",
        "a file_glob list needs at least two different entries",
        "write a single pattern as a string",
    ),
    CaseRule(
        "file-glob-list-repeats",
        WS + "assertions:\n  - kind: file-produced\n    file_glob: ['*.md', '*.md']\n",
        "assertions[0].file_glob",
        "a file_glob list needs at least two different entries",
        "write a single pattern as a string",
    ),
    CaseRule(
        "file-glob-list-bad-entry",
        WS + "assertions:\n  - kind: file-produced\n    file_glob: [plan.md, '../*.md']\n",
        "assertions[0].file_glob[1]",
        "the pattern '../*.md' contains '..'",
        "write a relative pattern with a wildcard",
    ),
    CaseRule(
        "file-glob-not-text",
        WS + "assertions:\n  - kind: file-produced\n    file_glob: 3\n",
        "assertions[0].file_glob",
        "expected text or a list of text, got the number 3",
        "write it as text or a list of text",
    ),
    CaseRule(
        "file-produced-glob-matches-seed",
        "workspace:\n  files: {notes.md: seed}\nassertions:\n  - kind: file-produced\n"
        "    file_glob: '*.md'\n",
        "assertions[0].file_glob",
        "file-produced pattern '*.md' matches the seeded file 'notes.md'",
        "narrow the pattern",
    ),
    CaseRule(
        "file-produced-file-is-seeded",
        "workspace:\n  files: {notes.md: seed}\nassertions:\n  - kind: file-produced\n"
        "    file: notes.md\n",
        "assertions[0].file",
        "file-produced names 'notes.md', which the case seeds itself",
        "check a file the skill must write",
    ),
    # Mock tools.
    *(
        CaseRule(
            f"tool-name-{rule}",
            f"tools:\n  - name: {name}\n",
            "tools[0].name",
            "is not accepted by providers (^[A-Za-z0-9_-]{1,64}$)",
            "use ASCII letters, digits, '_' and '-', at most 64 characters",
        )
        for rule, name in [
            ("dot", "get.pr"),
            ("non-ascii", "café"),
            ("65-chars", "a" * 65),
            ("empty", "''"),
        ]
    ),
    CaseRule(
        "tool-declared-twice",
        "tools:\n  - name: lookup\n  - name: lookup\n",
        "tools[1].name",
        "tool 'lookup' is declared twice (also tools[0])",
        "declare each tool once",
    ),
    *(
        CaseRule(
            f"tool-reserved-{builtin}",
            WS + f"tools:\n  - name: {builtin}\n",
            "tools[0].name",
            f"tool name '{builtin}' is reserved for a built-in tool in a workspace case",
            "rename the tool",
        )
        for builtin in (
            "list_files",
            "read_file",
            "write_file",
            "list_skill_files",
            "read_skill_file",
            "run_script",
        )
    ),
    CaseRule(
        "tool-collides-with-offered-skill",
        "mode: offered\ntools:\n  - name: order_support\n",
        "tools[0].name",
        "tool name 'order_support' collides with the offered skill's own tool",
        "rename the tool",
    ),
    CaseRule(
        "tool-parameters-and-input-schema",
        "tools:\n  - name: lookup\n    parameters: {id: string}\n"
        "    input_schema: {type: object}\n",
        "tools[0].input_schema",
        "tool 'lookup' declares both parameters: and input_schema:",
        "keep parameters: for a hand-written tool",
    ),
    CaseRule(
        "tool-input-schema-invalid",
        "tools:\n  - name: lookup\n    input_schema: {type: object, properties: 3}\n",
        "tools[0].input_schema",
        "the input_schema of tool 'lookup' is not a valid JSON Schema",
        "draft 2020-12",
    ),
    CaseRule(
        "tool-input-schema-not-object",
        "tools:\n  - name: lookup\n    input_schema: {type: array}\n",
        "tools[0].input_schema",
        "the input_schema of tool 'lookup' must have top-level type: object (every provider "
        "requires it); its type is 'array'",
        "add type: object",
    ),
    CaseRule(
        "tool-parameter-type-word",
        "tools:\n  - name: lookup\n    parameters: {id: str}\n",
        "tools[0].parameters.id",
        "'str' is not allowed here; expected 'string', 'integer', 'number' or 'boolean'",
        "write one of 'string'",
    ),
    CaseRule(
        "returns-empty-list",
        "tools:\n  - name: lookup\n    returns: []\n",
        "tools[0].returns",
        "the returns: of tool 'lookup' is an empty list",
        "returns: '' is how an empty reply is spelled",
    ),
    CaseRule(
        "returns-mixes-shapes",
        "tools:\n  - name: lookup\n    returns: [first, {value: second}]\n",
        "tools[0].returns",
        "the returns: of tool 'lookup' mixes strings (a sequence) with when:/value: entries "
        "(a lookup)",
        "use one shape",
    ),
    CaseRule(
        "returns-not-text-or-list",
        "tools:\n  - name: lookup\n    returns: 3\n",
        "tools[0].returns",
        "expected text or a list of text or a list of when:/value: entries, got the number 3",
        "write it as text",
    ),
    CaseRule(
        "lookup-without-value",
        "tools:\n  - name: lookup\n    parameters: {id: string}\n    returns:\n"
        "      - when: {id: '1'}\n",
        "tools[0].returns[0].value",
        "required key 'value' is missing",
        "add value:",
    ),
    CaseRule(
        "lookup-key-outside-parameters",
        "tools:\n  - name: lookup\n    parameters: {id: string}\n    returns:\n"
        "      - when: {order: '1'}\n        value: x\n",
        "tools[0].returns[0].when",
        "when: keys on 'order', which lookup can never be called with (its schema allows: id)",
        "key the lookup on a declared argument",
    ),
    CaseRule(
        "lookup-key-on-tool-without-arguments",
        "tools:\n  - name: lookup\n    returns:\n      - when: {id: '1'}\n        value: x\n",
        "tools[0].returns[0].when",
        "(its schema allows: no arguments at all)",
        "key the lookup on a declared argument",
    ),
    CaseRule(
        "lookup-key-outside-closed-schema",
        "tools:\n  - name: lookup\n    input_schema:\n      type: object\n"
        "      properties: {id: {type: string}}\n      additionalProperties: false\n"
        "    returns:\n      - when: {order: '1'}\n        value: x\n",
        "tools[0].returns[0].when",
        "when: keys on 'order'",
        "key the lookup on a declared argument",
    ),
    CaseRule(
        "lookup-empty-when",
        "tools:\n  - name: lookup\n    parameters: {id: string}\n    returns:\n"
        "      - when: {}\n        value: x\n",
        "tools[0].returns[0].when",
        "when: {} matches every call",
        "drop the when: key to declare a fallback",
    ),
    CaseRule(
        "lookup-after-fallback",
        "tools:\n  - name: lookup\n    parameters: {id: string}\n    returns:\n"
        "      - value: fallback\n      - when: {id: '1'}\n        value: x\n",
        "tools[0].returns[1]",
        "this entry of tool 'lookup' can never answer: the fallback at returns[0] answers every "
        "call first",
        "move the fallback",
    ),
    CaseRule(
        "lookup-same-when",
        "tools:\n  - name: lookup\n    parameters: {id: string}\n    returns:\n"
        "      - when: {id: '1'}\n        value: x\n      - when: {id: '1'}\n        value: y\n",
        "tools[0].returns[1]",
        "this entry of tool 'lookup' can never answer: returns[0]",
        "put the narrower when: first",
    ),
    CaseRule(
        "lookup-narrows-earlier",
        "tools:\n  - name: lookup\n    parameters: {id: string, page: integer}\n"
        "    returns:\n      - when: {id: '1'}\n        value: x\n"
        "      - when: {id: '1', page: 2}\n        value: y\n",
        "tools[0].returns[1]",
        "already matches every call it would",
        "put the narrower when: first",
    ),
    # Trajectory shapes (runner-independent).
    CaseRule(
        "skill-triggered-on-loaded-case",
        "trajectory:\n  skill_triggered: true\n",
        "trajectory.skill_triggered",
        "skill_triggered needs mode: offered",
        "add mode: offered, or drop skill_triggered",
    ),
    CaseRule(
        "skill-triggered-not-boolean",
        "mode: offered\ntrajectory:\n  skill_triggered: yes\n",
        "trajectory.skill_triggered",
        "expected true or false, got 'yes'",
        "write true or false",
    ),
    CaseRule(
        "call-args-contains-and-equals",
        "tools: [{name: lookup}]\ntrajectory:\n  call_args:\n"
        "    - {tool: lookup, contains: {id: 1}, equals: {id: 1}}\n",
        "trajectory.call_args[0]",
        "a call_args entry needs exactly one of contains: and equals:",
        "contains: for a subset of the arguments",
    ),
    CaseRule(
        "call-args-neither",
        "tools: [{name: lookup}]\ntrajectory:\n  call_args:\n    - {tool: lookup}\n",
        "trajectory.call_args[0]",
        "a call_args entry needs exactly one of contains: and equals:",
        "contains: for a subset of the arguments",
    ),
    CaseRule(
        "call-args-empty-contains",
        "tools: [{name: lookup}]\ntrajectory:\n  call_args:\n    - {tool: lookup, contains: {}}\n",
        "trajectory.call_args[0].contains",
        "contains: {} matches every call",
        "use called: [lookup]",
    ),
    CaseRule(
        "max-calls-negative",
        "trajectory:\n  max_calls: -1\n",
        "trajectory.max_calls",
        "the number -1 is too small; the least allowed is 0",
        "use a value of at least 0",
    ),
    CaseRule(
        "max-calls-quoted",
        "trajectory:\n  max_calls: '3'\n",
        "trajectory.max_calls",
        "expected a whole number, got '3'",
        "write a whole number without quotes",
    ),
    CaseRule(
        "called-not-a-list",
        "trajectory:\n  called: lookup\n",
        "trajectory.called",
        "expected a list, got 'lookup'",
        "write a list",
    ),
    # Budget.
    CaseRule(
        "budget-negative",
        "budget:\n  max_tokens: -5\n",
        "budget.max_tokens",
        "the number -5 is too small",
        "use a value of at least 0",
    ),
    CaseRule(
        "budget-tokens-fraction",
        "budget:\n  max_tokens: 1.5\n",
        "budget.max_tokens",
        "expected a whole number, got the number 1.5",
        "write a whole number",
    ),
    CaseRule(
        "budget-tokens-boolean",
        "budget:\n  max_tokens: true\n",
        "budget.max_tokens",
        "expected a whole number, got the boolean true",
        "write a whole number",
    ),
    CaseRule(
        "budget-cost-quoted",
        "budget:\n  max_cost_usd: '0.10'\n",
        "budget.max_cost_usd",
        "expected a number, got '0.10'",
        "write it as a number",
    ),
    # Judge.
    CaseRule(
        "judge-without-rubric",
        "judge:\n  expected: A polite refusal.\n",
        "judge.rubric",
        "required key 'rubric' is missing",
        "add rubric:",
    ),
    CaseRule(
        "judge-rubric-empty",
        "judge:\n  rubric: []\n",
        "judge.rubric",
        "the rubric is empty",
        "list at least one statement",
    ),
    CaseRule(
        "judge-rubric-blank-entry",
        "judge:\n  rubric: [The reply is polite, '  ']\n",
        "judge.rubric[1]",
        "a rubric entry is blank",
        "write the statement or remove the entry",
    ),
    *(
        CaseRule(
            f"judge-rubric-hidden-data-{rule}",
            f'judge:\n  rubric:\n    - "{line}"\n',
            "judge.rubric[0]",
            f"the entry compares against data the judge never sees ({phrase!r})",
            "phrase it against the response itself",
        )
        for rule, line, phrase in [
            ("mocked-data", "It invents nothing absent from the mocked data", "mocked data"),
            ("mock-response", "It matches the mock response", "mock response"),
            ("tool-returned", "It repeats what the tool returned", "tool returned"),
            ("tools-output", "It quotes the tool's output", "tool's output"),
            ("returned-by", "It uses the value returned by the tool", "returned by the tool"),
        ]
    ),
    CaseRule(
        "judge-expected-blank",
        "judge:\n  rubric: [The reply is polite]\n  expected: ' '\n",
        "judge.expected",
        "expected is blank",
        "describe a good answer or drop the key",
    ),
    CaseRule(
        "judge-artifacts-without-workspace",
        "judge:\n  rubric: [The report is complete]\n  artifacts: [report.md]\n",
        "judge.artifacts",
        "judge.artifacts names workspace files, but the case has no workspace: block",
        "add workspace: {}",
    ),
    CaseRule(
        "judge-artifact-dot-dot",
        WS + "judge:\n  rubric: [The report is complete]\n  artifacts: [../report.md]\n",
        "judge.artifacts[0]",
        "the path '../report.md' contains '..'",
        "name a file relative to the workspace",
    ),
    CaseRule(
        "judge-artifact-absolute",
        WS + "judge:\n  rubric: [The report is complete]\n  artifacts: [/report.md]\n",
        "judge.artifacts[0]",
        "the path '/report.md' is absolute",
        "name a file relative to the workspace",
    ),
    CaseRule(
        "judge-artifact-path-and-glob",
        WS + "judge:\n  rubric: [The report is complete]\n  artifacts: ['*.md', {glob: '*.md'}]\n",
        "judge.artifacts",
        "'*.md' is listed both as a path and as a glob",
        "keep one of the two entries",
    ),
    CaseRule(
        "judge-artifact-glob-no-wildcard",
        WS + "judge:\n  rubric: [The report is complete]\n  artifacts: [{glob: report.md}]\n",
        "judge.artifacts[0].glob",
        "the pattern 'report.md' has no wildcard; list it as a plain entry",
        "write a relative pattern with a wildcard",
    ),
    CaseRule(
        "judge-artifact-glob-double-star",
        WS + "judge:\n  rubric: [The report is complete]\n  artifacts: [{glob: '**/r.md'}]\n",
        "judge.artifacts[0].glob",
        "'**' is not supported",
        "write a relative pattern with a wildcard",
    ),
    CaseRule(
        "judge-artifact-glob-list-of-one",
        WS + "judge:\n  rubric: [The report is complete]\n  artifacts: [{glob: ['*.md']}]\n",
        "judge.artifacts[0].glob",
        "a list of patterns needs at least two different entries",
        "write a single pattern as a string",
    ),
    CaseRule(
        "judge-artifact-not-text",
        WS + "judge:\n  rubric: [The report is complete]\n  artifacts: [3]\n",
        "judge.artifacts[0]",
        "expected text or a mapping with glob:, got the number 3",
        "write it as text or a mapping with glob:",
    ),
    # Workspace.
    CaseRule(
        "workspace-file-key-dot-dot",
        "workspace:\n  files: {../escape.md: x}\n",
        "workspace.files",
        "the path '../escape.md' contains '..', which would leave the workspace",
        "key each file by a relative path",
    ),
    CaseRule(
        "workspace-file-key-absolute",
        "workspace:\n  files: {/etc/hosts: x}\n",
        "workspace.files",
        "the path '/etc/hosts' is absolute",
        "key each file by a relative path",
    ),
    CaseRule(
        "workspace-file-key-empty",
        "workspace:\n  files: {'': x}\n",
        "workspace.files",
        "the path '' is empty",
        "key each file by a relative path",
    ),
    CaseRule(
        "workspace-file-key-nul",
        'workspace:\n  files: {"a\\0b.md": x}\n',
        "workspace.files",
        "the path 'a\\x00b.md' holds a NUL byte",
        "key each file by a relative path",
    ),
    CaseRule(
        "workspace-file-content-not-text",
        "workspace:\n  files: {count.txt: 3}\n",
        "workspace.files.count.txt",
        "expected text, got the number 3",
        "quote the value",
    ),
    CaseRule(
        "workspace-not-a-mapping",
        "workspace: []\n",
        "workspace",
        "expected a mapping, got a list",
        "write a mapping",
    ),
]


@pytest.mark.parametrize("rule", CASE_RULES, ids=[r.id for r in CASE_RULES])
def test_case_rule(pytester: pytest.Pytester, rule: CaseRule) -> None:
    text = bad_case_file(rule.body, task=rule.task, name=rule.name)
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    expect = Expect("evals/cases.yaml", rule.problem, rule.fix, rule.field, rule.case)
    message = assert_refused(result, pytester, expect)
    assert re.search(r"evals/cases\.yaml:\d+, ", message), "no line number"


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("tags: [a]\nassertions:\n  - kind: contains\n    valeu: ok\n", 9),
        ("tools:\n  - name: a\n  - name: get.pr\n", 8),
        ("judge:\n  rubric:\n    - ok\n    - ' '\n", 9),
        ("task: again\n", 6),
    ],
    ids=["unknown-key", "tool-name", "rubric-entry", "duplicate-key"],
)
def test_the_message_points_at_the_fields_own_line(
    pytester: pytest.Pytester, body: str, line: int
) -> None:
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester)

    assert result.ret == 2
    assert f"evals/cases.yaml:{line}, {BAD}" in authoring_message(result)


def test_rule_ids_are_unique() -> None:
    ids = [r.id for r in CASE_RULES] + [r.id for r in FILE_RULES]
    assert len(ids) == len(set(ids))


# --- rules on the file as a whole ------------------------------------------------------


@dataclass(frozen=True)
class FileRule:
    id: str
    content: str | bytes
    problem: str
    fix: str
    field: str | None = None
    case: str | None = None


FILE_RULES = [
    FileRule(
        "no-cases-key",
        "case:\n  - name: x\n    task: t\n",
        "an eval file needs a top-level 'cases:' list, and this one has 'case'",
        "did you mean 'cases'? rename 'case:' to 'cases:'",
        "case",
    ),
    FileRule(
        "no-cases-key-at-all",
        "tests:\n  - name: x\n    task: t\n",
        "an eval file needs a top-level 'cases:' list",
        "put the cases under 'cases:'",
    ),
    FileRule("empty-file", "", "an eval file needs a top-level 'cases:' list", "put the cases"),
    FileRule(
        "top-level-list",
        "- name: x\n  task: t\n",
        "an eval file needs a top-level 'cases:' list",
        "put the cases",
    ),
    FileRule(
        "cases-not-a-list",
        "cases:\n  name: x\n  task: t\n",
        "'cases:' must be a list",
        "start each case with '- name: ...'",
        "cases",
    ),
    FileRule(
        "case-not-a-mapping",
        "cases:\n" + GOOD_CASE + "  - just a sentence\n",
        "a case must be a mapping of keys",
        "start the case with '- name: ...'",
        case="case (#2 in the file)",
    ),
    FileRule(
        "malformed-yaml",
        "cases:\n  - name: x\n   task: t\n",
        "not valid YAML",
        "check the indentation and quoting at that line",
    ),
    FileRule(
        "unquoted-star",
        "cases:\n  - name: x\n    task: t\n    workspace: {}\n    assertions:\n"
        "      - kind: file-produced\n        file_glob: *.md\n",
        "not valid YAML",
        "quote a value that starts with '*' or '&'",
    ),
    FileRule(
        "unquoted-bracket",
        "cases:\n  - name: x\n    task: t\n    workspace: {}\n    assertions:\n"
        "      - kind: file-produced\n        file_glob: [a-c].md\n",
        "not valid YAML",
        "quote a value that starts with",
    ),
    FileRule(
        "not-utf-8",
        b"cases:\n  - name: x\n    task: caf\xe9\n",
        "not valid UTF-8 text",
        "save the file as UTF-8",
    ),
    FileRule(
        "placeholder-in-tool-libraries",
        "tool_libraries: [TODO(skill-lens)]\ncases:\n  - name: x\n    task: t\n",
        "still holds the placeholder TODO(skill-lens)",
        "replace it with the real value",
        "tool_libraries[0]",
    ),
]


@pytest.mark.parametrize("rule", FILE_RULES, ids=[r.id for r in FILE_RULES])
def test_file_rule(pytester: pytest.Pytester, rule: FileRule) -> None:
    write_skill(pytester, {"evals/cases.yaml": rule.content})

    result = run(pytester)

    expect = Expect("evals/cases.yaml", rule.problem, rule.fix, rule.field, rule.case)
    assert_refused(result, pytester, expect)


# --- what the rules leave alone: these files run ---------------------------------------

ACCEPTED = {
    "placeholder-only-in-comments": """\
        # TODO(skill-lens): a comment may discuss the token freely
        cases:
          - name: fine  # TODO(skill-lens)
            task: Say hello.
        """,
    "extra-top-level-keys-and-anchors": """\
        owner: support-team
        shared: &task Say hello.
        cases:
          - name: fine
            task: *task
        """,
    "yes-no-on-off-are-text": """\
        cases:
          - name: fine
            task: Say hello.
            tags: [yes, no, on, off]
        """,
    "tool-names-at-the-limit": f"""\
        cases:
          - name: fine
            task: Say hello.
            tools:
              - name: get-pull-request
              - name: {"a" * 64}
              - name: write_file   # a built-in name, but the case has no workspace
              - name: order_support  # the offered name, but the case is loaded
        """,
    "content-check-on-a-seeded-file": """\
        cases:
          - name: fine
            task: Say hello.
            workspace:
              files: {notes.md: seed}
            assertions:
              - kind: not_contains
                value: secret
                file_glob: './*.md'
        """,
    "lookups-that-can-answer": """\
        cases:
          - name: fine
            task: Say hello.
            tools:
              - name: lookup
                parameters: {id: string, page: integer}
                returns:
                  - when: {id: "1", page: 2}
                    value: narrow
                  - when: {id: "1"}
                    value: broader after narrower
                  - value: fallback last
              - name: open
                input_schema: {type: object}
                returns:
                  - when: {anything: 1}
                    value: an open schema may key on any name
        """,
}


def assert_accepted(result: pytest.RunResult, pytester: pytest.Pytester, case: str) -> None:
    """No authoring error: the run went past collection and preflight, and the case ran."""
    out = result.stdout.str()
    assert result.ret in (0, 1), out
    assert "authoring error" not in out, out
    assert runner_calls(pytester) == [case], out


@pytest.mark.parametrize("text", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_accepted(pytester: pytest.Pytester, text: str) -> None:
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    assert_accepted(result, pytester, "spy::fine")


# --- names are unique ------------------------------------------------------------------


def test_duplicate_case_names_in_one_file(pytester: pytest.Pytester) -> None:
    text = "cases:\n  - name: Greet\n    task: t\n  - name: other\n    task: t\n"
    text += "  - name: greet\n    task: t\n"
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester)

    message = assert_refused(
        result,
        pytester,
        Expect(
            "evals/cases.yaml",
            "the case name 'greet' repeats 'Greet'",
            "rename one of the two cases",
            "name",
            "case 'greet' (#3 in the file)",
        ),
    )
    assert "evals/cases.yaml:2, case #1" in message  # the first place, too


def test_duplicate_case_names_across_files(pytester: pytest.Pytester) -> None:
    write_skill(
        pytester,
        {
            "evals/a.yaml": "cases:\n  - name: greet\n    task: t\n",
            "evals/b.yaml": "cases:\n  - name: other\n    task: t\n  - name: GREET\n    task: t\n",
        },
    )

    result = run(pytester)

    message = assert_refused(
        result,
        pytester,
        Expect(
            "evals/b.yaml",
            "the case name 'GREET' repeats 'greet'",
            "rename one of the two cases",
            "name",
            "case 'GREET' (#2 in the file)",
        ),
    )
    assert "evals/a.yaml:2, case #1" in message


def test_duplicate_skill_names(pytester: pytest.Pytester) -> None:
    write_conftest(pytester)
    for parent in ("a", "b"):
        directory = make_skill(pytester.path / "skills" / parent, "review", frontmatter="x: 1\n")
        write_file(directory / "evals/cases.yaml", "cases:\n" + GOOD_CASE)

    result = run(pytester)

    message = assert_refused(
        result,
        pytester,
        Expect(
            "b/review/SKILL.md",
            "the skill name 'review' is also the name of",
            "rename one of them in its SKILL.md",
            "name",
        ),
    )
    assert "a/review" in message


# --- SKILL.md -----------------------------------------------------------------------------

SKILL_MD_RULES = {
    "version-is-a-number": (
        "name: order-support\nversion: 1.20\n",
        "version must be a string, got float 1.2",
        'quote it: version: "1.20"',
        "version",
    ),
    "frontmatter-not-a-mapping": (
        "- just\n- a list\n",
        "the frontmatter between the '---' lines must be a mapping of keys",
        "write it as 'name: my-skill'",
        None,
    ),
    "frontmatter-malformed": (
        "name: [unclosed\n",
        "not valid YAML",
        "quote a value that starts with",
        None,
    ),
    "name-blank": ("name: ''\n", "the skill name must be non-empty text", "quote it", "name"),
}


@pytest.mark.parametrize(
    ("frontmatter", "problem", "fix", "field"),
    SKILL_MD_RULES.values(),
    ids=SKILL_MD_RULES.keys(),
)
def test_skill_md_rule(
    pytester: pytest.Pytester, frontmatter: str, problem: str, fix: str, field: str | None
) -> None:
    write_skill(pytester, {"evals/cases.yaml": "cases:\n" + GOOD_CASE}, frontmatter=frontmatter)

    result = run(pytester)

    assert_refused(result, pytester, Expect("SKILL.md", problem, fix, field))


# --- one bad file stops every skill's cases -------------------------------------------


def test_a_bad_file_in_one_skill_stops_the_cases_of_every_skill(
    pytester: pytest.Pytester,
) -> None:
    write_skill(pytester, {"evals/cases.yaml": "cases:\n" + GOOD_CASE}, name="a-valid")
    make_skill(
        pytester.path / "skills",
        "z-broken",
        bad_case_file("assertions:\n  - kind: contain\n    value: ok\n"),
    )

    result = run(pytester)

    assert_refused(
        result,
        pytester,
        Expect("evals/cases.yaml", "'contain' is not allowed here", "write one of", None, BAD),
    )
    assert "z-broken" in authoring_message(result)


def test_an_evals_path_that_does_not_exist(pytester: pytest.Pytester) -> None:
    write_skill(pytester, {"evals/cases.yaml": "cases:\n" + GOOD_CASE})

    result = run(pytester, "--skill-lens-evals", "nowhere")

    assert_refused(
        result,
        pytester,
        Expect(
            "nowhere",
            "the eval path given with --skill-lens-evals does not exist",
            "point it at an eval file or a directory",
        ),
    )


# --- runner-dependent: trajectory names under fake (and pydantic-ai / langchain) ------------


@dataclass(frozen=True)
class TrajectoryRule:
    id: str
    body: str
    field: str
    name: str
    extra: str = ""
    fix: str = ""  # when it is not "declare <name> under tools:, or fix the spelling"


TRAJECTORY_RULES = [
    TrajectoryRule(
        "called", "trajectory:\n  called: [lookup_ordr]\n", "trajectory.called[0]", "lookup_ordr"
    ),
    TrajectoryRule(
        "forbidden",
        "trajectory:\n  forbidden: [issue_refund]\n",
        "trajectory.forbidden[0]",
        "issue_refund",
    ),
    TrajectoryRule(
        "order", "trajectory:\n  order: [lookup_order, refund]\n", "trajectory.order[1]", "refund"
    ),
    TrajectoryRule(
        "call-args-tool",
        "trajectory:\n  call_args:\n    - tool: lookup\n      contains: {id: '1'}\n",
        "trajectory.call_args[0].tool",
        "lookup",
    ),
    TrajectoryRule(
        "offered-skill-tool",
        "mode: offered\ntrajectory:\n  called: [order_support]\n",
        "trajectory.called[0]",
        "order_support",
        fix="check the offered skill's own tool with trajectory.skill_triggered instead",
    ),
    TrajectoryRule(
        "built-in-without-workspace",
        "trajectory:\n  called: [write_file]\n",
        "trajectory.called[0]",
        "write_file",
        "(a built-in tool exists only in a case with a workspace: block)",
        # The author means the built-in: a mock of that name would not be it.
        fix="add a workspace: block (workspace: {}) to give the case the built-in write_file, "
        "or declare a mock 'write_file' under tools:",
    ),
]


@pytest.mark.parametrize("rule", TRAJECTORY_RULES, ids=[r.id for r in TRAJECTORY_RULES])
def test_trajectory_name_rule(pytester: pytest.Pytester, rule: TrajectoryRule) -> None:
    tools = "tools:\n  - name: lookup_order\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(tools + rule.body)})

    result = run(pytester, runner=None)  # the default runner, fake

    message = assert_refused(
        result,
        pytester,
        Expect(
            "evals/cases.yaml",
            f"the trajectory names {rule.name!r}, which the case does not declare in tools:",
            rule.fix or f"declare {rule.name!r} under tools:, or fix the spelling",
            rule.field,
            BAD,
        ),
    )
    assert "runner 'fake' can never see such a call" in message
    assert rule.extra in message


def test_trajectory_may_name_declared_and_built_in_tools(pytester: pytest.Pytester) -> None:
    text = """\
        cases:
          - name: ok
            task: Say hello.
            tools:
              - name: lookup_order
            trajectory:
              forbidden: [lookup_order]
          - name: ok-in-a-workspace
            task: Say hello.
            workspace: {}
            trajectory:
              forbidden: [write_file, run_script, list_skill_files]
        """
    write_skill(pytester, {"evals/cases.yaml": text})

    result = run(pytester, runner=None)

    out = result.stdout.str()
    assert result.ret in (0, 1), out
    assert "authoring error" not in out, out
    assert runner_calls(pytester)[:1] == ["fake::ok"], out


def test_collect_only_accepts_an_undeclared_trajectory_name_a_run_refuses(
    pytester: pytest.Pytester,
) -> None:
    body = "trajectory:\n  called: [lookup_ordr]\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    listed = run(pytester, "--collect-only", runner=None)

    assert listed.ret == 0, listed.stdout.str()
    listed.stdout.fnmatch_lines(["*bad*fake*"])

    ran = run(pytester, runner=None)

    assert_refused(
        ran,
        pytester,
        Expect(
            "evals/cases.yaml",
            "the trajectory names 'lookup_ordr'",
            "declare 'lookup_ordr' under tools:",
            "trajectory.called[0]",
            BAD,
        ),
    )


def test_collect_only_refuses_a_runner_independent_rule(pytester: pytest.Pytester) -> None:
    body = "trajectory:\n  skill_triggered: true\n"
    write_skill(pytester, {"evals/cases.yaml": bad_case_file(body)})

    result = run(pytester, "--collect-only", runner=None)

    assert_refused(
        result,
        pytester,
        Expect(
            "evals/cases.yaml",
            "skill_triggered needs mode: offered",
            "add mode: offered",
            "trajectory.skill_triggered",
            BAD,
        ),
    )


def test_a_trajectory_error_in_one_skill_stops_every_skill(pytester: pytest.Pytester) -> None:
    write_skill(pytester, {"evals/cases.yaml": "cases:\n" + GOOD_CASE}, name="a-valid")
    make_skill(
        pytester.path / "skills",
        "z-broken",
        bad_case_file("trajectory:\n  called: [nowhere]\n"),
    )

    result = run(pytester, runner=None)

    assert_refused(
        result,
        pytester,
        Expect("evals/cases.yaml", "the trajectory names 'nowhere'", "declare", None, BAD),
    )
