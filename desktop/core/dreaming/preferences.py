"""Inferring preferences: how the user likes things done, learned from what they say.

The user's recent messages (kept conversations, on the record; only when
some arrived since the last dream) go to the model, which lists candidate
preferences, each with how strongly it was expressed and the numbers of the
messages showing it.  A preference becomes a memory (marked inferred) only
past a threshold of distinct messages: a strong correction once, mild
pushback twice, a casual remark three times.  The host counts them from the
messages themselves, never from the model's label alone: a cited message
counts only when it says the preference (``evidence.supports``: "No,
don't make the answers short" does not say "prefers short answers"), the
same text twice counts once, and a "strong correction" needs one of those
messages to read as one ("No", "stop", "don't"...) or it needs two.  A
preference the answer names twice (or near enough: case, spacing, a word
more) is added once, from the messages of both.  One
that touches security, credentials or money waits for the user's approval;
one already known, or one the user deleted before, is left alone.

What the small model answers is not always a preference: a message's
number ("1"), a word ("German"), a numbered fragment of what the user said
("1. no writing essays"), a quote of a message.  Those are not the user's
preferences, left alone: they are left out without a word in the report
(the app's log says why, without their text).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from desktop.core.base.text_fold import normalised
from desktop.core.db import ConversationStore, Message
from desktop.core.dreaming.dedup import with_vectors
from desktop.core.dreaming.evidence import corrects, supports
from desktop.core.dreaming.passes import PassContext, PassRejected
from desktop.core.dreaming.proposals import Proposal
from desktop.core.memory.gate import GatedText, MemoryRefused
from desktop.core.memory.service import Saying, one_each
from models.structured import Numbers

log = logging.getLogger(__name__)

TEMPLATE = "DREAM_PREFERENCES_PROMPT.txt"
DAY = 86_400.0
MESSAGE_CHARS = 400
MAX_MESSAGES = 60
THRESHOLDS = {"strong_correction": 1, "mild_pushback": 2, "casual_remark": 3}
MAX_CITED = 10
"""Messages one preference may cite: the answer's grammar closes the list
there, so a small model repeating a number cannot run its answer out of
tokens mid-list (it did: "1, 1, 1, ..." until the answer was cut)."""
_SENSITIVE = re.compile(
    r"\b(?:passwords?|passcodes?|pins?|credentials?|log ?ins?|2fa|security|secrets?|keys?|"
    r"tokens?|money|bank(?:ing)?|accounts?|pay(?:ments?|ing)?|cards?|credit|debit|crypto|"
    r"bitcoin|invest(?:ing|ments?)?|loans?|budget|salary|tax(?:es)?|prices?|spend(?:ing)?)\b",
    re.IGNORECASE,
)

_MIN_WORDS = 3
_LIST_MARKER = re.compile(r"\s*(?:\[?\d+[\].)]|[-*+•]\s)")
"""The start of a numbered or bulleted line: the prompt's numbering, echoed."""
_WORD = re.compile(r"\w+", re.UNICODE)

Strength = Literal["strong_correction", "mild_pushback", "casual_remark"]


