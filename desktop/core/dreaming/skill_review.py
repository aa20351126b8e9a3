"""Tidying skills: condensed, overlapping ones merged, recurring requests
proposed as drafts.

- A skill changed since the last dream that runs longer than about
  ``CONDENSED_TOKENS`` is condensed by the model to about that; its first
  line, the summary the prompt shows, is kept as it was.
- Two skills whose summaries are close in meaning are shown to the model,
  which says whether they overlap and if so writes one text for both: the
  more used skill takes it, the other is retired (deleted, restorable).
  A text with fewer steps than either skill had lost some: both are kept;
  so are both when the model says they overlap but writes no text, or
  writes one of the two word for word (the other would go with its own
  words), each said in the report.
- A condensed or merged text that leaves out any command, path, URL, code
  span or number of the text(s) it replaces (``evidence.lost_specifics``)
  is not applied: it waits for the user's approval, the report showing
  before, after and what went missing; so does one that runs anything
  otherwise: a specific added, a command line changed, said not to run, or
  moved (``evidence.changed_commands``: the skill's file is what the chat
  model follows); one whose prose says a step otherwise (a sentence with a
  number or a word of change not read as it was: numbers swapped, a "never"
  dropped) or adds a content word the skill lacked
  (``evidence.changed_steps``); and one that keeps under a third of the
  skill's words (``evidence.kept_share``).
- Requests the user made in two conversations or more (words shared across
  conversations point the model at them) may become new skills, proposed as
  drafts the user accepts, edits or rejects in the skill editor (as many
  requests as fit the model's context, see ``PassContext.fit_messages``;
  a skill too long to condense or merge within it is left as it is).  A draft's
  change names the messages and conversations it was made from: erasing
  them retracts it, and takes a draft made only from them (see
  ``desktop.core.db.purge``).  A draft
  with nothing after its first line (no steps) or a name no file can have
  is model debris: left out, said only in the app's log.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from desktop.core.base.errors import ReverieError
from desktop.core.base.text_fold import folded
from desktop.core.base.tokens import TokenCounter
from desktop.core.db import ConversationStore, Message
from desktop.core.db.skills import EVERY_STATUS, Skill
from desktop.core.dreaming.evidence import (
    changed_commands,
    changed_steps,
    kept_share,
    lost_specifics,
)
from desktop.core.dreaming.passes import PassContext, one_line
from desktop.core.dreaming.proposals import Proposal
from desktop.core.dreaming.skill_changes import digests
from desktop.core.privacy.prompt_safety import safe_for_prompt
from desktop.core.skills.library import SkillLibrary, same_text, skill_name, summary_of

log = logging.getLogger(__name__)

CONDENSE = "DREAM_SKILL_CONDENSE_PROMPT.txt"
MERGE = "DREAM_SKILL_MERGE_PROMPT.txt"
PROPOSE = "DREAM_SKILL_PROPOSE_PROMPT.txt"
CONDENSED_TOKENS = 150
KEPT_SHARE = 1 / 3
"""A rewrite keeping less of a skill's words than this is not condensing: it waits."""
OVERLAP_SIMILARITY = 0.8
DAY = 86_400.0
MAX_MESSAGES = 80
MESSAGE_CHARS = 300
RECURRING_TERMS = 12
_WORD = re.compile(r"[^\W\d_]{4,}", re.UNICODE)
_STEP = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")
"""A line that starts a list item: a step, never taken for a summary."""
_SUMMARY_CHARS = 120
_COMMON = frozenset(
    str.split(
        "this that with have from what when where which would could should there their about "
        "please thanks thank could your just like want need know make some more also very much "
        "into than then them they will been were here tell give help"
    )
)


