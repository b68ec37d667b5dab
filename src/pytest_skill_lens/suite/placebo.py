"""The placebo of a skill: neutral text of the same length, with none of the skill's words.

A placebo arm asks whether a skill helps because of what it says or only because the
agent was handed more context. Its skill keeps the candidate's name (the agent finds
it where it found the candidate) and frontmatter keys, and every text in it is replaced
by bland landscape prose, paragraph for paragraph:

* **Length.** Measured in *word pieces*, runs of letters or digits and each other
  non-space character on its own (``\\w+|[^\\w\\s]``): a rough, tokenizer-free stand-in
  for model tokens. Each paragraph of the placebo has exactly as many pieces as the
  paragraph it replaces (tolerance 0), and its words are picked to keep the letters
  close too (within 10% over a whole text of 100 pieces or more). A BPE tokenizer splits
  code and long identifiers into more tokens per piece than it does plain words, so a
  code-heavy skill's placebo is shorter in model tokens than the skill: the measure is
  stated, not hidden.
* **Neutral.** Descriptive sentences about hills, rivers and weather: no imperative, no
  tool, file, format or task word, so nothing in it bears on a case.
* **Free of the skill's words.** No content word of the skill (a run of three letters
  or more that is not one of :data:`FUNCTION_WORDS`, compared case-blind) appears in it;
  a pool the skill exhausts falls back to coined words, checked the same way.
* **Deterministic.** Choices come from SHA-256 of the skill's own text, never from a
  random generator, so the same skill gets the same placebo on every machine and every
  Python version, and a replayed run matches its recording.

``allowed-tools`` is left out of the placebo's frontmatter: it grants tools, which bears
on the task; every other key stays, its text made neutral (numbers and flags as they are).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from typing import Any

import yaml

from .skill import Skill

PIECE = re.compile(r"\w+|[^\w\s]")
_LETTERS = re.compile(r"[^\W\d_]+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
PLACEBO_VARIANT = "placebo"
GRANTS = frozenset({"allowed-tools"})  # frontmatter keys a placebo leaves out

# The only words the placebo shares with any text: too common to carry an instruction.
FUNCTION_WORDS = frozenset({"the", "and"})

_ADJECTIVES = (
    "dim", "wet", "old", "pale", "quiet", "grey", "broad", "low", "slow", "green", "amber",
    "soft", "damp", "mossy", "sandy", "narrow", "hollow", "distant", "silver", "dusky", "misty",
    "golden", "rolling", "shallow", "gentle", "weathered", "scattered", "faded", "ancient",
    "leafy", "stony", "windy", "copper", "brackish", "overgrown", "sheltered", "meandering",
    "crumbling", "speckled", "lichened", "heather", "birchen", "tranquil",
)  # fmt: skip
_NOUNS = (
    "elm", "oak", "bay", "owl", "fog", "dew", "sky", "hay", "hill", "river", "cloud", "meadow",
    "fern", "heron", "valley", "pebble", "orchard", "willow", "marsh", "harbour", "lantern",
    "fence", "hedge", "moor", "brook", "stream", "cottage", "barn", "pasture", "thicket",
    "shoreline", "estuary", "lighthouse", "gull", "sparrow", "acorn", "bramble", "boulder",
    "ridge", "spruce", "birch", "reed", "dune", "tide", "drizzle", "dawn", "dusk", "chestnut",
    "footbridge", "millpond", "hillside", "woodland", "riverbank", "waterfall", "haystack",
    "farmhouse", "countryside",
)  # fmt: skip
_VERBS = (
    "dims", "naps", "rests", "drifts", "leans", "glows", "sways", "lingers", "settles", "hums",
    "fades", "wanders", "shimmers", "slumbers", "rustles", "ripples", "dozes", "flickers",
    "basks", "meanders", "glistens", "murmurs", "stretches", "darkens", "brightens", "softens",
)  # fmt: skip
_PLACES = (
    "near", "beside", "under", "above", "across", "along", "behind", "past", "beyond", "below",
    "around", "toward",
)  # fmt: skip
# Each sentence is one of these, word by word: a slot name or a function word.
_PATTERNS: tuple[tuple[str, ...], ...] = (
    ("the", "adj", "noun", "verb", "place", "the", "noun"),
    ("the", "noun", "verb", "and", "the", "adj", "noun", "verb"),
    ("adj", "noun", "verb", "place", "the", "adj", "noun"),
    ("the", "noun", "place", "the", "noun", "verb"),
    ("the", "adj", "adj", "noun", "verb"),
    ("the", "noun", "and", "the", "noun", "verb", "place", "the", "adj", "noun"),
)
# A sentence cut to fit the pieces left: the pattern of that many words, never a fragment
# that ends on "the".
_FITTING: dict[int, tuple[str, ...]] = {
    1: ("noun",),
    2: ("noun", "verb"),
    3: ("the", "noun", "verb"),
    4: ("the", "adj", "noun", "verb"),
    5: ("the", "adj", "adj", "noun", "verb"),
    6: ("the", "noun", "place", "the", "noun", "verb"),
    7: ("the", "adj", "noun", "verb", "place", "the", "noun"),
    8: ("the", "noun", "verb", "and", "the", "adj", "noun", "verb"),
    9: ("the", "adj", "noun", "verb", "place", "the", "adj", "adj", "noun"),
}
VOCABULARY = (*_ADJECTIVES, *_NOUNS, *_VERBS, *_PLACES)  # every word a placebo can use
_POOLS = {"adj": _ADJECTIVES, "noun": _NOUNS, "verb": _VERBS, "place": _PLACES}
_SYLLABLES = ("lo", "ven", "mar", "tis", "quo", "bel", "run", "sa", "dor", "ith", "pel", "um")


def word_pieces(text: str) -> int:
    """The placebo's measure of length: runs of letters or digits, and other characters."""
    return len(PIECE.findall(text))


