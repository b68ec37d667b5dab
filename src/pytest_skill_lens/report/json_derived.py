"""The parts of a JSON report a merge recomputes but ``html`` draws as written.

The summary, the delta, the portability matrix (:mod:`.matrix_json`) and the gate are
functions of the outcomes: a merge never reads them, but the page of one report shows
them, so a figure there is held to its kind as
strictly as an outcome's (a count, a cost of 0 or more, a rate from 0 to 1, a delta
from -1 to 1, every one finite). Keys this module does not know are left open: a later
summary field is added without breaking the reader.
"""

from __future__ import annotations

from ..gate.multiplicity import METHODS, WHAT
from .arms_view import check_arms
from .confusion_view import check_triggering
from .json_fields import (
    FINITE,
    LEVEL,
    RATE,
    SIGNED_RATE,
    Fields,
    ReportError,
    check_interval,
    known_source,
)
from .matrix_json import check_matrix
from .sequential_view import check_sequential

_SUMMARY_COUNTS = (
    "total", "passed", "failed", "errored", "baseline_errored", "total_tokens", "not_run",
    "skill_not_loaded", "fake_outcomes",
)  # fmt: skip
_SUMMARY_FIGURES = ("total_cost_usd", "total_latency_ms", "judge_cost_usd")
_DELTA_SIGNED = ("tokens_delta", "cost_usd_delta", "latency_ms_delta")


def check_derived(top: Fields) -> None:
    """A :class:`ReportError` naming the first impossible value of the summary, delta,
    gate or products."""
    _summary(top.child("summary"))
    delta = top.optional_child("delta")
    if delta is not None:
        _delta(delta)
    check_matrix(top)
    check_arms(top, _delta)
    check_triggering(top)
    if "multiplicity" in top.data:
        for family in top.objects("multiplicity"):
            _multiplicity(family)
    _gate(top.child("gate"))
    check_sequential(top)
    if top.data.get("changed") is not None:
        _changed(top.child("changed"))
    if "products" in top.data:
        for product in top.objects("products"):
            for key in ("name", "executable", "trust"):
                product.text(key)
            product.optional_text("version")


def _summary(summary: Fields) -> None:
    for key in _SUMMARY_COUNTS:
        summary.count(key)
    for key in _SUMMARY_FIGURES:
        summary.figure(key)
    summary.figure("pass_rate", RATE)
    rates = summary.child("pass_rate_by_skill")
    for skill in rates.data:
        rates.figure(skill, RATE)
    by_arm = summary.child("by_arm")
    for arm in by_arm.data:
        spend = by_arm.child(arm)
        spend.count("tokens")
        spend.flag("cost_unpriced")
        for key in ("cost_usd", "judge_cost_usd", "latency_ms"):
            spend.figure(key)
    summary.optional_text("fake_note")
    for key in ("price_sources", "judge_price_sources"):  # absent before they existed
        if key in summary.data:
            for index, source in enumerate(summary.names(key)):
                known_source(source, f"{summary.at(key)}[{index}]")
    reuse = summary.optional_child("reuse")
    if reuse is not None:
        for key in ("reused", "not_reused", "of"):
            reuse.count(key)
        reuse.optional_text("oldest_recorded_at")
        reuse.names("commits")
        reuse.optional_text("note")
    replay = summary.optional_child("replay")
    if replay is not None:
        for key in ("replayed", "partly_replayed", "recorded", "of"):
            replay.count(key)
        replay.figure("replayed_usd")
        replay.optional_text("oldest_recorded_at")
        replay.optional_text("note")
    not_spent = summary.optional_child("not_spent") if "not_spent" in summary.data else None
    if not_spent is not None:
        for key in ("runs_made", "stopped_early", "replayed"):
            not_spent.count(key)
        for key in ("spent_usd", "replayed_usd"):
            not_spent.figure(key)
        by_skill = not_spent.child("stopped_early_by_skill")
        for skill in by_skill.data:
            by_skill.count(skill)
        not_spent.names("unchanged_skills")
        not_spent.optional_text("unchanged_since")
        not_spent.text("spent_note")
        not_spent.optional_text("note")
        # Absent from a report written before outcomes reused from the store were counted apart.
        if "reused" in not_spent.data:
            not_spent.count("reused")
            not_spent.figure("reused_usd")
            not_spent.optional_text("reused_from")
            not_spent.names("reused_commits")
    cassettes = summary.optional_child("cassettes") if "cassettes" in summary.data else None
    if cassettes is not None:
        for key in ("written", "kept", "not_written"):
            cassettes.count(key)
        cassettes.names("directories")
        for entry in cassettes.objects("not_written_cassettes"):
            entry.text("cassette")
            entry.text("status")
            entry.optional_text("why")


