"""``ConversationStore``: all the SQL of conversations and their messages.

Deleting a conversation is soft (``deleted_at``): it disappears from the list
and takes no new messages, but memories harvested from it keep pointing at
message ids that still mean something, and it can be restored until it is
erased for good (``desktop.core.db.purge``).
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop.core.base.text import cut, readable, scrub, searchable, shows_nothing
from desktop.core.db.clock import Clock, system_clock
from desktop.core.db.connection import Database, Row, Transaction
from desktop.core.db.errors import ChangedMeanwhile, QueryFailed, RowNotFound
from desktop.core.db.follow_ups import last_owed, mark_done, queue_follow_up
from desktop.core.db.fts import match_query
from desktop.core.db.rows import columns, from_row, json_or_none, select_list

MessageRole = Literal["system", "user", "assistant", "tool", "event"]

FORGOTTEN = (
    "(EXISTS (SELECT 1 FROM memory_sources s JOIN memories f ON f.id = s.memory_id"
    " WHERE s.message_id = m.id AND f.status = 'deleted')"
    " OR EXISTS (SELECT 1 FROM forgotten_messages g WHERE g.message_id = m.id))"
)
"""Of message ``m``: one a memory the user deleted was learned from (one
waiting out its restore window, or one erased since: schema_v14).  Recalled,
it would tell the model what the user asked it to forget; read by a dream,
it would teach it again."""

TITLE_LIMIT = 200
"""The longest title kept, in characters ("…" marks a cut): a page pasted
as a name, or a ChatGPT export's megabyte title, went whole into every
prompt recalling that conversation and crowded the excerpts out."""
MADE_TITLE_CHARS = 48
"""A title made of a conversation's first message (Reverie's own, or an
imported one without a title) is cut here, "…" after it."""
TITLE_READ = TITLE_LIMIT + 1_000
"""How much of a title given is read for secrets before it is cut: all the
cut keeps, and what follows it far enough to tell a value there a secret."""
SEARCH_MAX_CHARS = 1_000
"""How much of a search text is searched for: a pasted text is no title, and
no title is found by more than its first thousand characters."""
_IDS_PER_QUERY = 500  # well under SQLite's limit on bound parameters
_SWEEP_FOLLOW_UP = "secret sweep: titles and search index"
"""The job a secret sweep leaves queued until its titles and index are done."""
_REWRITE_FOLLOW_UP = "secret named later: search index"
"""A rewrite of earlier messages (``rewrite_conversation``) whose old words
may still be in the search indexes and the WAL (``finish_rewrite``)."""
REPLACES = "replaces"
"""A message's metadata key: the ids of the messages an edit replaced with
it, oldest first (``ChatService.edit_last``): what was read from them is
not counted again when read from it (``MemoryWrites.reinforce``)."""


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    created_at: float
    updated_at: float
    off_record: bool
    """Never harvested into memories."""
    summary: str | None
    summary_updated_at: float | None
    harvested_through_message_id: int | None
    deleted_at: float | None
    unlearned_parts: int = 0
    """Parts the harvest gave up on and has not learned since (see ``HarvestGap``)."""
    imported_from: str | None = None
    """Where an imported conversation came from (``schema_v13.SOURCES``);
    None for Reverie's own."""
    external_id: str | None = None
    """An imported conversation's id where it came from."""


@dataclass(frozen=True)
class Message:
    id: int
    conversation_id: int
    role: MessageRole
    content: str
    created_at: float
    archived_at: float | None
    token_count: int | None
    metadata: dict[str, Any] | None = field(hash=False)


@dataclass(frozen=True)
class MessagePage:
    """Some of a conversation's messages, archived ones too, as a window
    shows them: read a page at a time, not the whole conversation."""

    messages: list[Message]
    """In the order they were added."""
    earlier: int
    """How many messages come before the first of them."""
    later: int
    """How many messages come after the last of them."""
    summarised_through: int | None
    """The conversation's last message summarised away (archived), if any."""


@dataclass(frozen=True)
class ImportedMessage:
    """A message of a conversation brought in from elsewhere, said at *created_at*."""

    role: MessageRole
    content: str
    created_at: float
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class HarvestBacklog:
    conversation_id: int
    new_user_messages: int
    last_message_at: float


@dataclass(frozen=True)
class HarvestRetry:
    """The harvest of a conversation's new messages failed *failures* times
    in a row; the next try is not before *retry_at*."""

    conversation_id: int
    failures: int
    last_error: str
    retry_at: float


@dataclass(frozen=True)
class HarvestGap:
    """Messages *first_message_id* to *last_message_id* of a conversation
    the harvest gave up on after *attempts* unusable answers; the user asked
    to learn them again at *learn_again_at* (None: not asked)."""

    id: int
    conversation_id: int
    first_message_id: int
    last_message_id: int
    attempts: int
    reason: str
    skipped_at: float
    learn_again_at: float | None


_IMPORT_COLUMNS = ("imported_from", "external_id")


def titled(text: str) -> str:
    """*text* as a conversation's title is kept: as a reader sees it (a lone
    surrogate, which SQLite cannot hold, as U+FFFD), and ``TITLE_LIMIT``
    characters at most; "" if a reader would see nothing of it (accents
    with no letter, blanks), which the list shows as untitled."""
    title = cut(readable(scrub(text)), TITLE_LIMIT)
    return "" if shows_nothing(title) else title


