"""The JSON report, and the spend figures (:class:`Totals`) every report shares.

Consumers of the original tool's report keep working: every upstream key is
here with its meaning, and what we add (``deselected_skills``, and per outcome
``nodeid``, the token split, ``skill_triggered``, ``skill_triggered_by_session``
``skill_loaded`` and ``tool_calls``; ``summary.by_arm``, ``summary.fake_outcomes`` and
``summary.fake_note``; each delta figure's interval
and confidence) only adds, as do ``aborted`` and ``aborted_reason``: a session that
ended without a gate still writes its report, saying so, so no earlier green survives.
The ``run`` block, last, says what wrote the report, the shard and the gate's settings:
what :mod:`.json_read` needs to judge shards' outcomes again as one run.

The file is strict JSON in UTF-8: lone surrogates become U+FFFD and a NaN or infinity
becomes null (see :mod:`.printable`); every other character is kept, escaped. It is
written as it is made (:mod:`.json_stream`), each outcome on a line of its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .. import __version__
from ..gate.record import GateResult, GateSettings, RunRecord
from ..labels import Arm
from ..perform.outcome import Outcome
from ..run.models.price_source import distinct
from ..score.check import Score
from .arms_view import arms_dict
from .changed_json import changed_dict
from .confusion_view import confusion_dict
from .delta_json import delta_dict, note_dict
from .json_stream import Each, file_chunks
from .matrix_json import matrix_dict
from .multiplicity_view import multiplicity_list
from .product_lines import product_dict, unsandboxed
from .replay_lines import CassetteAccount, ReplayShare
from .reuse_lines import ReuseShare
from .savings import Savings
from .sequential_view import sequential_dict, stopped_dict
from .wiring import FakeShare

REPORT_TOOL = "pytest-skill-lens"  # the run block's "tool": what wrote the report
_HOOK_KEYS = ("name", "event", "outcome", "exit_code", "stdout", "stderr")
_NOT_RUN_KEYS = ("skill_name", "case_name", "runner", "arm", "repeat_index")


def render_json(record: RunRecord, gate: GateResult) -> str:
    """The whole report as one text (tests, small reports); a session writes
    :func:`json_chunks`."""
    return "".join(json_chunks(record, gate))


def json_chunks(record: RunRecord, gate: GateResult) -> Iterator[str]:
    """The report's text piece by piece, each outcome made as it is written (one a line)."""
    return file_chunks(report_parts(record, gate))


def report_dict(record: RunRecord, gate: GateResult) -> dict[str, Any]:
    """The whole report as one dict (not scrubbed): what the file holds, built in memory."""
    return {
        key: list(value.items()) if isinstance(value, Each) else value
        for key, value in report_parts(record, gate)
    }


