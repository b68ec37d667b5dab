"""A YAML syntax error in words the author can act on.

libyaml's messages name the parser's state ("found character that cannot start any
token"), not the character; the text at the error's mark tells what happened.
"""

from __future__ import annotations

from .quoting import escaped


def _hint(problem: str) -> str | None:
    if "alias" in problem or "anchor" in problem:
        return "quote a value that starts with '*' or '&', e.g. file_glob: \"*.md\""
    if "flow" in problem or "expected ',' or ']'" in problem:
        return "quote a value that starts with '[' or '{', e.g. file_glob: \"[a-c].md\""
    return (
        "check the indentation and quoting at that line; quote a value that starts with "
        "'*', '&', '[' or '{', or holds ': '"
    )


def explained(problem: str, text: str, line: int | None, column: int) -> tuple[str, str | None]:
    """What went wrong in words the author can act on, and the fix.

    libyaml's messages name the parser's state, not the character: the text at the
    mark tells a tab in the indentation and a backslash escape YAML does not know
    (a regex such as "\\d" in double quotes) from the rest.
    """
    lines = text.splitlines()
    row = lines[line - 1] if line is not None and 0 < line <= len(lines) else ""
    at = row[column : column + 2]
    indentation = row[: len(row) - len(row.lstrip(" \t-"))]
    if at.startswith("\t") or ("\t" in indentation and column <= len(indentation)):
        return (
            "a tab character in the indentation (YAML indents with spaces only)",
            "replace the tab with spaces; many editors have a setting that inserts spaces "
            "for the Tab key",
        )
    if "escape" in problem and at.startswith("\\"):
        return (
            f"the escape {escaped(at)} in a double-quoted value is not one YAML knows",
            "single-quote the value so backslashes stay as written (value: '\\d+'), or "
            'double the backslash inside double quotes ("\\\\d+")',
        )
    return problem, _hint(problem)
