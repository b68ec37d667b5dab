"""``pytest-skill-lens convert``, used as an author would: an ``evals.json`` the loader
refuses becomes a YAML eval file, refused in turn until its notes are resolved, then
collected and run.

The ``evals.json`` fixtures are written here in the layouts found in the wild.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from runs import LensRun
from skillfactory import make_skill, write_file

from pytest_skill_lens.cli import console

SCRIPT = Path(sys.executable).parent / "pytest-skill-lens"
SOURCE = "skills/csv-charts/evals/evals.json"
OUT = "skills/csv-charts/evals/evals.eval.yaml"
IN_THE_WILD = {
    "skill_name": "csv-charts",
    "evals": [
        {
            "id": 1,
            "name": "charts the top months",
            "category": "charts",
            "prompt": "Chart the top 3 months in sales.csv.",
            "files": ["evals/files/sales.csv"],
            "assertions": [
                {"type": "contains", "value": "handled"},
                {"type": "not_contains", "value": "Traceback"},
            ],
        },
        {"id": 2, "prompt": "Explain the chart.", "assertions": ["Names both axes"]},
    ],
    "triggers": {"should_trigger": ["chart my sales"], "should_not_trigger": ["tell me a joke"]},
}

lens = LensRun()  # the skills under skills/, in process


def _skill(root: Path, evals: Any, where: str = "evals/evals.json") -> Path:
    directory = make_skill(root / "skills", "csv-charts")
    write_file(directory / "evals" / "files" / "sales.csv", "month,revenue\njan,10\n")
    write_file(directory / where, json.dumps(evals, indent=2))
    return directory


def _convert(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = console(["convert", *args])
    out, err = capsys.readouterr()
    return code, out, err


def resolve(text: str) -> str:
    """What an author does after reading the notes: drop them and the marker tag."""
    kept = [
        line
        for line in text.splitlines()
        if not line.lstrip().startswith("# TODO(skill-lens)")
        and not line.lstrip().startswith("#   ")
        and line.strip()
        != "- TODO(skill-lens)  # resolve the notes above this case, then delete this tag"
    ]
    # A tags: key left with no entry goes too.
    cleaned = [
        line
        for i, line in enumerate(kept)
        if not (line.strip() == "tags:" and not kept[i + 1].lstrip().startswith("- "))
    ]
    return "\n".join(cleaned) + "\n"


def test_an_evals_json_in_the_wild_converts_then_loads_and_runs(pytester: pytest.Pytester) -> None:
    _skill(pytester.path, IN_THE_WILD)
    before = lens(pytester, "--collect-only")
    assert before.ret == 2  # the loader refuses this layout
    assert "unknown top-level key 'triggers'" in before.stdout.str()

    done = subprocess.run(
        [str(SCRIPT), "convert", SOURCE],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        f"Wrote {OUT}: 4 case(s) from {SOURCE}",
        "1 case(s) carry TODO(skill-lens) notes to resolve: 'charts the top months'; the run "
        "refuses the file until they are gone",
        "Once they are resolved it loads: pytest --skill-lens skills/csv-charts --collect-only",
        "1 case(s) have a judge: rubric: the default judge grades nothing and reports them "
        'errored; set judge = "pydantic-ai" (or another) in skill-lens.toml',
        f"Next: discovery still reads {SOURCE}, and {OUT} replaces it: remove it, or run "
        "this again with --replace --force to move it aside to evals.json.converted",
    ]
    out = pytester.path / OUT
    text = out.read_text(encoding="utf-8")
    assert '  #   category: "charts" -- a tag (under tags:)' in text

    unresolved = lens(pytester, "--collect-only")
    assert unresolved.ret == 2
    assert (
        "case 'charts the top months' (#1 in the file), field 'tags[0]': still holds the "
        "placeholder TODO(skill-lens)" in unresolved.stdout.str()
    )

    out.write_text(resolve(text), encoding="utf-8")
    (pytester.path / SOURCE).unlink()
    listed = lens(pytester, "--collect-only", "-q")
    assert listed.ret == 0
    assert [line for line in listed.outlines if "::" in line] == [
        f"skills/csv-charts/SKILL.md::{name}[fake]"
        for name in ("charts the top months", "eval-2", "should-trigger-1", "should-not-trigger-1")
    ]
    ran = lens(pytester)
    # fake: the assertions hold, the rubric is errored (the fake judge grades nothing),
    # the positive trigger fails and the negative control holds.
    ran.assert_outcomes(passed=2, failed=1, errors=1)


def test_a_mistake_the_notes_do_not_explain_is_printed_and_exits_1(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    evals = [{"prompt": "p", "assertions": [{"type": "regex", "value": "(unclosed"}]}]
    _skill(pytester.path, evals)
    code, out, err = _convert(capsys, SOURCE)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == f"Wrote {OUT}: 1 case(s) from {SOURCE}"
    assert lines[1] == "It does not load:"
    assert lines[2].startswith(f"  {OUT}:")  # the written file, never the scratch copy
    assert "case 'eval-1' (#1 in the file), field 'assertions[0].value'" in lines[2]
    assert "/tmp" not in out.replace(str(pytester.path), "")
    assert (pytester.path / OUT).is_file()


def test_a_name_another_eval_file_already_uses_is_found(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    directory = _skill(pytester.path, [{"name": "smoke", "prompt": "p", "assertions": ["s"]}])
    write_file(directory / "evals" / "cases.yaml", "cases:\n  - name: Smoke\n    task: t\n")
    code, out, _ = _convert(capsys, SOURCE)
    assert code == 1
    assert "the case name 'smoke' repeats 'Smoke'" in out
    assert "cases.yaml" in out and OUT in out


def test_stdout_output_keeps_messages_on_stderr(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    _skill(pytester.path, {"evals": [{"id": 1, "prompt": "p", "assertions": ["s"]}]})
    code, out, err = _convert(capsys, SOURCE, "-o", "-")
    assert code == 0
    assert out.startswith(f"# Converted from {SOURCE} by pytest-skill-lens convert.\n")
    assert "  - name: eval-1" in out
    assert err.splitlines()[0] == f"Wrote stdout: 1 case(s) from {SOURCE}"
    assert not (pytester.path / OUT).exists()


def test_a_skill_directory_names_its_evals_json(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    _skill(pytester.path, [{"prompt": "p", "assertions": ["s"]}])
    code, out, _ = _convert(capsys, "skills/csv-charts")
    assert code == 0
    assert out.splitlines()[0] == f"Wrote {OUT}: 1 case(s) from {SOURCE}"


def test_an_evals_json_beside_skill_md_converts_beside_it(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    _skill(pytester.path, [{"prompt": "p", "assertions": ["s"]}], where="evals.json")
    (pytester.path / "skills" / "csv-charts" / "evals" / "files" / "sales.csv").unlink()
    (pytester.path / "skills" / "csv-charts" / "evals" / "files").rmdir()
    (pytester.path / "skills" / "csv-charts" / "evals").rmdir()
    code, out, _ = _convert(capsys, "skills/csv-charts/evals.json")
    assert code == 0
    assert out.splitlines()[0].startswith("Wrote skills/csv-charts/evals.eval.yaml:")
    assert "Next:" not in out  # discovery reads *.eval.yaml there, never evals.json
    listed = lens(pytester, "--collect-only", "-q")
    assert "skills/csv-charts/SKILL.md::eval-1[fake]" in listed.outlines


def test_an_output_discovery_will_not_read_is_said(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    _skill(pytester.path, [{"prompt": "p", "assertions": ["s"]}])
    code, out, _ = _convert(capsys, SOURCE, "-o", "elsewhere/cases.yaml")
    assert code == 0
    assert (
        "Note: discovery does not read elsewhere/cases.yaml (it reads evals/*.yaml, else "
        "*.eval.yaml beside SKILL.md): move it there, or run with --skill-lens-evals "
        "elsewhere/cases.yaml" in out
    )


def test_a_skill_name_that_differs_is_pointed_out(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    _skill(pytester.path, {"skill": "pdf-tools", "cases": [{"task": "t", "assertions": ["s"]}]})
    code, out, _ = _convert(capsys, SOURCE)
    assert code == 0
    assert (
        "Note: the evals.json names the skill 'pdf-tools', but skills/csv-charts/SKILL.md is "
        "'csv-charts': is it this skill's file?" in out
    )


def test_an_existing_output_needs_force(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    _skill(pytester.path, [{"prompt": "p", "assertions": ["s"]}])
    write_file(pytester.path / OUT, "cases: []\n")
    code, out, err = _convert(capsys, SOURCE)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"pytest-skill-lens convert: {OUT} already exists",
        "  fix: name another output with -o, or pass --force",
    ]
    assert (pytester.path / OUT).read_text(encoding="utf-8") == "cases: []\n"
    assert _convert(capsys, SOURCE, "--force")[0] == 0
    assert "- name: eval-1" in (pytester.path / OUT).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("content", "message", "fix"),
    [
        ('{"evals": [', "is not valid JSON: Expecting value (line 1, column 12)", "fix the JSON"),
        ('{"notes": "none"}', "holds no evals to convert", "give one of:"),
        ("[]", "holds no evals to convert", "give one of:"),
        (None, "cannot read", "name a readable evals.json"),
    ],
    ids=["bad-json", "no-evals", "empty-array", "missing"],
)
def test_input_that_cannot_be_converted_writes_nothing(
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    content: str | None,
    message: str,
    fix: str,
) -> None:
    monkeypatch.chdir(pytester.path)
    directory = make_skill(pytester.path / "skills", "csv-charts")
    if content is not None:
        write_file(directory / "evals" / "evals.json", content)
    code, out, err = _convert(capsys, SOURCE)
    assert (code, out) == (2, "")
    first, second = err.splitlines()
    assert first.startswith("pytest-skill-lens convert: ") and message in first
    assert second.startswith("  fix: ") and fix in second
    assert not (pytester.path / OUT).exists()


def test_a_fifo_is_refused_never_opened(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    directory = make_skill(pytester.path / "skills", "csv-charts")
    (directory / "evals").mkdir()
    os.mkfifo(directory / "evals" / "evals.json")
    code, _, err = _convert(capsys, SOURCE)
    assert code == 2
    assert "is a FIFO, not a regular file" in err


def test_replace_moves_the_evals_json_aside_and_collection_then_works(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pytester.path)
    _skill(pytester.path, {"evals": [{"id": 1, "prompt": "p", "assertions": ["s"]}]})
    source = pytester.path / SOURCE
    original = source.read_bytes()
    assert _convert(capsys, SOURCE)[0] == 0
    both = lens(pytester, "--collect-only")
    assert both.ret == 2  # evals.json and its conversion are both read: eval-1 twice
    assert "the case name 'eval-1' repeats 'eval-1'" in both.stdout.str()
    capsys.readouterr()  # the in-process run's own output

    code, out, err = _convert(capsys, SOURCE, "--replace", "--force")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"Wrote {OUT}: 1 case(s) from {SOURCE}",
        f"Moved {SOURCE} aside to {SOURCE}.converted: discovery no longer reads it",
        "It loads: pytest --skill-lens skills/csv-charts --collect-only",
        "1 case(s) have a judge: rubric: the default judge grades nothing and reports them "
        'errored; set judge = "pydantic-ai" (or another) in skill-lens.toml',
    ]
    assert not source.exists()
    assert (pytester.path / f"{SOURCE}.converted").read_bytes() == original
    listed = lens(pytester, "--collect-only", "-q")
    assert listed.ret == 0, listed.stdout.str()
    assert "skills/csv-charts/SKILL.md::eval-1[fake]" in listed.outlines


@pytest.mark.parametrize(
    ("setup", "args", "message", "fix"),
    [
        (
            None,
            ["-o", "-", "--replace"],
            "--replace moves the evals.json aside once the YAML file is written; there is no "
            "file with -o -",
            "name an output file with -o, or drop --replace",
        ),
        (
            "aside-exists",
            ["--replace"],
            f"{SOURCE}.converted already exists, so {SOURCE} cannot be moved aside",
            f"remove {SOURCE}.converted, or drop --replace",
        ),
    ],
    ids=["stdout", "aside-exists"],
)
def test_replace_refusals_write_and_move_nothing(
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    setup: str | None,
    args: list[str],
    message: str,
    fix: str,
) -> None:
    monkeypatch.chdir(pytester.path)
    _skill(pytester.path, {"evals": [{"id": 1, "prompt": "p", "assertions": ["s"]}]})
    if setup == "aside-exists":
        write_file(pytester.path / f"{SOURCE}.converted", "an earlier one\n")
    code, out, err = _convert(capsys, SOURCE, *args)
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"pytest-skill-lens convert: {message}", f"  fix: {fix}"]
    assert (pytester.path / SOURCE).is_file()
    assert not (pytester.path / OUT).exists()
