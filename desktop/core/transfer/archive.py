"""The whole app in one file: Reverie's archive, written and read back.

Format ``reverie-archive``, version 1
=====================================

A zip file.  Every entry is stored with the same fixed time (1980-01-01
00:00), mode 0600 and deflate, in the order below, so the same data always
gives the same bytes (an archive restored and exported again is byte for
byte the one it came from).

``manifest.json``
    One JSON object: ``format`` ("reverie-archive"), ``format_version`` (1),
    ``app_version`` (the Reverie that wrote it), ``schema_version`` (its
    database's latest migration, for information), ``counts`` (rows per
    table, skill files), ``sequences`` (per table, the highest id its
    database ever gave, so a restore never gives an erased row's id again)
    and ``entries``: every other entry's name with its ``sha256`` and, for
    a table, its ``rows``.  Nothing in it says when it was written: that
    would make two exports of the same data differ.

``tables/<table>.jsonl``
    One JSON object per line (keys sorted, UTF-8, U+2028/U+2029 escaped),
    one file per table, rows in key order: ``conversations``, ``messages``,
    ``harvest_gaps`` (the parts of a conversation the harvest gave up on),
    ``memories``, ``memory_sources``, ``dream_runs``, ``dream_changes``,
    ``dream_log``, ``dream_pass_marks``, ``memory_history``, ``tasks``,
    ``skills``, ``skill_usage``, ``workers``, ``worker_dependencies``,
    ``worker_messages``.  A row's keys are its table's columns as
    ``desktop.core.db.archive_rows.ARCHIVED`` lists them, with their stored
    values: times are unix seconds, booleans 0/1, JSON columns (a message's
    ``metadata``, a dream change's ``payload``) the JSON text as stored.
    Ids are the writing database's; other rows point at them
    (``messages.conversation_id``, ``memory_sources.message_id``,
    ``memory_history.dream_change_id``...).

``skills/<status>/<file_name>``
    The text of each skill (``active``, ``draft`` or ``deleted``), as its
    file holds it; ``tables/skills.jsonl`` has its name and times.  A skill
    whose file cannot be read (removed by hand, not UTF-8) is left out, its
    row and uses too, and the export says so.

``settings.json``
    The settings file as Reverie reads it (``Settings``), if there is one.
    Secrets are never in it (they live in the system keyring, which is never
    read here); an archive whose settings would hold one is not written.

Not in an archive: vectors, full-text indexes and other derived data (made
again in the background), snapshots, logs, models, the prompt templates,
and what was erased (it is gone from the database before).  Text is written
as the database holds it, where it was redacted when it was stored; skill
files are redacted as they are written.

Version rule: a reader refuses an archive whose ``format_version`` is newer
than its own; a new version is made whenever a reader of the older one
would misread the new one (a column whose meaning changed).  A column or
table a later migration adds keeps the version: a reader ignores fields it
does not know, and reads an older archive's row without a column it
declares ``optional`` (with that column's default).  A row lacking any
other column is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar

from desktop import __version__
from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.files import (
    create_locked,
    kind_in_the_way,
    leftovers_of,
    remove_leftovers,
    temporary_path,
)
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import is_absent, load_settings
from desktop.core.db import Database, latest_version
from desktop.core.db.archive_rows import ARCHIVED, ArchivedTable, ArchiveRows
from desktop.core.db.skills import EVERY_STATUS, SkillStore
from desktop.core.memory.export import write_hint
from desktop.core.privacy.redaction import Redactor
from desktop.core.skills.library import SkillFileError, SkillLibrary, SkillRefused, file_text

FORMAT = "reverie-archive"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SETTINGS = "settings.json"
SUFFIX = ".reverie.zip"
"""The suggested file name ending."""
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # zip's earliest: no entry says when it was written
_ENTRY_MODE = 0o600 << 16
T = TypeVar("T")
_SECRET_KEY = re.compile(r"(?i)(api[_-]?key|secret|password|passphrase|token)$")


class ArchiveProblem(EnvironmentProblem):
    """An archive could not be written or read; nothing was changed."""


class ArchiveRefused(ArchiveProblem):
    """A file is not a Reverie archive this version can read (damaged,
    truncated, malformed or newer); nothing was read into the app."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(
            f"{path} cannot be imported: {why}. Nothing was changed.",
            "Export it again from the Reverie it came from, or update this Reverie.",
        )
        self.why = why