def _delta(delta: Fields) -> None:
    delta.text("baseline_kind")
    _figures(delta)
    for case in delta.objects("cases"):
        for key in ("skill_name", "case_name", "runner"):
            case.text(key)
        _arm(case.child("candidate"))
        baseline = case.optional_child("baseline")
        if baseline is not None:
            _arm(baseline)
        case.flag("comparable")
        case.flag("high_variance")
        case.optional_text("exclusion_reason")
        case.names("low_signal")
    for varying in delta.objects("high_variance"):
        varying.optional_figure("pass_rate", RATE)
        varying.figure("stddev")
    delta.names("notes")
    for runner in delta.objects("runners"):
        runner.text("runner")
        _figures(runner)


def _figures(figures: Fields) -> None:
    figures.count("comparable_cases")
    figures.optional_figure("pass_rate_candidate", RATE)
    figures.optional_figure("pass_rate_baseline", RATE)
    figures.optional_figure("pass_rate_delta", SIGNED_RATE)
    for key in _DELTA_SIGNED:
        figures.optional_figure(key, FINITE)
    intervals = figures.child("intervals")
    for key in ("candidate", "baseline", "delta"):
        check_interval(intervals.optional_child(key))
    figures.optional_text("confidence")


def _arm(stats: Fields) -> None:
    for key in ("runs", "errored", "passed"):
        stats.count(key)
    stats.optional_figure("pass_rate", RATE)
    for key in ("stddev", "mean_tokens", "mean_cost_usd", "mean_latency_ms"):
        stats.figure(key)
    check_interval(stats.optional_child("interval"))
    for estimate in stats.objects("k_estimates"):
        estimate.count("k")
        estimate.figure("pass_at_k", RATE)
        estimate.figure("pass_hat_k", RATE)


def _multiplicity(family: Fields) -> None:
    criterion = family.word("criterion", tuple(WHAT))
    family.word("method", METHODS)
    family.figure("level", LEVEL)
    family.figure("alpha", RATE)
    for decision in family.objects("decisions"):
        decision.word("what", (WHAT[criterion],))  # type: ignore[index]
        decision.optional_text("skill")
        decision.optional_text("runner")
        if "arm" in decision.data:
            decision.text("arm")
        decision.figure("estimate", SIGNED_RATE)
        decision.figure("bar", SIGNED_RATE)
        for key in ("p_value", "adjusted_p_value"):
            decision.figure(key, RATE)
        decision.figure("adjusted_level", LEVEL)
        raw, adjusted = decision.flag("raw_holds"), decision.flag("adjusted_holds")
        if adjusted and not raw:
            raise ReportError(
                f"{decision.at('adjusted_holds')}: a correction never shows what the raw "
                "decision does not"
            )


def _gate(gate: Fields) -> None:
    passed = gate.flag("passed")
    code = gate.count("exit_code")
    gate.names("reasons")
    if passed and code != 0:
        raise ReportError(f"{gate.at('exit_code')}: a gate that passed exits 0, not {code}")


def _changed(changed: Fields) -> None:
    """--skill-lens-changed's words are those of its REF and commit, and of its lists."""
    ref, commit = changed.text("ref"), changed.text("commit")
    said = f"unchanged since {ref} ({commit[:8]})"
    if changed.text("unchanged_reason") != said:
        raise changed.wrong("unchanged_reason", repr(said))
    nothing = not changed.items("changed_skills") and bool(changed.items("unchanged_skills"))
    if changed.flag("nothing_to_evaluate") != nothing:
        raise changed.wrong("nothing_to_evaluate", str(nothing).lower())
