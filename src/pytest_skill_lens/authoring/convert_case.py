"""One ``evals.json`` entry as a YAML case: what has a meaning is mapped, the rest is noted.

Mapped exactly: ``name`` (else ``id`` as ``eval-<id>``, as the loader names it), the prompt
(``prompt``, or ``query``/``task`` as trigger sets spell it), ``should_trigger`` (``mode:
offered`` with ``trajectory.skill_triggered``), ``tags``, ``files`` (read into
``workspace.files``), ``expected_output`` (``judge.expected``), statements in
``assertions``/``expectations`` (``judge.rubric`` lines) and assertion objects whose meaning
is a kind of ours (``{"type": "contains", "value": ...}``) or a statement for the judge
(``{"type": "llm_judge", "description": ...}``). Anything else is a :class:`Note`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .convert_files import read_files
from .convert_model import ABSENT, ConvertedCase, Note
from .yaml_emit import Todo

TASK_KEYS = ("prompt", "query", "task")
STATEMENT_KEYS = ("assertions", "expectations")
# Assertion objects whose type is one of our kinds, compared exactly as ours are.
EXACT_KINDS = {
    "contains": "contains",
    "not_contains": "not_contains",
    "not-contains": "not_contains",
    "regex": "regex",
    "equals": "equals",
}
# Assertion objects that are a statement for a judge to grade.
JUDGED_KINDS = {"llm_judge", "llm-judge", "llm", "judge", "rubric", "model_graded"}
STATEMENT_TEXT_KEYS = ("description", "text", "statement", "assertion", "criterion", "check")
MARKER_NOTE = "resolve the notes above this case, then delete this tag"

# What authors usually do with a key that has no field of its own.
HINTS = {
    "category": "a tag (under tags:) if you select cases by it, else drop it",
    "context": "fold it into task: if the agent must see it, else drop it",
    "expected_behavior": "grade it: write it as judge: rubric lines, one statement each",
    "expected_behaviour": "grade it: write it as judge: rubric lines, one statement each",
    "description": "a comment, or fold it into the case name",
    "difficulty": "a tag (under tags:) if you select cases by it, else drop it",
}
GENERIC_HINT = "no field of a case says this: fold it into the case, or drop it"
_MAPPED = {"name", "id", "should_trigger", "tags", "files", "expected_output"}
_MAPPED |= {*TASK_KEYS, *STATEMENT_KEYS}


def convert_entry(
    origin: str,
    raw: Any,
    *,
    trigger: bool | None,
    fallback_name: str,
    skill_dir: Path | None,
) -> ConvertedCase:
    """The case for one entry. ``trigger`` is the ``should_trigger`` its block implies
    (a ``should_not_trigger`` list), ``fallback_name`` the name when it gives none."""
    if isinstance(raw, str) and trigger is not None:
        raw = {"query": raw}  # a trigger list of bare prompts
    if not isinstance(raw, dict):
        return ConvertedCase(
            origin,
            {"name": fallback_name, "task": Todo("resolved task"), "tags": [marker()]},
            (Note("(the entry)", raw, "an eval is a JSON object: write this case by hand"),),
            generated=True,
        )
    notes: list[Note] = []
    info: list[str] = []
    name = _name(raw, notes, info)
    fields: dict[str, Any] = {"name": name or fallback_name}
    triggered = _trigger(raw, trigger, notes)
    if triggered is not None:
        fields["mode"] = "offered"
    fields["task"] = _task(raw, notes)
    tags = _tags(raw, notes)
    workspace = _workspace(raw, skill_dir, notes)
    assertions, rubric = _statements(raw, notes)
    expected = _text(raw, "expected_output", notes)
    for key in sorted(set(raw) - _MAPPED):
        notes.append(Note(key, raw[key], HINTS.get(key, GENERIC_HINT)))
    if workspace is not None:
        fields["workspace"] = {"files": workspace}
    if assertions:
        fields["assertions"] = assertions
    if triggered is not None:
        fields["trajectory"] = {"skill_triggered": triggered}
    if expected is not None and not rubric:
        rubric = [f"The output satisfies: {expected}"]  # as the loader reads evals.json
    if rubric:
        fields["judge"] = (
            {"expected": expected, "rubric": rubric} if expected else {"rubric": rubric}
        )
    if not (assertions or rubric or triggered is not None):  # it would pass, whatever happened
        notes.append(
            Note(
                "(checks)",
                ABSENT,
                "nothing to check: add assertions: or a judge: rubric, or the case passes "
                "whatever the agent does",
            )
        )
    if notes:
        tags.append(marker())
    if tags:
        fields = with_tags(fields, tags)
    return ConvertedCase(origin, fields, tuple(notes), tuple(info), generated=name is None)


def marker() -> Todo:
    return Todo(neutral="skill-lens-converted", note=MARKER_NOTE)


def with_tags(fields: dict[str, Any], tags: list[Any]) -> dict[str, Any]:
    """``fields`` with ``tags`` right after the task, where a reader looks first."""
    ordered: dict[str, Any] = {}
    for key, value in fields.items():
        ordered[key] = value
        if key == "task":
            ordered["tags"] = tags
    return ordered


def _name(raw: dict[str, Any], notes: list[Note], info: list[str]) -> str | None:
    """The case name the entry gives (its ``name``, else ``eval-<id>``), or ``None``."""
    name, raw_id = raw.get("name"), raw.get("id")
    usable_id = (
        isinstance(raw_id, int | str) and not isinstance(raw_id, bool) and str(raw_id).strip()
    )
    if "id" in raw and not usable_id:
        notes.append(Note("id", raw_id, "an id is an integer or a non-empty string"))
    if isinstance(name, str) and name.strip():
        if usable_id:
            info.append(f"evals.json id: {raw_id}")
        return name
    if "name" in raw:
        notes.append(Note("name", name, "a case name is non-empty text: name the case"))
    return f"eval-{raw_id}" if usable_id else None


def _trigger(raw: dict[str, Any], implied: bool | None, notes: list[Note]) -> bool | None:
    if "should_trigger" not in raw:
        return implied
    value = raw["should_trigger"]
    if isinstance(value, bool):
        if implied is not None and value != implied:
            notes.append(
                Note("should_trigger", value, "it contradicts the list the entry is in: pick one")
            )
        return value
    notes.append(Note("should_trigger", value, "should_trigger is true or false"))
    return implied


def _task(raw: dict[str, Any], notes: list[Note]) -> Any:
    given = [key for key in TASK_KEYS if key in raw]
    usable = [key for key in given if isinstance(raw[key], str) and raw[key].strip()]
    for key in given:
        if key not in usable:
            notes.append(Note(key, raw[key], "a prompt is non-empty text"))
    for key in usable[1:]:
        if raw[key] != raw[usable[0]]:
            notes.append(
                Note(key, raw[key], f"a second prompt beside {usable[0]}: keep one as the task")
            )
    if usable:
        return raw[usable[0]]
    if not given:
        notes.append(Note("prompt", ABSENT, "the entry has no prompt: write the task"))
    return Todo("resolved task")


def _tags(raw: dict[str, Any], notes: list[Note]) -> list[Any]:
    tags = raw.get("tags")
    if tags is None:
        return []
    if isinstance(tags, list) and all(isinstance(tag, str) and tag.strip() for tag in tags):
        return list(tags)
    notes.append(Note("tags", tags, "tags are a list of non-empty strings"))
    return []


def _workspace(
    raw: dict[str, Any], skill_dir: Path | None, notes: list[Note]
) -> dict[str, str] | None:
    files = raw.get("files")
    if files is None or files == []:
        return None
    if not isinstance(files, list) or not all(isinstance(path, str) for path in files):
        notes.append(
            Note("files", files, "files are a list of paths relative to the skill directory")
        )
        return None
    read = read_files(files, skill_dir)
    notes.extend(read.notes)
    return read.files


def _text(raw: dict[str, Any], key: str, notes: list[Note]) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, str) and value.strip():
        return value
    notes.append(Note(key, value, f"{key} is non-empty text"))
    return None


def _statements(raw: dict[str, Any], notes: list[Note]) -> tuple[list[dict[str, Any]], list[str]]:
    """The exact assertions and the rubric lines of ``assertions`` and ``expectations``."""
    assertions: list[dict[str, Any]] = []
    rubric: list[str] = []
    for key in STATEMENT_KEYS:
        if key not in raw:
            continue
        value = raw[key]
        if isinstance(value, str) and value.strip():
            rubric.append(value)
            continue
        if not isinstance(value, list):
            notes.append(Note(key, value, "a list of statements, or of assertion objects"))
            continue
        for index, item in enumerate(value):
            mapped = _statement(item)
            if isinstance(mapped, str):
                rubric.append(mapped)
            elif mapped is not None:
                assertions.append(mapped)
            else:
                notes.append(Note(f"{key}[{index}]", item, _statement_hint(item)))
    return assertions, rubric


def _statement(item: Any) -> str | dict[str, Any] | None:
    """A rubric line, an assertion of ours, or ``None`` when neither says it exactly."""
    if isinstance(item, str):
        return item if item.strip() else None
    if not isinstance(item, dict):
        return None
    kind_keys = [key for key in ("type", "kind") if key in item]
    if len(kind_keys) > 1:
        return None
    kind = item.get(kind_keys[0]) if kind_keys else None
    rest = set(item) - set(kind_keys)
    if isinstance(kind, str) and kind in EXACT_KINDS:
        value = item.get("value")
        if rest == {"value"} and isinstance(value, str) and value != "":
            return {"kind": EXACT_KINDS[kind], "value": value}
        return None
    if kind is None or (isinstance(kind, str) and kind in JUDGED_KINDS):
        texts = [key for key in STATEMENT_TEXT_KEYS if key in rest]
        if len(texts) == 1 and rest == set(texts):
            text = item[texts[0]]
            if isinstance(text, str) and text.strip():
                return text
    return None


def _statement_hint(item: Any) -> str:
    if isinstance(item, dict):
        return (
            "no kind of ours says this exactly: write it as an assertion (contains, regex, "
            "json-schema, ...) or a judge: rubric line"
        )
    return "a statement is non-empty text"
