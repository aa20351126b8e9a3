"""The settings file as JSON: found, read, decoded, and set aside when damaged.

``desktop.core.base.settings`` makes settings of what is read here.  A file that
cannot be read as a JSON object at all is ``Unreadable`` (and is set aside
by the caller); one that cannot even be got at is ``Unreachable`` (and is
left alone).  What spoils one entry costs that entry alone: it is left out
and named in ``RawSettings.notes``, so one stray byte or one odd number no
longer costs every other setting.  Such are a byte that is not UTF-8 (or a
lone surrogate written as a JSON escape, ``"\\ud800"``, which UTF-8 cannot
hold either), a key written twice with two different values, a number
too long for ``int`` to read (over 4,300 digits), and a value nested past
``MAX_NESTING`` lists and objects deep.  A group written twice is
read as one.  A file whose entries a save could not write back as they were
(stray bytes, a key written twice) is to be set aside (``keep_aside``).
Anything but a regular file at the settings path (a folder, a named pipe)
is ``NotASettingsFile``: it may be the user's (once, the data folder), so it
is named and left alone, never set aside nor saved over.  Every writer of
the file holds ``settings_lock`` from its read to its write, so two writers
(the app and ``reverie models``, or two commands) never drop each other's
change.
"""

from __future__ import annotations

import codecs
import contextlib
import itertools
import json
import os
import re
import stat
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.base.files import kind_of
from desktop.core.base.invalid_values import key_name
from desktop.core.base.paths import explain

if sys.platform != "win32":
    import fcntl

MAX_SETTINGS_BYTES = 1 << 20
"""A settings file is a few kilobytes; anything past this is not one (and is not read)."""

LOCK_WAIT_SECONDS = 10.0
"""How long a writer waits for another to finish with the settings file (a
write takes milliseconds: one held this long is stuck)."""
_LOCK_POLL_SECONDS = 0.02

MAX_NESTING = 8
"""Lists and objects in one another in a file (settings use 3: ``models``
holds ``chat``, a list of backends, each an object)."""


class Unreadable(Exception):
    """The settings file cannot be read as settings at all; says why."""


class Unreachable(Unreadable):
    """The settings file cannot be got at (a folder closed to this user, a
    file where its folder should be, a name too long): nothing is known of
    its content, so it is neither set aside nor overwritten."""


