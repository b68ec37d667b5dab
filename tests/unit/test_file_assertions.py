"""``file:`` / ``file_glob:`` assertions and judge artifacts, read from a real workspace."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.run.workspace.workspace import Workspace
from pytest_skill_lens.score.artifacts import (
    ARTIFACT_MAX_CHARS,
    ARTIFACTS_TOTAL_CHARS,
    EXHAUSTED,
    collect_artifacts,
)
from pytest_skill_lens.score.assertions import FILE_NOT_SUPPORTED, AssertionEvaluator
from pytest_skill_lens.score.check import CheckResult, Score, ScoringContext
from pytest_skill_lens.suite.model import EvalCase, Judge

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and links are POSIX here")


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = Workspace.create(
        "assert", {"sales.csv": "region,units\nnorth,120\n"}, parent=tmp_path
    )
    yield workspace
    workspace.cleanup()


def put(ws: Workspace, path: str, text: str) -> None:
    target = ws.root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def score(ws: Workspace | None, *assertions: dict[str, Any], output: str = "") -> Score:
    case = EvalCase.model_validate(
        {"name": "c", "task": "t", "workspace": {}, "assertions": list(assertions)}
    )
    context = ScoringContext(runner="fake", workspace=ws)
    return AssertionEvaluator().evaluate(case, RunResult(output=output), context)


def only(ws: Workspace | None, assertion: dict[str, Any], output: str = "") -> CheckResult:
    (check,) = score(ws, assertion, output=output).checks
    return check


# -- file: on the text kinds ---------------------------------------------------------------


def test_contains_reads_the_file_not_the_output(ws: Workspace) -> None:
    put(ws, "report.md", "north: 120\nsouth: 80\n")
    held = only(ws, {"kind": "contains", "value": "south", "file": "report.md"}, output="nothing")
    assert held == CheckResult("contains[0]", True, held.evidence)
    assert held.evidence.startswith('"south" found at character 11:')
    missed = only(ws, {"kind": "contains", "value": "east", "file": "report.md"}, output="east")
    assert not missed.passed
    assert missed.evidence == '"east" does not appear in report.md: "north: 120\\nsouth: 80\\n"'


def test_a_seeded_file_may_be_read_back(ws: Workspace) -> None:
    assert only(ws, {"kind": "regex", "value": r"north,\d+", "file": "sales.csv"}).passed


def test_not_contains_on_a_file(ws: Workspace) -> None:
    put(ws, "report.md", "all fine")
    held = only(ws, {"kind": "not_contains", "value": "error", "file": "report.md"})
    assert (held.passed, held.evidence) == (
        True,
        '"error" does not appear in report.md (8 characters)',
    )


@pytest.mark.parametrize("kind", ["contains", "not_contains", "regex", "equals"])
def test_a_file_never_produced_fails_every_kind(ws: Workspace, kind: str) -> None:
    check = only(ws, {"kind": kind, "value": "anything", "file": "report.md"})
    assert not check.passed
    assert check.evidence == "report.md was not produced: the workspace holds 1 file: sales.csv"


def test_equals_strips_the_file(ws: Workspace) -> None:
    put(ws, "answer.txt", "\n  42 \n")
    assert only(ws, {"kind": "equals", "value": "42", "file": "answer.txt"}).evidence == (
        'answer.txt, stripped, equals "42"'
    )
    missed = only(ws, {"kind": "equals", "value": "43", "file": "answer.txt"})
    assert missed.evidence == (
        'expected exactly "43", answer.txt, stripped, is "42" (first difference at character 1)'
    )


def test_json_schema_on_a_file(ws: Workspace) -> None:
    schema = {"type": "object", "required": ["total"]}
    put(ws, "out.json", '{"total": 200}')
    held = only(ws, {"kind": "json-schema", "json_schema": schema, "file": "out.json"})
    assert (held.passed, held.evidence) == (True, "out.json is valid JSON and matches the schema")
    put(ws, "bad.json", "{nope")
    missed = only(ws, {"kind": "json-schema", "json_schema": schema, "file": "bad.json"})
    assert not missed.passed
    assert missed.evidence.startswith("not valid JSON: ") and missed.evidence.endswith(
        '; bad.json: "{nope"'
    )


def test_output_assertions_are_unchanged_beside_a_workspace(ws: Workspace) -> None:
    check = only(ws, {"kind": "contains", "value": "1234"}, output="order 12")
    assert check.evidence == '"1234" does not appear in the output: "order 12"'


def test_without_a_workspace_a_file_check_fails_unread() -> None:
    for assertion in (
        {"kind": "contains", "value": "x", "file": "r.md"},
        {"kind": "file-produced", "file": "r.md"},
        {"kind": "file-produced", "file_glob": "*.md"},
    ):
        assert only(None, assertion) == CheckResult(
            f"{assertion['kind']}[0]", False, FILE_NOT_SUPPORTED, evaluated=False
        )


# -- what the workspace refuses fails the check, with the refusal as evidence -------------


@posix_only
def test_a_link_to_etc_passwd_fails_with_the_refusal(ws: Workspace) -> None:
    (ws.root / "report.md").symlink_to("/etc/passwd")
    for kind in ("contains", "not_contains"):
        check = only(ws, {"kind": kind, "value": "root", "file": "report.md"})
        assert not check.passed
        assert check.evidence == (
            "refused: report.md resolves outside the workspace through a symbolic link"
        )
    produced = only(ws, {"kind": "file-produced", "file": "report.md"})
    assert not produced.passed and produced.evidence.startswith("refused: report.md resolves")


@posix_only
def test_a_fifo_where_an_assertion_reads_fails_and_never_hangs(ws: Workspace) -> None:
    fifo = ws.root / "report.md"
    os.mkfifo(fifo)
    box: list[Score] = []
    thread = threading.Thread(
        target=lambda: box.append(
            score(
                ws,
                {"kind": "not_contains", "value": "x", "file": "report.md"},
                {"kind": "regex", "value": "x", "file_glob": "report.*"},
                {"kind": "file-produced", "file": "report.md"},
            )
        ),
        daemon=True,
    )
    thread.start()
    thread.join(5)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("an assertion opened the FIFO and blocked")
    (result,) = box
    assert [(c.passed, c.evidence) for c in result.checks] == [
        (False, "refused: report.md is a FIFO (named pipe)"),
        (False, "no file matches report.*: the workspace holds 2 files: report.md, sales.csv"),
        (False, "refused: report.md is a FIFO (named pipe), not a file"),
    ]


@posix_only
def test_a_link_loop_fails_with_the_refusal(ws: Workspace) -> None:
    (ws.root / "report.md").symlink_to("report.md")
    check = only(ws, {"kind": "contains", "value": "x", "file": "report.md"})
    assert (check.passed, check.evidence) == (False, "refused: report.md is a symbolic-link loop")


def test_an_over_size_file_fails_a_read_but_counts_as_produced(ws: Workspace) -> None:
    with open(ws.root / "report.md", "wb") as handle:
        handle.truncate(2_000_001)  # sparse: costs nothing on disk
    read = only(ws, {"kind": "contains", "value": "x", "file": "report.md"})
    assert (read.passed, read.evidence) == (
        False,
        "refused: report.md is 2,000,001 bytes; max_file_bytes is 1,000,000",
    )
    produced = only(ws, {"kind": "file-produced", "file": "report.md"})
    assert (produced.passed, produced.evidence) == (True, "report.md exists (2,000,001 bytes)")


def test_a_non_utf8_file_fails(ws: Workspace) -> None:
    (ws.root / "report.md").write_bytes(b"\xff\xfe")
    check = only(ws, {"kind": "not_contains", "value": "x", "file": "report.md"})
    assert (check.passed, check.evidence) == (False, "refused: report.md is not valid UTF-8 text")


# -- file-produced and file_glob ----------------------------------------------------------


def test_file_produced(ws: Workspace) -> None:
    missed = only(ws, {"kind": "file-produced", "file": "out/report.md"})
    assert (missed.passed, missed.evidence) == (
        False,
        "out/report.md was not produced: the workspace holds 1 file: sales.csv",
    )
    put(ws, "out/report.md", "")
    held = only(ws, {"kind": "file-produced", "file": "out/report.md"})
    assert (held.passed, held.evidence) == (True, "out/report.md exists (0 bytes)")


def test_a_glob_needs_exactly_one_match(ws: Workspace) -> None:
    assertion = {"kind": "file-produced", "file_glob": ".planning/*/progress.md"}
    none = only(ws, assertion)
    assert (none.passed, none.evidence) == (
        False,
        "no file matches .planning/*/progress.md: the workspace holds 1 file: sales.csv",
    )
    put(ws, ".planning/a/progress.md", "phase 1 done")
    one = only(ws, assertion)
    assert (one.passed, one.evidence) == (
        True,
        ".planning/a/progress.md is the one file matching .planning/*/progress.md; "
        ".planning/a/progress.md exists (12 bytes)",
    )
    put(ws, ".planning/b/progress.md", "phase 1 done")
    two = only(ws, assertion)
    assert (two.passed, two.evidence) == (
        False,
        "2 files match .planning/*/progress.md, exactly one is required: "
        ".planning/a/progress.md, .planning/b/progress.md",
    )


def test_a_glob_match_is_read_by_content_checks(ws: Workspace) -> None:
    put(ws, ".planning/2024-x/progress.md", "## Phase 1\ndone\n## Phase 2\ndone\n")
    check = only(
        ws,
        {
            "kind": "regex",
            "value": r"(?is)phase 2.*done",
            "file_glob": ["progress.md", ".planning/*/progress.md"],
        },
    )
    assert check.passed
    assert check.evidence.startswith(
        ".planning/2024-x/progress.md is the one file matching "
        "progress.md | .planning/*/progress.md; /(?is)phase 2.*done/ matched"
    )


@posix_only
def test_a_glob_match_linking_outside_fails_with_the_refusal(ws: Workspace) -> None:
    (ws.root / "report.md").symlink_to("/etc/passwd")
    check = only(ws, {"kind": "contains", "value": "root", "file_glob": "*.md"})
    assert not check.passed
    assert check.evidence == (
        "report.md is the one file matching *.md; "
        "refused: report.md resolves outside the workspace through a symbolic link"
    )


# -- judge artifacts ----------------------------------------------------------------------


def judge(*artifacts: Any) -> Judge:
    return Judge.model_validate({"rubric": ["r"], "artifacts": list(artifacts)})


def test_artifacts_are_labelled_as_written_with_sentinels(ws: Workspace) -> None:
    put(ws, "report.md", "Total: 200")
    put(ws, "plans/a/p.md", "plan a")
    put(ws, "many/x.md", "x")
    put(ws, "many/y.md", "y")
    (ws.root / "latin1.txt").write_bytes(b"caf\xe9")
    with open(ws.root / "huge.md", "wb") as handle:
        handle.truncate(1_000_001)
    block = judge(
        "report.md",
        "missing.md",
        {"glob": ["p.md", "plans/*/p.md"]},
        {"glob": "many/*.md"},
        {"glob": "none/*.md"},
        "latin1.txt",
        "huge.md",
        "report.md",  # a repeat is shown once
    )
    assert collect_artifacts(block, ws) == [
        ("report.md", "Total: 200"),
        ("missing.md", "(not produced)"),
        ("p.md | plans/*/p.md", "plan a"),  # the pattern, never the path the run picked
        ("many/*.md", "(matched 2 files; exactly one is required)"),
        ("none/*.md", "(not produced)"),
        ("latin1.txt", "(not valid UTF-8 text)"),
        ("huge.md", "(too large to read)"),
    ]
    assert collect_artifacts(block, None) == []


def test_artifact_contents_are_capped_per_file_and_in_total(ws: Workspace) -> None:
    for name in "abcd":
        put(ws, f"{name}.md", name * (ARTIFACT_MAX_CHARS + 5))
    shown = dict(collect_artifacts(judge("a.md", "b.md", "c.md", "d.md", "missing.md"), ws))
    assert shown["a.md"] == "a" * ARTIFACT_MAX_CHARS + "\n... [truncated, 5 characters omitted]"
    assert ARTIFACTS_TOTAL_CHARS == 3 * ARTIFACT_MAX_CHARS
    assert shown["c.md"].startswith("c" * ARTIFACT_MAX_CHARS)
    assert shown["d.md"] == EXHAUSTED
    assert shown["missing.md"] == "(not produced)"  # a sentinel costs nothing


# -- file_glob on every kind, and a case built in code --------------------------------------

EVERY_KIND: list[dict[str, Any]] = [
    {"kind": "contains", "value": "200"},
    {"kind": "not_contains", "value": "error"},
    {"kind": "regex", "value": r"\"total\": \d+"},
    {"kind": "equals", "value": '{"total": 200}'},
    {"kind": "json-schema", "json_schema": {"type": "object", "required": ["total"]}},
    {"kind": "file-produced"},
]


@pytest.mark.parametrize("base", EVERY_KIND, ids=[a["kind"] for a in EVERY_KIND])
def test_file_glob_works_on_every_kind_that_takes_file(ws: Workspace, base: dict[str, Any]) -> None:
    kind = base["kind"]
    missed = only(ws, {**base, "file_glob": "out/*.json"})
    assert (missed.passed, missed.evidence) == (
        False,
        "no file matches out/*.json: the workspace holds 1 file: sales.csv",
    )
    put(ws, "out/result.json", '{"total": 200}')
    by_glob = only(ws, {**base, "file_glob": "out/*.json"})
    by_path = only(ws, {**base, "file": "out/result.json"})
    assert by_glob.passed and by_path.passed, (by_glob, by_path)
    lead = "out/result.json is the one file matching out/*.json; "
    assert by_glob.evidence == lead + by_path.evidence
    # A leading ./ is harmless: the same match, the label as written.
    dotted = only(ws, {**base, "file_glob": "./out/*.json"})
    assert dotted.passed and dotted.evidence.startswith("out/result.json is the one file matching")
    assert kind in dotted.id


def test_a_file_never_produced_fails_json_schema_too(ws: Workspace) -> None:
    schema = {"type": "object"}
    check = only(ws, {"kind": "json-schema", "json_schema": schema, "file": "out.json"})
    assert (check.passed, check.evidence) == (
        False,
        "out.json was not produced: the workspace holds 1 file: sales.csv",
    )


def built_in_code(assertion: dict[str, Any], files: dict[str, str] | None = None) -> EvalCase:
    """A case as a library caller builds it: shapes validated, the loader's rules never run."""
    return EvalCase.model_validate(
        {
            "name": "coded",
            "task": "t",
            "workspace": {"files": files or {}},
            "assertions": [assertion],
        }
    )