class Condensed(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(min_length=1, max_length=1500)


class Overlap(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    overlap: bool
    text: str | None = Field(None, max_length=3000)


class Draft(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(min_length=1, max_length=60)
    text: str = Field(min_length=1, max_length=1500)


class Drafts(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    skills: list[Draft] = Field(max_length=2)


class SkillPass:
    name = "skills"
    title = "Tidying skills"

    def __init__(self, skills: SkillLibrary, conversations: ConversationStore) -> None:
        self._skills = skills
        self._conversations = conversations

    def plan(self, context: PassContext) -> list[Proposal]:
        since = context.judged_through or 0.0
        skills = self._skills.list()
        changed = [s for s in skills if s.updated_at > since]
        merged = self._merges(context, skills, changed)
        retired = {int(p.payload["skill"]) for p in merged if p.kind == "skill_retire"}
        rewritten = {int(p.payload["skill"]) for p in merged}
        condensed = [
            proposal
            for skill in changed
            if skill.id not in rewritten | retired
            and (proposal := self._condensed(context, skill)) is not None
        ]
        return merged + condensed + self._drafts(context, skills, since)

    # -- condensing --------------------------------------------------------
    def _condensed(self, context: PassContext, skill: Skill) -> Proposal | None:
        text = self._skills.read(skill.id).text
        count = TokenCounter(context.broker)
        if count([text])[0] <= CONDENSED_TOKENS * 1.3:
            return None
        step = f"condense:{skill.id}@{skill.updated_at}"
        prompt = context.prompt(
            CONDENSE,
            name=one_line(skill.name),
            text=safe_for_prompt(text, "document"),
            tokens=str(CONDENSED_TOKENS),
        )
        if not context.fits(prompt, CONDENSED_TOKENS * 2):
            context.notes.append(_too_long(skill.name))
            return None
        answer = context.ask(step, prompt, Condensed, max_tokens=CONDENSED_TOKENS * 2)
        if _blank(answer.text):  # nothing but the summary would be left
            log.info("dream %d: a blank condensed skill was left out", context.run_id)
            return None
        condensed = _with_summary(answer.text, summary_of(text))
        if count([condensed])[0] >= count([text])[0]:
            return None  # not shorter: nothing gained
        return rewrite(skill, condensed, {skill.id: text}, f"Condensed the skill “{skill.name}”.")

    # -- merging -----------------------------------------------------------
    def _merges(
        self, context: PassContext, skills: list[Skill], changed: list[Skill]
    ) -> list[Proposal]:
        pairs = _close_pairs(context, skills, changed)
        proposals: list[Proposal] = []
        taken: set[int] = set()
        for first, second in pairs:
            if first.id in taken or second.id in taken:
                continue
            texts = [self._skills.read(s.id).text for s in (first, second)]
            step = f"merge:{first.id}@{first.updated_at},{second.id}@{second.updated_at}"
            prompt = context.prompt(
                MERGE,
                first=f"{one_line(first.name)}\n{safe_for_prompt(texts[0], 'document')}",
                second=f"{one_line(second.name)}\n{safe_for_prompt(texts[1], 'document')}",
            )
            if not context.fits(prompt, CONDENSED_TOKENS * 4):
                context.notes.append(
                    f"“{first.name}” and “{second.name}” look alike, but together they are "
                    "too long for the model's context: both were kept as they are."
                )
                continue
            answer = context.ask(step, prompt, Overlap, max_tokens=CONDENSED_TOKENS * 4)
            if not answer.overlap:
                continue
            if answer.text is None or _blank(answer.text):
                context.notes.append(
                    f"“{first.name}” and “{second.name}” look alike, and the model said they "
                    "overlap, but wrote no text for both: both were kept as they are."
                )
                continue
            if (same := _one_of(answer.text, (first, second), texts)) is not None:
                # Not a merge: the other skill would go, its own words with it.
                context.notes.append(
                    f"“{first.name}” and “{second.name}” look alike, but the text written "
                    f"for both is “{same.name}” as it is: both were kept as they are."
                )
                continue
            if _steps(answer.text) < max(map(_steps, texts)):
                context.notes.append(
                    f"“{first.name}” and “{second.name}” look alike, but the text written "
                    "for both dropped some of their steps: both were kept as they are."
                )
                continue
            keep, retire = sorted((first, second), key=lambda s: (-s.use_count, s.id))
            kept_text = texts[0] if keep is first else texts[1]
            taken.update((first.id, second.id))
            read = {first.id: texts[0], second.id: texts[1]}
            merged = rewrite(
                keep,
                _with_summary(answer.text, summary_of(kept_text)),
                read,
                f"The skill “{keep.name}” now also covers “{retire.name}”.",
            )
            # Retiring goes with the merged text: both wait when that does.
            payload: dict[str, Any] = {"skill": retire.id, "into": keep.id, "read": digests(read)}
            if merged.needs_approval:
                payload["waits"] = f"it goes with the merged text of “{keep.name}”, which waits"
            proposals += [
                merged,
                Proposal(
                    "skill_retire",
                    f"Retired the skill “{retire.name}”: merged into “{keep.name}”.",
                    payload,
                    needs_approval=merged.needs_approval,
                ),
            ]
        return proposals

    # -- proposing -----------------------------------------------------------
    def _drafts(self, context: PassContext, skills: list[Skill], since: float) -> list[Proposal]:
        window = context.now - context.settings.preference_window_days * DAY
        said = self._conversations.user_messages_since(window, MAX_MESSAGES)
        if not any(m.created_at > since for m in said):
            return []
        terms = recurring_terms(said)
        if not terms:
            return []  # nothing asked for in two conversations
        fitted, shown = context.fit_messages(
            PROPOSE,
            "messages",
            [m for m in said if set(_words(m.content)) & set(terms)],
            MESSAGE_CHARS,
            max_tokens=CONDENSED_TOKENS * 5,
            terms=", ".join(terms),
            skills="\n".join(f"- {one_line(s.name)}: {one_line(s.summary)}" for s in skills)
            or "(none)",
        )
        if not shown:
            context.notes.append(
                "No new skill was proposed: the model's context is too small to show "
                "even one request."
            )
            return []
        step = "propose:" + ",".join(str(m.id) for m in shown)
        answer = context.ask(step, fitted.messages, Drafts, max_tokens=CONDENSED_TOKENS * 5)
        # A deleted skill's name too: a draft would take its row, and the
        # user could restore it no more.
        known = {s.name.casefold() for s in self._skills.list(statuses=EVERY_STATUS)}
        proposals = []
        for draft in answer.skills:
            try:
                name = skill_name(draft.name)
            except ReverieError as refused:
                # The model's own proposal, not the user's skill: not a word in the report.
                # Its kind only: the message quotes the name, which the log
                # would keep after what it was made from is erased.
                log.info(
                    "dream %d: a proposed skill was left out: %s",
                    context.run_id,
                    type(refused).__name__,
                )
                continue
            if len(draft.text.strip().splitlines()) < 2:
                log.info("dream %d: a proposed skill without steps was left out", context.run_id)
                continue
            if name.casefold() in known:
                continue
            known.add(name.casefold())
            proposals.append(
                Proposal(
                    "skill_draft",
                    f"Proposed a new skill for review: “{name}”.",
                    {"name": name, "text": draft.text, **_made_from(shown)},
                )
            )
        return proposals


def rewrite(skill: Skill, text: str, read: dict[int, str], summary: str) -> Proposal:
    """A proposal to give *skill* the new *text*, written from the skills'
    texts *read* (by id): it waits for the user's approval when the text
    drops any of their commands, paths, URLs, code or numbers (the payload's
    "lost" says which), runs anything otherwise, says a step otherwise or
    adds to it, or keeps little of them (the
    payload's "waits" says why); it is left for the next dream if any of
    them is changed before it applies (the payload's "read" holds their digests)."""
    originals = list(read.values())
    lost = lost_specifics(originals, text)
    payload: dict[str, Any] = {"skill": skill.id, "text": text, "read": digests(read)}
    if lost:
        payload["lost"] = lost
        payload["waits"] = "the new text leaves out " + ", ".join(f"“{s}”" for s in lost[:8])
    elif changed := changed_commands(originals, text) or changed_steps(originals, text):
        payload["waits"] = f"the new text {changed}"
    elif kept_share(originals, text) < KEPT_SHARE:
        payload["waits"] = "the new text keeps little of what the skill said"
    return Proposal("skill_rewrite", summary, payload, needs_approval="waits" in payload)


def recurring_terms(messages: list[Message]) -> list[str]:
    """Words the user used in two conversations or more, the most widespread first."""
    conversations: dict[str, set[int]] = defaultdict(set)
    counts: Counter[str] = Counter()
    for message in messages:
        for word in set(_words(message.content)):
            conversations[word].add(message.conversation_id)
            counts[word] += 1
    recurring = [w for w, where in conversations.items() if len(where) >= 2]
    recurring.sort(key=lambda w: (-len(conversations[w]), -counts[w], w))
    return recurring[:RECURRING_TERMS]


def _made_from(messages: list[Message]) -> dict[str, list[int]]:
    """The provenance a draft's change keeps: the messages the model was shown
    and their conversations, so erasing them retracts the change (and takes
    a draft made only from erased conversations with them)."""
    return {
        "message_ids": [m.id for m in messages],
        "conversations": sorted({m.conversation_id for m in messages}),
    }


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in _COMMON]


def _close_pairs(
    context: PassContext, skills: list[Skill], changed: list[Skill]
) -> list[tuple[Skill, Skill]]:
    """Skills whose summaries are close in meaning, one of them changed since
    the last dream; the closest first."""
    if len(skills) < 2 or not changed:
        return []
    vectors = context.memories.embed([f"{s.name}: {s.summary}" for s in skills])
    if vectors is None:
        return []
    similarity = np.asarray(vectors) @ np.asarray(vectors).T
    fresh = {s.id for s in changed}
    found = [
        (float(similarity[i, j]), skills[i], skills[j])
        for i in range(len(skills))
        for j in range(i + 1, len(skills))
        if (skills[i].id in fresh or skills[j].id in fresh)
        and similarity[i, j] >= OVERLAP_SIMILARITY
    ]
    found.sort(key=lambda item: -item[0])
    return [(first, second) for _, first, second in found]


def _one_of(written: str, skills: tuple[Skill, Skill], texts: list[str]) -> Skill | None:
    """The one of *skills* (their *texts*) that *written*, given its
    summary, is word for word; None if it is neither."""
    return next(
        (
            skill
            for skill, text in zip(skills, texts, strict=True)
            if same_text(_with_summary(written, summary_of(text)), text)
        ),
        None,
    )


def _too_long(name: str) -> str:
    return f"“{name}” was not condensed: it is too long for the model's context."


def _steps(text: str) -> int:
    """How many list items (steps) *text* has."""
    return sum(bool(_STEP.match(line)) for line in text.splitlines())


def _blank(text: str) -> bool:
    """Nothing a reader sees: spaces, or characters that show nothing."""
    return not folded(text)[0].strip()


def _with_summary(text: str, summary: str) -> str:
    """*text* with *summary* as its first line: the model's own first line
    goes when it reads as a summary (short, not a step) rather than a step."""
    body = text.strip().splitlines()
    if body and len(body[0]) <= _SUMMARY_CHARS and not _STEP.match(body[0]):
        body = body[1:]
    return "\n".join([summary, *body]).strip() + "\n"
