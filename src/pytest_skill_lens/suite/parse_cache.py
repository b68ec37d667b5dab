"""A cache of parsed eval files, keyed by their content, like Python's bytecode cache.

Reading 5,000 YAML cases costs most of a collection. IDEs re-collect on every
save, so the plugin keeps each eval file's checked cases in pytest's cache
directory and reuses them while the file's text, its path, the skill's name
and this package's version are unchanged. A file that imports tool libraries
depends on other files too and is always read afresh; so is ``evals.json``.
Only files that loaded cleanly are cached: an authoring error is found anew
every time.

``.pytest_cache`` is often restored from a CI cache other jobs wrote, so an
entry is data only (JSON, read back through the same pydantic models, so it
can never run code), and it is sealed with an HMAC under a key private to
this user, kept outside the project (:func:`user_secret`). An entry that is
missing, garbled, mistyped or sealed with another key is a miss: the file is
parsed again. Without a trusted key nothing is cached.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import sys
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from .. import __version__
from ..atomic_file import write_atomically
from .field_lines import LinesInFile
from .loaded import LoadedCase
from .model import EvalCase

KEY_FILE = Path("pytest-skill-lens") / "parse-cache.key"
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # far above any eval file's; a planted giant is a miss
FORMAT = 3  # what an entry holds; part of its key, so an older entry is a miss


class _CachedCase(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    case: EvalCase
    line: Annotated[StrictInt, Field(ge=1)]
    index: Annotated[StrictInt, Field(ge=0)]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    key: StrictStr
    cases: list[_CachedCase]


def seal(secret: bytes, payload: bytes) -> bytes:
    """An entry as stored: the payload's HMAC-SHA256 (hex), a newline, the payload."""
    return hmac.new(secret, payload, hashlib.sha256).hexdigest().encode() + b"\n" + payload


def _unseal(secret: bytes, data: bytes) -> bytes | None:
    mac, newline, payload = data.partition(b"\n")
    expected = hmac.new(secret, payload, hashlib.sha256).hexdigest().encode()
    if not newline or not hmac.compare_digest(mac, expected):
        return None
    return payload


class ParseCache:
    """One slot per eval file path, holding the cases of the last text seen there.

    ``secret`` seals the entries; by default it is this user's key
    (:func:`user_secret`), read on first use.
    """

    def __init__(self, directory: Path, secret: bytes | None = None) -> None:
        self.directory = directory
        self._secret = secret
        self._secret_read = secret is not None

    def _key_bytes(self) -> bytes | None:
        if not self._secret_read:
            self._secret = user_secret()
            self._secret_read = True
        return self._secret

    def _slot(self, path: Path) -> Path:
        return self.directory / (hashlib.sha256(str(path).encode()).hexdigest()[:32] + ".json")

    @staticmethod
    def key_for(path: Path, skill_name: str, text: str) -> str:
        """What an entry must be stored under to be served for this file's text."""
        digest = hashlib.sha256(f"{__version__}\0{FORMAT}\0{path}\0{skill_name}\0".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def get(self, path: Path, skill_name: str, text: str) -> list[LoadedCase] | None:
        secret = self._key_bytes()
        if secret is None:
            return None
        try:
            slot = self._slot(path)
            if slot.stat().st_size > MAX_ENTRY_BYTES:
                return None
            payload = _unseal(secret, slot.read_bytes())
            if payload is None:
                return None
            entry = _Entry.model_validate_json(payload)
        except (OSError, ValueError, RecursionError):  # ValidationError is a ValueError
            return None  # missing, unreadable, garbled or mistyped: read the file instead
        if not hmac.compare_digest(entry.key, self.key_for(path, skill_name, text)):
            return None
        return [
            LoadedCase(
                case=c.case,
                file=path,
                line=c.line,
                index=c.index,
                field_lines=LinesInFile(path, c.index, c.line),
            )
            for c in entry.cases
        ]

    def put(self, path: Path, skill_name: str, text: str, cases: list[LoadedCase]) -> None:
        secret = self._key_bytes()
        if secret is None:
            return
        entry = _Entry(
            key=self.key_for(path, skill_name, text),
            cases=[_CachedCase(case=c.case, line=c.line, index=c.index) for c in cases],
        )
        payload = entry.model_dump_json().encode()
        try:
            if _Entry.model_validate_json(payload) != entry:
                return  # a value JSON cannot carry as it is (a number as a mapping key)
        except ValidationError:
            return
        # Atomic: xdist workers may write the same slot. A slot that cannot be written
        # only costs speed.
        with contextlib.suppress(OSError):
            write_atomically(self._slot(path), seal(secret, payload))


def user_secret() -> bytes | None:
    """This user's parse-cache key, made on first use; ``None`` when none can be trusted.

    It lives in the user's cache directory (``$XDG_CACHE_HOME``, else
    ``~/.cache``; ``%LOCALAPPDATA%`` on Windows), never in the project, so a
    restored ``.pytest_cache`` comes without it. On POSIX a key file another
    user owns, or that others may read or write, is not used.
    """
    path = _key_path()
    if path is None:
        return None
    secret = _read_key(path)
    if secret is None:
        _create_key(path)
        secret = _read_key(path)
    return secret


def _key_path() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not base and sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA", "")
    if base and Path(base).is_absolute():
        return Path(base) / KEY_FILE
    try:
        return Path.home() / ".cache" / KEY_FILE
    except RuntimeError:  # no home directory to be found
        return None


def _read_key(path: Path) -> bytes | None:
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if hasattr(os, "getuid"):
            status = os.fstat(descriptor)
            if status.st_uid != os.getuid() or status.st_mode & 0o077:
                return None
        text = os.read(descriptor, 129)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    try:
        secret = bytes.fromhex(text.decode("ascii").strip())
    except ValueError:
        return None
    return secret if len(secret) >= 32 else None


def _create_key(path: Path) -> None:
    """Write a new key where none is; a concurrent writer's key wins (link, not replace)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(temporary, flags, 0o600)
        try:
            os.write(descriptor, secrets.token_hex(32).encode("ascii"))
        finally:
            os.close(descriptor)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process made one first: everyone uses that one
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(temporary, path)
    except OSError:
        pass  # no key: no cache, only slower
    finally:
        temporary.unlink(missing_ok=True)
