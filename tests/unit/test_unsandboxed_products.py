"""report.product_lines.unsandboxed: which products ran with no skill-lens sandbox."""

from __future__ import annotations

from pytest_skill_lens.gate.record import RunRecord
from pytest_skill_lens.report.product_lines import unsandboxed, unsandboxed_note
from pytest_skill_lens.run.sandbox.product_sandbox import (
    REPLAY_ONLY_TRUST,
    ProductEntry,
    ProductSandbox,
    replay_only,
)

NONE = ProductSandbox("auto", "none", True, detail="bwrap not found on PATH")
BWRAP = ProductSandbox("auto", "bwrap", True, executable="/usr/bin/bwrap")


def entry(name: str, sandbox: ProductSandbox, trust: str | None = None) -> ProductEntry:
    return ProductEntry(name, name, None, trust or sandbox.trust, sandbox)


def test_products_without_a_backend_are_named_with_why() -> None:
    record = RunRecord(products=[entry("claude-code", NONE), entry("cli", BWRAP)])
    assert unsandboxed(record) == ["claude-code"]
    assert unsandboxed_note(record) == (
        "products ran unsandboxed: claude-code (bwrap not found on PATH)"
    )


def test_a_replay_only_run_started_no_product() -> None:
    record = RunRecord(products=[entry("copilot", replay_only("auto"), REPLAY_ONLY_TRUST)])
    assert (unsandboxed(record), unsandboxed_note(record)) == ([], None)


def test_no_product_is_no_figure() -> None:
    assert (unsandboxed(RunRecord()), unsandboxed_note(RunRecord())) == (None, None)
