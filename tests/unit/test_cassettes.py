"""The cassette store and its key: file names, strict reading, readable writing, key parts."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_skill_lens.run.cassettes import files
from pytest_skill_lens.run.cassettes.files import (
    CassetteError,
    CassetteFile,
    cassette_path,
    parse_cassette,
    plain,
    read_cassette,
    render,
    without_nulls,
    write_cassette,
)
from pytest_skill_lens.run.cassettes.key import judge_parts, runner_parts, stale_parts
from pytest_skill_lens.settings import Settings
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.skill import Skill


def cassette(**more: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "cassette": 1,
        "item": {"skill": "greet", "case": "c"},
        "key": {"skill": {"seat": "runner", "what": "SKILL.md", "sha256": "a" * 64}},
        "calls": [
            {
                "seat": "runner",
                "by": "pydantic-ai",
                "recorded_at": "2026-01-31",
                "figures": {"latency_ms": 12.5, "cost_usd": 0.25},
                "exchanges": [
                    {"request_sha256": "b" * 64, "sent": [{"text": "héllo"}], "response": {}}
                ],
            }
        ],
    }
    data.update(more)
    return data


def encoded(data: Any) -> bytes:
    return json.dumps(data).encode()


# --- where a cassette lives ---------------------------------------------------------------


def test_one_file_per_item_under_its_skill_named_for_people_and_never_colliding() -> None:
    root = Path("/c")
    first = cassette_path(root, "greet", "Says hello!", "pydantic-ai", "candidate", 0)
    assert first.parent == root / "greet"
    assert first.name.startswith("says-hello-") and first.name.endswith(".pydantic-ai.json")
    # Names whose safe spelling agree still get their own file.
    assert cassette_path(root, "greet", "a b", "x", "candidate", 0) != cassette_path(
        root, "greet", "a-b", "x", "candidate", 0
    )
    baseline = cassette_path(root, "greet", "Says hello!", "pydantic-ai", "baseline", 2)
    assert baseline.name.endswith(".pydantic-ai.baseline.r3.json")
    odd = cassette_path(root, "../..", "/etc/passwd", "a/b", "candidate", 0)
    assert odd.parent == root / "x"  # nothing in a name can leave the directory
    assert "/" not in odd.name and ".." not in odd.name.split(".")[0]


# --- reading: strict, bounded, never a hang or a crash -------------------------------------


def test_a_missing_cassette_is_none_and_a_written_one_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "c.json"
    assert read_cassette(path) is None
    stored = CassetteFile.model_validate(cassette())

    write_cassette(path, stored)

    assert read_cassette(path) == stored
    assert [p.name for p in path.parent.iterdir()] == ["c.json"]  # no temporary left


def test_the_text_is_sorted_indented_and_keeps_non_ascii_readable() -> None:
    text = render(CassetteFile.model_validate(cassette()))
    assert text.endswith("}\n")
    assert '"héllo"' in text  # not \u00e9
    keys = [line.strip().split('"')[1] for line in text.splitlines() if line.startswith('  "')]
    assert keys == sorted(keys) == ["calls", "cassette", "item", "key"]
    assert text == render(parse_cassette(text.encode(), Path("c.json")))  # stable


def test_a_lone_surrogate_stays_escaped_and_reads_back_exactly(tmp_path: Path) -> None:
    data = cassette()
    data["calls"][0]["exchanges"][0]["sent"] = [{"text": "a\ud800b"}]
    path = tmp_path / "c.json"

    write_cassette(path, CassetteFile.model_validate(data))

    assert "\\ud800" in path.read_text(encoding="utf-8")
    stored = read_cassette(path)
    assert stored is not None and stored.calls[0].exchanges[0].sent == [{"text": "a\ud800b"}]


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b'{"cassette": 1,', "is not valid JSON at line 1"),
        (b"", "is not valid JSON"),
        (b"\xff\xfe", "is not UTF-8 text (byte 0)"),
        (encoded(cassette()).replace(b"12.5", b"NaN"), "NaN is not a JSON number"),
        (encoded(cassette(cassette=2)), "is cassette format 2; this version reads format 1"),
        (encoded(cassette(extra=1)), "has the wrong shape: extra: Extra inputs are not permitted"),
        (encoded({**cassette(), "calls": [{"seat": "runner"}]}), "has the wrong shape: calls.0.by"),
        (encoded([1, 2]), "has the wrong shape: the top level"),
        (b"[" * 100_000 + b"]" * 100_000, "is nested more than 100 levels deep"),
    ],
    ids=[
        "truncated",
        "empty",
        "not utf-8",
        "nan",
        "other format",
        "unknown field",
        "missing field",
        "not an object",
        "nested",
    ],
)
def test_a_broken_cassette_is_one_clear_error_naming_the_file(data: bytes, said: str) -> None:
    with pytest.raises(CassetteError) as raised:
        parse_cassette(data, Path("evals/cassettes/c.json"))
    assert str(raised.value).startswith("evals/cassettes/c.json ")
    assert said in str(raised.value)


def test_a_wrong_figure_or_date_is_refused() -> None:
    data = cassette()
    data["calls"][0]["figures"]["cost_usd"] = -1
    with pytest.raises(CassetteError, match="greater than or equal to 0"):
        parse_cassette(encoded(data), Path("c.json"))
    data = cassette()
    data["calls"][0]["recorded_at"] = "2026-01-31T10:00:00Z"  # a timestamp churns diffs
    with pytest.raises(CassetteError, match="recorded_at"):
        parse_cassette(encoded(data), Path("c.json"))


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_fifo_or_a_huge_file_is_refused_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "c.json"
    os.mkfifo(fifo)
    with pytest.raises(CassetteError, match="is a FIFO \\(named pipe\\), not a regular file"):
        read_cassette(fifo)  # would block for ever if it were opened
    big = tmp_path / "big.json"
    big.write_bytes(encoded(cassette()))
    monkeypatch.setattr(files, "MAX_BYTES", 10)
    with pytest.raises(CassetteError, match="more than a cassette may be"):
        read_cassette(big)
    link = tmp_path / "gone.json"  # a link is never followed, whatever it points at
    link.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(CassetteError, match=r"gone\.json is a symbolic link"):
        read_cassette(link)


def test_plain_data_never_carries_a_repr() -> None:
    class Secretive:
        def __repr__(self) -> str:
            return "sk-secret"

    value = plain({"schema": Skill, "client": Secretive(), "n": [1, None]})
    assert value == {
        "schema": "<pytest_skill_lens.suite.skill.Skill>",
        "client": "<Secretive>",
        "n": [1, None],
    }
    assert without_nulls({"a": None, "b": [{"c": None, "d": 1}]}) == {"b": [{"d": 1}]}


# --- the key -------------------------------------------------------------------------------

SKILL = Skill("greet", "Greets.", "Say hello.", Path("/s/greet/SKILL.md"))
SETTINGS = Settings(model="openai:gpt-4o-mini", base_url="http://127.0.0.1:1/v1")


def a_case(**more: Any) -> EvalCase:
    fields: dict[str, Any] = {
        "name": "c",
        "task": "hi",
        "tools": [{"name": "lookup", "parameters": {"id": "string"}, "returns": "ok"}],
        "assertions": [{"kind": "contains", "value": "hello"}],
        "judge": {"rubric": ["is kind"]},
    }
    return EvalCase.model_validate({**fields, **more})


def changes(before: list[Any], after: list[Any]) -> dict[str, list[str]]:
    return dict(stale_parts({p.name: p.entry() for p in before}, after))


def parts(skill: Skill = SKILL, case: EvalCase | None = None, **settings: Any) -> list[Any]:
    chosen = SETTINGS.model_copy(update=settings)
    made = case or a_case()
    judge = {"judge": "pydantic-ai", "model": chosen.model}
    return [*runner_parts(skill, made, "pydantic-ai", chosen, 0), *judge_parts(made, judge)]


def test_the_same_case_has_the_same_key_and_each_change_names_its_part() -> None:
    base = parts()
    assert changes(base, parts()) == {}
    assert changes(base, parts(Skill("greet", "Greets.", "Say hi.", SKILL.path))) == {
        "runner": ["SKILL.md changed"]
    }
    returns = a_case(tools=[{"name": "lookup", "parameters": {"id": "string"}, "returns": "no"}])
    assert changes(base, parts(case=returns)) == {
        "runner": ["the returns: of mock tool lookup changed"]
    }
    described = a_case(
        tools=[
            {"name": "lookup", "description": "d", "parameters": {"id": "string"}, "returns": "ok"}
        ]
    )
    assert changes(base, parts(case=described)) == {
        "runner": ["the definition of mock tool lookup changed"]
    }
    assert changes(base, parts(case=a_case(task="hello"))) == {"runner": ["the task changed"]}
    assert changes(base, parts(model="openai:gpt-4o")) == {
        "runner": ["the runner's settings (runner, model, endpoint, ...) changed"],
        "judge": ["the judge's settings (judge, model, endpoint, ...) changed"],  # inherited
    }
    assert changes(base, parts(case=a_case(judge={"rubric": ["is brief"]}))) == {
        "judge": ["the judge: block changed"]
    }


def test_what_only_scores_is_not_in_the_key() -> None:
    stricter = a_case(
        assertions=[{"kind": "regex", "value": "h.*o"}],
        trajectory={"called": ["lookup"]},
        tags=["smoke"],
        budget={"max_cost_usd": 0.1, "max_latency_ms": 10},
    )
    assert changes(parts(), parts(case=stricter)) == {}
    assert changes(parts(), parts(case=a_case(budget={"max_tokens": 10}))) == {
        "runner": ["budget: max_tokens changed"]
    }


def test_an_added_or_removed_tool_is_named() -> None:
    two = a_case(
        tools=[
            {"name": "lookup", "parameters": {"id": "string"}, "returns": "ok"},
            {"name": "refund", "returns": "done"},
        ]
    )
    found = changes(parts(), parts(case=two))["runner"]
    assert "the mock tools declared (their names and order) changed" in found
    assert "the definition of mock tool refund was added" in found
    assert "the returns: of mock tool refund was added" in found
    assert (
        "the definition of mock tool refund was removed"
        in changes(parts(case=two), parts())["runner"]
    )


def test_the_bundle_is_in_the_key(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("---\nname: greet\n---\nSay hello.\n", encoding="utf-8")
    (tmp_path / "references").mkdir()
    style = tmp_path / "references" / "style.md"
    style.write_text("Be brief.", encoding="utf-8")
    skill = Skill("greet", "", "Say hello.", tmp_path / "SKILL.md")
    before = parts(skill)
    style.write_text("Be verbose.", encoding="utf-8")
    runner_parts.__globals__["_file_digests"].cache_clear()  # the session's cache

    assert changes(before, parts(skill)) == {"runner": ["the skill's bundled files changed"]}