def _conversation(row: Row) -> Conversation:
    if _IMPORT_COLUMNS[0] in row.keys():  # noqa: SIM118  # a Row's `in` reads its values
        return from_row(Conversation, row, off_record=bool)
    # A database not yet at schema 13 (an old snapshot opened as it is):
    # its conversations are all Reverie's own.
    kept = {name: row[name] for name in columns(Conversation) if name not in _IMPORT_COLUMNS}
    return Conversation(**{**kept, "off_record": bool(kept["off_record"])})


def _message(row: Row) -> Message:
    return from_row(Message, row, metadata=json_or_none)


def _rewritten(metadata: dict[str, Any] | None, rewrite: Callable[[str], str]) -> str | None:
    """*metadata* as stored, with *rewrite* made of every text in it."""

    def each(value: object) -> object:
        if isinstance(value, str):
            return rewrite(value)
        if isinstance(value, dict):
            return {key: each(item) for key, item in value.items()}
        if isinstance(value, list):
            return [each(item) for item in value]
        return value

    return None if metadata is None else json.dumps(each(metadata))


_MESSAGE_FIELDS = columns(Message)
_MESSAGE_COLUMNS = select_list(Message, "m")


def replaced_ids(message: Message) -> tuple[int, ...]:
    """The messages an edit replaced with *message*, oldest first (``REPLACES``)."""
    named = (message.metadata or {}).get(REPLACES)
    if not isinstance(named, list):
        return ()
    return tuple(n for n in named if isinstance(n, int) and not isinstance(n, bool))


def _returned(row: Row | None) -> Row:
    if row is None:  # INSERT ... RETURNING always returns the row it wrote
        raise QueryFailed("an INSERT ... RETURNING returned no row")
    return row