def content_words(text: str) -> frozenset[str]:
    """Case-blind runs of three letters or more, less :data:`FUNCTION_WORDS`."""
    words = (w.lower() for w in _LETTERS.findall(text))
    return frozenset(w for w in words if len(w) >= 3 and w not in FUNCTION_WORDS)


def placebo_skill(skill: Skill) -> Skill:
    """``skill``'s placebo: its name and path, neutral text of the same length elsewhere.

    It ships no bundle (its variant is :data:`PLACEBO_VARIANT`): bundled files are the
    skill's content too.
    """
    avoid = content_words(
        "\n".join([skill.name, skill.description, skill.instructions, *_texts(skill.meta)])
    )
    seed = hashlib.sha256(
        "\0".join([skill.name, skill.description, skill.instructions]).encode("utf-8")
    ).hexdigest()
    description = neutral_text(skill.description, avoid, f"{seed}:description")
    meta: dict[str, object] = {}
    for key, value in skill.meta.items():
        if key in GRANTS:
            continue
        if key == "name":
            meta[key] = value
        elif key == "description":
            meta[key] = description
        else:
            meta[key] = _neutral_value(value, avoid, f"{seed}:{key}")
    return dataclasses.replace(
        skill,
        description=description,
        instructions=neutral_text(skill.instructions, avoid, f"{seed}:instructions"),
        version=None,
        variant=PLACEBO_VARIANT,
        meta=meta,
    )


def skill_md_text(placebo: Skill) -> str:
    """The placebo as a ``SKILL.md`` file (what a product is given): frontmatter, then body."""
    front = yaml.safe_dump(placebo.meta, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{front}---\n{placebo.instructions}\n"


def neutral_text(text: str, avoid: frozenset[str], seed: str) -> str:
    """Neutral prose with ``text``'s paragraphs, each of exactly as many word pieces."""
    stream = _Stream(seed)
    paragraphs = [p for p in _PARAGRAPH_BREAK.split(text.strip()) if p.strip()]
    made = [_paragraph(p, avoid, stream) for p in paragraphs]
    return "\n\n".join(p for p in made if p)


def _paragraph(source: str, avoid: frozenset[str], stream: _Stream) -> str:
    pieces = PIECE.findall(source)
    remaining = len(pieces)
    letters = sum(len(p) for p in pieces if p[0].isalnum() or p[0] == "_")
    sentences: list[str] = []
    while remaining > 0:
        pattern = _PATTERNS[stream.below(len(_PATTERNS))]
        # A sentence is its words and a full stop; the last is one that fits what is left.
        if len(pattern) > remaining - 1:
            pattern = _FITTING[max(1, remaining - 1)]
        words: list[str] = []
        for slot in pattern:
            # Our words are about 7 in 8 of our pieces (the rest full stops): spreading the
            # source's letters over them keeps the letters near when the source is prose.
            wanted = round(letters / max(1.0, remaining * 7 / 8))
            word = _word(slot, wanted, avoid, stream)
            words.append(word)
            letters -= len(word)
            remaining -= 1
        sentence = " ".join(words)
        sentence = sentence[:1].upper() + sentence[1:]
        if remaining > 0:
            sentence += "."
            remaining -= 1
        sentences.append(sentence)
    return " ".join(sentences)


def _word(slot: str, wanted: int, avoid: frozenset[str], stream: _Stream) -> str:
    pool = _POOLS.get(slot)
    if pool is None:
        return slot  # a function word
    usable = [w for w in pool if w not in avoid]
    if not usable:
        return _coined(avoid, stream)
    nearest = min(abs(len(w) - wanted) for w in usable)
    close = [w for w in usable if abs(len(w) - wanted) <= nearest + 1]
    return close[stream.below(len(close))]


def _coined(avoid: frozenset[str], stream: _Stream) -> str:
    """A made-up word of three syllables that is none of the skill's words."""
    while True:
        word = "".join(_SYLLABLES[stream.below(len(_SYLLABLES))] for _ in range(3))
        if word not in avoid:
            return word


def _neutral_value(value: object, avoid: frozenset[str], seed: str) -> Any:
    if isinstance(value, str):
        return neutral_text(value, avoid, seed)
    if isinstance(value, list):
        return [_neutral_value(v, avoid, f"{seed}:{i}") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _neutral_value(v, avoid, f"{seed}:{k}") for k, v in value.items()}
    return value  # a number, a flag or null says nothing


def _texts(value: object) -> Sequence[str]:
    """Every text in a frontmatter value, keys of mappings included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (str(k), *_texts(v))]
    return []


class _Stream:
    """Whole numbers drawn from SHA-256 in counter mode: the same on every platform."""

    def __init__(self, seed: str) -> None:
        self._seed = seed.encode("utf-8")
        self._counter = 0
        self._buffer = b""

    def below(self, bound: int) -> int:
        if len(self._buffer) < 8:
            block = self._seed + self._counter.to_bytes(8, "big")
            self._buffer += hashlib.sha256(block).digest()
            self._counter += 1
        value, self._buffer = int.from_bytes(self._buffer[:8], "big"), self._buffer[8:]
        return value % bound