class NotASettingsFile(Unreachable):
    """Something other than a regular file stands at the settings path (a
    folder, a named pipe): it may be the user's, so it is left alone."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(f"{path} is {kind}, not a settings file")
        self.path = path
        self.kind = kind


class SettingsBusy(Exception):
    """Another writer held the settings file longer than ``LOCK_WAIT_SECONDS``."""


@dataclass(frozen=True)
class RawSettings:
    """The JSON object of a settings file, without the entries that cannot
    be read as written."""

    values: dict[str, Any]
    notes: tuple[str, ...] = ()
    """Each entry left out or read otherwise than written, with its dotted
    key (``chat.language: ...; kept the default``)."""
    keep_aside: bool = False
    """Whether a save could not write the file back as written (a byte that
    is not UTF-8, a key written twice): it is to be kept as it was."""


def read_raw(path: Path) -> RawSettings | None:
    """The JSON object in *path* (None if there is no file); ``Unreadable``
    says why it is not one."""
    try:
        found = path.stat()
    except FileNotFoundError as error:
        if os.path.islink(path):  # a link to nothing (a drive not mounted): not absent
            raise Unreachable(explain(error)) from error
        return None
    except OSError as error:
        raise Unreachable(explain(error)) from error
    # A FIFO would block the start, /dev/zero would never end, and a folder
    # may be the user's own (once, the data folder): none is set aside.
    if not stat.S_ISREG(found.st_mode):
        raise NotASettingsFile(path, kind_of(found.st_mode))
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
    reading = _Reading()
    try:
        raw = _json(text)
    except ValueError as error:
        if _spoiled(text):  # the stray byte is where no value is: between them
            raise Unreadable(f"it is not {_named(encoding)} text") from error
        raw = _without_last_commas(text, reading, error)
    except RecursionError as error:  # json recurses once per [ or {
        raise Unreadable("it nests too deeply to be settings") from error
    if not isinstance(raw, dict):
        raise Unreadable(f"it holds {_json_kind(raw)}, not a JSON object")
    return RawSettings(reading.usable(raw, ""), tuple(reading.notes), reading.keep_aside)


def _json(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_Written, parse_int=_whole_number)


def _without_last_commas(text: str, reading: _Reading, error: ValueError) -> Any:
    """*text* read without each comma after the last entry of an object or
    a list (a slip of hand editing, which JSON refuses), a note on each;
    ``Unreadable`` naming *error* if it is not JSON without them either.
    A save writes the file without them: nothing in it is lost."""
    kept, lines, quoted, escaped = [], [], False, False
    for at, char in enumerate(text):
        if quoted:
            quoted = escaped or char != '"'
            escaped = not escaped and char == "\\"
        elif char == '"':
            quoted = True
        elif char == "," and text[at + 1 :].lstrip()[:1] in ("}", "]"):
            lines.append(text.count("\n", 0, at) + 1)
            continue
        kept.append(char)
    try:
        raw = _json("".join(kept)) if lines else None
    except ValueError:
        raw = None
    if raw is None:
        raise Unreadable(f"it is not JSON: {_first_line(error)}") from error
    reading.notes += [
        f"line {line}: a comma after the last entry; read without it" for line in lines
    ]
    return raw


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


@contextlib.contextmanager
def settings_lock(path: Path) -> Iterator[None]:
    """Hold the lock of the settings file *path*: every process and thread
    that writes the file holds it from its read to its write.  The lock is
    on the folder holding the file (it is never replaced, as the file is by
    each write, and no lock file is left beside the settings).  Raises
    ``SettingsBusy`` after ``LOCK_WAIT_SECONDS``, ``OSError`` if the folder
    cannot be opened.  Windows has no ``flock``: there it locks nothing."""
    if sys.platform == "win32":
        yield
        return
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path.parent, flags)
    try:
        _wait_for_lock(descriptor)
        yield  # flock ends with the descriptor, and with the process if it is killed
    finally:
        os.close(descriptor)


def _wait_for_lock(descriptor: int) -> None:
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:  # bounded: a stuck writer never freezes the app
                raise SettingsBusy from None
            time.sleep(_LOCK_POLL_SECONDS)


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
    mark says (some Windows editors save UTF-16 or a UTF-8 BOM), or its
    zero bytes without one; saving
    writes UTF-8 again.  In UTF-8, a byte that is not is kept as a lone
    surrogate (``surrogateescape``), for ``_without_spoiled`` to find."""
    # Without a mark, UTF-16 or UTF-32 shows in where its zero bytes fall.
    marked = (name for mark, name in _BYTE_ORDER_MARKS if data.startswith(mark))
    encoding = next(marked, None) or json.detect_encoding(data)
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


class _Written(dict[str, Any]):
    """A JSON object as written: the last value of each key (as ``json``
    keeps it), and every value of each key written more than once."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.pairs = pairs
        counts = Counter(key for key, _ in pairs) if len(self) < len(pairs) else Counter()
        self.twice: dict[str, list[Any]] = {}
        for key, value in pairs:
            if counts[key] > 1:
                self.twice.setdefault(key, []).append(value)


@dataclass(frozen=True)
class _LongNumber:
    """A whole number too long for ``int`` to read (over
    ``sys.get_int_max_str_digits()`` digits): no setting's value."""

    digits: int


def _whole_number(text: str) -> int | _LongNumber:
    """*text* (``json``'s digits) as a number, or what stands for one too
    long to read: ``int``'s ``ValueError`` would cost the whole file."""
    try:
        return int(text)
    except ValueError:
        return _LongNumber(len(text.lstrip("-")))