def report_parts(record: RunRecord, gate: GateResult) -> list[tuple[str, Any]]:
    """The report's top-level keys in order, the outcomes and not-run entries as
    :class:`~.json_stream.Each`, made one at a time as they are written."""
    return [
        ("summary", summary(record)),
        ("skipped_skills", list(record.skipped_skills)),
        ("tag_filtered_skills", list(record.tag_filtered_skills)),
        ("case_filtered_skills", list(record.case_filtered_skills)),
        ("deselected_skills", list(record.deselected_skills)),
        ("outcomes", Each(lambda: map(outcome_dict, record.outcomes))),
        ("delta", delta_dict(record.delta)),
        ("baseline_notes", [note_dict(note) for note in record.baseline_notes]),
        ("scripts", dict(record.scripts) if record.scripts is not None else None),
        ("script_notes", [dict(note) for note in record.script_notes]),
        ("products", [product_dict(entry) for entry in record.products]),
        ("not_run", Each(lambda: map(_not_run_dict, record.not_run))),
        ("spend_ceiling", _ceiling_dict(record)),
        (
            "gate",
            {"passed": gate.passed, "exit_code": gate.exit_code, "reasons": list(gate.reasons)},
        ),
        # Additive: true when the session ended without a gate, and why.
        ("aborted", record.aborted is not None),
        ("aborted_reason", record.aborted),
        # Additive: which commit each skill's previous version came from.
        ("baseline_sources", [dict(source) for source in record.baseline_sources]),
        # Additive: each SKILL.md departure from the Agent Skills specification (a warning).
        ("skill_md_warnings", [dict(warning) for warning in record.skill_md_warnings]),
        # Additive: each case's verdict under every runner (null: fewer than two ran).
        ("portability", matrix_dict(record.matrix)),
        # Additive: the gate's interval decisions, one family per criterion asked, raw and
        # corrected (empty when no criterion asked for a confidence level).
        ("multiplicity", multiplicity_list(record.multiplicity)),
        # Additive: --skill-lens-changed's REF and commit, the changed skills with their
        # reasons, the unchanged skills it deselected (null without the flag).
        ("changed", changed_dict(record.changed)),
        # Additive: offered cases' triggering, written for x taken (null: none checked it).
        ("triggering", confusion_dict(record.figures.triggering)),
        # Additive: --skill-lens-repeat auto:N's items not run, their skill's questions
        # decided (not spent; never "not_run"), and every decision (null: a fixed count).
        ("stopped_early", Each(lambda: map(stopped_dict, record.stopped_early))),
        ("sequential", sequential_dict(record.sequential)),
        # Additive: several baseline arms side by side (null for one arm or none).
        ("arms", arms_dict(record)),
        # Additive: how the run was made, so a merge of shard reports can judge it again.
        ("run", run_dict(record)),
    ]


def run_dict(record: RunRecord) -> dict[str, Any]:
    """The ``run`` block: what wrote the report, the shard and the settings the gate held."""
    run = record.run
    return {
        "tool": REPORT_TOOL,
        "version": __version__,
        "shard": run.shard if run is not None else None,
        "baseline_kind": record.baseline_kind or None,
        "runners": list(run.runners) if run is not None else None,
        "repeat": run.repeat if run is not None else None,
        # Additive: true under --skill-lens-repeat auto:N (repeat is then N, the most rounds).
        "repeat_auto": run.repeat_auto if run is not None else None,
        "gate_settings": _gate_settings_dict(run.gate) if run is not None else None,
        "skills_found": record.skills_found,
        "full_output": record.full_output,
        # Additive, under a shard only: each skill's cases in eval-file order, every
        # shard's included, so a merge lists them as the unsharded run does.
        "case_order": {skill: list(cases) for skill, cases in record.case_order.items()}
        if record.case_order
        else None,
        # Additive, under a shard only: what every shard selected together, as digests.
        "selection": record.selection.as_dict() if record.selection is not None else None,
        # Additive: a digest of each setting, so a merge refuses shards run with others.
        "settings_fingerprint": dict(run.fingerprint) if run is not None else None,
    }


def _gate_settings_dict(gate: GateSettings) -> dict[str, Any]:
    return {
        "min_pass_rate": gate.min_pass_rate,
        "fail_on_error": gate.fail_on_error,
        "per_skill_min": dict(gate.per_skill_min),
        "min_delta": gate.min_delta,
        "min_delta_confidence": gate.min_delta_confidence,
        "min_case_pass_rate": gate.min_case_pass_rate,
        "max_spend_usd": gate.max_spend_usd,
        "multiplicity": gate.multiplicity,
        "per_skill_min_confidence": gate.per_skill_min_confidence,
    }


