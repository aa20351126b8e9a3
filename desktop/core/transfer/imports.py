"""One way in for whatever file the user brings, and the sentences that say
what an import would do and did: the window and ``reverie import`` share them.

The file is a Reverie archive (``archive_import``) or a ChatGPT or Claude
export (``history``), told apart by what it holds, never by its name.  Both
refuse a file they cannot read whole before changing anything
(``EnvironmentProblem``s: ``ArchiveRefused``, ``ExportRefused``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from desktop.core.base.paths import AppPaths
from desktop.core.db import ConversationStore, Database
from desktop.core.privacy.redaction import Redactor
from desktop.core.skills.library import SkillLibrary
from desktop.core.transfer import archive_import
from desktop.core.transfer.archive import ExportSummary
from desktop.core.transfer.archive_read import is_archive as is_archive  # for the callers
from desktop.core.transfer.foreign import counted
from desktop.core.transfer.history import HistoryImporter, Skipped
from desktop.core.transfer.progress import ImportState

KINDS = (
    ("conversations", "conversation", "conversations"),
    ("messages", "message", "messages"),
    ("memories", "memory", "memories"),
    ("memory_history", "memory change", "memory changes"),
    ("tasks", "task", "tasks"),
    ("skills", "skill", "skills"),
    ("dream_runs", "dream", "dreams"),
    ("workers", "background worker", "background workers"),
)
"""What the sentences about an archive count, in this order."""
LISTED = 5
"""Conversations skipped or failed named one by one; the rest are counted."""


@dataclass(frozen=True)
class ImportPlan:
    """What importing a file would do, in sentences."""

    path: Path
    archive: bool
    """A Reverie archive (the learning choice does not apply: it keeps its own)."""
    lines: tuple[str, ...]
    adds: bool
    """Whether importing would add anything at all."""


@dataclass(frozen=True)
class ImportOutcome:
    """What an import did, in sentences."""

    lines: tuple[str, ...]
    imported: bool
    """Something was added (nothing added is never reported as done)."""
    cancelled: bool


class Imports:
    """Previews and imports a file into the app's own database and skills."""

    def __init__(
        self,
        database: Database,
        paths: AppPaths,
        redactor: Redactor,
        skills: SkillLibrary | None = None,
    ) -> None:
        self._database = database
        self._paths = paths
        self._skills = skills
        self._redactor = redactor
        self._histories = HistoryImporter(ConversationStore(database), redactor)

    def preview(self, path: Path) -> ImportPlan:
        if is_archive(path):
            found = archive_import.preview(path, self._database, self._paths, skills=self._skills)
            adds = any(counts["added"] for counts in found.counts.values())
            return ImportPlan(path, True, _archive_preview(found), adds)
        planned = self._histories.preview(path)
        lines = [
            f"This is a {planned.source_name} export.",
            f"It would add {_conversations(len(planned.new), planned.new_messages)}.",
        ]
        if planned.already:
            lines.append(f"Already here: {counted(len(planned.already), *_CONVERSATION)}.")
        lines += _named("Would be skipped", planned.skipped)
        return ImportPlan(path, False, tuple(lines), bool(planned.new))

    def run(self, path: Path, *, learn: bool, state: ImportState) -> ImportOutcome:
        if is_archive(path):
            done = archive_import.run(
                path,
                self._database,
                self._paths,
                state,
                skills=self._skills,
                redactor=self._redactor,
            )
            if done.cancelled:
                return ImportOutcome(("Cancelled: nothing was imported.",), False, True)
            added = _listed(done.counts, "added")
            lines = [f"Imported {added}." if added else "Nothing was imported: it is all here."]
            if done.settings_restored:
                lines.append("Its settings were restored; they apply at the next start.")
            return ImportOutcome((*lines, *done.notes), bool(added), False)
        result = self._histories.run(path, learn, state)
        lines = [result.summary()]
        lines += _named("Skipped", result.skipped) + _named("Failed", result.failed)
        if not result.succeeded:
            lines.append("Nothing was imported.")
        return ImportOutcome(tuple(lines), result.succeeded, result.cancelled)


def exported_text(summary: ExportSummary) -> str:
    """The sentence saying what an export wrote, and where."""
    settings = "with your settings" if summary.settings else "no settings file to include"
    said = f"Exported {_listed_counts(summary.counts) or 'nothing'} ({settings}) to {summary.path}."
    if summary.skills_left_out:
        said += f" Left out, their file could not be read: {'; '.join(summary.skills_left_out)}."
    return said


_CONVERSATION = ("conversation", "conversations")


def _conversations(conversations: int, messages: int) -> str:
    return f"{counted(conversations, *_CONVERSATION)} ({counted(messages, 'message', 'messages')})"


def _archive_preview(found: archive_import.ImportPreview) -> tuple[str, ...]:
    lines = ["This is a Reverie archive."]
    added = _listed(found.counts, "added")
    if found.fresh:
        lines.append(f"Everything in it would be restored: {added or 'nothing'}.")
    else:
        lines.append(f"It would add {added or 'nothing'}.")
    for key, said in (("present", "Already here"), ("left_out", "Left out")):
        if listed := _listed(found.counts, key):
            lines.append(f"{said}: {listed}.")
    if found.settings:
        lines.append("Its settings would be restored.")
    return (*lines, *found.notes)


def _listed(counts: Mapping[str, Mapping[str, int]], key: str) -> str:
    return _listed_counts({table: found.get(key, 0) for table, found in counts.items()})


def _listed_counts(counts: Mapping[str, int]) -> str:
    """ "3 conversations, 120 messages, 1 memory": the kinds there are any of."""
    return ", ".join(
        counted(counts[table], one, many) for table, one, many in KINDS if counts.get(table, 0) > 0
    )


def _named(heading: str, items: Sequence[Skipped]) -> list[str]:
    """*heading* and the first few *items*, each with its reason."""
    if not items:
        return []
    lines = [f"{heading}: {counted(len(items), *_CONVERSATION)}."]
    lines += [f"• {item.title or '(untitled)'}: {item.reason}" for item in items[:LISTED]]
    if len(items) > LISTED:
        lines.append(f"• and {len(items) - LISTED} more.")
    return lines
