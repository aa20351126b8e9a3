"""The settings file as JSON: found, read, decoded, and set aside when damaged.

``desktop.core.settings`` makes settings of what is read here.  A file that
cannot be read as a JSON object at all is ``Unreadable`` (and is set aside
by the caller); one that cannot even be got at is ``Unreachable`` (and is
left alone).  A byte that is not UTF-8 spoils only the value (or key) it
stands in: that entry is left out and named in ``RawSettings.damaged``,
so one stray byte no longer costs every other setting; so does a lone
surrogate written as a JSON escape (``"\\ud800"``), which UTF-8 cannot
hold either (no save could write it back).
"""

from __future__ import annotations

import codecs
import itertools
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.invalid_values import key_name
from desktop.core.paths import explain

MAX_SETTINGS_BYTES = 1 << 20
"""A settings file is a few kilobytes; anything past this is not one (and is not read)."""


class Unreadable(Exception):
    """The settings file cannot be read as settings at all; says why."""


class Unreachable(Unreadable):
    """The settings file cannot be got at (a folder closed to this user, a
    file where its folder should be, a name too long): nothing is known of
    its content, so it is neither set aside nor overwritten."""


@dataclass(frozen=True)
class RawSettings:
    """The JSON object of a settings file, without what bytes that are not
    UTF-8 spoiled."""

    values: dict[str, Any]
    damaged: tuple[str, ...] = ()
    """The dotted keys left out (``chat.language``), shown as a problem names keys."""


def read_raw(path: Path) -> RawSettings | None:
    """The JSON object in *path* (None if there is no file); ``Unreadable``
    says why it is not one."""
    try:
        found = path.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Unreachable(explain(error)) from error
    # A FIFO would block the start, /dev/zero would never end.
    if not stat.S_ISREG(found.st_mode):
        raise Unreadable("it is not a regular file")
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SETTINGS_BYTES + 1)  # the size may change after stat
    except OSError as error:  # found but not readable: set aside, so never saved over
        raise Unreadable(error.strerror or str(error)) from error
    if len(data) > MAX_SETTINGS_BYTES:
        raise Unreadable(f"it is larger than {MAX_SETTINGS_BYTES:,} bytes")
    text, encoding = _decoded(data)
    if not text.strip():
        raise Unreadable("it is empty")
    try:
        raw = json.loads(text)
    except ValueError as error:
        if _spoiled(text):  # the stray byte is where no value is: between them
            raise Unreadable(f"it is not {_named(encoding)} text") from error
        raise Unreadable(f"it is not JSON: {_first_line(error)}") from error
    except RecursionError as error:  # json recurses once per [ or {
        raise Unreadable("it nests too deeply to be settings") from error
    if not isinstance(raw, dict):
        raise Unreadable(f"it holds {_json_kind(raw)}, not a JSON object")
    damaged: list[str] = []
    return RawSettings(_without_spoiled(raw, "", damaged), tuple(damaged))


def set_aside(path: Path) -> Path:
    """Rename *path* to a name no earlier damaged file has; the new path.
    Raises ``OSError`` (the file is then where it was)."""
    stamp = int(time.time())
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    for count in itertools.count(1):  # never overwrite a file set aside earlier
        if not os.path.lexists(kept):
            break
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{count}")
    path.replace(kept)
    return kept


# Longest first: a UTF-32 LE mark begins with the UTF-16 LE one.
_BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _decoded(data: bytes) -> tuple[str, str]:
    """*data* as text, and its encoding: UTF-8, or whatever its byte order
    mark says (some Windows editors save UTF-16 or a UTF-8 BOM); saving
    writes UTF-8 again.  In UTF-8, a byte that is not is kept as a lone
    surrogate (``surrogateescape``), for ``_without_spoiled`` to find."""
    encoding = next((name for mark, name in _BYTE_ORDER_MARKS if data.startswith(mark)), "utf-8")
    if encoding.startswith("utf-8"):
        return data.decode(encoding, "surrogateescape"), encoding
    try:
        return data.decode(encoding), encoding  # these codecs drop the mark
    except UnicodeDecodeError as error:
        raise Unreadable(f"it is not {_named(encoding)} text") from error


def _named(encoding: str) -> str:
    return "UTF-8" if encoding.startswith("utf-8") else encoding.upper()


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _spoiled(text: str) -> bool:
    """Whether *text* holds a lone surrogate, which UTF-8 cannot hold: a
    byte that was not UTF-8 (``surrogateescape`` makes it U+DC80..U+DCFF),
    or a JSON escape such as ``"\\ud800"`` that is valid JSON but no text
    (a pair of escapes is one character, decoded as such by ``json``)."""
    return _LONE_SURROGATE.search(text) is not None


def _holds_spoiled(value: object) -> bool:
    if isinstance(value, str):
        return _spoiled(value)
    if isinstance(value, list):
        return any(_holds_spoiled(item) for item in value)
    if isinstance(value, dict):
        return any(_spoiled(k) or _holds_spoiled(v) for k, v in value.items())
    return False


def _without_spoiled(values: dict[str, Any], prefix: str, damaged: list[str]) -> dict[str, Any]:
    """*values* without each entry a stray byte is in (its key, its text, or
    anywhere in its list), naming each in *damaged*; groups are looked into."""
    kept: dict[str, Any] = {}
    for key, value in values.items():
        where = f"{prefix}{key_name(_shown(key))}"
        if isinstance(value, dict) and not _spoiled(key):
            kept[key] = _without_spoiled(value, f"{where}.", damaged)
        elif _spoiled(key) or _holds_spoiled(value):
            damaged.append(where)
        else:
            kept[key] = value
    return kept


def _shown(text: str) -> str:
    """*text* with each stray byte (each lone surrogate) shown as U+FFFD,
    fit for a message or a log."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def _json_kind(value: object) -> str:
    """What a JSON *value* is, in a user's words (null, a list, text...)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "a number"
    return "text" if isinstance(value, str) else "a list"


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
