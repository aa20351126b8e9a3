"""Importing a Reverie archive: a preview, then the import as one long job.

``preview`` says, per table, what an import would add, find there already
and leave out (``archive_plan``).  ``run`` does it as a plain function
reporting progress and checking for cancellation through a small state
object (the pattern of orange3's ``concurrent.py``; the Qt side gives a
state that emits signals).  Every row goes in within one transaction, read
from the archive as it goes (a table's rows are never all held: memory stays
flat whatever the archive's size); a cancel, a failure or a malformed row
leaves the database as it was; what
it adds is planned again in that transaction, so another import of the same
archive at the same time adds nothing twice.  The skill files, then the
settings (only into a fresh data folder), are written last in that
transaction, before its commit, and taken back if it does not commit: a
kill between leaves files whose rows the library's next look at the folder
makes (a file is the truth of its skill), never rows without their files
(the next look moved those to the bin, and their archive could not be
imported again: round 28).  A file that cannot be written leaves its skill
out, with a note (its row goes to the bin at the library's next look).

Whatever the user or a model wrote is redacted again as it comes in
(``ArchivedTable.said``): the archive may come from a Reverie of fewer
rules, or have been edited by hand.

Vectors are not imported: memories come in without one, messages too, and
the background upkeep (``MemoryStore``'s and the message indexer's queries
of what has no vector of the model in use) embeds them.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.core.base.files import make_missing_folders, write_atomically
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import SETTINGS_VERSION
from desktop.core.base.settings_file import SettingsBusy, settings_lock
from desktop.core.db import Database, QueryFailed, Transaction, open_database
from desktop.core.db.archive_rows import ARCHIVED, TABLES, ArchivedTable, ArchiveRows
from desktop.core.db.skills import SkillStore
from desktop.core.privacy.redaction import Redactor, redact_within
from desktop.core.skills.library import DELETED, DRAFTS, SkillLibrary
from desktop.core.transfer.archive import (
    Archive,
    ArchiveProblem,
    ArchiveRefused,
    secret_keys,
    skill_file_text,
)
from desktop.core.transfer.archive_plan import ImportPlan, plan_import
from desktop.core.transfer.archive_read import is_archive as is_archive  # for the dispatcher
from desktop.core.transfer.archive_read import read_archive
from desktop.core.transfer.progress import ImportState, PlainState

log = logging.getLogger(__name__)

_CHECK_EVERY = 100
"""Rows between two looks at the cancel button."""
_SKILL_FOLDERS = {"active": "", "draft": DRAFTS, "deleted": DELETED}
_DEFERRED = {("memories", "superseded_by"), ("conversations", "harvested_through_message_id")}
"""References set once every row is in: to a later row, or to a position."""


@dataclass(frozen=True)
class ImportPreview:
    fresh: bool
    """Into a data folder holding nothing yet: restored as it was, settings too."""
    counts: Mapping[str, Mapping[str, int]]
    """Per table: ``added``, ``present`` (there already), ``left_out``."""
    settings: bool
    """Whether the archive's settings would be restored."""
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ImportResult:
    path: Path
    cancelled: bool
    """Stopped before the end: nothing was imported."""
    fresh: bool
    counts: Mapping[str, Mapping[str, int]]
    """Per table: ``added``, ``present``, ``left_out`` (all zero added if cancelled)."""
    settings_restored: bool
    notes: tuple[str, ...]

    def added(self, table: str) -> int:
        return self.counts.get(table, {}).get("added", 0)


class _Cancelled(Exception):
    """Raised inside the transaction to roll it back."""


