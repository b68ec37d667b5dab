"""The progress line's words: what runs, for how long, how many are done, spend, time left."""

from __future__ import annotations

import pytest

from pytest_skill_lens.report.progress_line import (
    ProgressSnapshot,
    Running,
    duration,
    progress_line,
)


def snapshot(**changes: object) -> ProgressSnapshot:
    base: dict[str, object] = {
        "finished": 1,
        "total": 3,
        "running": (Running("greet :: second (slow)", 2.7),),
        "elapsed_seconds": 10.0,
        "spent_usd": 0.01,
        "unpriced": False,
        "ceiling_usd": None,
    }
    base.update(changes)
    return ProgressSnapshot(**base)  # type: ignore[arg-type]


def test_the_line_names_the_case_its_runner_the_count_spend_and_time_left() -> None:
    assert progress_line(snapshot()) == (
        "[skill-lens] 1/3 done | running greet :: second (slow) for 2s | spent $0.0100 | ~20s left"
    )


def test_spend_is_read_against_the_ceiling() -> None:
    line = progress_line(snapshot(spent_usd=0.25, ceiling_usd=5.0))
    assert "| spent $0.2500 of $5.00 ceiling |" in line


def test_unpriced_spend_says_the_figure_is_not_all_of_it() -> None:
    assert "spent $0.0100 and some runs unpriced" in progress_line(snapshot(unpriced=True))
    with_ceiling = progress_line(snapshot(unpriced=True, ceiling_usd=1.0))
    assert "spent $0.0100 and some runs unpriced: the $1.00 ceiling starts no new case" in (
        with_ceiling
    )


def test_no_estimate_before_a_case_has_finished_nor_after_the_last() -> None:
    assert "left" not in progress_line(snapshot(finished=0))
    assert "left" not in progress_line(snapshot(finished=3, running=()))


def test_a_total_not_yet_known_is_not_invented() -> None:
    # An xdist controller learns the total when the first worker has collected.
    line = progress_line(snapshot(total=None))
    assert line.startswith("[skill-lens] 1 done | running")
    assert "left" not in line


def test_several_running_cases_oldest_first_and_the_rest_counted() -> None:
    running = tuple(Running(f"s :: c{i} (r)", 10.0 - i) for i in range(5))
    line = progress_line(snapshot(running=running, total=9))
    assert "running s :: c0 (r) for 10s, s :: c1 (r) for 9s, s :: c2 (r) for 8s, and 2 more" in (
        line
    )


def test_nothing_running_says_nothing_about_running() -> None:
    assert "running" not in progress_line(snapshot(running=()))


def test_a_label_cannot_move_the_cursor_or_fake_a_line() -> None:
    line = progress_line(snapshot(running=(Running("s :: a\x1b[2J\nGate passed (r)", 1.0),)))
    assert "\x1b" not in line
    assert "\n" not in line


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.4, "0s"), (59.9, "59s"), (60, "1m00s"), (65, "1m05s"), (3599, "59m59s"), (7380, "2h03m")],
)
def test_durations_read_at_a_glance(seconds: float, text: str) -> None:
    assert duration(seconds) == text
