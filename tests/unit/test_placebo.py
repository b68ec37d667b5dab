"""The placebo of a skill: same length in word pieces, deterministic, none of its words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_skill_lens.suite.placebo import (
    PLACEBO_VARIANT,
    VOCABULARY,
    content_words,
    neutral_text,
    placebo_skill,
    skill_md_text,
    word_pieces,
)
from pytest_skill_lens.suite.skill import Skill, parse_skill_text

SKILL_MD = """\
---
name: order-support
description: Answers customer questions about orders, refunds and shipping, citing the policy.
license: MIT
allowed-tools: Bash Read
metadata:
  owner: support-team
  tags: [refunds, shipping]
  priority: 2
---
# Order support

When a customer asks about a refund, first look up the order with `lookup_order(id)`.
Refunds are allowed within 30 days of delivery; never promise one outside that window.

## Steps

1. Read `references/policy.md` before answering.
2. Quote the order number, e.g. `ORD-1234`, and the delivery date.
3. If the order is missing, say so and ask for the e-mail address used.

```python
def refund_allowed(days: int) -> bool:
    return days <= 30
```
"""


def _skill(text: str = SKILL_MD) -> Skill:
    return parse_skill_text(text, Path("/skills/order-support/SKILL.md"))


def _paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n[ \t]*\n\s*", text.strip()) if p.strip()]


def _values(value: object) -> list[str]:
    """Every text a frontmatter value holds (its keys are its shape, kept)."""
    if isinstance(value, dict):
        return [t for v in value.values() for t in _values(v)]
    if isinstance(value, list):
        return [t for v in value for t in _values(v)]
    return [value] if isinstance(value, str) else []


def _all_text(skill: Skill) -> str:
    """All the placebo says, but its name: the one thing kept, so the agent finds it."""
    meta = {k: v for k, v in skill.meta.items() if k != "name"}
    return "\n".join([skill.description, skill.instructions, *_values(meta)])


def test_each_paragraph_keeps_its_length_in_word_pieces() -> None:
    skill = _skill()
    placebo = placebo_skill(skill)
    assert word_pieces(placebo.description) == word_pieces(skill.description) == 14
    source, made = _paragraphs(skill.instructions), _paragraphs(placebo.instructions)
    assert [word_pieces(p) for p in made] == [word_pieces(p) for p in source]
    assert word_pieces(placebo.instructions) == word_pieces(skill.instructions)


def test_the_letters_of_prose_stay_within_ten_percent() -> None:
    # Prose only: code and tables have more punctuation pieces per letter than the
    # placebo's sentences can have, so their placebo has more letters (stated in the docs).
    prose = SKILL_MD.split("## Steps")[0]
    skill = _skill(prose + "\n" + prose.split("---\n")[-1] * 3)
    placebo = placebo_skill(skill)

    def letters(text: str) -> int:
        return sum(len(w) for w in re.findall(r"\w+", text))

    assert word_pieces(skill.instructions) >= 100
    ratio = letters(placebo.instructions) / letters(skill.instructions)
    assert 0.9 <= ratio <= 1.1, ratio


def test_none_of_the_skills_content_words_appear() -> None:
    skill = _skill()
    placebo = placebo_skill(skill)
    theirs = content_words("\n".join([skill.name, skill.description, skill.instructions]))
    theirs |= content_words("\n".join(_values(skill.meta)))
    assert {"refund", "order", "policy", "customer", "shipping", "support"} <= theirs
    assert not content_words(_all_text(placebo)) & theirs


def test_a_skill_that_uses_every_pool_word_gets_coined_words_of_the_same_length() -> None:
    every = " ".join(VOCABULARY)
    skill = _skill(f"---\nname: greedy\ndescription: {every}\n---\n{every}\n")
    placebo = placebo_skill(skill)
    assert word_pieces(placebo.instructions) == word_pieces(skill.instructions)
    assert not content_words(_all_text(placebo)) & content_words(every)


def test_it_is_deterministic_and_depends_on_the_skill() -> None:
    first, again = placebo_skill(_skill()), placebo_skill(_skill())
    assert (first.description, first.instructions, first.meta) == (
        again.description,
        again.instructions,
        again.meta,
    )
    other = placebo_skill(_skill(SKILL_MD.replace("30 days", "14 days")))
    assert other.instructions != first.instructions
    # Pinned: a change of the generator changes what recorded replays were made with.
    assert neutral_text("Say hello to the user.", frozenset(), "seed") == "The dim damp owl fades."


def test_the_frontmatter_keeps_its_shape_without_grants() -> None:
    skill = _skill()
    placebo = placebo_skill(skill)
    assert list(placebo.meta) == ["name", "description", "license", "metadata"]
    assert placebo.meta["name"] == "order-support" == placebo.name
    assert placebo.meta["description"] == placebo.description
    metadata = placebo.meta["metadata"]
    assert isinstance(metadata, dict)
    assert list(metadata) == ["owner", "tags", "priority"]
    assert metadata["priority"] == 2
    assert isinstance(metadata["tags"], list) and len(metadata["tags"]) == 2
    assert word_pieces(str(metadata["owner"])) == word_pieces("support-team")
    assert (placebo.variant, placebo.version, placebo.path) == (PLACEBO_VARIANT, None, skill.path)


def test_it_says_nothing_a_task_could_use() -> None:
    text = _all_text(placebo_skill(_skill())).lower()
    task_words = {"use", "run", "call", "tool", "file", "answer", "return", "write", "read",
                  "must", "should", "always", "never", "ask", "say", "first", "step"}  # fmt: skip
    assert not set(re.findall(r"[a-z]+", text)) & task_words
    assert "`" not in text and "#" not in text


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=400))
def test_any_text_keeps_its_pieces_and_none_of_its_words(text: str) -> None:
    made = neutral_text(text, content_words(text), "s")
    assert word_pieces(made) == sum(word_pieces(p) for p in _paragraphs(text))
    assert not content_words(made) & content_words(text)


@pytest.mark.parametrize("text", ["", "   \n\n  ", "x", "a\n\nb"])
def test_small_texts(text: str) -> None:
    made = neutral_text(text, content_words(text), "s")
    assert word_pieces(made) == word_pieces(text)


def test_its_skill_md_reads_back_as_the_placebo() -> None:
    placebo = placebo_skill(_skill())
    text = skill_md_text(placebo)
    again = parse_skill_text(text, placebo.path)
    assert (again.name, again.description, again.instructions.strip()) == (
        placebo.name,
        placebo.description,
        placebo.instructions,
    )
    assert again.meta == placebo.meta
    assert text.startswith("---\nname: order-support\ndescription: ")
    assert "allowed-tools" not in text and "Bash" not in text


def test_a_product_is_delivered_the_placebo_skill_md_alone(tmp_path: Path) -> None:
    from pytest_skill_lens.run.products.delivery import deliver

    source = tmp_path / "src" / "order-support"
    (source / "references").mkdir(parents=True)
    (source / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (source / "references" / "policy.md").write_text("Refunds within 30 days.\n")
    placebo = placebo_skill(parse_skill_text(SKILL_MD, source / "SKILL.md"))
    cwd = tmp_path / "work"
    cwd.mkdir()
    delivered = deliver(placebo, cwd, ".claude/skills")
    assert delivered == cwd.resolve() / ".claude" / "skills" / "order-support"
    assert (delivered / "SKILL.md").read_text(encoding="utf-8") == skill_md_text(placebo)
    assert sorted(p.name for p in delivered.iterdir()) == ["SKILL.md"]
