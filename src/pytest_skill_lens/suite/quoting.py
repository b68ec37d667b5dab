"""The author's own values, quoted in a message so they reach the terminal safely.

A message quotes what the author wrote (the pattern, the path, the tool's name),
because that is what they search their file for. The value is untrusted: it may be
a megabyte long or hold a terminal escape. :func:`shown` quotes it the way ``repr``
does, which escapes every character no reader can see (controls, bidi overrides,
a lone surrogate), and cuts it to a length a line can hold. :func:`escaped` does the
same for text that is not quoted, such as a path or a library's own message.

``report/printable.py`` does the same job for the reports; ``suite/`` cannot import
``report/``, and a message wants the escapes an author can type back, not pictures.
"""

from __future__ import annotations

SHOWN_LIMIT = 120
"""How many characters of a quoted value a message shows."""


def shown(value: object, limit: int = SHOWN_LIMIT) -> str:
    """``value`` quoted for a message: ``repr``'s escapes, at most ``limit`` characters of it."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    text = repr(value)  # a number, or a mapping such as a when: block
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def escaped(text: str, limit: int | None = None) -> str:
    """``text`` with each character a reader cannot see escaped as ``repr`` would, cut to
    ``limit`` characters when one is given (a path may hold anything but ``/`` and NUL)."""
    if limit is not None and len(text) > limit:
        text = text[:limit] + f"... ({len(text):,} characters)"
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def naming(problem: str, value: str) -> str:
    """``problem`` about a path or pattern, with the value quoted where it reads best.

    ``the path is absolute; ...`` becomes ``the path '/etc/hosts' is absolute; ...``; a
    problem with another subject (``'**' is not supported``) gets the value at its end.
    """
    for subject in ("the path ", "the pattern "):
        if problem.startswith(subject):
            return f"{subject}{shown(value)} {problem.removeprefix(subject)}"
    return f"{problem} (in {shown(value)})"
