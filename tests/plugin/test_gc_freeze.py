"""What the session holds is frozen out of later cyclic-GC passes, and no garbage with it."""

from __future__ import annotations

import pytest
from runs import LensRun
from skillfactory import make_skill

lens = LensRun()  # the skills under skills/, in process


def test_garbage_of_a_case_is_not_frozen_with_what_the_session_holds(
    pytester: pytest.Pytester,
) -> None:
    # A cycle left by each case's call (as a real runner's event loop or client may
    # leave one) must still be collectable after the freeze that follows it.
    cases = [{"name": f"c{i}", "task": "t"} for i in range(600)]
    make_skill(pytester.path / "skills", "alpha", cases)
    pytester.makeconftest(
        """
        import gc
        import weakref

        class Cycle:
            pass

        refs = []

        def pytest_runtest_call(item):
            left = Cycle()
            left.me = left
            refs.append(weakref.ref(left))

        def pytest_unconfigure(config):
            gc.collect()
            alive = sum(ref() is not None for ref in refs)
            (config.rootpath / "alive.txt").write_text(f"{alive} {gc.get_freeze_count()}")
        """
    )
    result = lens(pytester)
    result.assert_outcomes(passed=600)
    alive, frozen = map(int, (pytester.path / "alive.txt").read_text().split())
    assert frozen > 0  # the session froze what it holds
    assert alive == 0
