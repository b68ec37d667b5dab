"""A cache of parsed eval files, keyed by their content, like Python's bytecode cache.

Reading 5,000 YAML cases costs most of a collection. IDEs re-collect on every
save, so the plugin keeps each eval file's checked cases in pytest's cache
directory and reuses them while the file's text, its path, the skill's name
and this package's version are unchanged. A file that imports tool libraries
depends on other files too and is always read afresh; so is ``evals.json``.
Only files that loaded cleanly are cached: an authoring error is found anew
every time.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from .. import __version__
from .suite import LoadedCase


class ParseCache:
    """One slot per eval file path, holding the cases of the last text seen there."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _slot(self, path: Path) -> Path:
        return self.directory / (hashlib.sha256(str(path).encode()).hexdigest()[:32] + ".pickle")

    @staticmethod
    def _key(path: Path, skill_name: str, text: str) -> str:
        digest = hashlib.sha256(f"{__version__}\0{path}\0{skill_name}\0".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def get(self, path: Path, skill_name: str, text: str) -> list[LoadedCase] | None:
        try:
            with self._slot(path).open("rb") as handle:
                key, cases = pickle.load(handle)
        except Exception:  # missing, unreadable or from another version: read the file instead
            return None
        if key != self._key(path, skill_name, text) or not isinstance(cases, list):
            return None
        return cases

    def put(self, path: Path, skill_name: str, text: str, cases: list[LoadedCase]) -> None:
        slot = self._slot(path)
        temporary = slot.with_suffix(f".{os.getpid()}.tmp")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with temporary.open("wb") as handle:
                pickle.dump((self._key(path, skill_name, text), cases), handle, protocol=5)
            os.replace(temporary, slot)  # atomic: xdist workers may write the same slot
        except Exception:  # a cache that cannot be written only costs speed
            temporary.unlink(missing_ok=True)
