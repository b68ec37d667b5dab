"""Read an ``evals/evals.json`` (the Agent Skills evaluation guide's format)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import AuthoringError, Where, combined
from .loaded import LoadedCase
from .model import EvalCase
from .names import case_name_problem
from .quoting import shown
from .regular_files import REGULAR_FIX, read_regular, special_kind
from .rules import check_placeholder
from .skill import Skill

MAX_FILE_BYTES = 1_000_000
_TOP_KEYS = {"skill_name", "evals"}
_EVAL_KEYS = {"id", "prompt", "expected_output", "files", "assertions", "expectations"}


def read_evals_json(path: Path, skill: Skill) -> tuple[list[LoadedCase], list[AuthoringError]]:
    """The evals that loaded, and the file's mistakes: each eval is checked on its own."""
    try:
        data = _read_object(path)
    except AuthoringError as exc:  # the file cannot be read as a whole
        return [], [exc]
    errors: list[AuthoringError] = []
    unknown = sorted(set(data) - _TOP_KEYS)
    for key in unknown:
        errors.append(
            AuthoringError(
                f"unknown top-level key {shown(key)}",
                where=Where(path, field=key),
                fix="evals.json takes only 'skill_name' and 'evals'; move other layouts to YAML",
            )
        )
    if "skill_name" in data and data["skill_name"] != skill.name:
        errors.append(
            AuthoringError(
                f"skill_name {shown(data['skill_name'])} is not this skill's name "
                f"{shown(skill.name)}",
                where=Where(path, field="skill_name"),
                fix="make it equal the name in SKILL.md, or drop it",
            )
        )
    evals = data.get("evals")
    if not isinstance(evals, list):
        if not unknown:  # with another layout's keys, a missing 'evals' is that layout's
            errors.append(
                AuthoringError(
                    "'evals' must be a list",
                    where=Where(path, field="evals"),
                    fix='write "evals": [{"id": 1, "prompt": "..."}]',
                )
            )
        return [], errors
    cases: list[LoadedCase] = []
    seen_ids: dict[str, int] = {}
    for index, entry in enumerate(evals):
        try:
            loaded = _load_entry(entry, index, path, skill)
        except AuthoringError as exc:
            errors.extend(exc.each)
            continue
        first = seen_ids.get(loaded.name)
        if first is not None:
            errors.append(
                AuthoringError(
                    f"id repeats the id of eval #{first + 1} (both name the case "
                    f"{shown(loaded.name)})",
                    where=Where(path, None, loaded.name, index, "id"),
                    fix="give every eval its own id",
                )
            )
            continue
        seen_ids[loaded.name] = index
        cases.append(loaded)
    return cases, errors


