"""The page's evidence: what a row shows only when opened travels compressed.

The data block keeps what the table, filters, charts and summaries need on load; the rest
of each outcome (checks with their evidence, output, tool calls, hooks, notes) is packed
500 outcomes a block, compact JSON compressed with zlib and base64'd, which the page opens
with the browser's DecompressionStream. Here the blocks are opened with Python's zlib and
must give back exactly what the JSON report holds.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from typing import Any

from pytest_skill_lens.gate.record import GateResult, RunRecord
from pytest_skill_lens.perform.outcome import Outcome
from pytest_skill_lens.report.html import render_html
from pytest_skill_lens.report.html.evidence import EVIDENCE_KEY, LIGHT_KEYS, PER_BLOCK
from pytest_skill_lens.report.html.page import SCRIPT_PARTS, asset, page_chunks
from pytest_skill_lens.report.json_report import render_json
from pytest_skill_lens.run.result import ToolCall
from pytest_skill_lens.score.check import CheckResult, Score

HOSTILE = "</script><script>window.pwned=1</script><!-- <script> </SCRIPT > & \u2028\u2029 \ud800 é"
GATE = GateResult(False, 1, ("x",))


def _outcome(i: int, output: str = HOSTILE, cost: float = 0.001) -> Outcome:
    check = CheckResult("contains[0]", i % 3 != 0, f"evidence {i}: {output}")
    return Outcome(
        skill_name=f"skill-{i % 7}",
        case_name=f"case {i}",
        runner="scripted",
        status="passed" if i % 3 else "failed",
        scores=[Score("assertions", i % 3 != 0, 1.0, "1 check", (check,))],
        output=f"{output} #{i}",
        tool_calls=(ToolCall("lookup", {"q": output, "n": i}),),
        nodeid=f"skills/s/SKILL.md::case {i}[scripted]",
        cost_usd=cost,
        order=i,
    )


def _data(page: str) -> dict[str, Any]:
    found = re.search(
        r'<script type="application/json" id="skill-lens-data">(.*?)</script>', page, re.S
    )
    assert found is not None
    loaded: dict[str, Any] = json.loads(found.group(1))
    return loaded


def _opened(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every outcome whole again: its light part with its block's heavy part, by zlib."""
    packed = data[EVIDENCE_KEY]
    assert packed["per_block"] == PER_BLOCK and packed["format"] == "deflate"
    assert packed["light_keys"] == list(LIGHT_KEYS)
    heavy: list[dict[str, Any]] = []
    for block in packed["blocks"]:
        assert re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", block)  # base64 only
        part = json.loads(zlib.decompress(base64.b64decode(block, validate=True)))
        assert len(part) <= PER_BLOCK
        heavy.extend(part)
    assert len(heavy) == len(data["outcomes"])
    return [
        {**dict(zip(LIGHT_KEYS, light or [], strict=light is not None)), **rest}
        for light, rest in zip(data["outcomes"], heavy, strict=True)
    ]


def _without_heavy_nulls(outcome: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in outcome.items() if k in LIGHT_KEYS or v is not None}


def test_the_blocks_open_with_zlib_to_exactly_the_json_reports_outcomes() -> None:
    record = RunRecord(outcomes=[_outcome(i) for i in range(1201)])
    data = _data(render_html(json.loads(render_json(record, GATE))))
    assert len(data[EVIDENCE_KEY]["blocks"]) == 3  # 500, 500 and 201
    expected = json.loads(render_json(record, GATE))["outcomes"]
    # Every key and value, but a null outside the light keys (the page reads a missing key
    # as a null one, and most of an outcome's keys are null).
    assert _opened(data) == [_without_heavy_nulls(o) for o in expected]
    assert "workspace" in expected[0] and "workspace" not in _opened(data)[0]
    # The lone surrogate is U+FFFD there as in the JSON report; the rest survives as it was.
    assert expected[5]["output"] == HOSTILE.replace("\ud800", "\ufffd") + " #5"


