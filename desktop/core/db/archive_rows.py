"""The rows a whole-app archive holds, and the SQL that reads and writes them.

``desktop.core.transfer`` writes the user's data to one archive and reads it
back; the SQL of that stays here, with the tables it reads, as every
store's does.  ``ARCHIVED`` declares, per table, the columns that are the
user's data and which of them point at other rows.  What is derived is not
in it: vectors and their change logs, the full-text indexes, a memory's
``content_hash`` (made again from its text) and ``embedding_model`` (which
model made a vector it no longer has), a conversation's ``unlearned_parts``
(a count kept by triggers), and the bookkeeping of one installation
(migrations, the database's identity, queued jobs, harvest retries, the ids
of what was erased).

Rows are read in key order and written with the caller's values: a restore
into an empty database keeps every id (``insert(..., keep_id=True)``), a
merge lets SQLite number them (the caller maps the references).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop.core.db.connection import Database, Transaction
from desktop.core.db.conversations import titled
from desktop.core.db.memory_rows import content_hash


@dataclass(frozen=True)
class Reference:
    """A column holding the id of a row of *table*.  A *soft* one has no
    foreign key (a position, a provenance that outlives its row) or one
    that lets the row go (``SET NULL``): it may name a row that is gone."""

    column: str
    table: str
    soft: bool = False


@dataclass(frozen=True)
class ArchivedTable:
    """One table as the archive holds it: *columns* in this order, sorted by *order*."""

    name: str
    columns: tuple[str, ...]
    order: tuple[str, ...] = ("id",)
    references: tuple[Reference, ...] = ()
    has_id: bool = True
    derived: Mapping[str, str] = field(default_factory=dict)
    """Columns written on insert but not archived: name -> how (see ``_derived``)."""
    keep_theirs: bool = False
    """On a key the database holds already, its row stays (``ON CONFLICT DO
    NOTHING``): a dream's mark per pass, which a database may keep after
    its runs are gone."""
    shown: Mapping[str, Callable[[str], str]] = field(default_factory=dict)
    """Columns stored as the store writes them, by how: an edited archive's
    title keeps no bidi override, nor more than a title's length."""
    optional: Mapping[str, Any] = field(default_factory=dict)
    """Columns an older archive may lack, with the value they then take: a
    column added by a later migration is archived from then on, and the
    archives written before it are still read (their format version stays)."""
    added_later: bool = False
    """A table a later migration added: an archive written before it has no
    entry for it and is read as holding none of its rows."""
    said: tuple[str, ...] = ()
    """Columns of what the user or a model wrote, redacted again as an
    archive comes in: it may come from a Reverie of fewer rules, or have
    been edited by hand."""
    said_within: tuple[str, ...] = ()
    """Columns of JSON holding such text (a change's before and after)."""


