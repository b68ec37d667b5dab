"""Where an item's cassette lives, and the file itself: read strictly, written atomically.

One file per item (skill, case, runner, arm, repeat), so no two items ever write the
same file, whether they run on threads (``--skill-lens-concurrency``) or in xdist
processes, and no lock is needed. The text is JSON with sorted keys and two-space
indents, so a pull request shows what a re-recording changed line by line; nothing in
it is a secret by construction (no headers, no settings objects, no keys: endpoints
and models appear only as hashes in the key).

Reading never trusts the file: it is reached without following a link below its
root (:mod:`.place`), and it must be a regular file of at most :data:`MAX_BYTES`,
nested at most :data:`MAX_DEPTH` deep with at most :data:`MAX_VALUES` values (both
counted before it is parsed, so a small file cannot make a large parse), strict JSON
(no NaN), and the exact shape below, or the item is errored naming the file and what
is wrong (:class:`CassetteError`). Recording holds itself to the same bounds: what
it could not read back it does not write.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator

from .place import CassetteError as CassetteError
from .place import LinkRefused as LinkRefused
from .place import check_place as check_place
from .place import read_under, write_under

FORMAT: Literal[1] = (
    1  # the "cassette" field: a file of another format is refused, never guessed at
)
MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 100  # a recording nests ~15 levels, plus what a model nests in tool arguments
MAX_VALUES = 1_000_000  # entries of its lists and objects: what a parse holds in memory
MAX_CALLS = 1_000  # runner calls (one per session) and judge calls of one item
MAX_EXCHANGES = 1_000  # requests in one call (pydantic-ai stops a run at 50)
MAX_ERROR = 500  # characters of the error a not-recorded marker keeps (its first line)
SUFFIX = ".json"
Seat = Literal["runner", "judge"]
_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_SHA = r"^[0-9a-f]{64}$"
_TIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"
_COMMIT = r"^[0-9a-f]{40}([0-9a-f]{24})?$"  # SHA-1 or SHA-256
M = TypeVar("M", bound=BaseModel)
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class KeyEntry(_Strict):
    seat: Seat
    what: str  # what a miss calls it: "SKILL.md", "the returns: of mock tool lookup"
    sha256: Annotated[str, Field(pattern=_SHA)]
    # The value itself, where it is no secret and says more than a digest (a product's
    # version): a miss quotes it, a reviewer reads it.
    shown: str | None = None


class StoredFigures(_Strict):
    """What a call measured when it was recorded, replayed as recorded."""

    latency_ms: NonNegative | None = None
    cost_usd: NonNegative = 0.0
    cost_note: str | None = None
    retry_cost_usd: NonNegative = 0.0


class Exchange(_Strict):
    """One request and its response. ``sent`` holds the messages new since the previous
    request (the whole request is in ``request_sha256``); ``options`` the rest of the
    request, written only where it differs from the previous exchange's."""

    request_sha256: Annotated[str, Field(pattern=_SHA)]
    sent: list[JsonValue]
    options: dict[str, JsonValue] | None = None
    response: JsonValue


class StoredCall(_Strict):
    """One runner call (one session) or one judge call, and its final attempt's exchanges."""

    seat: Seat
    by: str  # the runner's or the judge's name
    recorded_at: Annotated[str, Field(pattern=_DATE)]
    figures: StoredFigures
    exchanges: Annotated[list[Exchange], Field(max_length=MAX_EXCHANGES)]


class NotRecorded(_Strict):
    """Why a recording run left no calls here: the case errored (``marker.py``)."""

    reason: Literal["errored"]
    error: Annotated[str, Field(max_length=MAX_ERROR)]  # the error's first line
    at: Annotated[str, Field(pattern=_DATE)]


class Origin(_Strict):
    """Where and when a reuse store's entry was recorded (``store.py``, docs/reuse.md):
    the commit the recording run had checked out (None: not a git checkout), in UTC."""

    commit: Annotated[str, Field(pattern=_COMMIT)] | None
    at: Annotated[str, Field(pattern=_TIME)]


class CassetteFile(_Strict):
    cassette: Literal[1]
    item: dict[str, JsonValue]  # for people reading the file; never compared
    key: dict[str, KeyEntry]
    calls: Annotated[list[StoredCall], Field(max_length=MAX_CALLS)]
    # A marker in a cassette's place: the case errored when it was recorded, so there
    # is nothing to replay, and a replay says so instead of "record it first".
    not_recorded: NotRecorded | None = None
    # Only in a reuse store's entry: which run recorded it, and when.
    origin: Origin | None = None

    @model_validator(mode="after")
    def _marker_holds_no_calls(self) -> CassetteFile:
        if self.not_recorded is not None and self.calls:
            raise ValueError("a not_recorded marker holds no calls")
        return self


def cassette_path(
    directory: Path, skill: str, case: str, runner: str, arm: str, repeat_index: int
) -> Path:
    """``<directory>/<skill>/<case>-<hash>.<runner>[.<arm>][.r<k>].json``.

    ``arm`` is ``candidate`` (no part), ``baseline`` (a run's one baseline arm) or
    ``baseline-<kind>`` (one of several, side by side), so each arm's file is its own.

    Names are made file-safe; the hash of the exact case name keeps two cases whose
    safe names agree ("a b" and "a-b") apart. Repeat k (from 1) shows from the second.
    """
    name = f"{_safe(case)}-{hashlib.sha256(case.encode()).hexdigest()[:8]}.{_safe(runner)}"
    if arm != "candidate":
        name += f".{_safe(arm)}"
    if repeat_index:
        name += f".r{repeat_index + 1}"
    return directory / _safe(skill) / (name + SUFFIX)


