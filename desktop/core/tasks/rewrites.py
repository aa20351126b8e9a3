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
Anna, not Tom"; nor do its words change sides or numbers ("from checking
to savings", "Pay Tom 50 euros and Anna 5": ``content_words.swapped``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop.core.base.content_words import (
    changes,
    moved_across_denials,
    new_words,
    sentences,
    stems,
    stems_of,
    swapped,
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


def only_asks(sentence: str) -> bool:
    """Is *sentence* a question, not a request put as one ("Can you pause
    it?", "Could you please delete the rent task?")?"""
    if REQUEST.match(sentence):
        return False
    return sentence.rstrip().endswith("?") or _ASKS_UNMARKED.match(sentence) is not None


_ASKS_UNMARKED = re.compile(
    r"^\W*(?:do|does|did|am|is|are|was|were|should|what|when|why|how|where|which)\b\s+\w",
    re.IGNORECASE,
)
"""A question typed without its "?"."""
REQUEST = re.compile(
    r"^\W*(?:(?:please|pls|plz)\b|(?:can|could|would|will) you\b|would you mind\b"
    r"|(?:do|would) you mind\b)",
    re.IGNORECASE,
)
"""A request put as a question."""


def unfaithful(old: str, new: str, said: Sequence[str]) -> str | None:
    """Why *new* may not replace the task text *old* on what the user
    *said* since (None: it may): as a merged memory must be faithful to what
    it merges (``dedup.unfaithful``), it keeps the old text's numbers, names
    and content words (but those the user's sentences about the task let go:
    "I got the eggs" for "Buy milk and eggs"), adds no content word and says
    the same changes and denials, each
    clause of its words as they were said; only the user's sentences that
    speak of the task may bring words, and numbers and names in place of
    the old ones ("at 09:00 now").  A small model rewrote "Take 1 tablet of
    warfarin at 08:00" as "Take 10 tablets ... at 20:00" and "Do not sign
    the Acme contract" as "Sign the Acme contract today" after "I had a long
    day at work", and a dream "Call the dentist about the crown" as "Call"
    (round 28)."""
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
    if dropped_words := new_words(old, [new, *yours]):  # "Call the dentist..." as "Call"
        return f"it drops {', '.join(dropped_words)}, which your words about it do not let go"
    if changes(new) != changes(old):
        return "it says otherwise what changed or what is not so"
    if moved_across_denials(new, [old, *yours]):
        return "it puts the task's words on the other side of a denial"
    if turned := swapped(new, [old, *yours]):
        return f"it swaps the task's words around ({', '.join(turned)})"
    return None


def schedule_unsaid(schedule: str, said: str) -> str | None:
    """Why the schedule *schedule* (in words, "daily at 09:00") is not the
    one *said* names (None: it is): every time of day and every other word
    of it ("weekly", "monday") must be there, as "9am every day" or
    "9:30 pm" says it."""
    times = _clock_times(schedule, on_24_hours=True) - _clock_times(said)
    words = [word for word in new_words(schedule, [said]) if word not in _SCHEDULE_WORDS]
    if times or words:
        return f"the schedule {schedule!r} is not the one named"
    return None


def _clock_times(text: str, *, on_24_hours: bool = False) -> set[tuple[int, int]]:
    """The times of day *text* names, as (hour, minute) on a 24-hour clock:
    "09:00", "9am", "9 pm", "21:30", "noon"; an hour without am or pm ("at
    nine", "at 9", "7:30") is either half of the day, unless *on_24_hours*
    (a schedule's words: "daily at 09:00")."""
    times = {(12, 0)} if _NOON.search(text) else set()
    if _MIDNIGHT.search(text):
        times.add((0, 0))
    for found in _CLOCK_TIME.finditer(text):
        number = found["hour"] or found["word"]
        hour = int(number) if number.isdigit() else _HOURS.index(number.lower()) + 1
        minute = int(found["minute"] or 0)
        half = (found["half"] or "").lower().replace(".", "")
        if half and hour > 12:
            continue
        if not (found["minute"] or half or found["at"] or found["oclock"]):
            continue  # a number alone ("2 tablets") is no time
        if half == "pm" and hour < 12:
            hour += 12
        elif half == "am" and hour == 12:
            hour = 0
        times.add((hour, minute))
        if not (half or on_24_hours) and hour < 12:
            times.add((hour + 12, minute))
    return times


_HOURS = (
    "one two three four five six seven eight nine ten eleven twelve".split()  # noqa: SIM905
)
_CLOCK_TIME = re.compile(
    r"(?P<at>\b(?:at|by|from|until|till|to|around)\s+)?"
    r"\b(?:(?P<hour>2[0-3]|[01]?\d)(?!\d)|(?P<word>" + "|".join(_HOURS) + r"))"
    r"(?::(?P<minute>[0-5]\d))?\s*(?P<half>[ap]\.?m\b\.?)?(?P<oclock>\s*o['\u2019]?clock)?",
    re.IGNORECASE,
)
_NOON = re.compile(r"\bnoon\b|\bmidday\b", re.IGNORECASE)
_MIDNIGHT = re.compile(r"\bmidnight\b", re.IGNORECASE)
# The words a schedule is said with, whatever its times and days.
_SCHEDULE_WORDS = frozenset({"daily", "every", "day", "days", "at", "on", "once", "weekly"})