ARCHIVED: tuple[ArchivedTable, ...] = (
    ArchivedTable(
        "conversations",
        (
            "id", "title", "created_at", "updated_at", "off_record", "summary",
            "summary_updated_at", "harvested_through_message_id", "deleted_at",
            "imported_from", "external_id",
        ),
        references=(Reference("harvested_through_message_id", "messages", soft=True),),
        shown={"title": titled},
        said=("title", "summary"),
        optional={"imported_from": None, "external_id": None},
    ),
    ArchivedTable(
        "messages",
        (
            "id", "conversation_id", "role", "content", "created_at", "archived_at",
            "token_count", "metadata", "secrets_checked",
        ),
        references=(Reference("conversation_id", "conversations"),),
        said=("content",),
        said_within=("metadata",),
    ),
    ArchivedTable(
        "forgotten_messages",
        ("message_id",),
        order=("message_id",),
        references=(Reference("message_id", "messages"),),
        has_id=False,
        keep_theirs=True,
        added_later=True,
    ),
    ArchivedTable(
        "harvest_gaps",
        (
            "id", "conversation_id", "first_message_id", "last_message_id", "attempts",
            "reason", "skipped_at", "learn_again_at",
        ),
        references=(
            Reference("conversation_id", "conversations"),
            Reference("first_message_id", "messages", soft=True),
            Reference("last_message_id", "messages", soft=True),
        ),
    ),
    ArchivedTable(
        "memories",
        (
            "id", "content", "category", "source_kind", "importance", "reinforcement_count",
            "created_at", "last_seen_at", "valid_from", "valid_to", "pinned", "status",
            "superseded_by", "flags", "updated_at", "faded_importance", "decayed_through",
        ),
        references=(Reference("superseded_by", "memories", soft=True),),
        derived={"content_hash": "content_hash"},
        said=("content",),
    ),
    ArchivedTable(
        "memory_sources",
        ("memory_id", "message_id", "external_ref"),
        order=("memory_id", "message_id", "external_ref"),
        references=(
            Reference("memory_id", "memories"),
            Reference("message_id", "messages", soft=True),
        ),
        has_id=False,
    ),
    ArchivedTable(
        "dream_runs",
        (
            "id", "trigger", "status", "created_at", "started_at", "finished_at",
            "checkpoint", "stats", "error",
        ),
    ),
    ArchivedTable(
        "dream_changes",
        (
            "id", "dream_run_id", "pass", "kind", "summary", "payload", "before", "after",
            "status", "risky", "note", "created_at", "decided_at",
        ),
        references=(Reference("dream_run_id", "dream_runs"),),
        said=("summary", "note"),
        said_within=("payload", "before", "after"),
    ),
    ArchivedTable(
        "dream_log",
        ("id", "dream_run_id", "pass", "outcome", "message", "raw_output", "created_at"),
        references=(Reference("dream_run_id", "dream_runs"),),
        said=("message", "raw_output"),
    ),
    ArchivedTable(
        "dream_pass_marks",
        ("pass", "judged_through", "updated_at"),
        order=("pass",),
        has_id=False,
        keep_theirs=True,
    ),
    ArchivedTable(
        "memory_history",
        (
            "id", "memory_id", "operation", "old_content", "new_content", "actor",
            "dream_run_id", "dream_change_id", "details", "created_at",
        ),
        references=(
            Reference("memory_id", "memories"),
            Reference("dream_run_id", "dream_runs", soft=True),
            Reference("dream_change_id", "dream_changes", soft=True),
        ),
        said=("old_content", "new_content"),
        said_within=("details",),
    ),
    ArchivedTable(
        "tasks",
        (
            "id", "conversation_id", "text", "priority", "status", "schedule_kind",
            "schedule_spec", "ai_prompt", "created_at", "updated_at", "completed_at",
            "last_run_at", "next_run_at", "reopened_at",
        ),
        references=(Reference("conversation_id", "conversations", soft=True),),
        said=("text", "ai_prompt"),
    ),
    ArchivedTable(
        "skills",
        ("id", "name", "summary", "file_name", "status", "created_at", "updated_at"),
        said=("summary",),
    ),
    ArchivedTable(
        "skill_usage",
        ("id", "skill_id", "conversation_id", "used_at"),
        references=(
            Reference("skill_id", "skills"),
            Reference("conversation_id", "conversations", soft=True),
        ),
    ),
    ArchivedTable(
        "workers",
        (
            "id", "parent_id", "conversation_id", "depth", "objective", "mode", "profile",
            "tools", "max_tool_calls", "state", "not_before", "timeout_s", "time_used",
            "continuation_of", "continuations", "retry_of", "runner", "result", "failure",
            "created_at", "started_at", "ended_at", "off_record", "reported", "asked_in",
        ),
        references=(
            Reference("parent_id", "workers"),
            Reference("conversation_id", "conversations"),
            Reference("continuation_of", "workers"),
            Reference("retry_of", "workers", soft=True),
            Reference("asked_in", "messages", soft=True),
        ),
        said=("objective", "result", "failure"),
    ),
    ArchivedTable(
        "worker_dependencies",
        ("worker_id", "depends_on"),
        order=("worker_id", "depends_on"),
        references=(Reference("worker_id", "workers"), Reference("depends_on", "workers")),
        has_id=False,
    ),
    ArchivedTable(
        "worker_messages",
        ("id", "worker_id", "role", "content", "created_at"),
        references=(Reference("worker_id", "workers"),),
        said=("content",),
    ),
)  # fmt: skip
"""Every archived table, each after the tables it points at (but for the
soft references and a memory's ``superseded_by``, set once all are in)."""

