"""What a dream pass did, in a sentence: counted when the pass ends, and
counted again as the user approves, rejects and undoes its changes.

A pass's log message is its count ("2 changes applied, 1 waiting for your
approval.") followed by its notes (what it left alone and why).  The count
is only true when the pass ends; the report recounts it from the changes as
they are now and keeps the notes, so both sides use the one format here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

NOTHING = "Nothing to change."
_SAID = {
    "applied": "applied",
    "pending": "waiting for your approval",
    "rejected": "rejected",
    "reverted": "undone",
}
"""Each change status as the count says it, in the count's order."""
_WORDS = "|".join(re.escape(word) for word in _SAID.values())
_COUNT = re.compile(
    rf"(?:{re.escape(NOTHING)}|\d+ changes? (?:{_WORDS})(?:, \d+ (?:{_WORDS}))*\.)(?:\s+|$)"
)


def described(counts: Mapping[str, int]) -> str:
    """*counts* (changes by status) as the pass's count: "1 change applied,
    1 waiting for your approval." (``NOTHING`` when there are none)."""
    parts = [(counts.get(status, 0), word) for status, word in _SAID.items()]
    shown = [(number, word) for number, word in parts if number]
    if not shown:
        return NOTHING
    (first, word), rest = shown[0], shown[1:]
    said = f"{first} change{'' if first == 1 else 's'} {word}"
    return "".join([said, *(f", {number} {word}" for number, word in rest), "."])


def notes_of(message: str) -> str:
    """What a pass's logged *message* says besides its count (its notes)."""
    found = _COUNT.match(message)
    return message[found.end() :] if found else message


def recounted(message: str, statuses: Iterable[str]) -> str:
    """A pass's logged *message* with its count made true again: *statuses*
    are those of the pass's changes now."""
    notes = notes_of(message)
    count = described(Counter(statuses))
    return f"{count} {notes}" if notes else count


def outcome_now(outcome: str, statuses: Iterable[str]) -> str:
    """A logged pass *outcome* as it stands now that its changes have these
    *statuses*: a pass that made changes stays "applied" while one holds or
    was undone, is "pending" while its changes only wait for the user, and
    "nothing" once the user rejected them all."""
    found = set(statuses)
    if outcome != "applied" or not found or found & {"applied", "reverted"}:
        return outcome
    return "pending" if "pending" in found else "nothing"