class ArchiveExists(ArchiveProblem):
    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} exists already; it was left as it is.", "Choose another name.")


class NotAnArchiveFile(ArchiveProblem):
    """What stands where the archive was to be written is not a file: it is
    left as it is, whatever ``--force`` says (renamed over, a device or a
    named pipe became a file, and the archive went nowhere it could be used)."""

    def __init__(self, path: Path, kind: str) -> None:
        hint = (
            f"Give the archive's own file name, such as {path / ('reverie' + SUFFIX)}."
            if kind == "a folder"
            else "Choose a file to write the archive to."
        )
        super().__init__(f"{path} is {kind}, not a file; it was left as it is.", hint)


class ErasedWhileExported(ArchiveProblem):
    """Something was erased while the archive was written from the moment
    before: the archive would hold it, so it is not kept."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"Something was erased for good while the archive {path} was written, and "
            "the archive would still hold it; it was not kept.",
            "Export again: the new archive leaves out what was erased.",
        )


class SecretInSettings(ArchiveProblem):
    """The settings would carry a secret out: the archive is not written."""


@dataclass(frozen=True)
class SkillFile:
    status: str
    file_name: str
    text: str

    @property
    def entry(self) -> str:
        return f"skills/{self.status}/{self.file_name}"


class TableRows(Protocol):
    """A table's rows in an archive, in the entry's order: counted, and read
    again from the archive at each pass, a row at a time (never held)."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[dict[str, Any]]: ...


@dataclass(frozen=True)
class Archive:
    """What an archive holds, read and checked (``read_archive``)."""

    path: Path
    manifest: Mapping[str, Any]
    tables: Mapping[str, TableRows]
    skill_files: Mapping[int, SkillFile]
    """Each skill's file, by the skill's id in ``tables['skills']``."""
    settings: Mapping[str, Any] | None

    @property
    def counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self.tables.items()}


@dataclass(frozen=True)
class ExportSummary:
    path: Path
    counts: Mapping[str, int]
    settings: bool
    """Whether the settings are in it (there was a settings file)."""
    skills_left_out: tuple[str, ...] = ()
    """The skills whose file could not be read, each with why."""


# -- writing ------------------------------------------------------------------


def export_archive(
    database: Database,
    paths: AppPaths,
    target: Path,
    *,
    overwrite: bool = False,
    skills: SkillLibrary | None = None,
) -> ExportSummary:
    """Write everything the user has in Reverie to *target*, whole or not at
    all, readable by the user alone.  *skills* is the app's library (one is
    made over *paths* if none is given).  Raises ``ArchiveExists`` (unless
    *overwrite*), ``SecretInSettings``, ``ArchiveProblem`` or, for a *target*
    among Reverie's own files, ``OwnFileRefused``.

    The rows are read from one moment of the database (the app may write
    meanwhile: a message is never read without its conversation) twice,
    one at a time: first for the manifest's counts and hashes, which come
    first in the archive, then to write them.  No table is held whole."""
    target = Path(target)
    check_target(paths, target, overwrite=overwrite)
    library = skills or SkillLibrary(SkillStore(database), paths.skills_dir)
    files, left_out = _skill_files(library)
    settings = _settings(paths.settings_file)
    archived = ArchiveRows(database)
    with database.read_snapshot() as moment:
        sequences = archived.sequences(moment)
        erasures = archived.erasures(moment)
        rows = _rows_with_files(moment, files)

        def write(out: IO[bytes]) -> dict[str, int]:
            counts = write_archive(out, rows, files, settings, sequences=sequences)
            if archived.erasures() != erasures:  # before the archive takes its name
                raise ErasedWhileExported(target)
            return counts

        counts = _write_file(target, write)
    return ExportSummary(target, counts, settings is not None, left_out)


