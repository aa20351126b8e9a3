"""Reading a Reverie archive back: every entry checked before anything is used.

The format is described in ``desktop.core.transfer.archive``.  A file that
is not a whole zip, lacks or alters an entry, says it is another format or
a newer version, or holds a row that is not one of its table's is refused
with its reason (``ArchiveRefused``); nothing is read from it then.

A row is also refused for a value no database of Reverie's holds, which
would break the app after it was stored (an archive may have been edited,
or made to harm): two rows of a table with the same id, a row naming no
row it rests on (a message no conversation), an id or a reference that is
not a whole number from 1 to ``ID_MAX`` (an id sequence at SQLite's last
one would make every new row fail as if the disk were full), a number
SQLite cannot store, a number that is not finite, a text holding half a
UTF-16 pair (which cannot be stored), or a time no clock shows
(before 1970 or past the year 9999: the windows cannot show its date).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import IO, Any

from desktop.core.base.files import kind_in_the_way
from desktop.core.db.archive_rows import ARCHIVED, TABLES, ArchivedTable
from desktop.core.db.skills import EVERY_STATUS
from desktop.core.transfer.archive import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    SETTINGS,
    Archive,
    ArchiveRefused,
    SkillFile,
)
from desktop.core.transfer.archive_plan import OWNERS
from desktop.core.transfer.foreign import LATEST_TIME
from desktop.core.transfer.unpacking import overpacked

ID_MAX = 2**53
"""The highest id or id sequence an archive may hold: far from SQLite's
last (2**63 - 1), and the last a JSON reader keeps exactly."""
_INTEGERS = (-(2**63), 2**63 - 1)
"""What SQLite stores as an integer."""
_SURROGATE = re.compile("[\ud800-\udfff]")
"""Half a UTF-16 pair: JSON may escape one ('\\ud800'), no text stored holds one."""
_TABLE_ENTRIES = frozenset(f"tables/{table.name}.jsonl" for table in ARCHIVED)
"""The entries read a row at a time (``_checked``, ``_EntryRows``); the others are read whole."""
_TIMES = frozenset({"valid_from", "valid_to", "decayed_through", "judged_through", "not_before"})
"""The time columns not named ``*_at``."""


def is_archive(path: Path) -> bool:
    """Whether *path* is a file that says it is a Reverie archive (any
    version; ``read_archive`` checks the rest).  A named pipe is never
    opened (it would wait for a writer), a zip bomb's manifest never read."""
    if kind_in_the_way(path) is not None:
        return False
    try:
        with zipfile.ZipFile(path) as archive:
            if overpacked([archive.getinfo(MANIFEST)]):
                return False
            manifest = json.loads(archive.read(MANIFEST))
    except (OSError, zipfile.BadZipFile, KeyError, ValueError, RuntimeError):
        return False
    return isinstance(manifest, dict) and manifest.get("format") == FORMAT


def read_archive(path: Path) -> Archive:
    """The archive at *path*, every entry read and checked against the
    manifest; ``ArchiveRefused`` says why it cannot be imported.  A table's
    entry is checked as a stream, a line (a row) at a time, and its rows
    are not kept: each pass of the import over a table reads it again from
    the archive (``TableRows``), so an archive of any size is imported in
    the same memory, besides its ids."""
    path = Path(path)
    if kind := kind_in_the_way(path):
        raise ArchiveRefused(path, f"it is {kind}, not a file")
    with _reading(path), zipfile.ZipFile(path) as archive:
        _check_unpacked(path, archive, [MANIFEST])
        manifest = _manifest(path, archive)
        described = manifest["entries"]
        _check_unpacked(path, archive, [MANIFEST, *described])
        tables = {
            table.name: _EntryRows(
                path, table.name, described, _checked(path, archive, table.name, described)
            )
            for table in ARCHIVED
        }
        entries = {
            name: _entry(path, archive, name, about)
            for name, about in described.items()
            if name not in _TABLE_ENTRIES
        }
    settings = _settings_entry(path, entries)
    return Archive(
        path, manifest, tables, _skill_entries(path, tables["skills"], entries), settings
    )


@contextmanager
def _reading(path: Path) -> Iterator[None]:
    """What reading the zip at *path* may raise, as the archive's refusal."""
    try:
        yield
    except zipfile.BadZipFile as error:
        raise ArchiveRefused(path, f"it is not a whole zip file ({error})") from error
    except (zipfile.LargeZipFile, zlib.error, EOFError, RuntimeError) as error:
        raise ArchiveRefused(path, f"its entries cannot be read ({error})") from error
    except OSError as error:
        raise ArchiveRefused(path, f"it cannot be read ({error.strerror or error})") from error


def _check_unpacked(path: Path, archive: zipfile.ZipFile, names: list[str]) -> None:
    """Refuse the archive if its entries *names* (those there) unpack to too much."""
    listed = {info.filename: info for info in archive.infolist()}
    if why := overpacked(listed[name] for name in names if name in listed):
        raise ArchiveRefused(path, why)