class ConversationStore:
    """Conversations and their messages."""

    def __init__(self, database: Database, *, clock: Clock = system_clock) -> None:
        self._db = database
        self._clock = clock

    def create(self, title: str = "", off_record: bool = False) -> Conversation:
        now = self._clock()
        with self._db.transaction() as tx:
            row = tx.fetch_one(
                "INSERT INTO conversations (title, created_at, updated_at, off_record)"
                " VALUES (?, ?, ?, ?) RETURNING *",
                (titled(title), now, now, int(off_record)),
            )
        return _conversation(_returned(row))

    def create_imported(
        self,
        title: str,
        *,
        imported_from: str,
        external_id: str,
        created_at: float,
        updated_at: float,
        tx: Transaction,
    ) -> Conversation | None:
        """A conversation brought in from *imported_from*, where it was
        *external_id*, with its own times, in *tx* (a caller's transaction,
        which adds its messages too: ``add_imported_messages``); None if
        that conversation was imported before (deleted or not)."""
        row = tx.fetch_one(
            "INSERT INTO conversations (title, created_at, updated_at, imported_from, external_id)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (imported_from, external_id)"
            " WHERE imported_from IS NOT NULL AND external_id IS NOT NULL DO NOTHING RETURNING *",
            (titled(title), created_at, updated_at, imported_from, external_id),
        )
        return None if row is None else _conversation(row)

    @staticmethod
    def add_imported_messages(
        conversation_id: int, messages: Sequence[ImportedMessage], tx: Transaction
    ) -> builtins.list[int]:
        """Append *messages* with their own times, in *tx*, leaving the
        conversation's times as they were given; their ids, in order.
        Their text was redacted by the caller, so they are stored as
        checked for secrets (``schema_v7``'s default)."""
        ids: builtins.list[int] = []
        for message in messages:
            row = tx.fetch_one(
                "INSERT INTO messages (conversation_id, role, content, created_at, metadata)"
                " VALUES (?, ?, ?, ?, ?) RETURNING id",
                (
                    conversation_id,
                    message.role,
                    message.content,
                    message.created_at,
                    None if message.metadata is None else json.dumps(dict(message.metadata)),
                ),
            )
            ids.append(int(_returned(row)[0]))
        return ids

    def imported(self, imported_from: str, external_ids: Iterable[str]) -> dict[str, Conversation]:
        """The conversations already imported from *imported_from* with
        these ids (deleted ones too, until erased), by external id."""
        rows = self._by_external_id("*", "conversations", imported_from, external_ids)
        return {row["external_id"]: _conversation(row) for row in rows}

    def erased_imports(self, imported_from: str, external_ids: Iterable[str]) -> set[str]:
        """Which of *external_ids* name a conversation imported from
        *imported_from* and erased for good since (schema_v14)."""
        rows = self._by_external_id("external_id", "erased_imports", imported_from, external_ids)
        return {str(row[0]) for row in rows}

    def _by_external_id(
        self, columns: str, table: str, imported_from: str, external_ids: Iterable[str]
    ) -> Iterator[Row]:
        wanted = sorted(set(external_ids))
        for start in range(0, len(wanted), _IDS_PER_QUERY):
            chunk = wanted[start : start + _IDS_PER_QUERY]
            yield from self._db.fetch_all(
                f"SELECT {columns} FROM {table} WHERE imported_from = ?"
                f" AND external_id IN ({', '.join('?' * len(chunk))})",
                (imported_from, *chunk),
            )

    def get(self, conversation_id: int) -> Conversation | None:
        """The conversation, deleted or not; None if there never was one."""
        row = self._db.fetch_one("SELECT * FROM conversations WHERE id = ?", (conversation_id,))
        return None if row is None else _conversation(row)

    def get_many(self, conversation_ids: Iterable[int]) -> dict[int, Conversation]:
        """The conversations with these ids, deleted or not, by id; ids with
        none are left out.  One read for a window listing many (not one each)."""
        wanted = sorted(set(conversation_ids))
        found: dict[int, Conversation] = {}
        for start in range(0, len(wanted), _IDS_PER_QUERY):
            chunk = wanted[start : start + _IDS_PER_QUERY]
            rows = self._db.fetch_all(
                f"SELECT * FROM conversations WHERE id IN ({', '.join('?' * len(chunk))})", chunk
            )
            found.update((row["id"], _conversation(row)) for row in rows)
        return found

    def list(self) -> builtins.list[Conversation]:
        """The conversations not deleted, most recently active first."""
        rows = self._db.fetch_all(
            "SELECT * FROM conversations WHERE deleted_at IS NULL ORDER BY updated_at DESC, id DESC"
        )
        return [_conversation(row) for row in rows]

    def search(self, query: str, limit: int = 100) -> builtins.list[Conversation]:
        """Conversations whose title contains *query* or whose messages hold
        all of its words, most recently active first.  Only the first
        ``SEARCH_MAX_CHARS`` characters of *query* are searched for.  A title
        is compared as a reader sees it, in any case of any script (SQLite's
        LIKE folds ASCII letters alone: "ärger" missed "Ärger"), with or
        without accents, ligatures or full-width letters (``searchable``, as
        the messages' index reads them), and found by what has no words too
        (an emoji, "C#")."""
        query = readable(scrub(query[:SEARCH_MAX_CHARS])).strip()
        if not query or limit < 1:
            return []
        words = match_query(query, every_word=True)
        in_messages = (
            ""
            if words is None
            else " OR c.id IN (SELECT m.conversation_id FROM messages_fts"
            " JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ?)"
        )
        rows = self._db.fetch_all(
            "SELECT * FROM conversations c WHERE c.deleted_at IS NULL AND ("
            f" instr(searchable(c.title), ?) > 0{in_messages})"
            " ORDER BY c.updated_at DESC, c.id DESC LIMIT ?",
            (searchable(query), *([] if words is None else [words]), limit),
        )
        return [_conversation(row) for row in rows]

    def rename(self, conversation_id: int, title: str) -> Conversation:
        with self._db.transaction() as tx:
            row = tx.fetch_one(
                "UPDATE conversations SET title = ?, updated_at = ?"
                " WHERE id = ? AND deleted_at IS NULL RETURNING *",
                (titled(title), self._clock(), conversation_id),
            )
            if row is None:
                raise RowNotFound("conversations", conversation_id)
        return _conversation(row)

    def delete(self, conversation_id: int) -> None:
        """Soft-delete: hidden from the list, messages kept for provenance."""
        with self._db.transaction() as tx:
            changed = tx.execute(
                "UPDATE conversations SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                (self._clock(), conversation_id),
            ).rowcount
            if changed == 0:
                raise RowNotFound("conversations", conversation_id)

    def restore(self, conversation_id: int) -> Conversation:
        """Bring back a deleted conversation (not yet erased for good)."""
        with self._db.transaction() as tx:
            row = tx.fetch_one(
                "UPDATE conversations SET deleted_at = NULL"
                " WHERE id = ? AND deleted_at IS NOT NULL RETURNING *",
                (conversation_id,),
            )
            if row is None:
                raise RowNotFound("conversations", conversation_id)
        return _conversation(row)

    def deleted(self) -> builtins.list[Conversation]:
        """The deleted conversations not yet erased, most recently deleted first."""
        rows = self._db.fetch_all(
            "SELECT * FROM conversations WHERE deleted_at IS NOT NULL"
            " ORDER BY deleted_at DESC, id DESC"
        )
        return [_conversation(row) for row in rows]

    def discard_unused(self, greeting: str, keep: int | None = None) -> int:
        """Remove for good the conversations nothing was said in but
        Reverie's greeting (messages of kind *greeting*), except *keep*; how many."""
        with self._db.transaction() as tx:
            return tx.execute(
                "DELETE FROM conversations WHERE id IS NOT ? AND NOT EXISTS"
                " (SELECT 1 FROM messages m WHERE m.conversation_id = conversations.id"
                "  AND json_extract(m.metadata, '$.kind') IS NOT ?)",
                (keep, greeting),
            ).rowcount

    def delete_messages_from(
        self,
        conversation_id: int,
        message_id: int,
        keep: Sequence[str] = (),
        tx: Transaction | None = None,
    ) -> int:
        """Remove for good *message_id* and every message after it in the
        conversation (a reply to regenerate, a message to edit), except those
        of a kind in *keep* (a greeting stored after a message sent while it
        was written, a reminder said meanwhile); how many.  In *tx*, a
        caller's transaction, it commits with what replaces them (an edit).
        Their words are to leave the search index and the WAL too
        (``rewrote``): the caller finishes it (``finish_rewrite``)."""
        kinds = ", ".join("?" * len(keep))
        unkept = f" AND coalesce(json_extract(metadata, '$.kind'), '') NOT IN ({kinds})"
        with self._db.writing(tx) as writing:
            self._touch(writing, conversation_id, self._clock())
            removed = writing.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND id >= ?"
                + (unkept if keep else ""),
                (conversation_id, message_id, *keep),
            ).rowcount
            if removed:
                self.rewrote(writing)
        return removed

    def add_message(
        self,
        conversation_id: int,
        role: MessageRole,
        content: str,
        token_count: int | None = None,
        metadata: Mapping[str, Any] | None = None,
        tx: Transaction | None = None,
    ) -> Message:
        """Append a message and mark the conversation as active now (in *tx*,
        a caller's transaction it commits with, if given)."""
        now = self._clock()
        with self._db.writing(tx) as writing:
            self._touch(writing, conversation_id, now)
            row = writing.fetch_one(
                "INSERT INTO messages (conversation_id, role, content, created_at,"
                " token_count, metadata) VALUES (?, ?, ?, ?, ?, ?) RETURNING "
                + ", ".join(_MESSAGE_FIELDS),
                (
                    conversation_id,
                    role,
                    content,
                    now,
                    token_count,
                    None if metadata is None else json.dumps(dict(metadata)),
                ),
            )
        return _message(_returned(row))

    def annotate(self, message_id: int, key: str, value: Any) -> None:
        """Set *key* of a message's metadata to *value* (JSON), keeping the rest."""
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE messages SET metadata = json_set(coalesce(metadata, '{}'), ?, json(?))"
                " WHERE id = ?",
                (f'$."{key}"', json.dumps(value), message_id),
            )

    def messages(
        self, conversation_id: int, include_archived: bool = False, after: int = 0
    ) -> builtins.list[Message]:
        """The messages of a conversation in the order they were added (those
        after message *after*, if given)."""
        rows = self._db.fetch_all(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = ?"
            " AND m.id > ? AND (? OR m.archived_at IS NULL) ORDER BY m.id",
            (conversation_id, after, int(include_archived)),
        )
        return [_message(row) for row in rows]

    def page(
        self, conversation_id: int, size: int, before: int | None = None, *, counted: int = -1
    ) -> MessagePage:
        """The conversation's last *size* messages, or the last before
        message *before* if given; the messages around them counted up to
        *counted* each (-1: all of them).  A caller asking only whether there
        are more need not count a long history: two counts of 50,000
        messages took ten times the page's own read."""
        rows = self._db.fetch_all(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = ?"
            " AND (? IS NULL OR m.id < ?) ORDER BY m.id DESC LIMIT ?",
            (conversation_id, before, before, size),
        )
        return self._paged(conversation_id, [_message(row) for row in reversed(rows)], counted)

    def page_after(
        self, conversation_id: int, size: int, after: int, *, counted: int = -1
    ) -> MessagePage:
        """The conversation's *size* messages after message *after* (see
        ``page`` for *counted*)."""
        return self._page_from(conversation_id, size, after + 1, counted)

    def page_around(
        self, conversation_id: int, size: int, message_id: int, context: int
    ) -> MessagePage:
        """*size* messages from *context* before message *message_id* on."""
        before = self.page(conversation_id, context, before=message_id).messages
        return self._page_from(conversation_id, size, before[0].id if before else message_id)

    def _page_from(
        self, conversation_id: int, size: int, first: int, counted: int = -1
    ) -> MessagePage:
        rows = self._db.fetch_all(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = ?"
            " AND m.id >= ? ORDER BY m.id LIMIT ?",
            (conversation_id, first, size),
        )
        return self._paged(conversation_id, [_message(row) for row in rows], counted)

    def _paged(
        self, conversation_id: int, messages: builtins.list[Message], counted: int
    ) -> MessagePage:
        earlier, later, summarised = _returned(
            self._db.fetch_one(
                "SELECT (SELECT count(*) FROM (SELECT 1 FROM messages"
                " WHERE conversation_id = ?1 AND id < ?2 LIMIT ?4)),"
                " (SELECT count(*) FROM (SELECT 1 FROM messages"
                " WHERE conversation_id = ?1 AND id > ?3 LIMIT ?4)),"
                # Only a summary archives messages, the oldest first: the last
                # archived is found from the end, and never looked for unsummarised.
                " (SELECT CASE WHEN summary IS NULL THEN NULL ELSE"
                " (SELECT id FROM messages WHERE conversation_id = ?1"
                " AND archived_at IS NOT NULL ORDER BY id DESC LIMIT 1) END"
                " FROM conversations WHERE id = ?1)",
                (
                    conversation_id,
                    messages[0].id if messages else 0,
                    messages[-1].id if messages else 0,
                    counted,
                ),
            )
        )
        return MessagePage(messages, int(earlier), int(later), summarised)

    def has_messages(self, conversation_id: int) -> bool:
        """Whether anything was said in the conversation (archived or not)."""
        return bool(
            self._db.fetch_value(
                "SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?)",
                (conversation_id,),
            )
        )

    def last_said(self, conversation_id: int, role: MessageRole, unless: str) -> Message | None:
        """The conversation's latest message of *role* not of the kind
        *unless*, unless it was summarised away (archived); read alone, not
        with the whole conversation (each report of background work read it
        five times)."""
        row = self._db.fetch_one(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = ?"
            " AND m.role = ? AND m.archived_at IS NULL"
            " AND json_extract(m.metadata, '$.kind') IS NOT ? ORDER BY m.id DESC LIMIT 1",
            (conversation_id, role, unless),
        )
        return None if row is None else _message(row)

    def last_messages(
        self, conversation_id: int, before: int | None = None
    ) -> builtins.list[Message]:
        """The conversation's latest message and the user's latest, if they
        differ (what a new message may answer or go on from); those before
        message *before* if given (what an edit of it goes on from)."""
        rows = self._db.fetch_all(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE m.id IN ("
            " SELECT max(id) FROM messages WHERE conversation_id = ?1 AND id < coalesce(?2, id + 1)"
            " UNION SELECT max(id) FROM messages"
            " WHERE conversation_id = ?1 AND id < coalesce(?2, id + 1) AND role = 'user')"
            " ORDER BY m.id",
            (conversation_id, before),
        )
        return [_message(row) for row in rows]

    def messages_by_ids(self, message_ids: Iterable[int]) -> builtins.list[Message]:
        """The messages with these ids, archived or not, in any conversation
        (deleted ones too), by id; ids with no message (purged) are left out."""
        wanted = sorted(set(message_ids))
        found: builtins.list[Message] = []
        for start in range(0, len(wanted), _IDS_PER_QUERY):
            chunk = wanted[start : start + _IDS_PER_QUERY]
            rows = self._db.fetch_all(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages m"
                f" WHERE m.id IN ({', '.join('?' * len(chunk))}) ORDER BY m.id",
                chunk,
            )
            found += [_message(row) for row in rows]
        return found

    def user_messages_since(self, since: float, limit: int = 100) -> builtins.list[Message]:
        """The user's newest messages after *since*, oldest first, from
        conversations that are kept and on the record, none a deleted
        memory was learned from (``FORGOTTEN``): what Reverie may learn from."""
        rows = self._db.fetch_all(
            f"SELECT * FROM (SELECT {_MESSAGE_COLUMNS} FROM messages m"
            " JOIN conversations c ON c.id = m.conversation_id"
            " WHERE m.role = 'user' AND m.created_at > ? AND c.deleted_at IS NULL"
            f" AND NOT c.off_record AND NOT {FORGOTTEN} ORDER BY m.id DESC LIMIT ?) ORDER BY id",
            (since, limit),
        )
        return [_message(row) for row in rows]

    def search_messages(self, query: str, limit: int = 20) -> builtins.list[Message]:
        """Messages of conversations not deleted matching any word of *query*, best first."""
        fts_query = match_query(query)
        if fts_query is None or limit < 1:
            return []
        rows = self._db.fetch_all(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages_fts"
            " JOIN messages m ON m.id = messages_fts.rowid"
            " JOIN conversations c ON c.id = m.conversation_id"
            " WHERE messages_fts MATCH ? AND c.deleted_at IS NULL"
            " ORDER BY bm25(messages_fts) LIMIT ?",
            (fts_query, limit),
        )
        return [_message(row) for row in rows]

    def apply_compaction(
        self,
        conversation_id: int,
        summary: str,
        through_message_id: int,
        *,
        made_from: tuple[str | None, Sequence[Message]] | None = None,
    ) -> int:
        """Store *summary* as the conversation's one summary and archive the
        live messages up to *through_message_id*, together; the number archived.
        *made_from*: the summary and the messages it was made from, as read;
        ``ChangedMeanwhile`` (nothing written) if either is not as it was
        (a message deleted or rewritten, a summary written meanwhile)."""
        now = self._clock()
        with self._db.transaction() as tx:
            if made_from is not None and self._changed(tx, conversation_id, made_from):
                raise ChangedMeanwhile(
                    "the conversation changed while its older messages were summarised"
                )
            changed = tx.execute(
                "UPDATE conversations SET summary = ?, summary_updated_at = ?"
                " WHERE id = ? AND deleted_at IS NULL",
                (summary, now, conversation_id),
            ).rowcount
            if changed == 0:
                raise RowNotFound("conversations", conversation_id)
            return tx.execute(
                "UPDATE messages SET archived_at = ? WHERE conversation_id = ? AND id <= ?"
                " AND archived_at IS NULL",
                (now, conversation_id, through_message_id),
            ).rowcount

    @staticmethod
    def _changed(
        tx: Transaction, conversation_id: int, made_from: tuple[str | None, Sequence[Message]]
    ) -> bool:
        prior, messages = made_from
        summary = tx.fetch_one("SELECT summary FROM conversations WHERE id = ?", (conversation_id,))
        if summary is None or (summary[0] or "") != (prior or ""):
            return True
        through = max((m.id for m in messages), default=0)
        rows = tx.fetch_all(
            "SELECT id, content FROM messages WHERE conversation_id = ? AND id <= ?"
            " AND archived_at IS NULL ORDER BY id",
            (conversation_id, through),
        )
        return [tuple(row) for row in rows] != [(m.id, m.content) for m in messages]

    def purge_archived(self, archived_before: float) -> int:
        """Delete messages archived before *archived_before*; how many went.
        Messages not harvested yet stay until they are (unless off the record).
        Their words are to leave the search index and the WAL too
        (``rewrote``): the caller finishes it (``finish_rewrite``)."""
        with self._db.transaction() as tx:
            purged = tx.execute(
                "DELETE FROM messages WHERE archived_at IS NOT NULL AND archived_at < ?"
                " AND conversation_id IN (SELECT c.id FROM conversations c"
                "  WHERE c.off_record"
                "  OR messages.id <= coalesce(c.harvested_through_message_id, 0))",
                (archived_before,),
            ).rowcount
            if purged:
                self.rewrote(tx)
        return purged

    def harvest_backlog(self) -> builtins.list[HarvestBacklog]:
        """Conversations on the record with user messages not harvested yet."""
        rows = self._db.fetch_all(
            "SELECT c.id, count(m.id) AS new_user_messages, max(m.created_at) AS last_message_at"
            " FROM conversations c JOIN messages m ON m.conversation_id = c.id"
            " WHERE c.deleted_at IS NULL AND NOT c.off_record AND m.role = 'user'"
            " AND m.id > coalesce(c.harvested_through_message_id, 0)"
            " GROUP BY c.id ORDER BY last_message_at",
        )
        return [HarvestBacklog(row[0], row[1], row[2]) for row in rows]

    def mark_harvested(
        self, conversation_id: int, through_message_id: int, tx: Transaction | None = None
    ) -> None:
        """Move the harvest watermark forward (never back) to *through_message_id*;
        the harvest succeeded, so no retry is pending.  Inside *tx* if given
        (the harvest's memories commit with it)."""
        with self._db.writing(tx) as writing:
            self._move_watermark(writing, conversation_id, through_message_id)

    def harvest_retries(self) -> dict[int, HarvestRetry]:
        """The conversations whose harvest failed lately, by id."""
        rows = self._db.fetch_all("SELECT * FROM harvest_retries")
        return {row["conversation_id"]: from_row(HarvestRetry, row) for row in rows}

    def harvest_retry(self, conversation_id: int) -> HarvestRetry | None:
        row = self._db.fetch_one(
            "SELECT * FROM harvest_retries WHERE conversation_id = ?", (conversation_id,)
        )
        return None if row is None else from_row(HarvestRetry, row)

    def record_harvest_failure(
        self, conversation_id: int, error: str, retry_at: float
    ) -> HarvestRetry:
        """One more failed harvest of the conversation's new messages; try again at *retry_at*."""
        with self._db.transaction() as tx:
            row = tx.fetch_one(
                "INSERT INTO harvest_retries (conversation_id, failures, last_error, retry_at)"
                " VALUES (?, 1, ?, ?) ON CONFLICT (conversation_id) DO UPDATE SET"
                " failures = failures + 1, last_error = excluded.last_error,"
                " retry_at = excluded.retry_at RETURNING *",
                (conversation_id, error, retry_at),
            )
        return from_row(HarvestRetry, _returned(row))

    def skip_harvest(
        self,
        conversation_id: int,
        first_message_id: int,
        last_message_id: int,
        *,
        attempts: int,
        reason: str,
    ) -> HarvestGap:
        """Give up on messages *first_message_id* to *last_message_id*: record
        the gap and move the watermark past it, together."""
        with self._db.transaction() as tx:
            row = tx.fetch_one(
                "INSERT INTO harvest_gaps (conversation_id, first_message_id, last_message_id,"
                " attempts, reason, skipped_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *",
                (
                    conversation_id,
                    first_message_id,
                    last_message_id,
                    attempts,
                    reason,
                    self._clock(),
                ),
            )
            self._move_watermark(tx, conversation_id, last_message_id)
        return from_row(HarvestGap, _returned(row))

    def harvest_gaps(
        self, conversation_id: int | None = None, *, asked_again: bool = False
    ) -> builtins.list[HarvestGap]:
        """The parts the harvest gave up on, of one conversation or of all
        (kept and on the record); only those the user asked to learn again
        if *asked_again*; oldest first."""
        rows = self._db.fetch_all(
            "SELECT g.* FROM harvest_gaps g JOIN conversations c ON c.id = g.conversation_id"
            " WHERE (?1 IS NULL OR g.conversation_id = ?1) AND c.deleted_at IS NULL"
            " AND NOT c.off_record AND (NOT ?2 OR g.learn_again_at IS NOT NULL) ORDER BY g.id",
            (conversation_id, int(asked_again)),
        )
        return [from_row(HarvestGap, row) for row in rows]

    # -- secrets stored before messages were redacted on write ----------------
    def rewrite_unchecked(
        self, rewrite: Callable[[Message], Message], limit: int
    ) -> tuple[int, int]:
        """Pass up to *limit* messages not checked for secrets yet (stored
        before Reverie redacted on write) through *rewrite*, store what it
        changed and mark them checked; how many were (checked, changed)."""
        rows = self._db.fetch_all(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE m.secrets_checked = 0"
            " ORDER BY m.id LIMIT ?",
            (limit,),
        )
        checked = [_message(row) for row in rows]
        changed = [new for old in checked if (new := rewrite(old)) != old]
        with self._db.transaction() as tx:
            if checked:  # what follows the messages is due, until ``finish_sweep``
                self._queue_follow_up(tx, _SWEEP_FOLLOW_UP)
            for message in changed:
                tx.execute(
                    "UPDATE messages SET content = ?, metadata = ? WHERE id = ?",
                    (
                        message.content,
                        None if message.metadata is None else json.dumps(message.metadata),
                        message.id,
                    ),
                )
            tx.execute(
                "UPDATE messages SET secrets_checked = 1"
                f" WHERE id IN ({', '.join('?' * len(checked))})",
                [m.id for m in checked],
            )
        return len(checked), len(changed)

    @staticmethod
    def replaced_by_edits(
        tx: Transaction, message_ids: Iterable[int]
    ) -> dict[int, tuple[int, ...]]:
        """For each of *message_ids* said instead of messages an edit removed,
        those messages (``REPLACES``), as read inside *tx*."""
        ids = sorted(set(message_ids))
        found: dict[int, tuple[int, ...]] = {}
        for start in range(0, len(ids), _IDS_PER_QUERY):
            chunk = ids[start : start + _IDS_PER_QUERY]
            rows = tx.fetch_all(
                f"SELECT {', '.join(_MESSAGE_FIELDS)} FROM messages"
                f" WHERE id IN ({', '.join('?' * len(chunk))})"
                f" AND json_extract(metadata, '$.{REPLACES}') IS NOT NULL",
                chunk,
            )
            for row in rows:
                message = _message(row)
                found[message.id] = replaced_ids(message)
        return found

    @staticmethod
    def missing_messages(
        tx: Transaction, message_ids: Iterable[int], *, deleted_too: bool = False
    ) -> set[int]:
        """Which of *message_ids* are no longer stored (an edit or a
        regeneration removed them) or, *deleted_too*, are in a conversation
        deleted since, as read inside *tx*."""
        kept = " JOIN conversations c ON c.id = m.conversation_id AND c.deleted_at IS NULL"
        rows = tx.fetch_all(
            "SELECT value FROM json_each(?) WHERE value NOT IN"
            f" (SELECT m.id FROM messages m{kept if deleted_too else ''})",
            (json.dumps(sorted(set(message_ids))),),
        )
        return {int(row[0]) for row in rows}

    @staticmethod
    def is_live(tx: Transaction, conversation_id: int) -> bool:
        """Does the conversation exist, not deleted, as read inside *tx* (so
        a deletion cannot slip in between the check and what *tx* writes)?"""
        found = tx.fetch_value(
            "SELECT 1 FROM conversations WHERE id = ? AND deleted_at IS NULL", (conversation_id,)
        )
        return found is not None

    def sweep_unfinished(self) -> bool:
        """Were messages checked for secrets since the titles and the search
        index were last swept (``finish_sweep``)?  A sweep cut short after
        its last batch says so at the next start."""
        return last_owed(self._db, (_SWEEP_FOLLOW_UP, _REWRITE_FOLLOW_UP)) is not None

    @staticmethod
    def holding(tx: Transaction, values: Sequence[str]) -> builtins.list[int]:
        """The conversations, deleted and off the record too, whose messages
        (text or metadata), title or summary hold one of *values*, as read
        in *tx*."""
        if not values:
            return []
        places = [(value, json.dumps(value)[1:-1]) for value in values]
        in_messages = " OR ".join(
            ["instr(content, ?) OR instr(coalesce(metadata, ''), ?)"] * len(places)
        )
        in_names = " OR ".join(["instr(title, ?) OR instr(coalesce(summary, ''), ?)"] * len(values))
        rows = tx.fetch_all(
            f"SELECT conversation_id FROM messages WHERE {in_messages}"
            f" UNION SELECT id FROM conversations WHERE {in_names}",
            (
                *(text for place in places for text in place),
                *(value for value in values for _ in range(2)),
            ),
        )
        return sorted(int(row[0]) for row in rows)

    def rewrite_conversation(
        self,
        conversation_id: int,
        holding: Sequence[str],
        rewrite: Callable[[str], str],
        tx: Transaction,
    ) -> int:
        """Give each message of a conversation that holds one of *holding*
        (in its text or its metadata), its title and its summary what
        *rewrite* makes of them, in *tx*, a caller's transaction; how many
        messages changed.  The old words stay in the search index and the
        write-ahead log until the caller calls ``finish_rewrite`` once *tx*
        committed; a kill or a full disk before then leaves it queued for
        the next start (``sweep_unfinished``), as the sweep of old messages
        does.  Never in a transaction of its own: that would raise after
        committing, when only the follow-up failed."""
        if not holding:
            return 0
        # The metadata is stored as JSON, where a value is written escaped.
        places = [(value, json.dumps(value)[1:-1]) for value in holding]
        found = " OR ".join(
            ["instr(m.content, ?) OR instr(coalesce(m.metadata, ''), ?)"] * len(places)
        )
        rows = tx.fetch_all(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = ? AND ({found})",
            (conversation_id, *(text for place in places for text in place)),
        )
        messages = [_message(row) for row in rows]
        named = tx.fetch_one(
            "SELECT title, summary FROM conversations WHERE id = ?", (conversation_id,)
        )
        if named is None or (not messages and all(rewrite(t or "") == (t or "") for t in named)):
            return 0
        self.rewrote(tx)
        for message in messages:
            tx.execute(
                "UPDATE messages SET content = ?, metadata = ? WHERE id = ?",
                (rewrite(message.content), _rewritten(message.metadata, rewrite), message.id),
            )
        summary = None if named[1] is None else rewrite(named[1])
        tx.execute(
            "UPDATE conversations SET title = ?, summary = ? WHERE id = ?",
            (rewrite(named[0]), summary, conversation_id),
        )
        return len(messages)

    def _queue_follow_up(self, tx: Transaction, kind: str) -> None:
        """Say *kind* of follow-up is due (until ``finish_sweep`` or
        ``finish_rewrite``): a job of its own each time, so a finish marks
        done only the jobs queued before it took the old words out."""
        queue_follow_up(tx, kind, self._clock())

    def transaction(self) -> AbstractContextManager[Transaction]:
        """A transaction for writes that must commit together (a message and
        what it takes out of the messages before it)."""
        return self._db.transaction()

    def rewrite_titles(self, rewrite: Callable[[str], str]) -> int:
        """Give every conversation the title and summary *rewrite* makes of
        them; how many conversations changed.  One renamed or summarised
        meanwhile keeps its new words (they were redacted as written)."""
        rows = self._db.fetch_all("SELECT id, title, summary FROM conversations")
        changed = [
            (new_title, new_summary, row)
            for row in rows
            if (
                (new_title := rewrite(row[1])),
                (new_summary := None if row[2] is None else rewrite(row[2])),
            )
            != (row[1], row[2])
        ]
        with self._db.transaction() as tx:
            return sum(
                tx.execute(
                    "UPDATE conversations SET title = ?, summary = ?"
                    " WHERE id = ? AND title = ? AND summary IS ?",
                    (title, summary, row[0], row[1], row[2]),
                ).rowcount
                for title, summary, row in changed
            )

    def finish_sweep(self) -> bool:
        """Drop the words of rewritten messages and memories from the search
        indexes (FTS5 keeps a replaced text's words until its segments merge)
        and from the write-ahead log; whether the sweep is finished (see
        ``_finish``)."""
        return self._finish((_SWEEP_FOLLOW_UP, _REWRITE_FOLLOW_UP))

    def rewrote(self, tx: Transaction) -> None:
        """Say, in *tx*, that stored text was rewritten (a message's, a
        memory's) and its old words are to be dropped from the search indexes
        and the WAL: by ``finish_rewrite``, or at the next start if a kill
        comes first (``sweep_unfinished``)."""
        self._queue_follow_up(tx, _REWRITE_FOLLOW_UP)

    def finish_rewrite(self) -> bool:
        """``finish_sweep`` after a rewrite (``rewrote``), and nothing when
        there was none: a sweep of old messages that may run meanwhile is
        left to finish itself.  Whether no rewrite is left to finish."""
        owed = last_owed(self._db, (_REWRITE_FOLLOW_UP,))
        return owed is None or self._finish((_REWRITE_FOLLOW_UP,))

    def _finish(self, kinds: tuple[str, ...]) -> bool:
        """Optimize both search indexes, then empty the WAL of the pages
        that held the old words; whether both were done.  Only then are the
        jobs of *kinds* queued before the optimize marked done: a kill in
        between, or a reader keeping the WAL (``Database.truncate_wal``),
        leaves them queued for the next start (``sweep_unfinished``)."""
        with self._db.transaction() as tx:
            last = last_owed(tx, kinds)
            tx.execute("INSERT INTO messages_fts (messages_fts) VALUES ('optimize')")
            tx.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
        if not self._db.truncate_wal():
            return False
        if last is not None:
            with self._db.transaction() as tx:
                mark_done(tx, kinds, last, self._clock())
        return True

    def learn_again(self, conversation_id: int) -> int:
        """The user asked to learn the skipped parts of a conversation after
        all; how many there are (the harvest reads them next time it runs)."""
        with self._db.transaction() as tx:
            return tx.execute(
                "UPDATE harvest_gaps SET learn_again_at = ? WHERE conversation_id = ?",
                (self._clock(), conversation_id),
            ).rowcount

    def close_gap(
        self, gap_id: int, through_message_id: int, tx: Transaction | None = None
    ) -> None:
        """A skipped part was learned after all, up to *through_message_id*
        (inside *tx*, with its memories): the gap goes, or keeps what is
        left of it, still to be learned."""
        with self._db.writing(tx) as writing:
            writing.execute(
                "DELETE FROM harvest_gaps WHERE id = ? AND last_message_id <= ?",
                (gap_id, through_message_id),
            )
            writing.execute(
                "UPDATE harvest_gaps SET first_message_id = ? + 1 WHERE id = ?",
                (through_message_id, gap_id),
            )

    def gap_failed_again(self, gap_id: int, reason: str) -> None:
        """Learning a skipped part again failed too: it stays skipped until asked again."""
        with self._db.transaction() as tx:
            tx.execute(
                "UPDATE harvest_gaps SET attempts = attempts + 1, reason = ?,"
                " learn_again_at = NULL WHERE id = ?",
                (reason, gap_id),
            )

    def idle_with_live_messages(
        self, idle_since: float, min_live_messages: int
    ) -> builtins.list[Conversation]:
        """Conversations untouched since *idle_since* with at least
        *min_live_messages* messages not archived, oldest activity first.
        Imported ones are not among them: compacting a history brought in
        whole would summarise it with the model, conversation after
        conversation, and its archived messages would be deleted after the
        archive days (``purge_archived``); one the user goes on with is
        compacted before a reply that would not fit, as any other."""
        rows = self._db.fetch_all(
            "SELECT c.* FROM conversations c WHERE c.deleted_at IS NULL AND c.updated_at < ?"
            " AND c.imported_from IS NULL"
            " AND (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id"
            "      AND m.archived_at IS NULL) >= ?"
            " ORDER BY c.updated_at, c.id",
            (idle_since, min_live_messages),
        )
        return [_conversation(row) for row in rows]

    @staticmethod
    def _move_watermark(tx: Transaction, conversation_id: int, through_message_id: int) -> None:
        tx.execute(
            "UPDATE conversations SET harvested_through_message_id ="
            " max(coalesce(harvested_through_message_id, 0), ?) WHERE id = ?",
            (through_message_id, conversation_id),
        )
        tx.execute("DELETE FROM harvest_retries WHERE conversation_id = ?", (conversation_id,))

    @staticmethod
    def _touch(tx: Transaction, conversation_id: int, now: float) -> None:
        changed = tx.execute(
            "UPDATE conversations SET updated_at = ? WHERE id = ? AND deleted_at IS NULL",
            (now, conversation_id),
        ).rowcount
        if changed == 0:
            raise RowNotFound("conversations", conversation_id)
