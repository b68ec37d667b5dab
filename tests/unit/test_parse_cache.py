"""The content-keyed cache of parsed eval files."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_skill_lens.suite import loader
from pytest_skill_lens.suite.errors import AuthoringError
from pytest_skill_lens.suite.loaded import LoadedCase
from pytest_skill_lens.suite.model import EvalCase
from pytest_skill_lens.suite.parse_cache import ParseCache, seal

SECRET = b"k" * 32  # the per-user key, given directly so no test writes one to $HOME
CASES = (
    "cases:\n  - name: greets\n    task: say hi\n"
    "    assertions:\n      - {kind: contains, value: hi}\n"
)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every eval file the loader really parses (a cache hit parses nothing)."""
    seen: list[Path] = []
    real = loader._parse_yaml_eval_file

    def spy(
        path: Path, text: str, skill_name: str | None
    ) -> tuple[list[loader.LoadedCase], list[loader.AuthoringError]]:
        seen.append(path)
        return real(path, text, skill_name)

    monkeypatch.setattr(loader, "_parse_yaml_eval_file", spy)
    return seen


def write(tmp_path: Path, text: str = CASES) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_second_load_of_the_same_text_is_served_from_the_cache(
    tmp_path: Path, parses: list[Path]
) -> None:
    cache = ParseCache(tmp_path / "cache", SECRET)
    path = write(tmp_path)
    first = loader.load_yaml_eval_file(path, "greeting", cache)
    second = loader.load_yaml_eval_file(path, "greeting", cache)
    assert parses == [path]
    assert [c.case for c in second] == [c.case for c in first]
    assert second[0].line == 2 and second[0].file == path


def test_changed_text_or_skill_name_is_parsed_again(tmp_path: Path, parses: list[Path]) -> None:
    cache = ParseCache(tmp_path / "cache", SECRET)
    path = write(tmp_path)
    loader.load_yaml_eval_file(path, "greeting", cache)
    write(tmp_path, CASES.replace("say hi", "say hello"))
    edited = loader.load_yaml_eval_file(path, "greeting", cache)
    assert edited[0].case.task == "say hello"
    loader.load_yaml_eval_file(path, "another-name", cache)
    assert len(parses) == 3


def test_a_file_importing_tool_libraries_is_never_cached(
    tmp_path: Path, parses: list[Path]
) -> None:
    cache = ParseCache(tmp_path / "cache", SECRET)
    (tmp_path / "lib.yaml").write_text("tools:\n  - {name: t, returns: x}\n", encoding="utf-8")
    path = write(tmp_path, "tool_libraries: [lib.yaml]\n" + CASES)
    loader.load_yaml_eval_file(path, "greeting", cache)
    loader.load_yaml_eval_file(path, "greeting", cache)
    assert parses == [path, path]
    assert not (tmp_path / "cache").exists()