@pytest.mark.parametrize(
    ("assertion", "field", "problem"),
    [
        (
            {"kind": "file-produced", "file_glob": "**/report.md"},
            "assertions[0].file_glob",
            "'**' is not supported",
        ),
        (
            {"kind": "contains", "value": "x", "file_glob": "[z-a].md"},
            "assertions[0].file_glob",
            "the set [z-a] matches no character",
        ),
        (
            {"kind": "contains", "value": "x", "file": "../secrets.md"},
            "assertions[0].file",
            "the path '../secrets.md' contains '..'",
        ),
        (
            {"kind": "contains", "value": "x", "file": "a.md", "file_glob": "*.md"},
            "assertions[0].file_glob",
            "file: and file_glob: are both set",
        ),
        (
            {"kind": "file-produced", "file_glob": ["*.md"]},
            "assertions[0].file_glob",
            "a file_glob list needs at least two different entries",
        ),
        (
            {"kind": "file-produced", "file_glob": "*.csv"},
            "assertions[0].file_glob",
            "file-produced pattern '*.csv' matches the seeded file 'sales.csv'",
        ),
    ],
    ids=["double-star", "empty-set", "dot-dot", "file-and-glob", "list-of-one", "seeded"],
)
def test_a_case_built_in_code_gets_the_same_rules(
    ws: Workspace, assertion: dict[str, Any], field: str, problem: str
) -> None:
    from pytest_skill_lens.suite.errors import AuthoringError

    case = built_in_code(assertion, {"sales.csv": "region,units\n"})
    context = ScoringContext(runner="fake", workspace=ws)
    with pytest.raises(AuthoringError) as raised:
        AssertionEvaluator().evaluate(case, RunResult(output=""), context)
    assert problem in raised.value.message
    assert raised.value.where is not None and raised.value.where.field == field
    assert raised.value.where.case_name == "coded"


@posix_only
def test_a_socket_where_an_assertion_reads_fails_with_the_refusal(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    monkeypatch.chdir(ws.root)  # a relative name: AF_UNIX paths are short
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind("report.md")
        check = only(ws, {"kind": "contains", "value": "x", "file": "report.md"})
        assert (check.passed, check.evidence) == (False, "refused: report.md is a socket")
        assert ws.read_file("report.md") == "refused: report.md is a socket"
        assert ws.glob("*.md").matches == ()
    finally:
        server.close()


@posix_only
def test_an_artifact_linking_outside_is_shown_as_refused(ws: Workspace) -> None:
    (ws.root / "report.md").symlink_to("/etc/passwd")
    os.mkfifo(ws.root / "pipe.md")
    shown = collect_artifacts(judge("report.md", {"glob": "report.*"}, "pipe.md"), ws)
    refused = "(refused by the workspace: not a regular file inside it)"
    assert shown == [("report.md", refused), ("report.*", refused), ("pipe.md", refused)]
    assert "root:" not in str(shown)
