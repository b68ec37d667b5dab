"""``pytest-skill-lens convert PATH/evals.json [-o OUT] [--force] [--replace]``: the YAML
eval file an ``evals.json`` in another layout means.

What has a meaning is mapped (``authoring/convert_case.py``); everything else is kept as a
comment beside its case, and the case is tagged ``TODO(skill-lens)`` so the run refuses the
file until the author has resolved it. The result is then read by the loader a run uses,
as it would be once resolved, together with the skill's other eval files. With
``--replace`` the ``evals.json`` is then renamed ``evals.json.converted`` beside it, so
discovery no longer reads both (the bundle never ships that name either).

Exit 0 when the file was written and loads once its notes are resolved; 1 when it was
written but the loader refuses it for another reason (printed); 2 when nothing was written
(the input cannot be read or holds no evals, the output exists without ``--force``, or
``--replace`` cannot move the input aside).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ..authoring.convert_model import Conversion
from ..authoring.convert_render import render_conversion
from ..authoring.convert_shapes import convert_document
from ..authoring.json_input import InputError, parse_json
from ..authoring.yaml_emit import EmitError
from ..suite.discovery import SKILL_FILE, eval_files_for
from ..suite.errors import AuthoringError
from ..suite.loader import load_suite, load_yaml_eval_file
from ..suite.regular_files import read_regular
from ..suite.skill import Skill, load_skill
from .output import EXIT_OK, cause, print_document, refuse, say, write_new

PROG = "pytest-skill-lens convert"
EXIT_DOES_NOT_LOAD = 1
ASIDE_SUFFIX = ".converted"  # evals.json.converted: read by no discovery, shipped by no bundle
_NAMES_SHOWN = 10


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Write the YAML eval file an evals.json in another layout means; what "
        "no case field says is kept as a TODO(skill-lens) note beside its case.",
    )
    parser.add_argument("source", metavar="PATH", help="an evals.json (or a skill holding one)")
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="where to write (default: <name>.eval.yaml beside it; - for stdout)",
    )
    parser.add_argument("--force", action="store_true", help="replace OUT if it exists")
    parser.add_argument(
        "--replace",
        action="store_true",
        help=f"once OUT is written, move PATH aside to <PATH>{ASIDE_SUFFIX} so discovery "
        "reads only OUT",
    )
    options = parser.parse_args(argv)
    try:
        source = _source(Path(options.source))
        value = parse_json(_read(source), str(source))
        skill = _skill_of(source)
        conversion = convert_document(value, str(source), skill.directory if skill else None)
        text = render_conversion(conversion, str(source))
        resolved_text = render_conversion(conversion, str(source), check=True)
    except InputError as exc:
        return refuse(PROG, exc.message, exc.fix)
    except AuthoringError as exc:  # the skill's own SKILL.md does not parse
        place = exc.where.render()
        return refuse(PROG, f"{place}: {exc.problem}" if place else exc.problem, exc.fix)
    except EmitError as exc:  # our bug, never the input's: nothing is written
        return refuse(PROG, f"internal error: {exc}", "report it, with the evals.json")
    to_stdout = options.output == "-"
    out = Path(options.output) if options.output and not to_stdout else _default_out(source)
    if options.replace:
        refused = _replace_problem(source, to_stdout=to_stdout)
        if refused is not None:
            return refused
    if to_stdout:
        print_document(text)
    else:
        refused = _write(out, source, text, force=options.force)
        if refused is not None:
            return refused
    report = sys.stderr if to_stdout else sys.stdout
    shown_out = "stdout" if to_stdout else str(out)
    say([f"Wrote {shown_out}: {len(conversion.cases)} case(s) from {source}"], report)
    if options.replace:
        moved = _move_aside(source)
        if moved is not None:
            return moved
    problem = _load_problem(resolved_text, out, source, skill)
    say(_verdict(conversion, problem, skill, out, source, to_stdout=to_stdout), report)
    return EXIT_DOES_NOT_LOAD if problem is not None else EXIT_OK


def _source(path: Path) -> Path:
    """``path``, or the one ``evals.json`` of the skill directory it names."""
    if not path.is_dir():
        return path
    found = [c for c in (path / "evals" / "evals.json", path / "evals.json") if c.is_file()]
    if len(found) != 1:
        what = "no evals.json" if not found else "two evals.json files"
        raise InputError(f"{path} is a directory with {what} in it or in evals/", "name the file")
    return found[0]


def _read(source: Path) -> bytes:
    try:
        return read_regular(source)  # a FIFO or a device is refused, never opened
    except AuthoringError as exc:
        raise InputError(f"{source} {exc.problem}", exc.fix or "name an evals.json") from None
    except OSError as exc:
        raise InputError(
            f"cannot read {source}: {cause(exc)}", "name a readable evals.json"
        ) from None


def _skill_of(source: Path) -> Skill | None:
    """The skill the file belongs to: a ``SKILL.md`` beside it, or above its ``evals/``."""
    for directory in (source.parent, source.parent.parent):
        if (directory / SKILL_FILE).is_file():
            return load_skill(directory / SKILL_FILE)
    return None


def _aside(source: Path) -> Path:
    return source.with_name(source.name + ASIDE_SUFFIX)


def _replace_problem(source: Path, *, to_stdout: bool) -> int | None:
    """The refusal of ``--replace`` before anything is written; ``None`` when it can work."""
    if to_stdout:
        return refuse(
            PROG,
            "--replace moves the evals.json aside once the YAML file is written; there is no "
            "file with -o -",
            "name an output file with -o, or drop --replace",
        )
    aside = _aside(source)
    if aside.exists() or aside.is_symlink():
        return refuse(
            PROG,
            f"{aside} already exists, so {source} cannot be moved aside",
            f"remove {aside}, or drop --replace",
        )
    return None


def _move_aside(source: Path) -> int | None:
    """Rename ``source`` to its aside name, never over a file (a link is not followed)."""
    aside = _aside(source)
    try:
        # A hard link, then the unlink: unlike a rename, it never replaces a file that
        # appeared at the aside name meanwhile.
        os.link(source, aside, follow_symlinks=False)
        source.unlink()
    except OSError as exc:
        return refuse(
            PROG,
            f"wrote the YAML file, but cannot move {source} aside to {aside}: {cause(exc)}",
            f"remove {source} by hand: discovery still reads it",
        )
    say([f"Moved {source} aside to {aside}: discovery no longer reads it"])
    return None


def _default_out(source: Path) -> Path:
    # *.eval.yaml is read both in evals/ and beside SKILL.md.
    return source.with_name(f"{source.stem}.eval.yaml")


def _write(out: Path, source: Path, text: str, *, force: bool) -> int | None:
    if out.resolve() == source.resolve():
        return refuse(PROG, f"{out} is the file being converted", "name another output with -o")
    if (out.exists() or out.is_symlink()) and not force:
        return refuse(PROG, f"{out} already exists", "name another output with -o, or pass --force")
    try:
        write_new(out, text, replace=force)
    except FileExistsError:
        return refuse(PROG, f"{out} already exists", "name another output with -o, or pass --force")
    except OSError as exc:
        return refuse(PROG, f"cannot write {out}: {cause(exc)}", "name a writable output with -o")
    return None


def _load_problem(resolved_text: str, out: Path, source: Path, skill: Skill | None) -> str | None:
    """The loader's message on the file as it would be with its notes resolved, read with
    the skill's other eval files; ``None`` when it loads."""
    with tempfile.TemporaryDirectory() as scratch:
        probe = Path(scratch) / (out.name if out.suffix in (".yaml", ".yml") else "converted.yaml")
        probe.write_text(resolved_text, encoding="utf-8")
        try:
            if skill is None:
                load_yaml_eval_file(probe, None)
            else:
                skip = {source.resolve(), out.resolve()}
                others = [f for f in eval_files_for(skill.directory) if f.resolve() not in skip]
                load_suite(skill, [*others, probe])
        except AuthoringError as exc:
            return exc.message.replace(str(probe), str(out))
    return None