@dataclass(frozen=True)
class Totals:
    """What a session spent and measured, over both arms (errored outcomes included).

    Shared by every report so the JSON, the console and Markdown agree.
    """

    tokens: int
    cost_usd: float  # runs and their discarded retries
    cost_unpriced: bool  # some run's cost could not be priced
    judge_cost_usd: float
    judge_unpriced: bool
    latency_ms: float
    baseline_errored: int
    # Where the cost figures came from, each once (run/models/price_source.py), runs and judges.
    price_sources: tuple[str, ...] = ()
    judge_price_sources: tuple[str, ...] = ()

    @classmethod
    def of(cls, record: RunRecord, arm: Arm | None = None) -> Totals:
        """Both arms' figures, or one ``arm``'s."""
        outcomes = [o for o in record.outcomes if arm is None or o.arm == arm]
        return cls(
            tokens=sum(o.tokens for o in outcomes),
            # Retries were paid for too, so they belong in what the run cost.
            cost_usd=sum((o.cost_usd + o.retry_cost_usd for o in outcomes), 0.0),
            cost_unpriced=any(o.cost_note for o in outcomes),
            judge_cost_usd=sum((o.judge_cost_usd for o in outcomes), 0.0),
            judge_unpriced=any(s.cost_note for o in outcomes for s in o.scores),
            latency_ms=sum((o.latency_ms for o in outcomes), 0.0),
            baseline_errored=sum(o.arm == "baseline" and o.status == "errored" for o in outcomes),
            price_sources=tuple(distinct(o.price_source for o in outcomes)),
            judge_price_sources=tuple(distinct(s.price_source for o in outcomes for s in o.scores)),
        )


def summary(record: RunRecord) -> dict[str, Any]:
    """Counts and rates from the candidate arm (the gate's figures); spend and latency
    from both arms."""
    counts = record.figures
    totals = Totals.of(record)
    fake = FakeShare.of(record)
    return {
        "total": counts.total,
        "passed": counts.passed,
        "failed": counts.failed,
        "errored": counts.errored,
        "baseline_errored": totals.baseline_errored,
        "pass_rate": counts.pass_rate,
        "pass_rate_by_skill": dict(counts.pass_rate_by_skill),
        "total_tokens": totals.tokens,
        "total_cost_usd": totals.cost_usd,
        "total_latency_ms": totals.latency_ms,
        "judge_cost_usd": totals.judge_cost_usd,
        "not_run": counts.not_run,
        # Additive: candidate runs whose trace shows the skill never reached the model.
        "skill_not_loaded": sum(o.ran_without_skill for o in record.candidates),
        # Additive: what each arm spent, so a baseline's cost never hides in the total.
        "by_arm": {arm: _arm_spend(record, arm) for arm in _arms(record)},
        # Additive: candidate outcomes from runner fake, which measures wiring, not a skill.
        "fake_outcomes": fake.fake,
        "fake_note": fake.sentence(),
        # Additive: where the costs came from, each once (a list price, a product's own
        # figure, a stand-in's script); an outcome's and a score's are their price_source.
        "price_sources": list(totals.price_sources),
        "judge_price_sources": list(totals.judge_price_sources),
        # Additive: outcomes replayed from cassettes, and the oldest recording (null: none).
        "replay": ReplayShare.of(record).as_dict(len(record.outcomes)),
        # Additive: outcomes reused by content, and why others were not (null: no store).
        "reuse": ReuseShare.of(record).as_dict(len(record.outcomes)),
        # Additive: products that ran with no skill-lens sandbox ([]: none; null: no
        # product named, or a merge, whose shards' products are not carried over).
        "unsandboxed_products": unsandboxed(record),
        # Additive: what a recording run wrote, kept and did not write (null: none recorded).
        "cassettes": account.as_dict() if (account := CassetteAccount.of(record)) else None,
        # Additive: what the run spent anew and what it did not spend, and why.
        "not_spent": Savings.of(record).as_dict(),
    }


def _ceiling_dict(record: RunRecord) -> dict[str, Any] | None:
    ceiling = record.spend_ceiling
    if ceiling is None:
        return None
    return {
        "max_spend_usd": ceiling.max_spend_usd,
        "unpriced": ceiling.unpriced,
        "spent_usd": ceiling.spent_usd,
    }


def _arms(record: RunRecord) -> list[Arm]:
    baseline = record.baseline_kind or any(o.arm == "baseline" for o in record.outcomes)
    return ["candidate", "baseline"] if baseline else ["candidate"]