class WrittenMeanwhile(ArchiveProblem):
    """The data folder was empty when the import was planned and is not any
    more (the app wrote to it): nothing was imported."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"Reverie wrote to its data folder while {path} was being imported; "
            "nothing was imported.",
            "Try again.",
        )


def preview(
    path: Path, database: Database, paths: AppPaths, *, skills: SkillLibrary | None = None
) -> ImportPreview:
    """What importing the archive at *path* would do; changes nothing.
    Raises ``ArchiveRefused``."""
    archive = read_archive(path)
    plan = plan_import(archive, ArchiveRows(database), _library(database, paths, skills))
    settings, notes = _settings_decision(archive, plan)
    return ImportPreview(plan.fresh, plan.counts(), settings, tuple(plan.notes + notes))


def run(
    path: Path,
    database: Database,
    paths: AppPaths,
    state: ImportState,
    *,
    skills: SkillLibrary | None = None,
    redactor: Redactor | None = None,
) -> ImportResult:
    """Import the archive at *path* (see the module docstring).  Raises
    ``ArchiveRefused`` or ``WrittenMeanwhile`` (nothing was changed) or a
    database error."""
    archive = read_archive(path)
    library = _library(database, paths, skills)
    rows = ArchiveRows(database)
    plan = plan_import(archive, rows, library)
    restore_settings, notes = _settings_decision(archive, plan)
    state.set_progress(0, sum(len(found) for found in plan.added.values()))
    written = _Written()
    try:
        # The library held from the first row to the commit (or the files
        # taken back): no sync takes a skill file in before its row is there.
        with library.held(), written.taken_back_unless_committed(), database.transaction() as tx:
            if plan.fresh and rows.holds_data(tx):  # ids are kept: they must be free
                raise WrittenMeanwhile(Path(path))
            # Planned again where no other import can write meanwhile: two
            # imports of one archive at once (the app and 'reverie import')
            # each added all of it.
            plan = plan_import(archive, rows, library, sync=False)
            total = sum(len(found) for found in plan.added.values())
            _write_rows(tx, archive, plan, rows, state, total, redactor or Redactor())
            notes += _write_skill_files(archive, plan, library, written)
            if restore_settings and archive.settings is not None:
                notes += _restore_settings(archive.settings, paths.settings_file, written)
    except _Cancelled:
        empty = {name: {"added": 0, "present": 0, "left_out": 0} for name in TABLES}
        return ImportResult(Path(path), True, plan.fresh, empty, False, ("Nothing was imported.",))
    except QueryFailed as error:
        raise ArchiveRefused(Path(path), f"a row cannot be stored ({error})") from error
    library.sync()
    state.set_progress(total, total)
    counts = plan.counts()
    return ImportResult(
        Path(path), False, plan.fresh, counts, restore_settings, tuple(plan.notes + notes)
    )


def import_archive(path: Path, paths: AppPaths, state: ImportState | None = None) -> ImportResult:
    """Import the archive at *path* into the data folder of *paths*, opening
    its database for the time of the import (for ``reverie import``; the app
    calls ``run`` with its own database and library)."""
    database = open_database(paths.database_file)
    try:
        return run(path, database, paths, state or PlainState())
    finally:
        database.close()


def _library(database: Database, paths: AppPaths, skills: SkillLibrary | None) -> SkillLibrary:
    return skills or SkillLibrary(SkillStore(database), paths.skills_dir)


def _settings_decision(archive: Archive, plan: ImportPlan) -> tuple[bool, list[str]]:
    if archive.settings is None:
        return False, []
    if not plan.fresh:
        return False, ["Your settings were kept: an archive's settings are restored only "
                       "into a fresh data folder."]  # fmt: skip
    version = archive.settings.get("version")
    if not isinstance(version, int) or version > SETTINGS_VERSION:
        return False, ["The archive's settings were not restored: they are of a newer Reverie."]
    if list(secret_keys(archive.settings)):
        return False, ["The archive's settings were not restored: they hold values named "
                       "like secrets, which belong in the system keyring."]  # fmt: skip
    return True, []


def _write_rows(
    tx: Transaction,
    archive: Archive,
    plan: ImportPlan,
    rows: ArchiveRows,
    state: ImportState,
    total: int,
    redactor: Redactor,
) -> dict[str, dict[int, int]]:
    """Insert the planned rows; the new id of each archive id, per table
    (into a fresh folder, where ids stay as they were: only those found there)."""
    ids: dict[str, dict[int, int]] = {name: dict(found) for name, found in plan.present.items()}
    deferred: list[tuple[ArchivedTable, int, str, Any]] = []
    done = 0
    for table in ARCHIVED:
        added = plan.added.get(table.name, set())
        if not added:
            continue
        for position, archived in enumerate(archive.tables[table.name]):
            if position not in added:
                continue
            if done % _CHECK_EVERY == 0:
                if state.is_cancelled():
                    raise _Cancelled
                state.set_progress(done, total)
            row = _redacted(table, archived, redactor)
            for reference in table.references:
                value = row[reference.column]
                if (table.name, reference.column) in _DEFERRED and value is not None:
                    deferred.append((table, int(row["id"]), reference.column, value))
                    row[reference.column] = None
                elif not plan.fresh and value is not None:
                    row[reference.column] = ids.get(reference.table, {}).get(value)
            new_id = rows.insert(tx, table, row, keep_id=plan.fresh)
            if table.has_id and new_id is not None and not plan.fresh:  # fresh: the same id
                ids.setdefault(table.name, {})[int(archived["id"])] = new_id
            done += 1
    kept = {} if plan.fresh else _kept_messages(archive, ids.get("messages", {}))
    for table, old_id, column, value in deferred:
        target = _deferred_target(plan, ids, kept, column, old_id, value)
        if target is not None:
            here = old_id if plan.fresh else ids[table.name][old_id]
            rows.set_value(tx, table, here, column, target)
    if plan.fresh:
        rows.raise_sequences(tx, archive.manifest.get("sequences", {}))
    if state.is_cancelled():
        raise _Cancelled
    return ids


def _redacted(table: ArchivedTable, row: Mapping[str, Any], redactor: Redactor) -> dict[str, Any]:
    """*row* with what its columns say redacted (``ArchivedTable.said``)."""
    row = dict(row)
    for column in table.said:
        if isinstance(row.get(column), str):
            row[column] = redactor.text(row[column])
    for column in table.said_within:
        if isinstance(row.get(column), str):
            try:
                value = json.loads(row[column])
            except ValueError:  # not JSON: checked as text
                row[column] = redactor.text(row[column])
            else:
                row[column] = json.dumps(redact_within(value, redactor), ensure_ascii=False)
    return row


def _kept_messages(archive: Archive, messages: Mapping[int, int]) -> dict[int, list[int]]:
    """Per conversation of the archive, the archive ids of its messages that
    are in the database now, ascending."""
    kept: dict[int, list[int]] = {}
    for message in archive.tables["messages"]:
        if int(message["id"]) in messages:
            kept.setdefault(int(message["conversation_id"]), []).append(int(message["id"]))
    for ids in kept.values():
        ids.sort()  # an archive's rows are in id order, unless made by hand
    return kept


def _deferred_target(
    plan: ImportPlan,
    ids: Mapping[str, Mapping[int, int]],
    kept: Mapping[int, list[int]],
    column: str,
    old_id: int,
    value: int,
) -> int | None:
    if plan.fresh:
        return value
    if column == "superseded_by":
        return ids.get("memories", {}).get(value)
    # A harvest watermark is a position: the last message up to it that came along.
    messages = kept.get(old_id, [])
    place = bisect.bisect_right(messages, value)
    return ids["messages"][messages[place - 1]] if place else None


class _Written:
    """The files an import writes inside its transaction, each with what
    stood at its place before, to be taken back if it does not commit."""

    def __init__(self) -> None:
        self._before: list[tuple[Path, str | None]] = []

    def write(self, path: Path, text: str) -> None:
        """*text* at *path* (``write_atomically``).  Raises ``OSError``."""
        # Text Reverie wrote (a settings file, a skill's); not a file (a named
        # pipe would block its reader): none, and write_atomically refuses it.
        before = path.read_text("utf-8", errors="replace") if path.is_file() else None
        write_atomically(path, text)
        self._before.append((path, before))

    @contextlib.contextmanager
    def taken_back_unless_committed(self) -> Iterator[None]:
        """Around the transaction: what was written is taken back if it raises."""
        try:
            yield
        except BaseException:
            self._take_back()
            raise

    def _take_back(self) -> None:
        for path, before in reversed(self._before):
            try:
                if before is None:
                    path.unlink(missing_ok=True)
                else:
                    write_atomically(path, before)
            except OSError as error:  # a skill file left: the next sync makes its row
                log.warning("a file of the failed import stays: %s", error.strerror or error)


def _write_skill_files(
    archive: Archive, plan: ImportPlan, library: SkillLibrary, written: _Written
) -> list[str]:
    notes: list[str] = []
    added = plan.added.get("skills", set())
    for position, skill in enumerate(archive.tables["skills"]):
        if position not in added:
            continue
        old = int(skill["id"])
        file = archive.skill_files[old]
        folder = library.directory / _SKILL_FOLDERS[file.status]
        try:
            make_missing_folders(folder)
            written.write(folder / file.file_name, skill_file_text(file.text))
        except OSError as error:
            notes.append(
                f"The skill {skill['name']!r} could not be written "
                f"({error.strerror or error}); it was left out."
            )
    return notes


def _restore_settings(settings: Mapping[str, Any], path: Path, written: _Written) -> list[str]:
    """Write the archive's settings as the settings file (read, upgraded and
    checked by the app as any settings file is)."""
    text = json.dumps(settings, ensure_ascii=False, indent=2) + "\n"
    try:
        make_missing_folders(path.parent)
        with settings_lock(path):
            written.write(path, text)
    except (OSError, SettingsBusy) as error:
        return [f"The archive's settings could not be written to {path} ({error})."]
    return []