class _Reading:
    """The entries of a JSON object that can be used as written, the notes
    on the others, and whether the file is to be kept as it was."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.keep_aside = False

    def usable(
        self, values: dict[str, Any], prefix: str, room: int = MAX_NESTING
    ) -> dict[str, Any]:
        """*values* as plain dicts, without each entry that cannot be used as
        written (a note on each) or nests more than *room* deep; groups are
        looked into."""
        kept: dict[str, Any] = {}
        for key, value in values.items():
            where = f"{prefix}{key_name(_shown(key))}"
            if _spoiled(key):
                self._left_out(where, "holds bytes that are not UTF-8 text", aside=True)
                continue
            if isinstance(values, _Written) and key in values.twice:
                value = self._once(where, values.twice[key])
                if value is _NONE:
                    continue
            if isinstance(value, dict) and room > 0:
                kept[key] = self.usable(value, f"{where}.", room - 1)
            elif _deeper_than(value, room):  # before anything recurses into it
                self._left_out(where, "nests too deeply to be a setting", aside=False)
            elif (trouble := _trouble(value)) is not None:
                self._left_out(where, trouble[0], aside=trouble[1])
            else:
                kept[key] = _plain(value)
        return kept

    def _once(self, where: str, written: list[Any]) -> Any:
        """The one value of a key written twice (each *written*): groups read
        as one, one value written alike; else ``_NONE`` (a note on it)."""
        self.keep_aside = True  # a save writes it once: keep it as the user wrote it
        if all(isinstance(value, _Written) for value in written):
            self.notes.append(f"{where}: written twice; both read as one")
            return _Written([pair for value in written for pair in value.pairs])
        if all(value == written[0] for value in written):
            self.notes.append(f"{where}: written twice, alike; used once")
            return written[-1]
        self.notes.append(f"{where}: written twice with different values; kept the default")
        return _NONE

    def _left_out(self, where: str, why: str, *, aside: bool) -> None:
        self.notes.append(f"{where}: {why}; kept the default")
        self.keep_aside = self.keep_aside or aside


_NONE = object()
"""No value can be used (``_Reading._once``)."""


def _deeper_than(value: object, depth: int) -> bool:
    """Whether *value* nests lists and objects more than *depth* deep; found
    level by level, without recursion (``json`` reads a list 900 deep, and
    a walk recursing into it ran out of stack)."""
    level = [value]
    for _ in range(depth + 1):
        level = [item for found in level for item in _inside(found)]
        if not level:
            return False
    return True


def _inside(value: object) -> list[object]:
    if isinstance(value, dict):
        return list(value.values())
    return list(value) if isinstance(value, list) else []


def _trouble(value: object) -> tuple[str, bool] | None:
    """Why *value* (not a group) cannot be used as written, and whether the
    file is then to be kept aside; None if it can."""
    if isinstance(value, _LongNumber):
        return f"a number of {value.digits} digits is too long to read", False
    if isinstance(value, str):
        return ("holds bytes that are not UTF-8 text", True) if _spoiled(value) else None
    items: list[object] = []
    if isinstance(value, list):
        items = list(value)
    elif isinstance(value, _Written):  # an object in a list (a backend)
        if any(_spoiled(key) for key in value):
            return "holds bytes that are not UTF-8 text", True
        if value.twice:
            return f"holds {key_name(_shown(next(iter(value.twice))))} written twice", True
        items = list(value.values())
    found = (_trouble(item) for item in items)
    trouble = next((t for t in found if t is not None), None)
    if trouble is not None and trouble[0].startswith("a number"):
        return f"holds {trouble[0]}", False
    return trouble


def _plain(value: Any) -> Any:
    """*value* with each object a plain ``dict`` (as settings are validated)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _shown(text: str) -> str:
    """*text* with each stray byte (each lone surrogate) shown as U+FFFD,
    fit for a message or a log."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def _json_kind(value: object) -> str:
    """What a JSON *value* is, in a user's words (null, a list, text...)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float, _LongNumber)):
        return "a number"
    return "text" if isinstance(value, str) else "a list"


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