def _manifest(path: Path, archive: zipfile.ZipFile) -> dict[str, Any]:
    try:
        manifest = json.loads(archive.read(MANIFEST).decode("utf-8"))
    except KeyError:
        raise ArchiveRefused(path, f"it has no {MANIFEST}: it is not a Reverie archive") from None
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise ArchiveRefused(path, f"its {MANIFEST} is not JSON ({error})") from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveRefused(path, "it is not a Reverie archive (its manifest says another format)")
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ArchiveRefused(path, "its manifest has no valid format version")
    if version > FORMAT_VERSION:
        raise ArchiveRefused(
            path,
            f"it was written by a newer Reverie ({manifest.get('app_version', '?')}, archive "
            f"format {version}; this one reads format {FORMAT_VERSION} and older)",
        )
    entries = manifest.get("entries")
    sequences = manifest.get("sequences", {})
    if not isinstance(entries, dict) or not all(isinstance(v, dict) for v in entries.values()):
        raise ArchiveRefused(path, "its manifest does not list its entries")
    if not isinstance(sequences, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in sequences.values()
    ):
        raise ArchiveRefused(path, "its manifest's id sequences are not numbers")
    if not all(0 <= v <= ID_MAX for v in sequences.values()):
        raise ArchiveRefused(path, f"its manifest's id sequences go past {ID_MAX}")
    for table in ARCHIVED:
        if f"tables/{table.name}.jsonl" not in entries and not table.added_later:
            raise ArchiveRefused(path, f"its manifest lists no {table.name}")
    return manifest


def _entry(path: Path, archive: zipfile.ZipFile, name: str, about: Mapping[str, Any]) -> bytes:
    try:
        data = archive.read(name)
    except KeyError:
        raise ArchiveRefused(path, f"the entry {name} is missing (a truncated archive?)") from None
    if hashlib.sha256(data).hexdigest() != about.get("sha256"):
        raise ArchiveRefused(path, f"the entry {name} is not what its manifest says (altered?)")
    return data


def _checked(path: Path, archive: zipfile.ZipFile, table: str, described: Mapping[str, Any]) -> int:
    """How many rows *table*'s entry holds, every one checked, a line at a
    time (none is kept).  Its digest is checked once all of it is read: an
    entry that is not what its manifest says is refused as altered,
    whatever its first bad line was."""
    name = f"tables/{table}.jsonl"
    archived = TABLES[table]
    if name not in described and archived.added_later:
        return 0  # written before the migration that added the table
    digest = hashlib.sha256()
    rows = 0
    ids: set[Any] = set()
    whole_ids = True
    refused: ArchiveRefused | None = None
    with _entry_stream(path, archive, name) as stream:
        for number, line in enumerate(stream, start=1):
            digest.update(line)
            if refused is None:
                try:
                    row = _row(path, name, archived, number, line)
                except ArchiveRefused as why:
                    refused = why  # told once the whole entry is known not to be altered
                    continue
                rows += 1
                if archived.has_id:
                    whole_ids = whole_ids and _whole(row["id"])
                    ids.add(row["id"])
    if digest.hexdigest() != described[name].get("sha256"):
        raise ArchiveRefused(path, f"the entry {name} is not what its manifest says (altered?)")
    if refused is not None:
        raise refused
    if rows != described[name].get("rows"):
        raise ArchiveRefused(path, f"{name} has {rows} rows, its manifest says otherwise")
    if not whole_ids:
        raise ArchiveRefused(path, f"{name} has a row without a whole-number id")
    if archived.has_id and len(ids) < rows:
        raise ArchiveRefused(path, f"{name} has two rows of the same id")
    return rows


def _entry_stream(path: Path, archive: zipfile.ZipFile, name: str) -> IO[bytes]:
    try:
        return archive.open(name)
    except KeyError:
        raise ArchiveRefused(path, f"the entry {name} is missing (a truncated archive?)") from None


class _EntryRows:
    """A table's entry, checked (``_checked``), read again at each pass."""

    def __init__(self, path: Path, table: str, described: Mapping[str, Any], count: int) -> None:
        self._path = path
        self._table = TABLES[table]
        self._name = f"tables/{table}.jsonl"
        self._sha256 = described.get(self._name, {}).get("sha256")
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if not self._count:
            return
        path, name = self._path, self._name
        changed = ArchiveRefused(path, f"the entry {name} changed while it was imported")
        digest = hashlib.sha256()
        rows = 0
        with (
            _reading(path),
            zipfile.ZipFile(path) as archive,
            _entry_stream(path, archive, name) as stream,
        ):
            for number, line in enumerate(stream, start=1):
                digest.update(line)
                try:
                    row = _row(path, name, self._table, number, line)
                except ArchiveRefused:
                    raise changed from None  # it was checked before
                rows += 1
                yield row
        if digest.hexdigest() != self._sha256 or rows != self._count:
            raise changed


