"""Where an item's cassette lives, and the file itself: read strictly, written atomically.

One file per item (skill, case, runner, arm, repeat), so no two items ever write the
same file, whether they run on threads (``--skill-lens-concurrency``) or in xdist
processes, and no lock is needed. The text is JSON with sorted keys and two-space
indents, so a pull request shows what a re-recording changed line by line; nothing in
it is a secret by construction (no headers, no settings objects, no keys: endpoints
and models appear only as hashes in the key).

Reading never trusts the file: it must be a regular file under :data:`MAX_BYTES`,
strict JSON (no NaN), and the exact shape below, or the item is errored naming the
file and what is wrong (:class:`CassetteError`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from ...atomic_file import write_atomically
from ...suite.errors import AuthoringError
from ...suite.regular_files import read_regular

FORMAT: Literal[1] = (
    1  # the "cassette" field: a file of another format is refused, never guessed at
)
MAX_BYTES = 64 * 1024 * 1024
SUFFIX = ".json"
Seat = Literal["runner", "judge"]
_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_SHA = r"^[0-9a-f]{64}$"
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class CassetteError(Exception):
    """A cassette that cannot be used as it is: unreadable, not JSON, or the wrong shape."""


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
    exchanges: list[Exchange]


class CassetteFile(_Strict):
    cassette: Literal[1]
    item: dict[str, JsonValue]  # for people reading the file; never compared
    key: dict[str, KeyEntry]
    calls: list[StoredCall]


def cassette_path(
    directory: Path, skill: str, case: str, runner: str, arm: str, repeat_index: int
) -> Path:
    """``<directory>/<skill>/<case>-<hash>.<runner>[.baseline][.r<k>].json``.

    Names are made file-safe; the hash of the exact case name keeps two cases whose
    safe names agree ("a b" and "a-b") apart. Repeat k (from 1) shows from the second.
    """
    name = f"{_safe(case)}-{hashlib.sha256(case.encode()).hexdigest()[:8]}.{_safe(runner)}"
    if arm == "baseline":
        name += ".baseline"
    if repeat_index:
        name += f".r{repeat_index + 1}"
    return directory / _safe(skill) / (name + SUFFIX)


def _safe(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "x"


def read_cassette(path: Path) -> CassetteFile | None:
    """The cassette at ``path``; ``None`` when there is none; :class:`CassetteError` if unusable."""
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        if os.path.islink(path):
            raise CassetteError(f"{path} is a broken symbolic link") from None
        return None
    except OSError as exc:
        raise CassetteError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if size > MAX_BYTES:
        raise CassetteError(
            f"{path} is {size:,} bytes, more than a cassette may be ({MAX_BYTES:,})"
        )
    try:
        data = read_regular(path)
    except AuthoringError as exc:  # a FIFO, a device: refused before it is opened
        raise CassetteError(f"{path} {exc.problem}") from None
    except OSError as exc:
        raise CassetteError(f"{path} cannot be read: {exc.strerror or exc}") from None
    return parse_cassette(data, path)


def parse_cassette(data: bytes, path: Path) -> CassetteFile:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CassetteError(f"{path} is not UTF-8 text (byte {exc.start})") from None
    try:
        raw = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:  # JSONDecodeError, or a NaN refused
        line = getattr(exc, "lineno", None)
        where = f" at line {line}" if line else ""
        raise CassetteError(f"{path} is not valid JSON{where}: {_reason(exc)}") from None
    except RecursionError:
        raise CassetteError(f"{path} is nested too deeply to be read") from None
    if isinstance(raw, dict) and raw.get("cassette") not in (None, FORMAT):
        raise CassetteError(
            f"{path} is cassette format {raw.get('cassette')!r}; this version reads format "
            f"{FORMAT} only"
        )
    try:
        return CassetteFile.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in error["loc"]) or "the top level"
        raise CassetteError(f"{path} has the wrong shape: {where}: {error['msg']}") from None
    except RecursionError:
        raise CassetteError(f"{path} is nested too deeply to be read") from None


def write_cassette(path: Path, cassette: CassetteFile) -> None:
    """Write ``cassette`` in one rename (a reader never sees half a file); raises OSError."""
    write_atomically(path, render(cassette))


def render(cassette: CassetteFile) -> str:
    data = cassette.model_dump(mode="json")
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
