"""A docstring's relative cross-reference names a module that exists.

``:mod:`..process.start``` and the like are how the source points a reader at the code
that does the rest; a module moved into a folder leaves every such pointer one level
short, and nothing else notices.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest_skill_lens

PACKAGE = Path(pytest_skill_lens.__file__).parent
REFERENCE = re.compile(r":(?:mod|func|class|meth|attr|data|exc):`~?(\.+)([\w.]+)`")


def test_every_relative_reference_names_a_module_of_the_package() -> None:
    broken = [
        f"{path.relative_to(PACKAGE)}:{text[: found.start()].count(chr(10)) + 1}: {found[0]}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
        for found in REFERENCE.finditer(text)
        if not _resolves(path, len(found[1]), found[2].split("."), text)
    ]
    assert broken == []


def _resolves(path: Path, level: int, names: list[str], text: str) -> bool:
    package = list(path.relative_to(PACKAGE).parent.parts)
    base = PACKAGE.joinpath(*package[: len(package) - level + 1])
    for count in range(len(names), 0, -1):
        module = base.joinpath(*names[:count])
        if module.with_suffix(".py").is_file() or (module / "__init__.py").is_file():
            return True
    # ``:meth:`.Tape.record``` names something of the module itself.
    own = re.compile(rf"^(?:class|def) {re.escape(names[0])}\b|^{re.escape(names[0])}\b", re.M)
    return level == 1 and own.search(text) is not None
