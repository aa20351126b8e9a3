"""Whether the user's words speak of a task, and whether a new text for a
task is faithful to the old one and to what the user said of it: the one
rule by which the dream's task pass applies an update without asking and
the chat's ``task`` tool changes a task at all.

A task is spoken of by its own words, not its verb: "Thanks, take care!"
shares "take" with "Take warfarin" and says nothing of it.  A new text may
bring words and numbers only from the user's sentences that speak of the
task ("I walked 10 km today" gives no "10 tablets"), and each of its
clauses keeps what the old text (or the user) said of the same words, by
``content_words.support``: "Sign the loan, do not sign the lease" is not
"Sign the lease, do not sign the loan", nor "Call Tom, not Anna" "Call
Anna, not Tom".
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop.core.base.content_words import (
    changes,
    moved_across_denials,
    new_words,
    sentences,
    stems,
    stems_of,
)
from desktop.core.memory.service import lost_specifics
from desktop.core.tasks.done_words import TaskWords
from desktop.core.tasks.evidence import fold


def named_stems(task_text: str) -> frozenset[str]:
    """The content stems that name *task_text*: its words but its verb
    ("warf" of "Take warfarin"), or all of them if it has no others."""
    every = stems(task_text)
    return every - stems_of(TaskWords.of(fold(task_text)).own_forms) or every


def speaks_of(task_text: str, words: str) -> bool:
    """Do *words* name the task *task_text* by a word of its own, not only its verb?"""
    return not named_stems(task_text).isdisjoint(stems(words))


def about(task_text: str, said: Sequence[str]) -> list[str]:
    """The sentences of *said* that speak of the task *task_text*."""
    told = (sentence for text in said for sentence in sentences(text))
    return [sentence for sentence in told if speaks_of(task_text, sentence)]


def unfaithful(old: str, new: str, said: Sequence[str]) -> str | None:
    """Why *new* may not replace the task text *old* on what the user
    *said* since (None: it may): as a merged memory must be faithful to what
    it merges (``dedup.unfaithful``), it keeps the old text's numbers and
    names, adds no content word and says the same changes and denials, each
    clause of its words as they were said; only the user's sentences that
    speak of the task may bring words, and numbers and names in place of
    the old ones ("at 09:00 now").  A small model rewrote "Take 1 tablet of
    warfarin at 08:00" as "Take 10 tablets ... at 20:00" and "Do not sign
    the Acme contract" as "Sign the Acme contract today" after "I had a long
    day at work"."""
    yours = about(old, said)
    unsaid = lost_specifics([new], "\n".join([old, *yours]))
    if unsaid:
        return f"it says {', '.join(unsaid)}, which neither the task nor your words about it say"
    added = new_words(new, [old, *yours])
    if added:
        return f"it adds {', '.join(added)}, which neither the task nor your words about it say"
    dropped = lost_specifics([old], new)
    if dropped and not lost_specifics([new], old):  # not put in place by your words
        return f"it drops {', '.join(dropped)}"
    if changes(new) != changes(old):
        return "it says otherwise what changed or what is not so"
    if moved_across_denials(new, [old, *yours]):
        return "it puts the task's words on the other side of a denial"
    return None