class Preference(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    preference: str = Field(min_length=1, max_length=200)
    strength: Strength
    sensitive: bool
    """About security, credentials or money."""
    messages: Numbers = Field(min_length=1, max_length=MAX_CITED)


class PreferenceAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    preferences: list[Preference] = Field(max_length=10)


class PreferencePass:
    name = "preferences"
    title = "Noticing your preferences"

    def __init__(self, conversations: ConversationStore) -> None:
        self._conversations = conversations

    def plan(self, context: PassContext) -> list[Proposal]:
        since = context.judged_through or 0.0
        window = context.now - context.settings.preference_window_days * DAY
        messages = self._conversations.user_messages_since(window, MAX_MESSAGES)
        if not any(m.created_at > since for m in messages):
            return []  # nothing new to learn from
        fitted, messages = context.fit_messages(TEMPLATE, "messages", messages, MESSAGE_CHARS)
        if not messages:
            context.notes.append("The model's context is too small to show even one message.")
            return []
        step = "preferences:" + ",".join(str(m.id) for m in messages)
        answer = context.ask(step, fitted.messages, PreferenceAnswer, schema(len(messages)))
        if any(not 1 <= n <= len(messages) for p in answer.preferences for n in p.messages):
            raise PassRejected(
                "the model named messages it was not shown", answer.model_dump_json()
            )
        proposals = [
            proposal
            for found in answer.preferences
            if (proposal := self._proposal(context, found, messages)) is not None
        ]
        # A preference named twice (or near enough) is added once, from the
        # messages of both, approval if either needs it.
        return one_each(with_vectors(context, proposals), _saying, _joined)

    @staticmethod
    def _proposal(
        context: PassContext, found: Preference, messages: list[Message]
    ) -> Proposal | None:
        saying = saying_it(found.preference, [messages[n - 1] for n in found.messages])
        if len(saying) < threshold(found.strength, found.preference, saying):
            return None  # not said firmly or often enough (yet)
        gated = _vetted(context, found.preference, messages)
        if gated is None:
            return None
        try:
            if context.memories.known_as(gated.text) is not None:
                return None
        except MemoryRefused as refused:  # one the user deleted: theirs, worth saying
            context.notes.append(f"“{gated.text}” was left alone: {refused}")
            return None
        sensitive = found.sensitive or bool(_SENSITIVE.search(gated.text))
        source_ids = [m.id for m in saying]
        return Proposal(
            "add",
            f"Inferred a preference: {gated.text}",
            {
                "content": gated.text,
                "category": "preferences",
                "source_kind": "inferred",
                "message_ids": source_ids,
                "flags": list(gated.flags),
            },
            needs_approval=sensitive,
        )


def saying_it(preference: str, cited: list[Message]) -> list[Message]:
    """The messages of *cited* that count toward *preference*: typed by the
    user (no command, no seed), saying it (``supports``), each distinct
    text once."""
    counted: dict[str, Message] = {}
    for message in cited:
        if message.role != "user" or (message.metadata or {}).get("kind") in ("seed", "command"):
            continue
        if supports(preference, message.content):
            counted.setdefault(normalised(message.content), message)
    return list(counted.values())


def threshold(strength: Strength, preference: str, saying: list[Message]) -> int:
    """How many messages a preference of the model's *strength* needs: the
    model's label can only raise it.  A strong correction counts as one only
    when one of the messages *saying* it corrects toward *preference* (so the
    correction is for it: a "No, don't..." against it is not counted at
    all); otherwise
    it needs as many as mild pushback."""
    if strength == "strong_correction" and not any(corrects(m.content, preference) for m in saying):
        strength = "mild_pushback"
    return THRESHOLDS[strength]


def _vetted(context: PassContext, text: str, messages: list[Message]) -> GatedText | None:
    """*text* as it may be stored, or None when it is model debris, not a preference."""
    debris = not_a_preference(text, [m.content for m in messages])
    if not debris:
        try:
            return context.memories.vet(text)
        except MemoryRefused as refused:
            debris = str(refused)
    # The reason only: the text is the model's, and may quote the user.
    log.info("dream %d: an answer that is no preference was left out: %s", context.run_id, debris)
    return None


def not_a_preference(text: str, said: list[str]) -> str:
    """Why the model's *text* is debris rather than a preference ("" if it
    may be one): it starts with a list number or bullet (the prompt's
    numbering echoed), holds a template's braces ("{user_name}" made up),
    has under three words, or repeats one of the messages it was shown
    (*said*) instead of saying what it shows."""
    if _LIST_MARKER.match(text):
        return "it starts like a numbered line"
    if "{" in text or "}" in text:
        return "it holds a template's braces"
    words = _WORD.findall(text.casefold())
    if len(words) < _MIN_WORDS:
        return f"under {_MIN_WORDS} words"
    if any(words == _WORD.findall(message.casefold()) for message in said):
        return "it repeats a message word for word"
    return ""


def _saying(proposal: Proposal) -> Saying:
    text = str(proposal.payload["content"])
    return text, proposal.vectors.get(text)


def _joined(first: Proposal, repeat: Proposal) -> Proposal:
    said = {int(i) for p in (first, repeat) for i in p.payload["message_ids"]}
    return Proposal(
        first.kind,
        first.summary,
        {**first.payload, "message_ids": sorted(said)},
        touches=first.touches,
        retires=first.retires,
        vectors=first.vectors,
        needs_approval=first.needs_approval or repeat.needs_approval,
    )


def schema(shown: int) -> dict[str, Any]:
    """The answer's schema, message numbers limited to the *shown* ones."""
    result = PreferenceAnswer.model_json_schema()
    numbers = {"type": "integer", "enum": list(range(1, shown + 1))}
    result["$defs"]["Preference"]["properties"]["messages"]["items"] = numbers
    return result
