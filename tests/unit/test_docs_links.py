"""The README and docs hold together: every relative link and anchor resolves, every page
is reachable from the README, and every flag of the skill-lens group is documented.

Links are read with markdown-it-py (so a link inside a code block is text, as on GitHub),
and headings get their anchors from mdit-py-plugins' GitHub-style slugs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted([README, *(ROOT / "docs").glob("*.md")])
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:
_HTML_ID = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")


@cache
def _tokens(page: Path) -> list[Token]:
    parser = MarkdownIt("commonmark").enable("table").use(anchors_plugin, max_level=6)
    return parser.parse(page.read_text(encoding="utf-8"))


@cache
def _anchors(page: Path) -> frozenset[str]:
    headings = (t for t in _tokens(page) if t.type == "heading_open" and "id" in t.attrs)
    ids = {str(t.attrs["id"]) for t in headings}
    ids.update(_HTML_ID.findall(page.read_text(encoding="utf-8")))
    return frozenset(ids)


def _links(page: Path) -> Iterator[tuple[int, str]]:
    """(line, target) of every link and image in ``page``, code blocks left out."""
    for token in _tokens(page):
        line = token.map[0] + 1 if token.map else 0
        for child in token.children or ():
            if child.type == "link_open":
                yield line, str(child.attrs["href"])
            elif child.type == "image":
                yield line, str(child.attrs["src"])


def _local(page: Path, target: str) -> tuple[Path, str] | None:
    """The file and anchor a relative link points at; ``None`` for an external one."""
    if _EXTERNAL.match(target):
        return None
    path, _, anchor = target.partition("#")
    return (page if not path else (page.parent / unquote(path)).resolve()), unquote(anchor)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for line, target in _links(page):
        local = _local(page, target)
        if local is None:
            continue
        path, anchor = local
        if not path.exists():
            broken.append(f"{page.name}:{line}: {target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{page.name}:{line}: {target} (no heading has that anchor)")
    assert not broken, "\n".join(broken)


def test_the_readme_links_every_docs_page() -> None:
    linked = {local[0] for _, target in _links(README) if (local := _local(README, target))}
    unlinked = [p.relative_to(ROOT).as_posix() for p in PAGES if p not in linked | {README}]
    assert not unlinked, f"README.md links none of: {', '.join(unlinked)}"


def _skill_lens_flags() -> list[str]:
    """Every flag ``pytest --help`` lists in the skill-lens group."""
    shown = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:randomly"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    section = shown.split("evaluate Agent Skills (pytest-skill-lens):", 1)[1]
    section = re.split(r"\n\S", section, maxsplit=1)[0]  # up to the next group's title
    return sorted(set(re.findall(r"^\s+(--skill-lens[a-z0-9-]*)", section, re.MULTILINE)))


def test_every_flag_is_in_the_configuration_table() -> None:
    flags = _skill_lens_flags()
    assert "--skill-lens" in flags and "--skill-lens-runner" in flags  # the parse found them
    table = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `(--skill-lens[a-z0-9-]*)", table, re.MULTILINE))
    missing = [flag for flag in flags if flag not in documented]
    assert not missing, f"docs/configuration.md has no table row for: {', '.join(missing)}"
