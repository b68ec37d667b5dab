"""A :class:`Conversion` written as a YAML eval file, the notes as comments beside each case.

A case with notes carries the placeholder in its ``tags:``, so the loader refuses the file
(naming the case) until the author has read the notes and deleted the tag. With
``check=True`` the placeholders are written as neutral values instead: that text is never
saved, it is what the file would be once resolved, and the loader's verdict on it says
whether anything else stands in the way.
"""

from __future__ import annotations

from .convert_model import ABSENT, Conversion, ConvertedCase, Note
from .json_input import one_line_json
from .yaml_emit import check_round_trip, comment, resolved, sequence_lines


def render_conversion(conversion: Conversion, source: str, *, check: bool = False) -> str:
    lines = [
        f"# Converted from {comment(source)} by pytest-skill-lens convert.",
    ]
    if conversion.marked:
        lines += [
            f"# {conversion.marked} case(s) below carry the tag TODO(skill-lens): the evals.json",
            "# said something there that no field of a case says exactly. Read the notes above",
            "# each such case, fold what matters into it (or drop it), then delete the notes",
            "# and the tag. The run refuses this file until no TODO(skill-lens) is left.",
        ]
    if conversion.declared_skill is not None:
        lines.append(
            f"# The evals.json names the skill {comment(repr(conversion.declared_skill))}."
        )
    if conversion.header_notes:
        lines.append("# TODO(skill-lens): its top level also held keys no eval file has:")
        lines += [_note_line(note, "") for note in conversion.header_notes]
    lines.append("cases:")
    for case in conversion.cases:
        lines.append("")
        lines += _case_lines(case, check)
    text = "\n".join(lines) + "\n"
    data = {"cases": [case.fields for case in conversion.cases]}
    check_round_trip(text, resolved(data, check=check) if check else data)
    return text


def _case_lines(case: ConvertedCase, check: bool) -> list[str]:
    lines = [f"  # from {comment(case.origin)}" + "".join(f"; {comment(i)}" for i in case.info)]
    if case.notes:
        lines.append("  # TODO(skill-lens): no field of a case says exactly what follows:")
        lines += [_note_line(note, "  ") for note in case.notes]
    lines += sequence_lines([case.fields], 2, check=check)
    return lines


def _note_line(note: Note, indent: str) -> str:
    if note.value is ABSENT:
        return f"{indent}#   {comment(note.key)} -- {comment(note.hint)}"
    shown = one_line_json(note.value)
    return f"{indent}#   {comment(note.key)}: {comment(shown)} -- {comment(note.hint)}"