def check_target(paths: AppPaths, target: Path, *, overwrite: bool) -> None:
    """Refuse *target* before anything is read: one of Reverie's own files
    (``OwnFileRefused``), anything but a file (``NotAnArchiveFile``: a
    folder, a device, a named pipe, never replaced by the archive), or a
    file there already unless *overwrite* (``ArchiveExists``)."""
    paths.refuse_own(target)
    if (kind := kind_in_the_way(target)) is not None:
        raise NotAnArchiveFile(target, kind)
    if not overwrite and target.exists():
        raise ArchiveExists(target)


RowsOf = Callable[[ArchivedTable], Iterable[Mapping[str, Any]]]
"""Each table's rows in its order; asked twice for each table (hashed,
then written), and alike both times."""


def write_archive(
    out: IO[bytes],
    rows: RowsOf,
    skill_files: Mapping[int, SkillFile],
    settings: Mapping[str, Any] | None,
    *,
    sequences: Mapping[str, int],
) -> dict[str, int]:
    """Write the archive of these rows, files and settings to *out* (see
    the module docstring); how many rows of each table, and skill files."""
    described: dict[str, dict[str, Any]] = {}
    sizes: dict[str, int] = {}
    counts: dict[str, int] = {}
    for table in ARCHIVED:
        digest, size, count = hashlib.sha256(), 0, 0
        for line in _lines(rows(table)):
            digest.update(line)
            size += len(line)
            count += 1
        name = _table_entry(table)
        described[name] = {"rows": count, "sha256": digest.hexdigest()}
        sizes[name], counts[table.name] = size, count
    small: list[tuple[str, bytes]] = []
    for _, file in sorted(skill_files.items()):
        small.append((file.entry, file.text.encode("utf-8")))
    if settings is not None:
        data = (json.dumps(settings, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()
        small.append((SETTINGS, data))
    for name, data in small:
        described[name] = {"sha256": hashlib.sha256(data).hexdigest()}
    counts = dict(sorted(counts.items())) | {"skill_files": len(skill_files)}
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "app_version": __version__,
        "schema_version": latest_version(),
        "counts": counts,
        "sequences": dict(sorted(sequences.items())),
        "entries": described,
    }
    manifest_data = (json.dumps(manifest, sort_keys=True, indent=2) + "\n").encode("utf-8")
    with zipfile.ZipFile(out, "w") as archive:
        _put(archive, MANIFEST, [manifest_data], len(manifest_data))
        for table in ARCHIVED:
            name = _table_entry(table)
            _put(archive, name, _batched(_lines(rows(table))), sizes[name])
        for name, data in small:
            _put(archive, name, [data], len(data))
    return counts


def _table_entry(table: ArchivedTable) -> str:
    return f"tables/{table.name}.jsonl"


def _lines(rows: Iterable[Mapping[str, Any]]) -> Iterator[bytes]:
    return (json_line(row).encode("utf-8") for row in rows)


def _batched(lines: Iterable[bytes], size: int = 1 << 16) -> Iterator[bytes]:
    """*lines* joined into pieces of about *size* bytes: fewer, larger writes."""
    pending: list[bytes] = []
    held = 0
    for line in lines:
        pending.append(line)
        held += len(line)
        if held >= size:
            yield b"".join(pending)
            pending, held = [], 0
    if pending:
        yield b"".join(pending)


def _put(archive: zipfile.ZipFile, name: str, pieces: Iterable[bytes], size: int) -> None:
    """The entry *name* of *size* bytes, written piece by piece, as every
    entry is: the same time, mode and compression (see the module docstring)."""
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED  # at zlib's default level (6)
    info.create_system = 3  # Unix, wherever it was written: the mode below is read
    info.external_attr = _ENTRY_MODE
    info.file_size = size  # known beforehand, so whether it needs ZIP64 is known too
    with archive.open(info, "w") as entry:
        for piece in pieces:
            entry.write(piece)


def _rows_with_files(reader: Database, files: Mapping[int, SkillFile]) -> RowsOf:
    """Each table's rows as *reader* has them, without the skills lacking a
    file in *files*, nor their uses: an archive's skill row without its
    file is refused when read back (one whose file was unreadable, or one
    added since the files were read)."""

    def rows(table: ArchivedTable) -> Iterable[Mapping[str, Any]]:
        found = ArchiveRows.each(table, reader)
        if table.name == "skills":
            return (row for row in found if row["id"] in files)
        if table.name == "skill_usage":
            return (row for row in found if row["skill_id"] in files)
        return found

    return rows


def json_line(row: Mapping[str, Any]) -> str:
    """*row* as one line of JSON: keys sorted; Unicode line separators,
    valid in JSON strings, escaped, since many line readers break there."""
    text = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"


def _skill_files(library: SkillLibrary) -> tuple[dict[int, SkillFile], tuple[str, ...]]:
    """Every skill's text, as it would be written again (secrets taken out),
    and the skills whose file cannot be read, each with why."""
    files: dict[int, SkillFile] = {}
    left_out: list[str] = []
    for skill in library.list(statuses=EVERY_STATUS):
        try:
            text = library.read(skill.id).text
        except SkillFileError as error:
            left_out.append(f"{skill.name} ({error})")
            continue
        files[skill.id] = SkillFile(skill.status, skill.file_name, skill_file_text(text))
    return files, tuple(left_out)


def skill_file_text(text: str) -> str:
    """*text* as a skill file holds it, its secrets taken out (the same
    text again for one that went through here: export and import both do)."""
    redactor = Redactor()
    try:
        return file_text(text, redactor)
    except SkillRefused:  # an empty or oversized file made by hand: kept, redacted
        return redactor.text(text)


def _settings(path: Path) -> dict[str, Any] | None:
    """The settings to archive (None without a settings file); raises
    ``SecretInSettings`` if a value is named like a secret."""
    if is_absent(path):
        return None
    settings, _problem = load_settings(path)  # what is in use, the unusable left out
    values: dict[str, Any] = settings.model_dump(mode="json")
    named = sorted(secret_keys(values))
    if named:
        raise SecretInSettings(
            f"The settings hold values named like secrets ({', '.join(named)}); "
            "no archive was written.",
            "Secrets belong in the system keyring: remove them from the settings file.",
        )
    return values


def secret_keys(value: Any, where: str = "") -> Iterable[str]:
    """Where in *value* (settings as JSON) a key named like a secret holds something."""
    if isinstance(value, dict):
        for key, inner in value.items():
            place = f"{where}.{key}" if where else str(key)
            if _SECRET_KEY.search(str(key)) and inner not in (None, "", [], {}):
                yield place
            yield from secret_keys(inner, place)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from secret_keys(inner, f"{where}[{index}]")


def _write_file(target: Path, write: Callable[[IO[bytes]], T]) -> T:
    """What *write* writes, to *target* in one step (a temporary file beside
    it, 0600, then renamed), or nothing at all; what *write* returned."""
    real = Path(os.path.realpath(target))
    temporary = temporary_path(real)
    descriptor = -1
    try:
        remove_leftovers(real.parent, leftovers_of(real.name))
        descriptor = create_locked(temporary)
        with os.fdopen(os.dup(descriptor), "wb") as handle:
            written = write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, real)
        return written
    except BaseException as error:
        if descriptor >= 0:  # a Ctrl+C too: no copy of everything is left beside it
            temporary.unlink(missing_ok=True)
        if not isinstance(error, OSError):
            raise
        raise ArchiveProblem(
            f"The archive could not be written to {target}: {error.strerror or error}.",
            write_hint(error),
        ) from error
    finally:
        if descriptor >= 0:
            os.close(descriptor)
