"""The shard choice: a stable hash of (skill, case), dealt so each case is whole on one shard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from types import SimpleNamespace

import pytest

from pytest_skill_lens.plugin.flags import BY_NAME
from pytest_skill_lens.plugin.shard import Shard, assign, split

Item = tuple[str, str, str, str, int]  # skill, case, runner, arm, repeat
KEYS = [(f"skill-{s}", f"case-{c}") for s in range(4) for c in range(25)]  # 100 cases


def _shard(text: str | None) -> Shard | None:
    """--skill-lens-shard read as the run reads it."""
    return BY_NAME["shard"].value(SimpleNamespace(skill_lens_shard=text))  # type: ignore[no-any-return]


def _items(keys: list[tuple[str, str]]) -> list[Item]:
    """Every case's 8 items (2 runners x 2 arms x 2 repeats), in a collection-like order."""
    return [
        (skill, case, runner, arm, repeat)
        for skill, case in keys
        for arm in ("candidate", "baseline")
        for runner in ("a", "b")
        for repeat in (0, 1)
    ]


def _key(item: Item | str) -> tuple[str, str] | None:
    return None if isinstance(item, str) else (item[0], item[1])


def test_the_choice_is_the_same_in_every_process() -> None:
    script = (
        "import json, sys\n"
        "from pytest_skill_lens.plugin.shard import assign\n"
        "keys = [tuple(k) for k in json.loads(sys.argv[1])]\n"
        "print(json.dumps(sorted(assign(keys, 3).items())))\n"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):  # hash() would differ under each
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script, json.dumps(KEYS)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(done.stdout)
    here = json.dumps(sorted([list(k), v] for k, v in assign(KEYS, 3).items()))
    assert outputs == {here + "\n"}


def test_the_choice_does_not_depend_on_the_order_of_collection() -> None:
    assert assign(KEYS, 4) == assign(list(reversed(KEYS)), 4)


def test_every_item_of_a_case_lands_on_the_same_shard() -> None:
    items = _items(KEYS)
    for index in (1, 2, 3):
        kept, _ = split(items, _key, Shard(index, 3))
        per_case = Counter((skill, case) for skill, case, *_ in kept)
        assert set(per_case.values()) == {8}


def test_the_shards_partition_the_items_and_keep_their_order() -> None:
    items = [*_items(KEYS), "an ordinary test"]
    shards = [split(items, _key, Shard(index, 3)) for index in (1, 2, 3)]
    kept = [set(k) - {"an ordinary test"} for k, _ in shards]
    assert set().union(*kept) == set(_items(KEYS))
    assert sum(len(k) for k in kept) == len(_items(KEYS))  # no item on two shards
    for k, dropped in shards:
        assert "an ordinary test" in k  # not a case: not ours to split
        assert k == [item for item in items if item in k]  # the given order
        assert set(k).isdisjoint(dropped) and len(k) + len(dropped) == len(items)


def test_the_shards_are_balanced_to_one_case() -> None:
    for count in (2, 3, 7):
        sizes = Counter(assign(KEYS, count).values())
        assert set(sizes) == set(range(1, count + 1))
        assert max(sizes.values()) - min(sizes.values()) <= 1


def test_more_shards_than_cases_leaves_the_last_ones_empty() -> None:
    chosen = assign([("s", "a"), ("s", "b")], 3)
    assert sorted(chosen.values()) == [1, 2]


def test_one_shard_keeps_everything() -> None:
    items = _items(KEYS[:5])
    assert split(items, _key, Shard(1, 1)) == (items, [])


def test_names_that_join_alike_are_different_cases() -> None:
    chosen = assign([("a b", "c"), ("a", "b c")], 2)
    assert sorted(chosen.values()) == [1, 2]


def test_a_lone_surrogate_in_a_name_is_hashed_not_refused() -> None:
    assert assign([("s", "bad \ud800 name")], 2) == {("s", "bad \ud800 name"): 1}


def test_the_flag_value_is_read_as_k_of_n() -> None:
    assert _shard(None) is None
    assert _shard("2/3") == Shard(2, 3)
    assert Shard(2, 3).label == "2/3"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2", "--skill-lens-shard expects K/N (shard K of N), got '2'"),
        ("two/3", "--skill-lens-shard expects K/N (shard K of N), got 'two/3'"),
        (" 1/3", "--skill-lens-shard expects K/N (shard K of N), got ' 1/3'"),
        ("-1/3", "--skill-lens-shard expects K/N (shard K of N), got '-1/3'"),
        ("0/3", "--skill-lens-shard 0/3: K must be from 1 to N, and N at least 1"),
        ("4/3", "--skill-lens-shard 4/3: K must be from 1 to N, and N at least 1"),
        ("1/0", "--skill-lens-shard 1/0: K must be from 1 to N, and N at least 1"),
    ],
)
def test_a_bad_flag_value_is_exit_2_with_the_fix(value: str, message: str) -> None:
    with pytest.raises(pytest.exit.Exception) as stopped:
        _shard(value)
    assert stopped.value.returncode == 2
    assert stopped.value.msg == (
        f"skill-lens: {message}\n  fix: give each of N machines its own K/N: 1/3, 2/3 and 3/3 "
        "for three (docs/ci.md)"
    )
