"""The write gate: what may become a memory, checked before anything is stored.

Small models harvest junk as readily as facts: JSON and Markdown debris,
pieces of their own system prompt, the same phrase looping.  The gate
refuses those with a reason the user can read, takes secrets out
(``redaction``), and flags "facts" that read like orders to the model
("ignore previous instructions...") so they are only ever shown to it as
quoted data.  It decides on the text alone; duplicates are the memory
service's business.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from desktop.core.base.errors import ReverieError
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.text import readable, scrub
from desktop.core.privacy.prompt_safety import has_prompt_markup
from desktop.core.privacy.redaction import Redactor

HARVEST_PROMPT = "MEMORY_HARVEST_PROMPT.txt"
_INSTRUCTION_TEMPLATES = ("BASE_PROMPT.txt", "PROMPT_COMPONENTS.txt")
MIN_CHARS = 10
MAX_CHARS = 2000
INSTRUCTION_LIKE = "instruction_like"
REDACTED = "redacted"

_SHINGLE_WORDS = 6
_ECHO_SHARE = 0.5
"""A memory sharing half its six-word runs with the system prompt is an echo."""

_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b.{0,40}\b(?:previous|prior|above|earlier|"
    r"all|your|system)\b.{0,20}\b(?:instructions?|prompts?|rules?|guidelines?|messages?)"
    r"|\b(?:you are now|from now on you (?:are|will|must)|new instructions?:|act as (?:an? )?"
    r"(?:unrestricted|jailbroken|DAN)|developer mode|jailbreak|system prompt:|"
    r"reveal (?:your|the) (?:system )?prompt|do anything now)"
    # Forgetting or obeying on command.
    r"|\bforget (?:what|everything|all) (?:you|you've)\b|\b(?:obey|comply with) (?:me|this|these)\b"
    # A sentence that orders the assistant: "Always answer in French from here on."
    r"|(?:^|[.!?:;]\s+)(?:always|never|from (?:now|here) on,?|henceforth,?)\s+(?:\w+\s+){0,2}"
    r"(?:answer|reply|respond|speak|write|say|mention|talk|use|tell|call)\b",
    re.IGNORECASE | re.DOTALL,
)
_MARKDOWN_DEBRIS = re.compile(
    r"^(?:```|~~~|\|.*\|$|[-*_]{3,}$|#{1,6}\s*$|[-*+]\s*$|>\s*$|\d+[.)]\s*$)", re.MULTILINE
)
_LOOP_TIMES = 5
"""A phrase said this many times in a row is a generation loop."""
_LOOP_PHRASE_WORDS = 8
_STUTTER = re.compile(rf"(.{{1,4}}?)\1{{{_LOOP_TIMES - 1},}}")
_WORD = re.compile(r"\w+", re.UNICODE)


class MemoryRefused(ReverieError):
    """The text was not stored as a memory; ``str()`` says why, for the user."""


@dataclass(frozen=True)
class GatedText:
    text: str
    """What may be stored: normalised, secrets taken out."""
    flags: tuple[str, ...]
    redactions: tuple[str, ...]
    """The kinds of secrets taken out, one per secret."""


class WriteGate:
    def __init__(self, prompt_texts: Iterable[str] = (), redactor: Redactor | None = None) -> None:
        """*prompt_texts*: the model's own instructions, which memories must
        not echo; *redactor*: what takes secrets out (the application's)."""
        self._redact = redactor or Redactor()
        texts = list(prompt_texts)
        self._prompt_shingles = {s for text in texts for s in _shingles(text)}
        self._prompt_words = " ".join(" ".join(_words(text)) for text in texts)

    @classmethod
    def for_prompts(cls, prompts: PromptLibrary, redactor: Redactor | None = None) -> WriteGate:
        """A gate refusing echoes of the instructions in *prompts*' templates."""
        names = [n for n in (*_INSTRUCTION_TEMPLATES, HARVEST_PROMPT) if prompts.exists(n)]
        return cls((section.text for name in names for section in prompts.sections(name)), redactor)

    def check(self, text: str) -> GatedText:
        """*text* fit to store, or ``MemoryRefused`` with the reason."""
        cleaned = _normalised(text)
        if len(cleaned) < MIN_CHARS:
            raise MemoryRefused(f"Too short to be a memory (under {MIN_CHARS} characters).")
        if len(cleaned) > MAX_CHARS:
            raise MemoryRefused(
                f"Too long for one memory ({len(cleaned):,} characters; the limit is "
                f"{MAX_CHARS:,}). A memory is one fact: save the part that matters."
            )
        for problem in (_raw_json, _markdown_debris, _repetition, self._echo):
            reason = problem(cleaned)
            if reason:
                raise MemoryRefused(reason)
        redacted = self._redact(cleaned)
        if len(_WORD.findall(_without_markers(redacted.text))) < 2:
            raise MemoryRefused("It holds a secret and little else; secrets are never stored.")
        flags = [REDACTED] if redacted.kinds else []
        if is_instruction_like(redacted.text):
            flags.append(INSTRUCTION_LIKE)
        return GatedText(redacted.text, tuple(flags), redacted.kinds)

    def named_since(self, gated: str) -> GatedText | None:
        """*gated*, a text this gate let through a while ago, read again for
        the secrets named since (``Redactor.known``: "when the NAS asks,
        type X", then "X is my NAS password"): None if it holds none, else
        the text without them as ``check`` lets it be stored
        (``MemoryRefused`` if it is a secret and little else)."""
        text = self.without_named(gated)
        return None if text == gated else self.check(text)

    def without_named(self, text: str) -> str:
        """*text* without the secrets named this run (``Redactor.known``)."""
        return self._redact.known(text)

    def redacted(self, text: str) -> str:
        """*text* with every secret found taken out, as all text stored is; a
        JSON answer's texts one by one, so that it stays as valid as it was."""
        try:
            value = json.loads(text)
        except ValueError:
            return self._redact.text(text)
        return json.dumps(self._redact.within(value), ensure_ascii=False)

    def _echo(self, text: str) -> str:
        """A copy of the instructions (or their examples), whole or mostly:
        short texts must match word for word, longer ones in half their runs."""
        words = _words(text)
        shingles = _shingles(text)
        copied = len(words) >= _SHINGLE_WORDS - 2 and f" {' '.join(words)} " in (
            f" {self._prompt_words} "
        )
        mostly = len(shingles) >= 3 and (
            len(shingles & self._prompt_shingles) >= _ECHO_SHARE * len(shingles)
        )
        return (
            "It repeats Reverie's own instructions, not something about you."
            if (copied or mostly)
            else ""
        )


def is_instruction_like(text: str) -> bool:
    """Does *text* read like an order to the model rather than a fact?"""
    # Prompt markup in any spelling (``</ MEMORIES >``) is an attempt to step out of a block.
    return bool(_INSTRUCTION.search(text)) or has_prompt_markup(text)


def _normalised(text: str) -> str:
    # As a reader sees it: no control, bidirectional or invisible characters.
    text = readable(unicodedata.normalize("NFC", scrub(text)))
    lines = [" ".join(line.split()) for line in text.strip().splitlines()]
    return "\n".join(line for line in lines if line)


def _raw_json(text: str) -> str:
    if text[0] not in "[{":
        return ""
    try:
        json.loads(text)
    except ValueError:
        looks_like = re.search(r"[\"']\s*:", text) is not None
        return "It is a piece of JSON, not a fact." if looks_like else ""
    return "It is raw JSON data, not a fact."


def _markdown_debris(text: str) -> str:
    if _MARKDOWN_DEBRIS.search(text) or text.count("`") >= 6:
        return "It is a piece of formatting (a code fence, table or list marker), not a fact."
    return ""


def _repetition(text: str) -> str:
    words = [w.casefold() for w in _WORD.findall(text)]
    looping = len(words) >= 20 and len(set(words)) < 0.3 * len(words)
    if looping or _phrase_loop(words) or any(w.isalpha() and _STUTTER.fullmatch(w) for w in words):
        return "It repeats itself in a loop; nothing was stored."
    return ""


def _phrase_loop(words: list[str]) -> bool:
    """The same run of up to eight words, said five or more times in a row."""
    for size in range(1, _LOOP_PHRASE_WORDS + 1):
        for offset in range(size):
            repeats = 1
            for start in range(offset + size, len(words) - size + 1, size):
                same = words[start : start + size] == words[start - size : start]
                repeats = repeats + 1 if same else 1
                if repeats >= _LOOP_TIMES:
                    return True
    return False


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = _words(text)
    n = _SHINGLE_WORDS
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def _without_markers(text: str) -> str:
    return re.sub(r"\[redacted [a-z ]+\]", " ", text)