def test_an_authoring_error_is_never_cached(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache", SECRET)
    path = write(tmp_path, CASES.replace("assertions", "assertion"))
    for _ in range(2):
        with pytest.raises(AuthoringError, match="unknown key 'assertion'"):
            loader.load_yaml_eval_file(path, "greeting", cache)


def test_a_corrupt_slot_is_a_miss_not_a_crash(tmp_path: Path, parses: list[Path]) -> None:
    cache = ParseCache(tmp_path / "cache", SECRET)
    path = write(tmp_path)
    loader.load_yaml_eval_file(path, "greeting", cache)
    for slot in (tmp_path / "cache").iterdir():
        slot.write_bytes(b"not a pickle")
    assert loader.load_yaml_eval_file(path, "greeting", cache)[0].name == "greets"
    assert parses == [path, path]


# --- a cache that cannot execute or be forged ------------------------------------------


class _Planted:
    """A pickle whose loading writes a marker file (what a poisoned cache would hold)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (Path.write_text, (self.marker, "unpickled"))  # type: ignore[return-value]


def _poison(directory: Path, marker: Path, path: Path) -> None:
    """Every slot in ``directory``, and the slot name the pickle format used, hold a pickle."""
    import hashlib
    import pickle

    payload = pickle.dumps(_Planted(marker))
    directory.mkdir(parents=True, exist_ok=True)
    old_slot = hashlib.sha256(str(path).encode()).hexdigest()[:32] + ".pickle"
    for slot in [*directory.iterdir(), directory / old_slot]:
        slot.write_bytes(payload)


def test_a_pickle_planted_in_the_cache_is_never_loaded(tmp_path: Path, parses: list[Path]) -> None:
    cache = ParseCache(tmp_path / "cache", SECRET)
    path = write(tmp_path)
    loader.load_yaml_eval_file(path, "greeting", cache)
    marker = tmp_path / "marker"
    _poison(tmp_path / "cache", marker, path)

    loaded = loader.load_yaml_eval_file(path, "greeting", cache)

    assert not marker.exists()
    assert [c.name for c in loaded] == ["greets"]
    assert parses == [path, path]  # the planted slot was a miss: the file was read again


def test_an_entry_written_with_another_key_is_a_miss(tmp_path: Path, parses: list[Path]) -> None:
    # A cache restored from elsewhere (a shared CI cache) was written under another key:
    # even a well-formed entry for this very text is never trusted.
    path = write(tmp_path)
    forged = CASES.replace("say hi", "say anything")
    foreign = ParseCache(tmp_path / "cache", b"x" * 32)
    cases, errors = loader._parse_yaml_eval_file(path, forged, "greeting")
    assert not errors
    foreign.put(path, "greeting", CASES, cases)
    parses.clear()

    loaded = loader.load_yaml_eval_file(path, "greeting", ParseCache(tmp_path / "cache", SECRET))

    assert loaded[0].case.task == "say hi"
    assert parses == [path]


def test_an_edited_entry_is_a_miss(tmp_path: Path, parses: list[Path]) -> None:
    cache = ParseCache(tmp_path / "cache", SECRET)
    path = write(tmp_path)
    loader.load_yaml_eval_file(path, "greeting", cache)
    (slot,) = (tmp_path / "cache").iterdir()
    slot.write_bytes(slot.read_bytes().replace(b"say hi", b"say ho"))

    assert loader.load_yaml_eval_file(path, "greeting", cache)[0].case.task == "say hi"
    assert parses == [path, path]


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"\n",
        b"{}",
        b'{"key": 1, "cases": []}',
        b'{"key": "KEY", "cases": [{"line": 1, "index": 0, "case": {"name": "x", "bogus": 1}}]}',
        b'{"key": "KEY", "cases": [{"line": "1", "index": 0, "case": {"name": "x"}}]}',
        b'{"key": "KEY", "cases": [{"line": 1, "index": 0, "case": {"name": 7}}]}',
        b'{"key": "KEY", "cases": [{"line": 1, "index": 0, "case": {"name": "x"}}], "more": 1}',
        b"[" * 100_000,
        b"\xff\xfe not text",
    ],
    ids=[
        "empty",
        "newline",
        "no-key",
        "mistyped-key",
        "unknown-field",
        "text-line",
        "number-name",
        "extra-key",
        "deep",
        "bytes",
    ],
)
def test_a_garbled_or_mistyped_entry_with_a_valid_seal_is_a_miss(
    tmp_path: Path, parses: list[Path], payload: bytes
) -> None:
    # Even an entry sealed with the right key is checked by the same models, never trusted raw.
    cache = ParseCache(tmp_path / "cache", SECRET)
    path = write(tmp_path)
    loader.load_yaml_eval_file(path, "greeting", cache)
    (slot,) = (tmp_path / "cache").iterdir()
    key = cache.key_for(path, "greeting", CASES).encode()
    slot.write_bytes(seal(SECRET, payload.replace(b"KEY", key)))

    assert loader.load_yaml_eval_file(path, "greeting", cache)[0].name == "greets"
    assert parses == [path, path]


def test_cases_that_would_not_survive_the_round_trip_are_not_cached(tmp_path: Path) -> None:
    # A mapping with a number for a key reads back with a string key: never cache a change.
    case = EvalCase.model_validate(
        {"name": "x", "assertions": [{"kind": "json-schema", "json_schema": {"enum": [{1: "a"}]}}]}
    )
    cache = ParseCache(tmp_path / "cache", SECRET)
    path = write(tmp_path)
    cache.put(path, "greeting", CASES, [LoadedCase(case=case, file=path, line=2, index=0)])

    assert cache.get(path, "greeting", CASES) is None


def test_the_user_key_is_private_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parses: list[Path]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    path = write(tmp_path)
    loader.load_yaml_eval_file(path, "greeting", ParseCache(tmp_path / "cache"))
    loader.load_yaml_eval_file(path, "greeting", ParseCache(tmp_path / "cache"))

    key = tmp_path / "xdg" / "pytest-skill-lens" / "parse-cache.key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert parses == [path]  # the second process-alike read the first one's entry


def test_a_key_others_can_read_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parses: list[Path]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    key = tmp_path / "xdg" / "pytest-skill-lens" / "parse-cache.key"
    key.parent.mkdir(parents=True)
    key.write_text("0" * 64, encoding="ascii")
    key.chmod(0o644)
    path = write(tmp_path)
    for _ in range(2):
        loader.load_yaml_eval_file(path, "greeting", ParseCache(tmp_path / "cache"))

    assert parses == [path, path]  # no trusted key: no cache, every file read afresh
    assert not (tmp_path / "cache").exists()


POISON_CONFTEST = """\
import hashlib
import pickle
from pathlib import Path


class Planted:
    def __reduce__(self):
        return (Path.write_text, (Path({marker!r}), "unpickled"))


def pytest_sessionstart(session):
    # Plant the payload in every parse-cache slot before the plugin reads one.
    slots = session.config.rootpath / ".pytest_cache" / "d" / "skill-lens-parsed"
    eval_file = str(session.config.rootpath / "skills" / "hello" / "evals" / "cases.yaml")
    names = [p.name for p in slots.iterdir()] if slots.is_dir() else []
    names.append(hashlib.sha256(eval_file.encode()).hexdigest()[:32] + ".pickle")
    slots.mkdir(parents=True, exist_ok=True)
    for name in names:
        (slots / name).write_bytes(pickle.dumps(Planted()))
"""


def test_collect_only_never_unpickles_a_poisoned_cache(pytester: pytest.Pytester) -> None:
    skill = pytester.path / "skills" / "hello"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: hello\ndescription: Greets.\n---\nHi.\n")
    (skill / "evals" / "cases.yaml").write_text(CASES)
    args = ("--skill-lens", "skills", "--collect-only", "-q", "-p", "no:hypothesispytest")
    assert pytester.runpytest(*args).ret == 0  # a warm cache to poison
    marker = pytester.path / "marker"
    pytester.makeconftest(POISON_CONFTEST.format(marker=str(marker)))

    result = pytester.runpytest(*args)

    assert result.ret == 0
    assert [line for line in result.outlines if "::" in line] == [
        "skills/hello/SKILL.md::greets[fake]"
    ]
    assert not marker.exists()
