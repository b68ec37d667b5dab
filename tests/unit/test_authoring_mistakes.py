"""The loader gathers a file's independent mistakes; the retry loop says how hard it tried.

Direct checks of ``gather_suite``, the ``evals.json`` and tool-library readers, the parse
cache's rule for files with mistakes, and the errored text of an unreachable endpoint:
what the pytester tests in tests/plugin/test_authoring_messages.py cannot look inside.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_skill_lens.run.models.retry import Attempt, attempts_note, run_with_retries
from pytest_skill_lens.run.result import RunResult
from pytest_skill_lens.run.runners.framework import endpoint_of
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.errors import AuthoringError, AuthoringErrors
from pytest_skill_lens.suite.loader import gather_suite, load_suite, read_yaml_eval_file
from pytest_skill_lens.suite.parse_cache import ParseCache
from pytest_skill_lens.suite.skill import Skill


@pytest.fixture
def skill(tmp_path: Path) -> Skill:
    (tmp_path / "evals").mkdir()
    return Skill(name="orders", description="", instructions="", path=tmp_path / "SKILL.md")


def write(skill: Skill, name: str, text: str) -> Path:
    path = skill.directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def places(errors: list[AuthoringError]) -> list[tuple[int | None, int | None, str | None]]:
    return [(e.where.line, e.where.case_index, e.where.field) for e in errors]


def test_an_obscure_schema_error_under_a_field_already_explained_is_dropped(skill: Skill) -> None:
    # returns: [] is explained by its own rule; pydantic's "expected text" for the same
    # field would be the same mistake seen again. The other tool's mistake stays.
    path = write(
        skill,
        "evals/cases.yaml",
        """\
        cases:
          - name: a
            task: t
            tools:
              - name: lookup
                returns: []
              - name: other
                retuns: x
        """,
    )

    suite, errors = gather_suite(skill, [path])

    assert places(errors) == [(6, 0, "tools[0].returns"), (8, 0, "tools[1].retuns")]
    assert suite.cases == ()


def test_a_case_refused_by_a_rule_is_kept_for_the_rules_after_loading(skill: Skill) -> None:
    path = write(
        skill,
        "evals/cases.yaml",
        """\
        cases:
          - name: a
            task: ' '
            trajectory: {called: [nowhere]}
          - name: b
            task: [not, text]
        """,
    )

    suite, errors = gather_suite(skill, [path])

    assert places(errors) == [(3, 0, "task"), (6, 1, "task")]
    # The shape of 'a' was right: it is there for the runner-dependent rules; 'b' is not.
    assert [loaded.name for loaded in suite.cases] == ["a"]
    assert suite.cases[0].line_of("trajectory.called[0]") == 4
    with pytest.raises(AuthoringErrors) as caught:
        load_suite(skill, [path])
    assert len(caught.value.errors) == 2


def test_the_field_lines_kept_with_a_case(skill: Skill) -> None:
    path = write(
        skill,
        "evals/cases.yaml",
        """\
        cases:
          - name: a
            task: t
            trajectory:
              called:
                - x
              call_args:
                - tool: x
                  contains: {id: 1}
        """,
    )

    (loaded,) = load_suite(skill, [path]).cases

    assert loaded.line_of("trajectory.called[0]") == 6
    assert loaded.line_of("trajectory.call_args[0].tool") == 8
    assert loaded.line_of("trajectory.call_args[0].contains.id") == 9  # the nearest kept
    assert loaded.line_of("nowhere") == 2  # the case's own line


def test_a_file_with_a_mistake_is_never_cached(skill: Skill, tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache", b"k" * 32)
    path = write(skill, "evals/cases.yaml", "cases:\n  - {name: a, task: t, tag: x}\n")

    cases, errors = read_yaml_eval_file(path, skill.name, cache)

    assert (cases, len(errors)) == ([], 1)
    assert not (tmp_path / "cache").exists()
    write(skill, "evals/cases.yaml", "cases:\n  - {name: a, task: t}\n")
    assert len(read_yaml_eval_file(path, skill.name, cache)[0]) == 1
    assert len(list((tmp_path / "cache").iterdir())) == 1  # a clean file is


def test_every_eval_of_an_evals_json_is_checked_on_its_own(skill: Skill) -> None:
    path = write(
        skill,
        "evals/evals.json",
        """\
        {"skill_name": "other", "version": 2, "evals": [
          {"id": 1, "prompt": "p", "assertions": ["ok"]},
          {"id": 2, "prompt": "", "assertions": ["ok"]},
          {"id": 3, "prompt": "p", "name": "x", "category": "y", "assertions": ["ok"]},
          {"id": 1, "prompt": "p", "assertions": ["ok"]}
        ]}
        """,
    )

    suite, errors = gather_suite(skill, [path])

    assert [(e.where.case_index, e.where.field) for e in errors] == [
        (None, "version"),
        (None, "skill_name"),
        (1, "prompt"),
        (2, "category"),
        (2, "name"),
        (3, "id"),  # eval-1 again: said once, as a repeated id
    ]
    assert [loaded.name for loaded in suite.cases] == ["eval-1"]


def test_another_layout_in_evals_json_is_not_also_told_it_lacks_evals(skill: Skill) -> None:
    path = write(skill, "evals/evals.json", '{"skill": "orders", "cases": []}')

    _, errors = gather_suite(skill, [path])

    assert [e.problem for e in errors] == [
        "unknown top-level key 'cases'",
        "unknown top-level key 'skill'",
    ]


def test_each_tool_of_a_library_is_checked_at_its_own_position(skill: Skill) -> None:
    write(
        skill,
        "shared/tools.yaml",
        """\
        tools:
          - name: fine
          - name: get.pr
          - name: TODO(skill-lens)
          - name: listing
            input_schema: {type: array}
        """,
    )
    path = write(
        skill,
        "evals/cases.yaml",
        """\
        tool_libraries: [../shared/tools.yaml]
        cases:
          - name: uses
            task: t
            tools: [{ref: fine}]
          - name: plain
            task: t
            tag: x
        """,
    )

    _, errors = gather_suite(skill, [path])

    assert [(e.where.file.name if e.where.file else None, e.where.field) for e in errors] == [
        ("tools.yaml", "tools[2].name"),  # the placeholder, first in its library
        ("tools.yaml", "tools[1].name"),
        ("tools.yaml", "tools[3].input_schema"),
        ("cases.yaml", "tag"),  # a case without ref: is still checked
    ]


# --- an unreachable endpoint -------------------------------------------------------------------


def test_the_retry_loop_hands_the_last_failure_and_the_attempts_made() -> None:
    seen: list[tuple[str | None, str, int]] = []
    outcomes = iter([ConnectionError("down"), ConnectionError("still down")])

    def attempt() -> Attempt:
        failure = next(outcomes)
        return Attempt(RunResult(error=f"ConnectionError: {failure}"), failure)

    result = run_with_retries(
        attempt,
        retries=1,
        backoff_seconds=0.0,
        transient=lambda failure: True,
        sleep=lambda seconds: None,
        on_failure=lambda r, failure, made: seen.append((r.error, str(failure), made)),
    )

    assert seen == [("ConnectionError: still down", "still down", 2)]
    assert result.error == "ConnectionError: still down"
    assert attempts_note(1, 0) == "1 attempt (retries = 0)"
    assert attempts_note(3, 2) == "3 attempts (retries = 2)"


def test_the_endpoint_named_is_the_one_the_run_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)

    assert endpoint_of(Settings(base_url="http://127.0.0.1:9/v1")) == (
        "http://127.0.0.1:9/v1 (base_url)"
    )
    assert endpoint_of(Settings(model="anthropic:claude-3-5-haiku-latest")) == (
        "https://api.anthropic.com (the default of provider 'anthropic'; set base_url for another)"
    )
    assert endpoint_of(Settings(model="ollama:llama3")) == (
        "the default of model 'ollama:llama3' (set base_url to name one)"
    )
    monkeypatch.setenv("OPENAI_BASE_URL", "http://proxy.local/v1")
    assert endpoint_of(Settings()) == "http://proxy.local/v1 (OPENAI_BASE_URL)"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://proxy.local")
    assert endpoint_of(Settings(model="anthropic:claude-3-5-haiku-latest")) == (
        "http://proxy.local (ANTHROPIC_BASE_URL)"
    )
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:11434/v1")
    assert endpoint_of(Settings(model="ollama:llama3")) == (
        "http://127.0.0.1:11434/v1 (OLLAMA_BASE_URL)"
    )


def test_field_lines_are_read_from_the_file_that_still_holds_the_case(
    skill: Skill, tmp_path: Path
) -> None:
    text = """\
        cases:
          - name: a
            task: t
            trajectory: {called: [x]}
          - name: b
            task: t
            trajectory:
              called: [y]
        """
    path = write(skill, "evals/cases.yaml", text)
    first, second = load_suite(skill, [path]).cases
    # Nothing was read again yet: the file is rewritten with every case two lines lower.
    write(skill, "evals/cases.yaml", "# moved\n# down\n" + textwrap.dedent(text))
    assert first.line_of("trajectory.called[0]") == first.line == 2  # not the case there now
    assert second.line_of("trajectory.called") == second.line == 5

    again_first, again_second = load_suite(skill, [path]).cases
    assert again_first.line_of("trajectory.called[0]") == 6
    assert again_second.line_of("trajectory.called") == 10
    path.unlink()
    assert again_second.line_of("trajectory.called") == 10  # read already: kept

    cache = ParseCache(tmp_path / "cache", secret=b"k" * 32)
    path = write(skill, "evals/cases.yaml", text)
    read_yaml_eval_file(path, "orders", cache)
    cached, errors = read_yaml_eval_file(path, "orders", cache)
    assert not errors
    assert cached[1].line_of("trajectory.called[0]") == 8  # a cached case reads the file too
