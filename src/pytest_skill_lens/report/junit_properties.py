"""Facts about the whole run as JUnit ``<properties>`` of every test suite.

pytest's ``--junitxml`` file carries each case's skill, runner and status; what
applies to the run as a whole (``scripts: on, sandbox: bwrap``, or a note that a
skill's scripts never ran) belongs to the suite, so a CI dashboard that reads only
the JUnit file can still tell which isolation applied.
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

from ..perform.outcome import Outcome
from .printable import printable
from .replay_lines import replay_properties
from .reuse_lines import reuse_properties

SCRIPTS_PROPERTY = "skill_lens_scripts"
# The names the original skill-lens CLI writes, so tools that read its JUnit keep working.
SANDBOX_PROPERTY = "skill-lens.scripts.sandbox"
DETAIL_PROPERTY = "skill-lens.scripts.detail"


def script_properties(
    lines: Sequence[str], scripts: Mapping[str, object] | None
) -> list[tuple[str, str]]:
    """The report's ``scripts:`` lines, then (scripts on) the sandbox and its detail."""
    properties = [(SCRIPTS_PROPERTY, line) for line in lines]
    if scripts is not None:
        properties.append((SANDBOX_PROPERTY, str(scripts.get("sandbox") or "none")))
        properties.append((DETAIL_PROPERTY, str(scripts.get("detail") or "")))
    return properties


def add_suite_properties(xml_text: str, properties: Sequence[tuple[str, str]]) -> str | None:
    """The JUnit text with ``properties`` (name, value) on every suite; ``None``: none given."""
    if not properties:
        return None
    root = ET.fromstring(xml_text)
    put_suite_properties(root, properties)
    return '<?xml version="1.0" encoding="utf-8"?>' + ET.tostring(root, encoding="unicode")


def put_suite_properties(root: ET.Element, properties: Sequence[tuple[str, str]]) -> None:
    """Add ``properties`` (name, value) to every suite of the JUnit tree ``root``."""
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    for suite in suites:
        properties_element = suite.find("properties")
        if properties_element is None:
            properties_element = ET.Element("properties")
            suite.insert(0, properties_element)  # the schema puts it before the test cases
        for name, value in properties:
            # XML 1.0 allows no C0 control but tab, newline and CR.
            ET.SubElement(
                properties_element, "property", name=printable(name), value=printable(value)
            )


def case_properties(outcome: Outcome) -> list[tuple[str, object]]:
    """The ``<properties>`` of one case's testcase, in a session's JUnit file and a merge's."""
    return [
        _shared("skill", outcome.skill_name),
        ("case", outcome.case_name),
        _shared("runner", outcome.runner),
        _shared("arm", outcome.arm),
        _shared("repeat", outcome.repeat_index),
        _shared("status", outcome.status),
        _shared("tokens", outcome.tokens),
        _shared("cost_usd", outcome.cost_usd),
        # Where that cost came from, beside it (a list price, a stand-in's script, ...).
        *([_shared("price_source", outcome.price_source)] if outcome.price_source else []),
        ("latency_ms", round(outcome.latency_ms, 3)),
        # Only a product's trace can tell; absent where nothing could.
        *([("skill_loaded", outcome.skill_loaded)] if outcome.skill_loaded is not None else []),
        *replay_properties(outcome),  # a replayed case's figures are its cassette's
        *reuse_properties(outcome),  # and a reused one's, from when and which commit
    ]


# typed: 0 must not stand in for 0.0, nor 1 for True.
@functools.lru_cache(maxsize=4096, typed=True)
def _shared(name: str, value: str | float) -> tuple[str, object]:
    """One ``(name, value)`` pair for every case that has it (most cases share their
    skill, runner, status and figures), as pytest keeps every item's properties."""
    return (name, value)