def test_the_data_block_keeps_only_what_the_page_needs_on_load() -> None:
    record = RunRecord(outcomes=[_outcome(i) for i in range(3)])
    data = _data(render_html(json.loads(render_json(record, GATE))))
    for light in data["outcomes"]:  # values only, the keys named once
        assert isinstance(light, list) and len(light) == len(LIGHT_KEYS)
    assert "evidence 1" not in json.dumps(data["outcomes"])


def test_the_page_from_the_record_packs_as_the_page_from_the_text() -> None:
    record = RunRecord(outcomes=[_outcome(i) for i in range(620)])
    from_text = render_html(json.loads(render_json(record, GATE)))
    assert "".join(page_chunks(record, GATE)) == from_text


def test_hostile_evidence_is_neither_markup_nor_visible_in_the_page() -> None:
    page = render_html(json.loads(render_json(RunRecord(outcomes=[_outcome(0)]), GATE)))
    assert page.lower().count("</script") == 2  # the data block's end and the script's
    assert "<!--" not in page and "pwned" not in page and "evidence 0" not in page
    assert page.split('id="skill-lens-data">')[1].split("</script>")[0].isascii()


def test_nan_and_infinity_are_null_in_the_blocks_as_in_the_json_report() -> None:
    record = RunRecord(outcomes=[_outcome(0, cost=float("nan")), _outcome(1, cost=float("inf"))])
    data = _data(render_html(json.loads(render_json(record, GATE))))
    assert [o["cost_usd"] for o in _opened(data)] == [None, None]
    record_page = "".join(page_chunks(record, GATE))  # straight from the record, too
    assert [o["cost_usd"] for o in _opened(_data(record_page))] == [None, None]


def test_a_huge_output_travels_compressed_and_whole() -> None:
    huge = "the same line of output, again and again\n" * 250_000  # 10 MB
    record = RunRecord(outcomes=[_outcome(0, output=huge)])
    page = "".join(page_chunks(record, GATE))
    assert len(page) < 1_000_000
    assert _opened(_data(page))[0]["output"] == huge + " #0"


def test_a_page_without_outcomes_opens_with_no_blocks() -> None:
    data = _data(render_html(json.loads(render_json(RunRecord(), GATE))))
    assert data["outcomes"] == [] and data[EVIDENCE_KEY]["blocks"] == []


def test_every_field_read_before_a_row_is_opened_is_in_the_data_block() -> None:
    script = "\n".join(asset(name) for name in SCRIPT_PARTS)
    read: set[str] = set()
    for name in ("replayWord", "statusCell", "outcomeRows", "matches", "costPerCase"):
        body = re.search(rf"\nfunction {name}\(.*?\n}}\n", script, re.S)
        assert body is not None, name
        read |= set(re.findall(r"\b(?:o|e\.outcome)\.(\w+)", body.group(0)))
    assert read and read <= set(LIGHT_KEYS)


def test_an_outcome_that_is_no_object_carries_nothing() -> None:
    data = _data(render_html({"outcomes": [None, "x", 3, {"case_name": "c", "output": "o"}]}))
    assert data["outcomes"][:3] == [None, None, None]
    opened = _opened(data)
    assert opened[:3] == [{}, {}, {}]
    assert opened[3]["case_name"] == "c" and opened[3]["output"] == "o"
    assert opened[3]["status"] is None  # a light key it lacks: null, read as absent


def test_every_field_the_detail_reads_reads_a_missing_key_as_a_null_one() -> None:
    # The blocks leave nulls out: each read of a heavy field must treat undefined as null.
    script = "\n".join(asset(name) for name in SCRIPT_PARTS)
    for name in ("detailContent", "haystack", "scoreBlock"):
        body = re.search(rf"\nfunction {name}\(.*?\n}}\n", script, re.S)
        assert body is not None, name
        assert "=== null" not in body.group(0).replace(
            "o.skill_loaded === null || o.skill_loaded === undefined", ""
        ).replace("v === null ?", ""), name