def _row(
    path: Path, name: str, archived: ArchivedTable, number: int, line: bytes
) -> dict[str, Any]:
    """Line *number* of the entry *name* (its bytes, with their line break)
    as a row of *archived*, checked."""
    try:
        text = line.removesuffix(b"\n").decode("utf-8")
    except UnicodeDecodeError as error:
        raise ArchiveRefused(path, f"{name} is not UTF-8 ({error})") from error
    try:
        row = json.loads(text)
    except (ValueError, RecursionError) as error:  # nested past Python's limit
        raise ArchiveRefused(path, f"line {number} of {name} is not JSON ({error})") from error
    if not isinstance(row, dict):
        raise ArchiveRefused(path, f"line {number} of {name} is not a {archived.name} row")
    if missing := sorted(_required(archived.name) - set(row)):
        raise ArchiveRefused(path, f"line {number} of {name} lacks {', '.join(missing)}")
    # A field this version does not know is a later version's: left out.
    row = {c: row.get(c, archived.optional.get(c)) for c in archived.columns}
    if not all(_plain(value) for value in row.values()):
        raise ArchiveRefused(path, f"line {number} of {name} holds a nested value")
    if why := _unusable(archived, row):
        raise ArchiveRefused(path, f"line {number} of {name} holds {why}")
    return row


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float)


def _unusable(table: ArchivedTable, row: dict[str, Any]) -> str | None:
    """What in *row* no database of Reverie's holds, in words, or None."""
    if table.name in OWNERS and row[OWNERS[table.name]] is None:  # a message of no conversation
        return f"no {OWNERS[table.name]}"
    ids = _id_columns(table.name)
    for column, value in row.items():
        if column in ids:
            if value is not None and not (_whole(value) and 1 <= value <= ID_MAX):
                return f"{column} {value!r}, not an id"
        elif _whole(value) and not _INTEGERS[0] <= value <= _INTEGERS[1]:
            return f"{column} {value}, a number too large to store"
        elif isinstance(value, str) and _SURROGATE.search(value):
            return f"{column} holding a character UTF-8 cannot (an escaped lone surrogate)"
        elif isinstance(value, float) and not math.isfinite(value):
            return f"{column} {value}, not a number"
        elif _time(column) and value is not None and not _shown_as_date(value):
            return f"{column} {value!r}, not a time"
    return None


@cache
def _id_columns(name: str) -> frozenset[str]:
    """The columns of the archived table *name* holding an id: its own, and
    its references (read once per table, not for every value)."""
    table = TABLES[name]
    own = {"id"} if table.has_id else set()
    return frozenset(own | {r.column for r in table.references})


@cache
def _required(name: str) -> frozenset[str]:
    """The columns every row of the archived table *name* holds."""
    table = TABLES[name]
    return frozenset(table.columns) - frozenset(table.optional)


def _time(column: str) -> bool:
    return column.endswith("_at") or column in _TIMES


def _shown_as_date(value: Any) -> bool:
    return isinstance(value, int | float) and 0 <= value < LATEST_TIME


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _skill_entries(
    path: Path, skills: _EntryRows, entries: Mapping[str, bytes]
) -> dict[int, SkillFile]:
    files: dict[int, SkillFile] = {}
    for skill in skills:
        status, file_name = skill["status"], skill["file_name"]
        if (
            status not in EVERY_STATUS
            or not isinstance(file_name, str)
            or not _plain_name(file_name)
        ):
            raise ArchiveRefused(path, f"the skill {skill['name']!r} has an unusable file name")
        entry = SkillFile(status, file_name, "").entry
        if entry not in entries:
            raise ArchiveRefused(path, f"the file of the skill {skill['name']!r} is missing")
        try:
            text = entries[entry].decode("utf-8")
        except UnicodeDecodeError as error:
            raise ArchiveRefused(path, f"{entry} is not UTF-8 ({error})") from error
        files[int(skill["id"])] = SkillFile(status, file_name, text)
    return files


def _plain_name(name: str) -> bool:
    """A file name that stays in its folder: no folder part, not hidden, and
    no control character (a skill's name refuses them, so Reverie writes none)."""
    return (
        bool(name)
        and name == Path(name).name
        and not name.startswith(".")
        and "\\" not in name
        and not any(unicodedata.category(char) == "Cc" for char in name)
    )


def _settings_entry(path: Path, entries: Mapping[str, bytes]) -> dict[str, Any] | None:
    if SETTINGS not in entries:
        return None
    try:
        settings = json.loads(entries[SETTINGS].decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise ArchiveRefused(path, f"its {SETTINGS} is not JSON ({error})") from error
    if not isinstance(settings, dict):
        raise ArchiveRefused(path, f"its {SETTINGS} is not a settings object")
    if _SURROGATE.search(json.dumps(settings, ensure_ascii=False)):  # it could not be written
        raise ArchiveRefused(path, f"its {SETTINGS} holds an escaped lone surrogate")
    return settings
