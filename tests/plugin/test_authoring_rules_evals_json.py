"""``evals/evals.json``: strict at every level, and every refusal named.

Each bad file holds a good eval first and the bad one second, so the message must
name the case by its position (#2) as well as by its name (``eval-<id>``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

import pytest
from runs import Report
from test_authoring_rules import (
    SKILL,
    Expect,
    assert_refused,
    cases_seen,
    run,
    runner_calls,
    write_skill,
)

GOOD = {"id": "greet", "prompt": "Say hello.", "assertions": ["The reply greets the user"]}
BAD = "case 'eval-2' (#2 in the file)"


DROP = object()  # a key given this value is left out of the eval


def evals_json(bad: dict[str, Any] | Any, **top: Any) -> str:
    """An evals.json holding GOOD and then ``bad`` (an eval with id 2 unless it says)."""
    if isinstance(bad, dict):
        bad = {k: v for k, v in {"id": 2, **bad}.items() if v is not DROP}
    return json.dumps({"skill_name": SKILL, **top, "evals": [GOOD, bad]}, indent=2)


def refusal(problem: str, fix: str, field: str | None, case: str | None = BAD) -> Expect:
    return Expect("evals/evals.json", problem, fix, field, case)


@dataclass(frozen=True)
class JsonRule:
    id: str
    content: str | bytes
    expect: Expect
    files: dict[str, str | bytes | None] = field(default_factory=dict)


PROMPT = {"prompt": "Chart the sales."}
STATEMENTS = {**PROMPT, "assertions": ["The chart shows 3 months"]}

JSON_RULES = [
    JsonRule(
        "unknown-top-level-key",
        evals_json(STATEMENTS, trigger={"should_trigger": True}),
        refusal(
            "unknown top-level key 'trigger'",
            "evals.json takes only 'skill_name' and 'evals'",
            "trigger",
            case=None,
        ),
    ),
    JsonRule(
        "unknown-eval-key",
        evals_json({**STATEMENTS, "should_trigger": True}),
        refusal(
            "unknown key 'should_trigger'",
            "an eval takes id, prompt, expected_output, files, assertions (or expectations)",
            "should_trigger",
        ),
    ),
    *(
        JsonRule(
            f"id-{rule}",
            evals_json(entry),
            refusal(
                "id must be an integer or a non-empty string",
                '"id": 1',
                "id",
                case="case (#2 in the file)",
            ),
        )
        for rule, entry in [
            ("missing", {**STATEMENTS, "id": DROP}),
            ("boolean", {**STATEMENTS, "id": True}),
            ("empty", {**STATEMENTS, "id": ""}),
            ("blank", {**STATEMENTS, "id": "  "}),
            ("fraction", {**STATEMENTS, "id": 1.5}),
            ("list", {**STATEMENTS, "id": [1]}),
        ]
    ),
    JsonRule(
        "id-1-and-string-1",
        json.dumps({"evals": [{**STATEMENTS, "id": 1}, {**STATEMENTS, "id": "1"}]}),
        refusal(
            "id repeats the id of eval #1 (both name the case 'eval-1')",
            "give every eval its own id",
            "id",
            case="case 'eval-1' (#2 in the file)",
        ),
    ),
    *(
        JsonRule(
            f"prompt-{rule}",
            evals_json(entry),
            refusal(
                "prompt is required and must be non-empty text",
                'add "prompt"',
                "prompt",
            ),
        )
        for rule, entry in [
            ("missing", {"assertions": ["x"]}),
            ("blank", {"prompt": " ", "assertions": ["x"]}),
            ("not-text", {"prompt": 7, "assertions": ["x"]}),
        ]
    ),
    JsonRule(
        "assertions-and-expectations",
        evals_json({**STATEMENTS, "expectations": ["Both axes are labelled"]}),
        refusal(
            "both assertions and expectations are given",
            "keep one: they are two names for the same list",
            "expectations",
        ),
    ),
    JsonRule(
        "nothing-to-grade",
        evals_json(PROMPT),
        refusal(
            "nothing to grade: no assertions, expectations or expected_output",
            "add the statements a judge should check, or an expected_output",
            "assertions",
        ),
    ),
    JsonRule(
        "nothing-to-grade-empty-list",
        evals_json({**PROMPT, "expectations": []}),
        refusal("nothing to grade", "add the statements", "assertions"),
    ),
    JsonRule(
        "assertions-blank-entry",
        evals_json({**PROMPT, "assertions": ["The chart shows 3 months", ""]}),
        refusal("assertions must be a list of non-empty strings", "no blank entry", "assertions"),
    ),
    JsonRule(
        "assertions-not-a-list",
        evals_json({**PROMPT, "assertions": "The chart shows 3 months"}),
        refusal("assertions must be a list of non-empty strings", '"assertions": [', "assertions"),
    ),
    JsonRule(
        "expectations-not-text",
        evals_json({**PROMPT, "expectations": [3]}),
        refusal(
            "expectations must be a list of non-empty strings", '"expectations": [', "expectations"
        ),
    ),
    JsonRule(
        "expected-output-not-text",
        evals_json({**PROMPT, "expected_output": 3}),
        refusal(
            "expected_output must be non-empty text",
            "describe a good answer, or drop the key",
            "expected_output",
        ),
    ),
    JsonRule(
        "skill-name-mismatch",
        evals_json(STATEMENTS, skill_name="csv-analyzer"),
        refusal(
            "skill_name 'csv-analyzer' is not this skill's name 'order-support'",
            "make it equal the name in SKILL.md, or drop it",
            "skill_name",
            case=None,
        ),
    ),
    JsonRule(
        "placeholder-in-a-value",
        evals_json({**STATEMENTS, "prompt": "TODO(skill-lens)"}),
        refusal(
            "still holds the placeholder TODO(skill-lens)",
            "replace it with the real value",
            "prompt",
        ),
    ),
    JsonRule(
        "placeholder-in-a-key",
        evals_json({**STATEMENTS, "TODO(skill-lens)": "x"}),
        refusal(
            "still holds the placeholder TODO(skill-lens)",
            "replace it with the real value",
            "TODO(skill-lens)",
        ),
    ),
    # files
    JsonRule(
        "file-missing",
        evals_json({**STATEMENTS, "files": ["evals/files/sales.csv"]}),
        refusal("'evals/files/sales.csv' does not exist", "name a file inside", "files"),
    ),
    JsonRule(
        "file-is-a-folder",
        evals_json({**STATEMENTS, "files": ["evals/files"]}),
        refusal("'evals/files' is not a file", "a folder cannot seed a workspace", "files"),
        files={"evals/files": None},
    ),
    JsonRule(
        "file-is-binary",
        evals_json({**STATEMENTS, "files": ["evals/files/logo.png"]}),
        refusal(
            "'evals/files/logo.png' is not UTF-8 text",
            "only text files can seed a workspace",
            "files",
        ),
        files={"evals/files/logo.png": b"\x89PNG\r\n\x1a\n\xff\x00"},
    ),
    JsonRule(
        "file-outside-the-skill",
        evals_json({**STATEMENTS, "files": ["../other/notes.txt"]}),
        refusal(
            "'../other/notes.txt' is not a path inside the skill directory",
            "name a file inside the skill directory",
            "files",
        ),
    ),
    JsonRule(
        "file-absolute",
        evals_json({**STATEMENTS, "files": ["/etc/hostname"]}),
        refusal("'/etc/hostname' is not a path inside the skill directory", "relative", "files"),
    ),
    JsonRule(
        "file-too-large",
        evals_json({**STATEMENTS, "files": ["evals/files/big.txt"]}),
        refusal(
            "'evals/files/big.txt' is larger than 1,000,000 bytes",
            "use a smaller input file",
            "files",
        ),
        files={"evals/files/big.txt": "x" * 1_000_001},
    ),
    JsonRule(
        "files-not-a-list",
        evals_json({**STATEMENTS, "files": "evals/files/sales.csv"}),
        refusal(
            "files must be a list of paths relative to the skill directory",
            '"files": [',
            "files",
        ),
    ),
    # the file as a whole
    JsonRule(
        "invalid-json",
        '{"evals": [\n  {"id": 1,}\n]}\n',
        refusal("not valid JSON", "fix the JSON syntax there", None, case=None),
    ),
    JsonRule(
        "not-an-object",
        json.dumps([GOOD]),
        refusal(
            "evals.json must be a JSON object with an 'evals' list",
            '{"skill_name": "...", "evals": [...]}',
            None,
            case=None,
        ),
    ),
    JsonRule(
        "evals-not-a-list",
        json.dumps({"evals": GOOD}),
        refusal("'evals' must be a list", '"evals": [', "evals", case=None),
    ),
    JsonRule(
        "eval-not-an-object",
        evals_json("Chart the sales."),
        refusal(
            "an eval must be a JSON object",
            "write each eval as",
            None,
            case="case (#2 in the file)",
        ),
    ),
    JsonRule(
        "not-utf-8",
        b'{"evals": [{"id": 1, "prompt": "caf\xe9", "assertions": ["x"]}]}',
        refusal("not valid UTF-8 text", "save it as UTF-8", None, case=None),
    ),
]


@pytest.mark.parametrize("rule", JSON_RULES, ids=[r.id for r in JSON_RULES])
def test_evals_json_rule(pytester: pytest.Pytester, rule: JsonRule) -> None:
    write_skill(pytester, {**rule.files, "evals/evals.json": rule.content})

    result = run(pytester)

    assert_refused(result, pytester, rule.expect)


def test_a_file_reached_through_a_link_out_of_the_skill_is_refused(
    pytester: pytest.Pytester,
) -> None:
    outside = pytester.path / "secret.txt"
    outside.write_text("not the skill's", encoding="utf-8")
    skill = write_skill(
        pytester,
        {"evals/evals.json": evals_json({**STATEMENTS, "files": ["evals/files/link.txt"]})},
    )
    (skill / "evals/files").mkdir(parents=True)
    os.symlink(outside, skill / "evals/files/link.txt")

    result = run(pytester)

    assert_refused(
        result,
        pytester,
        refusal(
            "'evals/files/link.txt' is not a path inside the skill directory",
            "name a file inside the skill directory",
            "files",
        ),
    )


def test_a_yaml_case_and_an_evals_json_id_may_not_share_a_name(
    pytester: pytest.Pytester,
) -> None:
    write_skill(
        pytester,
        {
            "evals/cases.yaml": (
                "cases:\n  - name: other\n    task: t\n  - name: EVAL-7\n    task: t\n"
            ),
            "evals/evals.json": json.dumps({"evals": [{**STATEMENTS, "id": 7}]}),
        },
    )

    result = run(pytester)

    message = assert_refused(
        result,
        pytester,
        refusal(
            "the case name 'eval-7' repeats 'EVAL-7'",
            "rename one of the two cases",
            "name",
            case="case 'eval-7' (#1 in the file)",
        ),
    )
    assert "evals/cases.yaml:4, case #2" in message  # both places are named


# --- what loads -------------------------------------------------------------------------

ACCEPTED = {
    "byte-order-mark": b"\xef\xbb\xbf" + json.dumps({"evals": [GOOD]}).encode(),
    "expectations-and-a-string-id": json.dumps(
        {"evals": [{"id": "greet", "prompt": "Say hello.", "expectations": ["It greets"]}]}
    ),
    "expected-output-alone": json.dumps(
        {"evals": [{"id": "greet", "prompt": "Say hello.", "expected_output": "A greeting."}]}
    ),
    "skill-name-equal": json.dumps({"skill_name": SKILL, "evals": [GOOD]}),
}


@pytest.mark.parametrize("content", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_accepted(pytester: pytest.Pytester, content: str | bytes) -> None:
    write_skill(pytester, {"evals/evals.json": content})

    result = run(pytester)

    out = result.stdout.str()
    assert "authoring error" not in out, out
    assert result.ret == 1, out  # the default fake judge grades nothing: errored, never passed
    assert runner_calls(pytester) == ["spy::eval-greet"]
    judge = cases_seen(pytester)["eval-greet"]["judge"]
    assert judge["rubric"] and all(line.strip() for line in judge["rubric"])


def test_expected_output_alone_becomes_the_single_check(pytester: pytest.Pytester) -> None:
    write_skill(pytester, {"evals/evals.json": ACCEPTED["expected-output-alone"]})

    run(pytester)

    judge = cases_seen(pytester)["eval-greet"]["judge"]
    assert judge["rubric"] == ["The output satisfies: A greeting."]
    assert judge["expected"] == "A greeting."


def test_a_file_of_exactly_one_million_bytes_loads(pytester: pytest.Pytester) -> None:
    write_skill(
        pytester,
        {
            "evals/files/big.txt": "x" * 1_000_000,
            "evals/evals.json": json.dumps({"evals": [{**GOOD, "files": ["evals/files/big.txt"]}]}),
        },
    )

    listed = run(pytester, "--collect-only", "-q")
    assert listed.ret == 0, listed.stdout.str()
    listed.stdout.fnmatch_lines(["*::eval-greet[[]spy[]]", "1 test collected*"])

    result = run(pytester, "--skill-lens-json", "report.json")

    out = result.stdout.str()
    assert "authoring error" not in out, out
    assert result.ret == 1, out  # the default fake judge grades nothing: errored, never passed
    assert runner_calls(pytester) == ["spy::eval-greet"]
    # The whole file reached the case's workspace, byte for byte.
    files = cases_seen(pytester)["eval-greet"]["workspace"]["files"]
    assert files == {"evals/files/big.txt": "x" * 1_000_000}
    (outcome,) = Report.read(pytester.path / "report.json").outcomes
    assert (outcome["case_name"], outcome["status"]) == ("eval-greet", "errored")
    errored = [s["evaluator"] for s in outcome["scores"] if s["errored"]]
    assert errored == ["judge"], outcome["scores"]  # only the fake judge; nothing in the loading