def _arm_spend(record: RunRecord, arm: Arm) -> dict[str, Any]:
    totals = Totals.of(record, arm)
    return {
        "tokens": totals.tokens,
        "cost_usd": totals.cost_usd,
        "cost_unpriced": totals.cost_unpriced,
        "judge_cost_usd": totals.judge_cost_usd,
        "latency_ms": totals.latency_ms,
    }


def outcome_dict(outcome: Outcome) -> dict[str, Any]:
    o = outcome
    return {
        "skill_name": o.skill_name,
        "case_name": o.case_name,
        "runner": o.runner,
        "status": o.status,
        "arm": o.arm,
        "repeat_index": o.repeat_index,
        "scores": [score_dict(s) for s in o.scores],
        "output": o.output,
        "error": o.error,
        "tokens": o.tokens,
        "latency_ms": o.latency_ms,
        "cost_usd": o.cost_usd,
        "model": o.model,
        "cost_note": o.cost_note,
        "usage_note": o.usage_note,
        "stop_note": o.stop_note,
        "retry_cost_usd": o.retry_cost_usd,
        "hooks": [_ordered(h, _HOOK_KEYS) for h in o.hooks],
        "workspace": o.workspace,
        # Additive fields (absent from the original report).
        "nodeid": o.nodeid,
        "input_tokens": o.input_tokens,
        "output_tokens": o.output_tokens,
        "skill_triggered": o.skill_triggered,
        "skill_triggered_by_session": o.skill_triggered_by_session,
        "skill_loaded": o.skill_loaded,
        "load_note": o.load_note,
        "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in o.tool_calls],
        # Additive: where cost_usd came from (run/models/price_source.py): a list price, and
        # whether your endpoint may bill otherwise; a product's figure; a stand-in's.
        "price_source": o.price_source,
        # Additive: a replayed outcome's figures are its cassette's (docs/replay.md).
        "cassette": o.cassette,
        "replayed": o.replayed,
        "replayed_calls": o.replayed_calls,
        "replayed_usd": o.replayed_usd,
        "recorded_at": o.recorded_at,
        "cassette_note": o.cassette_note,
        "cassette_action": o.cassette_action,
        # Additive: every offered skill the agent loaded (neighbours too), and what the
        # case expected of its own skill (docs/eval-files.md, neighbours).
        "skills_triggered": o.skills_triggered,
        "trigger_expected": o.trigger_expected,
        # Additive: reused by content from the store (docs/reuse.md), or why not.
        "reused_from": o.reused_from,
        "reuse_note": o.reuse_note,
        # Additive: which baseline arm ran it (null for the candidate), so several arms
        # of one run stay apart (docs/comparing.md).
        "baseline_kind": o.baseline_kind,
    }


def score_dict(score: Score) -> dict[str, Any]:
    return {
        "evaluator": score.evaluator,
        "passed": score.passed,
        "score": score.score,
        "detail": score.detail,
        "checks": [c.to_dict() for c in score.checks],
        "errored": score.errored,
        "cost_usd": score.cost_usd,
        "cost_note": score.cost_note,
        "price_source": score.price_source,
    }


def _not_run_dict(item: Mapping[str, object]) -> dict[str, Any]:
    # An entry without an arm or repeat index is a candidate's first run.
    data = {"arm": "candidate", **item, "repeat_index": repeat_index(item) or 0}
    return _ordered(data, _NOT_RUN_KEYS)


def repeat_index(item: Mapping[str, object]) -> int | None:
    """A not-run entry's repeat index, whether it was recorded as a number or as text."""
    value = item.get("repeat_index")
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ordered(data: Mapping[str, object], keys: tuple[str, ...]) -> dict[str, Any]:
    """The known keys first, in the documented order (null when missing), then any extras."""
    known = {key: data.get(key) for key in keys}
    return {**known, **{k: v for k, v in data.items() if k not in known}}
