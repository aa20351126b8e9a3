"""A conversation as another assistant's export holds it, read into plain
values, and what makes such a file unusable.

Every field of a foreign format is optional: a reader never assumes one is
there or has the type it should.  What it cannot use becomes an
``Unusable`` with its reason, never an exception; only a file that cannot
be read at all is refused (``ExportRefused``), before anything is stored.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.text import scrub

Source = Literal["chatgpt", "claude"]
"""Where an export comes from (``schema_v13.SOURCES``, but for archives)."""
SOURCE_NAMES: dict[Source, str] = {"chatgpt": "ChatGPT", "claude": "Claude"}
MESSAGE_CHARS = 1_000_000
"""The longest message imported: about 250,000 tokens, past any chat's limit
(a whole book pasted).  Its redaction takes some 20 seconds on 2 cores, in
which the import cannot be cancelled; one of 200 MB took an hour."""
LATEST_TIME = 253_402_214_400
"""9999-12-31T00:00:00Z: any moment before it is in the year 9999 at most in
every zone (UTC+14 the furthest east); the year 10000 is in no date shown."""


class ExportRefused(EnvironmentProblem):
    """A file that cannot be imported at all (unreadable, damaged, cut
    short, not an export); ``str()`` says why.  Nothing was stored."""


class NotAnExport(ExportRefused):
    """A readable file that is neither a ChatGPT nor a Claude export."""


@dataclass(frozen=True)
class ForeignMessage:
    role: Literal["user", "assistant"]
    text: str
    created_at: float | None
    """None if neither it nor anything before it in its conversation had a time."""
    external_id: str | None = None


@dataclass(frozen=True)
class ForeignConversation:
    source: Source
    external_id: str
    title: str
    """As the export has it ("" if none; the importer names it then)."""
    created_at: float | None
    updated_at: float | None
    messages: tuple[ForeignMessage, ...]
    left_out: tuple[str, ...] = ()
    """What of it is not imported, in a user's words ("2 attachments (images, files)")."""


@dataclass(frozen=True)
class Unusable:
    """An item of an export with nothing to import, and why."""

    title: str
    external_id: str | None
    reason: str


def timestamp(value: object) -> float | None:
    """*value* as unix seconds: a number, or an ISO-8601 time (UTC if it
    names no zone); None for anything else, or a time no clock shows."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            seconds = float(value)
        except OverflowError:  # a whole number past any float: no time either
            return None
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
        seconds = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
    else:
        return None
    # Before 1970 or past 30 December 9999 (east of UTC, the next day is in
    # the year 10000, which no clock shows): a placeholder, not a time.
    return seconds if math.isfinite(seconds) and 0 < seconds < LATEST_TIME else None


def text_of(value: object) -> str:
    """*value* as text to store: "" if it is none; lone surrogates (escaped
    in JSON, which Python decodes and UTF-8 cannot hold) made U+FFFD, NUL
    characters dropped.  Marks and emoji stay as written."""
    if not isinstance(value, str):
        return ""
    return scrub(value).replace("\x00", "")


def identifier(value: object) -> str | None:
    """An id as the export gives it (text or a number), or None."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    cleaned = text_of(str(value)).strip()
    return cleaned or None


def fallback_id(item: Mapping[str, object]) -> str:
    """An id for a conversation its export gave none: a hash of all of it,
    so the same conversation imported twice is found the second time."""
    canonical = json.dumps(item, sort_keys=True, ensure_ascii=True, default=str)
    return "sha256:" + hashlib.sha256(canonical.encode("ascii", "backslashreplace")).hexdigest()


def mapping(value: object) -> Mapping[str, object]:
    """*value* if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


_LEFT_OUT = {
    "attachment": ("attachment (image, file)", "attachments (images, files)"),
    "tool": ("tool call or result", "tool calls and results"),
    "other": ("part of another kind (code output, reasoning)", "parts of other kinds"),
    "long": (
        f"message over {MESSAGE_CHARS:,} characters",
        f"messages over {MESSAGE_CHARS:,} characters",
    ),
}
"""What a reader counts as left out of a conversation, in a user's words."""


def too_long(text: str, left_out: Counter[str]) -> bool:
    """Whether *text* is past ``MESSAGE_CHARS`` (counted as left out if so)."""
    if len(text) <= MESSAGE_CHARS:
        return False
    left_out["long"] += 1
    return True


def described(left_out: Counter[str]) -> tuple[str, ...]:
    """*left_out* (counts by ``_LEFT_OUT``'s keys) in a user's words."""
    return tuple(counted(left_out[k], *words) for k, words in _LEFT_OUT.items() if left_out[k])


def nothing_said(left_out: Counter[str]) -> str:
    """Why a conversation with no message to import is skipped."""
    said = described(left_out)
    return "no message with text" + (f" (left out: {', '.join(said)})" if said else "")


def timed(messages: Sequence[ForeignMessage], created: float | None) -> tuple[ForeignMessage, ...]:
    """*messages*, each without a time of its own given the conversation's."""
    return tuple(
        m if m.created_at is not None else ForeignMessage(m.role, m.text, created, m.external_id)
        for m in messages
    )


def assembled(
    source: Source,
    external_id: str,
    title: str,
    times: tuple[float | None, float | None],
    messages: Sequence[ForeignMessage],
    left_out: Counter[str],
) -> ForeignConversation | Unusable:
    """The conversation a reader found: *times* as the export gives them
    (started, last updated; either may be missing: then its messages' times
    stand in), or why there is nothing of it to import."""
    if not messages:
        return Unusable(title, external_id, nothing_said(left_out))
    first = next((m.created_at for m in messages if m.created_at is not None), None)
    created = times[0] or first
    updated = times[1] or messages[-1].created_at or created
    return ForeignConversation(
        source, external_id, title, created, updated, timed(messages, created), described(left_out)
    )