def _safe(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "x"


def read_cassette(path: Path, root: Path | None = None) -> CassetteFile | None:
    """The cassette at ``path``; ``None`` when there is none; :class:`CassetteError` if
    unusable. Nothing below ``root`` (by default the file's directory) may be a link."""
    data = read_under(path, path.parent if root is None else root, MAX_BYTES)
    return None if data is None else parse_cassette(data, path)


def parse_cassette(data: bytes, path: Path) -> CassetteFile:
    return parse_strict(data, path, CassetteFile)


def parse_strict(data: bytes, path: Path, model: type[M]) -> M:
    """``data`` read as ``model``, as a cassette is: bounded before it is parsed, strict
    JSON, the exact shape; :class:`CassetteError` naming ``path`` and the fault."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CassetteError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    problem = bulk_problem(text)
    if problem is not None:
        raise CassetteError(f"{path} {problem}")
    try:
        raw = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:  # JSONDecodeError, or a NaN refused
        line = getattr(exc, "lineno", None)
        where = f" at line {line}" if line else ""
        raise CassetteError(f"{path} is not valid JSON{where}: {_reason(exc)}") from None
    except RecursionError:
        raise CassetteError(f"{path} is nested too deeply to be read") from None
    if (
        model is CassetteFile
        and isinstance(raw, dict)
        and raw.get("cassette") not in (None, FORMAT)
    ):
        raise CassetteError(
            f"{path} is cassette format {raw.get('cassette')!r}; this version reads format "
            f"{FORMAT} only"
        )
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise CassetteError(f"{path} has the wrong shape: {shape_error(exc)}") from None
    except RecursionError:
        raise CassetteError(f"{path} is nested too deeply to be read") from None


def shape_error(exc: ValidationError) -> str:
    """The first fault pydantic found, where it is and what: one line, never the value."""
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in error["loc"]) or "the top level"
    return f"{where}: {error['msg']}"


def write_cassette(path: Path, cassette: CassetteFile, root: Path | None = None) -> None:
    """Write ``cassette`` in one rename (a reader never sees half a file), never through a
    link below ``root`` (by default the file's directory). Raises ``ValueError`` when it
    is more than a cassette may be (replay would refuse it), :class:`LinkRefused` or
    ``OSError``."""
    text = render(cassette)
    data = text.encode("utf-8")
    if len(data) > MAX_BYTES:
        raise ValueError(f"it would be {len(data):,} bytes, more than a cassette may be")
    problem = bulk_problem(text)
    if problem is not None:
        raise ValueError(f"it {problem}")
    write_under(path, path.parent if root is None else root, data)


def cassette_root(path: Path, *, named: bool) -> Path:
    """The directory ``path`` (from :func:`cassette_path`) is trusted down to: the one
    you ``named`` (``--skill-lens-cassettes``, ``cassettes`` in skill-lens.toml);
    else the skill's directory, when the eval file lies in its ``evals/`` (a skill
    ships that directory, so it may be a link), else the eval file's own directory
    (the skill's, or one you named with ``--skill-lens-evals``)."""
    if named:
        return path.parents[1]
    evals = path.parents[2]
    if evals.name == "evals" and (evals.parent / "SKILL.md").is_file():
        return evals.parent
    return evals


# A JSON string, or an unterminated one to the end: possessive, so nothing is retried.
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+\\?(?:"|\Z)', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def bulk_problem(text: str) -> str | None:
    """What makes JSON ``text`` too much to parse (too deep, too many values), counted
    on its structure with every string taken out, so no parse is needed to tell."""
    bare = _STRING.sub("", text)
    values = bare.count(",") + bare.count("[") + bare.count("{")
    if values > MAX_VALUES:
        return f"holds more than {MAX_VALUES:,} JSON values (entries of its lists and objects)"
    depth = 0
    for bracket in _BRACKET.finditer(bare):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > MAX_DEPTH:
            return f"is nested more than {MAX_DEPTH} levels deep"
    return None


def render(cassette: CassetteFile) -> str:
    data = cassette.model_dump(mode="json")
    for optional in ("not_recorded", "origin"):
        if data[optional] is None:
            del data[optional]  # a cassette's text is as it was before these existed
    for entry in data["key"].values():
        if entry.get("shown") is None:
            del entry["shown"]  # most parts show nothing: a null on each would be noise
    text = json.dumps(
        data,
        indent=2,
        sort_keys=True,
        ensure_ascii=False,
        allow_nan=False,
    )
    # A lone surrogate (a model may send one, escaped) cannot be UTF-8: keep it escaped.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


_SURROGATE = re.compile("[\ud800-\udfff]")


def canonical(value: Any) -> str:
    """The one text of ``value`` every digest is taken of: sorted keys, no spaces."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def digest(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _reason(exc: ValueError) -> str:
    message = getattr(exc, "msg", None)
    return str(message if message is not None else exc)


def plain(value: Any) -> Any:
    """``value`` as JSON data: a type stands as its name, anything else not JSON as its
    type's name (never a repr, which may hold a memory address or a secret)."""
    return json.loads(json.dumps(value, default=_stand_in, allow_nan=False))


def without_nulls(value: Any) -> Any:
    """``value`` with every mapping entry whose value is null left out, at any depth.

    What the file shows of a request is for people (the request itself is compared
    by its digest); a response is stored this way only where it reads back the same.
    """
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def _stand_in(value: Any) -> str:
    if isinstance(value, type):
        return f"<{value.__module__}.{value.__qualname__}>"
    return f"<{type(value).__name__}>"