TABLES: dict[str, ArchivedTable] = {table.name: table for table in ARCHIVED}
NOT_ARCHIVED: dict[str, str] = {
    "conversations.unlearned_parts": "a count of harvest_gaps, kept by triggers",
    "memories.content_hash": "made again from the text",
    "memories.embedding_model": "names the model of a vector, and vectors are not archived",
    "background_jobs": "the queue of one running installation",
    "database_identity": "each database's own (schema_v8)",
    "erased_items": "ids of what this database erased, to purge its own snapshots",
    "erased_imports": "where this database's imported conversations it erased came from",
    "harvest_retries": "a back-off of this installation's harvest",
    "memory_embeddings": "vectors: embedded again in the background",
    "memory_vector_changes": "a log of vector changes for the in-memory index",
    "message_embeddings": "vectors: embedded again in the background",
    "message_vector_changes": "a log of vector changes for the in-memory index",
    "schema_migrations": "the receiving database's own",
    "sqlite_sequence": "SQLite's; the archive's manifest holds the sequences",
}
"""What the database holds and an archive does not, and why (a table's
full-text index, ``*_fts*``, is always left out: triggers rebuild it).
``tests/unit/core/db/test_archive_rows.py`` fails on a table or column in
neither list: a migration adding one decides here whether it travels."""
_PAGE = 100
"""Rows read at once where a table's rows are gone through one by one."""
HOLDING_DATA = ("conversations", "memories", "tasks", "skills", "dream_runs", "workers")
"""A database without a row in any of these holds nothing of the user's yet."""


def _every_row(table: ArchivedTable) -> str:
    """The query of every row of *table*, in its order (names from ``ARCHIVED`` only)."""
    return f"SELECT {', '.join(table.columns)} FROM {table.name} ORDER BY {', '.join(table.order)}"


def _derived(how: str, row: Mapping[str, Any]) -> Any:
    if how == "content_hash":
        return content_hash(str(row["content"]))
    raise ValueError(f"no way to derive {how!r}")


