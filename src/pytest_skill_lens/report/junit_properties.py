"""Facts about the whole run as JUnit ``<properties>`` of every test suite.

pytest's ``--junitxml`` file carries each case's skill, runner and status; what
applies to the run as a whole (``scripts: on, sandbox: bwrap``, or a note that a
skill's scripts never ran) belongs to the suite, so a CI dashboard that reads only
the JUnit file can still tell which isolation applied.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

SCRIPTS_PROPERTY = "skill_lens_scripts"


def add_suite_properties(xml_text: str, name: str, values: Sequence[str]) -> str | None:
    """The JUnit text with a ``name`` property per value on every suite; ``None``: no values."""
    if not values:
        return None
    root = ET.fromstring(xml_text)
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    for suite in suites:
        properties = suite.find("properties")
        if properties is None:
            properties = ET.Element("properties")
            suite.insert(0, properties)  # the schema puts it before the test cases
        for value in values:
            ET.SubElement(properties, "property", name=name, value=value)
    return '<?xml version="1.0" encoding="utf-8"?>' + ET.tostring(root, encoding="unicode")