def _verdict(
    conversion: Conversion,
    problem: str | None,
    skill: Skill | None,
    out: Path,
    source: Path,
    *,
    to_stdout: bool,
) -> list[str]:
    lines: list[str] = []
    marked = [case.name for case in conversion.cases if case.notes]
    if marked:
        names = ", ".join(repr(name) for name in marked[:_NAMES_SHOWN])
        more = f" and {len(marked) - _NAMES_SHOWN} more" if len(marked) > _NAMES_SHOWN else ""
        lines.append(
            f"{len(marked)} case(s) carry TODO(skill-lens) notes to resolve: {names}{more}; "
            "the run refuses the file until they are gone"
        )
    if problem is not None:
        lines.append("It does not load" + (" even once they are resolved:" if marked else ":"))
        lines += [f"  {line}" for line in problem.splitlines()]
    else:
        target = shlex.quote(str(skill.directory)) if skill else "<the skill>"
        lines.append(
            ("Once they are resolved it loads" if marked else "It loads")
            + f": pytest --skill-lens {target} --collect-only"
        )
    judged = sum(1 for case in conversion.cases if case.judged)
    if judged:
        lines.append(
            f"{judged} case(s) have a judge: rubric: the default judge grades nothing and "
            'reports them errored; set judge = "pydantic-ai" (or another) in skill-lens.toml'
        )
    if skill is not None and conversion.declared_skill not in (None, skill.name):
        lines.append(
            f"Note: the evals.json names the skill {conversion.declared_skill!r}, "
            f"but {skill.path} is {skill.name!r}: is it this skill's file?"
        )
    if skill is None:
        lines.append(f"Note: no {SKILL_FILE} beside {source} or above it: checked without a skill")
    elif not to_stdout:
        lines += _discovery_notes(skill, out, source)
    return lines


def _discovery_notes(skill: Skill, out: Path, source: Path) -> list[str]:
    try:
        found = {path.resolve() for path in eval_files_for(skill.directory)}
    except AuthoringError:
        return []  # the load above already said what is wrong there
    lines = []
    if source.resolve() in found:
        lines.append(
            f"Next: discovery still reads {source}, and {out} replaces it: remove it, or run "
            f"this again with --replace --force to move it aside to {_aside(source).name}"
        )
    if out.resolve() not in found:
        lines.append(
            f"Note: discovery does not read {out} (it reads evals/*.yaml, else *.eval.yaml "
            f"beside {SKILL_FILE}): move it there, or run with --skill-lens-evals {out}"
        )
    return lines
