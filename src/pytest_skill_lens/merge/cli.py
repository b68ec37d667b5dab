"""``pytest-skill-lens merge SHARD.json... [--json OUT] [--markdown OUT] [--junitxml OUT]
[--html OUT]`` and ``pytest-skill-lens html REPORT.json -o OUT``.

``merge`` reads every shard's JSON report, merges and judges them as one run
(:mod:`.combine`), writes the reports asked for with the renderers a session uses, prints
the session's ``skill-lens`` summary lines and exits with the gate's code: 0 passed, 1
failed, 2 for a report that cannot be merged (naming the file and the fix) or a report
that could not be written.

Both are commands of the ``pytest-skill-lens`` console script (``pytest_skill_lens.cli``).

``html`` draws the HTML page of one JSON report (a session's or a merge's): 0 when it
was written, 2 when the report cannot be read or the page cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..gate.record import GateResult, RunRecord
from ..report.html import render_html
from ..report.json_fields import parse_json
from ..report.json_read import ReportError, read_report
from ..report.merged_junit import render_junit
from ..report.printable import one_line
from ..report.terminal import summary_lines
from ..report.written import Writes, report_targets, write_reports
from ..suite.errors import AuthoringError
from ..suite.regular_files import read_regular
from .combine import MergeError, ShardReport, judge, merge_records
from .stopped import check_stopped

PROG = "pytest-skill-lens merge"
HTML_PROG = "pytest-skill-lens html"
# The reader's own fixes speak of shards; one page has a single report to name.
HTML_FIX = (
    "give a report this version of pytest-skill-lens wrote (--skill-lens-json or merge --json)"
)
EXIT_REFUSED = 2


def main(argv: Sequence[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    if options.markdown_max_chars is not None and not options.markdown:
        return _refuse("--markdown-max-chars needs --markdown", "add --markdown PATH")
    if options.markdown_max_chars is not None and options.markdown_max_chars < 1:
        return _refuse("--markdown-max-chars must be 1 or more", "give a size such as 60000")
    try:
        reports = [ShardReport(name, _read(Path(name))) for name in options.reports]
        record, gate = judge(merge_records(reports))
        check_stopped(reports, record)  # after deciding again: the decisions it is held to
    except MergeError as exc:
        return _refuse(exc.message, exc.fix)
    writes = _write_reports(record, gate, options)
    # As a session's section: the files first, then the summary, the gate's verdict last
    # but for the reports that could not be written.
    _print([f"skill-lens merge of {len(reports)} report(s)", ""])
    _print(one_line(line) for line in writes.written)
    _print(summary_lines(record, gate))
    _print(one_line(line) for line in writes.errors)
    return EXIT_REFUSED if writes.errors and gate.passed else gate.exit_code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Judge the JSON reports of a suite's shards as one run: the delta and "
        "the gate over every shard's outcomes, with the exit code one run would have had.",
    )
    parser.add_argument("reports", nargs="+", metavar="SHARD.json", help="a shard's report")
    parser.add_argument("--json", metavar="OUT", help="write the merged JSON report to OUT")
    parser.add_argument("--markdown", metavar="OUT", help="write the Markdown summary to OUT")
    parser.add_argument(
        "--markdown-max-chars", type=int, metavar="N", help="fit the Markdown into N characters"
    )
    parser.add_argument("--junitxml", metavar="OUT", help="write a JUnit XML file to OUT")
    parser.add_argument("--html", metavar="OUT", help="write the HTML report to OUT")
    return parser


def html_main(argv: Sequence[str] | None = None) -> int:
    """``pytest-skill-lens html REPORT.json -o OUT``: the page of one JSON report."""
    parser = argparse.ArgumentParser(
        prog=HTML_PROG,
        description="Draw the self-contained HTML page of a JSON report (a merged one too).",
    )
    parser.add_argument("report", metavar="REPORT.json", help="a --skill-lens-json report")
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="the page to write")
    options = parser.parse_args(argv)
    try:
        data = _report_data(Path(options.report))
    except MergeError as exc:
        return _refuse(exc.message, HTML_FIX, HTML_PROG)
    # The page CI expects is missing when it cannot be written: said, and never 0.
    writes = write_reports([("HTML", Path(options.output), lambda: render_html(data))])
    if writes.errors:
        return _refuse(writes.errors[0], "name a writable file", HTML_PROG)
    _print(one_line(line) for line in writes.written)
    return 0


def _report_data(path: Path) -> dict[str, Any]:
    """The report's data once the strict reader accepted it (every field of its type), as
    the page draws it: the JSON itself, with the gate and the delta it recorded."""
    text = _read_text(path, HTML_FIX)
    _checked(path, text)  # a MergeError naming the field when it is no report of ours
    data: dict[str, Any] = parse_json(text)  # read_report accepted it: a JSON object
    return data


def _read(path: Path, name_it: str = "name each shard's --skill-lens-json report") -> RunRecord:
    return _checked(path, _read_text(path, name_it))


def _read_text(path: Path, name_it: str) -> str:
    try:
        data = read_regular(path)  # a FIFO or a device is refused, never opened
    except AuthoringError as exc:
        raise MergeError(f"{path}: {exc.problem}", name_it) from exc
    except OSError as exc:
        raise MergeError(f"{path}: cannot be read: {exc.strerror or exc}", name_it) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MergeError(f"{path}: not UTF-8 text: {exc}", name_it) from exc


def _checked(path: Path, text: str) -> RunRecord:
    try:
        return read_report(text)
    except ReportError as exc:
        raise MergeError(f"{path}: {exc.message}", exc.fix) from exc


def _write_reports(record: RunRecord, gate: GateResult, options: argparse.Namespace) -> Writes:
    """Each report asked for, rendered whole and then written, as a session writes them,
    and the JUnit file a session leaves to pytest."""

    def path(name: str | None) -> Path | None:
        return None if name is None else Path(name)

    targets = report_targets(
        record,
        gate,
        json_path=path(options.json),
        markdown_path=path(options.markdown),
        html_path=path(options.html),
        markdown_max_chars=options.markdown_max_chars,
        full_output=record.full_output,
    )
    targets.insert(2, ("JUnit", path(options.junitxml), lambda: render_junit(record, gate)))
    return write_reports(targets)


def _refuse(message: str, fix: str, prog: str = PROG) -> int:
    print(one_line(f"{prog}: {message}"), file=sys.stderr)
    print(one_line(f"  fix: {fix}"), file=sys.stderr)
    return EXIT_REFUSED


def _print(lines: Iterable[str]) -> None:
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    for line in lines:
        # A console that cannot show a character (an ASCII-only CI log) gets an escape.
        print(line.encode(encoding, "backslashreplace").decode(encoding))
