"""Secrets in messages stored before Reverie redacted them on write.

Since messages are redacted as they are stored, only those written by an
older version can still hold a secret as typed.  Migration 7 marked them
unchecked; ``sweep_stored_secrets`` redacts them (their text, and the
arguments and results a tool message keeps), a batch per transaction so a
chat turn never waits long, then the conversations' titles and summaries,
then drops the old words from the search index and the write-ahead log.  It
runs once, in the background, at start; a sweep cut short, even after its
last batch, goes on at the next start (the batches leave a job queued that
only the last step marks done).

Snapshots an older version took hold those messages too:
``sweep_snapshots`` brings each copy to the current schema (as restoring it
would), sweeps it the same way and compacts it with ``secure_delete`` on.
A copy taken after the sweep has nothing unchecked and is left as it is.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path

from desktop.core.base.errors import EnvironmentProblem
from desktop.core.base.jobs import JobControl
from desktop.core.db import ConversationStore, Database, Message, migrate, open_copy
from desktop.core.db.errors import MigrationFailed
from desktop.core.db.purge import compact
from desktop.core.dreaming.snapshots import SnapshotsLock, complete_snapshots, roll_back_cut
from desktop.core.privacy.redaction import redact, redact_within

log = logging.getLogger(__name__)

BATCH = 200
"""Messages checked per transaction (about a quarter of a second's work)."""


def sweep_stored_secrets(
    conversations: ConversationStore, control: JobControl | None = None
) -> int:
    """Redact every message not checked for secrets yet, and then every
    conversation's title and summary; how many changed."""
    control = control or JobControl()
    changed = 0
    while not control.cancelled:
        checked, rewritten = conversations.rewrite_unchecked(_redacted, BATCH)
        changed += rewritten
        if checked < BATCH:
            break
    if control.cancelled or not conversations.sweep_unfinished():
        return changed
    # After the messages (in this run or one cut short): a summary may hold a
    # secret its messages no longer do (they were archived and purged).
    changed += conversations.rewrite_titles(lambda text: redact(text).text)
    conversations.finish_sweep()
    if changed:
        # Counts only: the point is that the text is gone.
        log.info(
            "took secrets out of %d messages and conversations stored by an older version", changed
        )
    return changed


_UNUSABLE = (EnvironmentProblem, MigrationFailed)
"""A copy unreadable, damaged, newer, busy, on a full disk or not migratable."""


def sweep_snapshots(
    database: Database,
    folder: Path,
    control: JobControl | None = None,
    *,
    under: SnapshotsLock | None = None,
) -> int:
    """Sweep every snapshot in *folder* as ``sweep_stored_secrets`` sweeps
    *database*; how many copies changed.  A copy that cannot be opened or
    brought up to date is left as it is, said in the log.  All *under* the
    snapshots' lock (the eraser's): a dream's copy being written is no copy
    a kill cut short, to roll back."""
    with (under or SnapshotsLock(folder)).held("The secret sweep of the snapshots"):
        return _sweep_snapshots(database, folder, control or JobControl())


def _sweep_snapshots(database: Database, folder: Path, control: JobControl) -> int:
    changed = 0
    if folder.is_dir():
        roll_back_cut(folder, database)  # a sweep killed mid-copy is swept again
    for path in complete_snapshots(folder) if folder.is_dir() else []:
        if control.cancelled:
            break
        try:
            copy = open_copy(path, database)
        except _UNUSABLE as error:
            log.warning("snapshot %s could not be checked for secrets: %s", path.name, error)
            continue
        try:
            migrate(copy)
            if sweep_stored_secrets(ConversationStore(copy), control):
                compact(copy)
                changed += 1
        except _UNUSABLE as error:
            log.warning("snapshot %s could not be checked for secrets: %s", path.name, error)
        finally:
            copy.close()
    return changed


def _redacted(message: Message) -> Message:
    """*message* with its secrets out; a tool message's JSON stays valid JSON."""
    metadata = message.metadata
    if metadata is not None:  # a tool message keeps the call's arguments there
        metadata = json.loads(json.dumps(redact_within(metadata)))
    try:
        content = (
            json.dumps(redact_within(json.loads(message.content)), ensure_ascii=False)
            if message.role == "tool"
            else redact(message.content).text
        )
    except ValueError:  # not JSON after all
        content = redact(message.content).text
    return replace(message, content=content, metadata=metadata)