def _read_object(path: Path) -> dict[str, Any]:
    try:
        text = read_regular(path).decode("utf-8-sig")  # a leading BOM is skipped
    except OSError as exc:
        raise AuthoringError(
            f"cannot read the file: {exc.strerror or exc}",
            where=Where(path),
            fix="make the file readable",
        ) from None
    except UnicodeDecodeError:
        raise AuthoringError(
            "not valid UTF-8 text", where=Where(path), fix="save it as UTF-8"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AuthoringError(
            f"not valid JSON: {exc.msg} (column {exc.colno})",
            where=Where(path, exc.lineno),
            fix="fix the JSON syntax there (a trailing comma or a missing quote is common)",
        ) from None
    if not isinstance(data, dict):
        raise AuthoringError(
            "evals.json must be a JSON object with an 'evals' list",
            where=Where(path),
            fix='write {"skill_name": "...", "evals": [...]}',
        )
    return data


def _load_entry(entry: Any, index: int, path: Path, skill: Skill) -> LoadedCase:
    where = Where(path, None, None, index)
    if not isinstance(entry, dict):
        raise AuthoringError(
            "an eval must be a JSON object",
            where=where,
            fix='write each eval as {"id": 1, "prompt": "...", "assertions": ["..."]}',
        )
    raw_id = entry.get("id")
    usable_id = isinstance(raw_id, int | str) and not isinstance(raw_id, bool)
    # The placeholder is looked for first, in keys too, as in a YAML file.
    known_name = f"eval-{raw_id}" if usable_id else None
    check_placeholder(entry, Where(path, None, known_name, index))
    unknown = sorted(set(entry) - _EVAL_KEYS)
    if unknown:  # each one reported: another layout's keys come several at a time
        raise combined(
            [
                AuthoringError(
                    f"unknown key {shown(key)}",
                    where=Where(path, None, known_name, index, key),
                    fix="an eval takes id, prompt, expected_output, files, assertions "
                    "(or expectations); anything more (a name, should_trigger, tools) needs a "
                    "YAML eval file (docs/eval-files.md)",
                )
                for key in unknown
            ]
        )
    if (
        isinstance(raw_id, bool)
        or not isinstance(raw_id, int | str)
        or raw_id == ""
        or (isinstance(raw_id, str) and not raw_id.strip())
    ):
        raise AuthoringError(
            f"id must be an integer or a non-empty string, got {_got(entry, 'id')}",
            where=Where(path, None, None, index, "id"),
            fix='e.g. "id": 1',
        )
    name = f"eval-{raw_id}"
    # The id becomes the case name, so it takes the case-name rules.
    found = case_name_problem("the id", str(raw_id))
    if found is not None:
        raise AuthoringError(found[0], where=Where(path, None, name, index, "id"), fix=found[1])

    def fail(problem: str, field: str, fix: str | None = None) -> AuthoringError:
        return AuthoringError(problem, where=Where(path, None, name, index, field), fix=fix)

    prompt = entry.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise fail(
            f"prompt is required and must be non-empty text, got {_got(entry, 'prompt')}",
            "prompt",
            'add "prompt": "<the task handed to the agent>"',
        )
    if "assertions" in entry and "expectations" in entry:
        raise fail(
            "both assertions and expectations are given",
            "expectations",
            "keep one: they are two names for the same list of statements",
        )
    key = "assertions" if "assertions" in entry else "expectations"
    statements = entry.get(key, [])
    if not isinstance(statements, list) or not all(
        isinstance(s, str) and s.strip() for s in statements
    ):
        raise fail(
            f"{key} must be a list of non-empty strings, got {_got(entry, key)}",
            key,
            f'write "{key}": ["<a statement the judge checks>", ...] with no blank entry',
        )
    expected = entry.get("expected_output")
    if expected is not None and (not isinstance(expected, str) or not expected.strip()):
        raise fail(
            f"expected_output must be non-empty text, got {shown(expected)}",
            "expected_output",
            "describe a good answer, or drop the key",
        )
    rubric = list(statements)
    if not rubric:
        if expected is None:
            raise fail(
                "nothing to grade: no assertions, expectations or expected_output",
                "assertions",
                "add the statements a judge should check, or an expected_output",
            )
        rubric = [f"The output satisfies: {expected}"]
    files = entry.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise fail(
            f"files must be a list of paths relative to the skill directory, got {shown(files)}",
            "files",
            'write "files": ["evals/files/input.csv"]',
        )
    workspace = {"files": {f: _read_input_file(f, skill, fail) for f in files}} if files else None
    raw_case: dict[str, Any] = {"name": name, "task": prompt, "judge": {"rubric": rubric}}
    if expected is not None:
        raw_case["judge"]["expected"] = expected
    if workspace is not None:
        raw_case["workspace"] = workspace
    try:
        case = EvalCase.model_validate(raw_case)
    except ValidationError as exc:  # pragma: no cover - the checks above cover every shape
        raise fail(str(exc), "prompt") from None
    return LoadedCase(case=case, file=path, line=1, index=index)


def _got(entry: dict[str, Any], key: str) -> str:
    """What the eval holds at ``key``, quoted; "nothing" when the key is missing."""
    return shown(entry[key]) if key in entry else "nothing"


def _read_input_file(relative: str, skill: Skill, fail: Any) -> str:
    root = skill.directory.resolve()
    target = (skill.directory / relative).resolve()
    field = "files"
    inside = "name a file inside the skill directory, relative to it (e.g. evals/files/a.csv)"
    if not relative or Path(relative).is_absolute() or root not in target.parents:
        raise fail(f"{shown(relative)} is not a path inside the skill directory", field, inside)
    if not target.exists():
        raise fail(f"{shown(relative)} does not exist", field, inside)
    if target.is_dir():
        raise fail(
            f"{shown(relative)} is not a file",
            field,
            "list each file; a folder cannot seed a workspace",
        )
    kind = special_kind(target)
    if kind is not None:
        raise fail(f"{shown(relative)} is {kind}, not a regular file", field, REGULAR_FIX)
    if target.stat().st_size > MAX_FILE_BYTES:
        raise fail(
            f"{shown(relative)} is larger than {MAX_FILE_BYTES:,} bytes",
            field,
            "use a smaller input file",
        )
    try:
        data = read_regular(target)
    except AuthoringError as exc:  # swapped for a FIFO after the look above
        raise fail(f"{shown(relative)} {exc.problem}", field, REGULAR_FIX) from None
    except OSError as exc:
        raise fail(
            f"{shown(relative)} cannot be read: {exc.strerror or exc}", field, inside
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise fail(
            f"{shown(relative)} is not UTF-8 text", field, "only text files can seed a workspace"
        ) from None