class ArchiveRows:
    """Reading every archived row, and writing rows of an archive back."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def rows(
        self, table: ArchivedTable, reader: Database | Transaction | None = None
    ) -> list[dict[str, Any]]:
        """Every row of *table*, in its order, as column -> value."""
        found = (reader or self._db).fetch_all(_every_row(table))
        return [dict(zip(table.columns, row, strict=True)) for row in found]

    @staticmethod
    def each(table: ArchivedTable, reader: Database) -> Iterator[dict[str, Any]]:
        """``rows`` one by one, as *reader* (a ``Database.read_snapshot``) has
        them: an export of a large database never holds a table whole."""
        for row in reader.each_row(_every_row(table)):
            yield dict(zip(table.columns, row, strict=True))

    def holds_data(self, reader: Database | Transaction | None = None) -> bool:
        """Whether any table the user's data lives in has a row."""
        reader = reader or self._db
        return any(
            reader.fetch_value(f"SELECT EXISTS (SELECT 1 FROM {name})") for name in HOLDING_DATA
        )

    def erasures(self, reader: Database | Transaction | None = None) -> int:
        """How many items were ever erased (``erased_items``): an export
        compares it before and after it read, to know whether something it
        read was erased meanwhile."""
        return int((reader or self._db).fetch_value("SELECT count(*) FROM erased_items"))

    def sequences(self, reader: Database | Transaction | None = None) -> dict[str, int]:
        """The highest id ever given, per archived table (ids are never reused:
        a provenance may still name an erased message by its id)."""
        found = (reader or self._db).fetch_all(
            "SELECT name, seq FROM sqlite_sequence ORDER BY name"
        )
        return {str(name): int(seq) for name, seq in found if name in TABLES}

    def raise_sequences(self, tx: Transaction, sequences: Mapping[str, int]) -> None:
        """No new row of these tables gets an id up to *sequences*' (a restore:
        the ids of what was erased before stay unused)."""
        for name, seq in sorted(sequences.items()):
            if name not in TABLES:
                continue
            tx.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (seq, name))
            tx.execute(
                "INSERT INTO sqlite_sequence (name, seq) SELECT ?, ?"
                " WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)",
                (name, seq, name),
            )

    def insert(
        self, tx: Transaction, table: ArchivedTable, row: Mapping[str, Any], *, keep_id: bool
    ) -> int | None:
        """Write *row* into *table* (with its own id if *keep_id*, else a new
        one); the row's id (None for a table without ids)."""
        names = [c for c in table.columns if keep_id or c != "id" or not table.has_id]
        values = [
            table.shown[c](row[c]) if c in table.shown and isinstance(row[c], str) else row[c]
            for c in names
        ]
        for column, how in table.derived.items():
            names.append(column)
            values.append(_derived(how, row))
        marks = ", ".join("?" for _ in names)
        done = tx.execute(f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({marks})", values)
        return done.lastrowid if table.has_id else None

    def set_value(
        self, tx: Transaction, table: ArchivedTable, row_id: int, column: str, value: Any
    ) -> None:
        """Set one column of one row (a reference known once every row is in)."""
        if column not in table.columns:
            raise ValueError(f"{table.name} has no archived column {column!r}")
        tx.execute(f"UPDATE {table.name} SET {column} = ? WHERE id = ?", (value, row_id))

    # -- what is already there (for a merge) --------------------------------

    def conversations_started(self, created_at: float) -> list[tuple[int, str]]:
        """The id and title of each conversation started at *created_at*."""
        found = self._db.fetch_all(
            "SELECT id, title FROM conversations WHERE created_at = ? ORDER BY id", (created_at,)
        )
        return [(int(row[0]), str(row[1])) for row in found]

    def imported_conversation(self, imported_from: str, external_id: str) -> int | None:
        """The conversation imported from *imported_from* where it was
        *external_id* (deleted or not), if there is one."""
        found = self._db.fetch_value(
            "SELECT id FROM conversations WHERE imported_from = ? AND external_id = ?",
            (imported_from, external_id),
        )
        return None if found is None else int(found)

    def messages_of(
        self, conversation_id: int, limit: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """A conversation's messages (its first *limit*, if given), in order,
        with the archived columns: read a page at a time, never all held (a
        conversation of 50,000 grew an import's memory by 50 MiB)."""
        table = TABLES["messages"]
        wanted, after = limit, 0
        while wanted is None or wanted > 0:
            size = _PAGE if wanted is None else min(wanted, _PAGE)
            page = self._db.fetch_all(
                f"SELECT {', '.join(table.columns)} FROM messages"
                " WHERE conversation_id = ? AND id > ? ORDER BY id LIMIT ?",
                (conversation_id, after, size),
            )
            yield from (dict(zip(table.columns, row, strict=True)) for row in page)
            if len(page) < size:
                return
            after = int(page[-1]["id"])
            wanted = None if wanted is None else wanted - len(page)

    def ids_by(self, table: str, columns: Sequence[str]) -> dict[tuple[Any, ...], int]:
        """The id of each row of *table* by the values of *columns* (the lowest
        id when several rows share them)."""
        if table not in TABLES or not set(columns) <= set(TABLES[table].columns):
            raise ValueError(f"not archived: {table} {columns}")
        found = self._db.fetch_all(f"SELECT {', '.join(columns)}, id FROM {table} ORDER BY id DESC")
        return {tuple(row)[:-1]: int(row[-1]) for row in found}

    def ids_made_at(self, table: str) -> dict[Any, list[int]]:
        """The ids of the rows of *table* by when each was made (``created_at``)."""
        if table not in TABLES or "created_at" not in TABLES[table].columns:
            raise ValueError(f"not archived with a time made: {table}")
        made: dict[Any, list[int]] = {}
        for row in self._db.fetch_all(f"SELECT created_at, id FROM {table} ORDER BY id"):
            made.setdefault(row[0], []).append(int(row[1]))
        return made

    def memories_by_origin(self) -> Iterator[tuple[Any, str, int]]:
        """When each memory was made, the text it was made with (its
        history's 'add', else its text) and its id, the highest id first
        (the same memory after an edit: the lowest id is the one kept);
        read a page at a time, never all held."""
        before = None
        while True:
            page = self._db.fetch_all(
                "SELECT m.created_at, coalesce((SELECT h.new_content FROM memory_history h"
                " WHERE h.memory_id = m.id AND h.operation = 'add' ORDER BY h.id LIMIT 1),"
                " m.content), m.id FROM memories m WHERE m.id < coalesce(?, m.id + 1)"
                " ORDER BY m.id DESC LIMIT ?",
                (before, _PAGE),
            )
            yield from ((row[0], str(row[1]), int(row[2])) for row in page)
            if len(page) < _PAGE:
                return
            before = int(page[-1][2])

    def iter_tables(self) -> Iterator[ArchivedTable]:
        return iter(ARCHIVED)
