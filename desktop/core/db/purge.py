"""``PurgeStore``: erasing deleted memories, conversations, tasks and skills for good,
here and in every copy.

Deleting is soft at first (restorable); erasing takes the text out of every
place SQLite keeps it:

- the rows: a memory with its history (old texts), sources and vector, and
  the memories it replaced (older versions of what it says); a conversation
  with its title, summary and messages; a task with its routine's prompt; a
  skill's row (name, summary) and its uses (its file is the eraser's to
  remove, ``skill_files``);
- the words of those texts in the dream tables (a change's before and after,
  a pass's log, a run's checkpoint), replaced by ``ERASED``;
- the model's own words a dream keeps (``blank_dream_words``): an answer
  may reword anything it was shown, so no search for the text can find
  every quote.  Which run was shown what is not recorded, so every
  erasure blanks them all: each answer kept in the dream log, the notes of
  each pass's message (its count stays), and the answers a paused run saved
  (it asks again when it resumes).  They are diagnostics: what a run did
  stays in its changes;
- a dream's change made from an erased memory, message or conversation, or
  made to an erased task or skill (its payload names it, or its record
  holds the skill's state): the model's text it proposes (a merge's
  ``content``, a task's ``evidence`` or new ``text``, a draft skill's name
  and text, in its payload and in the states it recorded, a task's recorded
  text), its summary and
  note are blanked, and a change still waiting for approval is rejected
  (what it was made from is gone).  A draft skill made only from erased
  conversations goes too, unless the user accepted it: its file is
  removed first, by the eraser, then its row (``drafts_of_erased``,
  ``forget_skills``);
- a memory's, a task's or a skill's verbatim copy in a tool's result
  stored in a conversation or in a background worker's transcript
  (``search_memory`` quotes memories whole, ``task`` a task's text,
  ``read_skill`` a skill's text, found by the skill's name, its file being
  gone), or in a review of the tasks' notice (what it added, moved or
  noted): replaced by ``ERASED`` inside the result's JSON, which stays
  valid, and in the conversation's full-text index; so is every text the
  tools' records give them, found by number or name (``tool_records``: a
  task's text before a rewording, a memory as a search quoted it, a
  skill's name and the text ``add_skill`` wrote), there, in the calls the
  replies made (what follows their ``<tool_call>``; the reply's words and
  the user's stay) and in the conversations' summaries;
- what an erased task said on its own (a reminder, a routine's answer, as
  a message or as an event in another conversation), found by its number
  in the message's metadata: a reminder becomes ``ERASED`` whole, a
  routine's answer loses the task's text and prompt (``_unsay_tasks``);
- the full-text indexes: FTS5 keeps a deleted row's words in its segments
  until they are merged, so each index is merged whole ('optimize');
- the file itself: ``VACUUM`` with ``secure_delete`` on rewrites every page,
  so no freed page or slack space keeps an old copy, and the WAL is
  checkpointed and truncated (``compact``).

The ids erased are recorded (``erased_items``, see schema_v6) and
``purge_copy`` erases the same items from a copy of the database (the
snapshots taken before dreams), so a copy made before the erasure does not
keep what the user asked to be gone.

A value named a secret only after a memory was made of it is taken out of
the same dream tables as an erased memory's text (``rewrite_quotes``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence, Sized
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from desktop.core.db.connection import CopyGone, Database, Transaction
from desktop.core.db.errors import QueryFailed
from desktop.core.db.message_kinds import REMINDER, SAID_FOR_TASK, TASKS_REVIEWED
from desktop.core.db.opening import open_copy
from desktop.core.db.tally import notes_of
from desktop.core.db.tool_records import Named, call_unsaid, texts_recorded

ERASED = "[erased]"
"""What an erased text reads as where it was quoted (a dream's change or log)."""
MIN_QUOTED_CHARS = 8
"""Shorter texts ("ok", "thanks") are not looked for in the dream tables: a
quote that short says nothing, and replacing it would garble the rest."""
_IDS_PER_QUERY = 500  # well under SQLite's limit on bound parameters
_NAMING_MEMORIES = ("sources", "superseded", "memory", "by")
_NAMING_MESSAGES = ("message_ids", "message")
_NAMING_CONVERSATIONS = ("conversations",)
_NAMING_TASKS = ("task",)
_NAMING_SKILLS = ("skill", "into")
"""The payload keys by which a dream change names the memories, messages
and conversations it was made from, and the tasks and skills it changes."""
_PROPOSED_TEXTS = ("content", "evidence", "text", "name")
"""A change's payload keys holding text the model wrote or quoted."""
_RECORDED_STATES = ("skills", "tasks")
"""The keys of a skill or task change's before and after: each skill's name,
status and text, each task's text and status, by id."""
_DRAFT_GONE_WITH = ("draft", "deleted")
"""A draft made only from erased conversations goes with them while it is
still a draft or was rejected (deleted); one the user accepted is theirs."""
RETRACTED_NOTE = "What this change was made from was erased."
_NOTHING_CHANGED = "Nothing changed: "
"""How a pass's message begins when its answer was rejected or it failed."""

# Where texts may be quoted: (table, its key, JSON columns, plain text columns).
_QUOTING_TABLES: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("dream_changes", "id", ("payload", "before", "after"), ("summary", "note")),
    ("dream_log", "id", (), ("message", "raw_output")),
    ("dream_runs", "id", ("checkpoint", "stats"), ("error",)),
    ("background_jobs", "id", ("payload",), ("error",)),
)
# Texts made from what the user said that a value named a secret later is
# taken out of too (not copies of a memory: an erasure leaves them).
_HOLDING_WHAT_WAS_SAID: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("tasks", "id", (), ("text", "ai_prompt")),
)
# sqlite-vec tables of older schemas (v1 to v3); a copy may still have them.
_OLD_VECTOR_TABLES = ("memory_vector_knn", "memory_vectors")


@dataclass(frozen=True)
class Erasable:
    """Ids of memories, conversations, tasks and skills to erase (or erased)."""

    memory_ids: tuple[int, ...] = ()
    conversation_ids: tuple[int, ...] = ()
    task_ids: tuple[int, ...] = ()
    skill_ids: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return any(ids for _, ids in self.by_kind())

    def by_kind(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Each kind as ``erased_items`` names it, with its ids."""
        return (
            ("memory", self.memory_ids),
            ("conversation", self.conversation_ids),
            ("task", self.task_ids),
            ("skill", self.skill_ids),
        )


@dataclass(frozen=True)
class Compacted:
    """How ``compact`` left the file: its WAL fully written back and emptied or not."""

    wal_truncated: bool


@dataclass(frozen=True)
class ErasedDraft:
    """A skill whose file goes: a draft made only from erased conversations,
    or a skill erased itself (``skill_files``); where its file is."""

    skill_id: int
    status: str
    """Its status: which skills folder holds its file."""
    file_name: str


class PurgeStore:
    """Erasing for good, on *database*."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def expired(self, deleted_before: float) -> Erasable:
        """The memories, conversations, tasks and skills deleted before
        *deleted_before* (see ``expired_in``)."""
        return expired_in(self._db, deleted_before)

    def skill_files(self, skill_ids: Sequence[int], copy: Path | None = None) -> list[ErasedDraft]:
        """Where the files of *skill_ids* are, as the database (or the *copy*
        of it at that path, which may have them elsewhere) has them: the
        eraser removes each before its row goes."""
        if copy is None:
            return _skill_files(self._db, skill_ids)
        try:
            reader = open_copy(copy, self._db)
        except CopyGone:
            return []
        try:
            return _skill_files(reader, skill_ids)
        finally:
            reader.close()

    def deleted_at(self, memory_ids: Iterable[int]) -> dict[int, float]:
        """When each deleted one of *memory_ids* was deleted (see ``expired``)."""
        wanted = sorted(set(memory_ids))
        found: dict[int, float] = {}
        for start in range(0, len(wanted), _IDS_PER_QUERY):
            chunk = wanted[start : start + _IDS_PER_QUERY]
            rows = self._db.fetch_all(
                "SELECT m.id, coalesce((SELECT max(h.created_at) FROM memory_history h"
                "  WHERE h.memory_id = m.id AND h.operation = 'delete'), m.updated_at)"
                f" FROM memories m WHERE m.status = 'deleted' AND m.id IN ({_marks(chunk)})",
                chunk,
            )
            found.update((int(r[0]), float(r[1])) for r in rows)
        return found

    def erase(
        self, items: Erasable, now: float, *, deleted_before: float | None = None
    ) -> Erasable:
        """Erase *items* (and the memories they replaced) in one transaction,
        recording their ids; what was erased.  With *deleted_before*, what
        is due then (``expired_in``) instead, decided in that transaction:
        one restored since it was listed is kept.  The file still holds
        freed pages until ``compact``."""
        with self._db.transaction() as tx:
            if deleted_before is not None:
                items = expired_in(tx, deleted_before)
            erased = erase_in(tx, items)
            for kind, ids in erased.by_kind():
                for item_id in ids:
                    tx.execute(
                        "INSERT OR IGNORE INTO erased_items (kind, item_id, erased_at)"
                        " VALUES (?, ?, ?)",
                        (kind, item_id, now),
                    )
        return erased

    def erased(self) -> Erasable:
        """Everything ever erased, by id."""
        rows = self._db.fetch_all("SELECT kind, item_id FROM erased_items ORDER BY item_id")
        return Erasable(
            *(tuple(r[1] for r in rows if r[0] == kind) for kind, _ in Erasable().by_kind())
        )

    def drafts_of_erased(self) -> list[ErasedDraft]:
        """The draft skills a dream made only from conversations that are
        gone (erased), still drafts or rejected; how a draft change records
        its conversations is in ``desktop.core.dreaming.skill_review``."""
        return _drafts_of_erased(self._db)

    def forget_skills(self, skill_ids: Sequence[int]) -> None:
        """Delete these skills' rows (and uses) for good, if they are still
        drafts or rejected: their files are gone already."""
        with self._db.transaction() as tx:
            _forget_skills(tx, skill_ids)

    def blank_dream_words(self) -> None:
        """``blank_dream_words`` in a transaction of its own."""
        with self._db.transaction() as tx:
            blank_dream_words(tx, _tables(tx))

    def compact(self) -> Compacted:
        """Rewrite the file without the freed pages, then write the WAL back and empty it."""
        return compact(self._db)

    def purge_copy(self, path: Path, items: Erasable) -> bool:
        """Erase *items* from the copy of the database at *path* and compact
        it; False if it held none of them (it is left untouched).  A purge
        of the copy that a kill cut short left a journal beside it: SQLite
        rolls it back on the first read, and the copy is purged again.  A
        copy gone meanwhile (the dream's rotation) holds nothing: False."""
        try:
            copy = open_copy(path, self._db)
        except CopyGone:
            return False
        try:
            if not _holds_any(copy, items):
                return False
            with copy.transaction() as tx:
                erase_in(tx, items)
                if {"skills", "dream_changes"} <= _tables(tx):
                    # Its files went with the live folder's (see the eraser).
                    _forget_skills(tx, [d.skill_id for d in _drafts_of_erased(tx)])
            compact(copy)
            return True
        finally:
            copy.close()


def expired_in(reader: Database | Transaction, deleted_before: float) -> Erasable:
    """The memories, conversations, tasks and skills deleted before
    *deleted_before*, as *reader* has them.

    A memory's deletion time is its last 'delete' in its history (its
    ``updated_at`` if there is none): a change made while it was deleted
    does not start its restore window again.  A deleted task or skill
    cannot be changed, so its ``updated_at`` is when it was deleted.
    """
    memories = reader.fetch_all(
        "SELECT m.id FROM memories m WHERE m.status = 'deleted' AND coalesce("
        " (SELECT max(h.created_at) FROM memory_history h"
        "  WHERE h.memory_id = m.id AND h.operation = 'delete'), m.updated_at) < ?"
        " ORDER BY m.id",
        (deleted_before,),
    )
    conversations = reader.fetch_all(
        "SELECT id FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at < ? ORDER BY id",
        (deleted_before,),
    )
    tasks, skills = (
        reader.fetch_all(
            f"SELECT id FROM {table} WHERE status = 'deleted' AND updated_at < ? ORDER BY id",
            (deleted_before,),
        )
        for table in ("tasks", "skills")
    )
    return Erasable(
        *(tuple(r[0] for r in rows) for rows in (memories, conversations, tasks, skills))
    )


def compact(database: Database) -> Compacted:
    """``VACUUM`` *database* with ``secure_delete`` on, then checkpoint its WAL
    (TRUNCATE); whether the WAL was emptied (not while another connection reads)."""
    database.set_pragma("secure_delete", "on")
    database._execute("VACUUM", ())
    return Compacted(wal_truncated=database.truncate_wal())


def erase_in(tx: Transaction, items: Erasable) -> Erasable:
    """Erase *items* inside *tx*: their rows, the texts they left in the dream
    tables and the words in the full-text indexes.  Tables a database of an
    older schema lacks are skipped.  What was erased (with the memories the
    given ones replaced)."""
    tables = _tables(tx)
    memory_ids = _with_replaced(tx, items.memory_ids)
    conversation_ids = _existing(tx, "conversations", items.conversation_ids)
    task_ids = _existing(tx, "tasks", items.task_ids) if "tasks" in tables else ()
    skill_ids = _existing(tx, "skills", items.skill_ids) if "skills" in tables else ()
    memory_texts = _memory_texts(tx, memory_ids, tables)
    task_texts = _texts_of(tx, "tasks", ("text", "ai_prompt"), task_ids)
    skill_texts = _texts_of(tx, "skills", ("summary",), skill_ids)
    skill_names = frozenset(_texts_of(tx, "skills", ("name",), skill_ids))
    # What the tools' records say of them: a task's older texts, a memory made safe.
    recorded = texts_recorded(
        tx, Named(frozenset(task_ids), frozenset(memory_ids), skill_names), tables
    )
    texts = memory_texts | _conversation_texts(tx, conversation_ids) | task_texts | skill_texts
    _unquote(tx, texts | recorded, tables)
    # Tools quote memories, tasks and skills whole (search_memory, task, read_skill).
    quoted = memory_texts | task_texts | skill_texts | _skill_texts_read(tx, skill_ids, tables)
    quoted |= recorded
    quoted_in_tools = _unquote_tool_results(tx, quoted, set(conversation_ids), tables)
    quoted_in_tools |= _unsay_tasks(tx, task_ids, task_texts)
    erased = Erasable(memory_ids, conversation_ids, task_ids, skill_ids)
    if "dream_changes" in tables:
        _retract_changes(tx, erased, _message_ids(tx, conversation_ids))
    if erased:
        blank_dream_words(tx, tables)
    if "forgotten_messages" in tables:
        _keep_sources_forgotten(tx, memory_ids)
    if "erased_imports" in tables:
        _keep_imports_erased(tx, conversation_ids)
    for table in _OLD_VECTOR_TABLES:
        if table in tables and memory_ids:
            _delete_ids(tx, table, "memory_id", memory_ids)
    _delete_ids(tx, "memories", "id", memory_ids)
    _delete_ids(tx, "conversations", "id", conversation_ids)
    _delete_ids(tx, "tasks", "id", task_ids)
    _delete_ids(tx, "skill_usage", "skill_id", skill_ids)
    _delete_ids(tx, "skills", "id", skill_ids)
    for fts, held in (
        ("memories_fts", memory_ids),
        ("messages_fts", conversation_ids or quoted_in_tools),
    ):
        if fts in tables and held:
            # Merging every segment drops the words of the deleted rows.
            tx.execute(f"INSERT INTO {fts} ({fts}) VALUES ('optimize')")
    return erased


def rewrite_quotes(tx: Transaction, holding: Sequence[str], rewrite: Callable[[str], str]) -> bool:
    """Give every text of the dream tables that quotes one of *holding* (a
    change's summary, payload, before and after, a pass's log, a run's
    checkpoint, a job's payload) what *rewrite* makes of it, inside *tx*:
    a value named a secret after a dream quoted the memory holding it
    (``MemoryStore.rewrite_holding``); and so every task's text and routine
    made from the message that held it.  They are copies of the memory, as
    an erasure treats them (``_unquote``).  A JSON column is rewritten
    string by string, so it stays JSON.  Whether any row changed."""
    needles = list(dict.fromkeys(needle for value in holding for needle in _needles(value)))
    in_text = _escaped_too(holding, rewrite)
    tables = _tables(tx)
    quoted = bool(needles) and _requote(tx, tables, needles, rewrite, in_text)
    said = _requote(tx, tables, holding, rewrite, rewrite, _HOLDING_WHAT_WAS_SAID)
    return quoted or said


def _escaped_too(holding: Sequence[str], rewrite: Callable[[str], str]) -> Callable[[str], str]:
    """*rewrite* for a plain text column, which may hold JSON as it came (a
    model's answer in the log): each of *holding* written escaped there is
    replaced by what *rewrite* makes of it, escaped the same way."""
    escaped = {
        form: _in_json_string(rewrite(value), ascii_only)
        for value in holding
        for ascii_only in (True, False)
        if (form := _in_json_string(value, ascii_only)) != value
    }

    def rewritten(text: str) -> str:
        text = rewrite(text)
        for form, replacement in escaped.items():
            text = text.replace(form, replacement)
        return text

    return rewritten


def _drafts_of_erased(reader: Database | Transaction) -> list[ErasedDraft]:
    rows = reader.fetch_all(
        "SELECT DISTINCT s.id, s.status, s.file_name FROM dream_changes c"
        " JOIN json_each(c.after, '$.created') made"
        " JOIN skills s ON s.id = made.value"
        " WHERE c.kind = 'skill_draft'"
        " AND json_array_length(c.payload, '$.conversations') > 0"
        " AND NOT EXISTS (SELECT 1 FROM json_each(c.payload, '$.conversations') made_from"
        "  JOIN conversations v ON v.id = made_from.value)"
        f" AND s.status IN ({_marks(_DRAFT_GONE_WITH)})"
        " ORDER BY s.id",
        _DRAFT_GONE_WITH,
    )
    return [ErasedDraft(int(r[0]), str(r[1]), str(r[2])) for r in rows]


def _skill_files(reader: Database | Transaction, skill_ids: Sequence[int]) -> list[ErasedDraft]:
    found: list[ErasedDraft] = []
    for chunk in _chunks(sorted(set(skill_ids))):
        rows = reader.fetch_all(
            f"SELECT id, status, file_name FROM skills WHERE id IN ({_marks(chunk)}) ORDER BY id",
            chunk,
        )
        found += [ErasedDraft(int(r[0]), str(r[1]), str(r[2])) for r in rows]
    return found


def _forget_skills(tx: Transaction, skill_ids: Sequence[int]) -> None:
    """Delete the draft skills *skill_ids* and blank the changes that made
    them (one recorded after its conversations were erased still holds the
    model's words about them)."""
    for chunk in _chunks(skill_ids):
        rows = tx.fetch_all(
            "SELECT DISTINCT c.id, c.status, c.payload, c.before, c.after, c.note"
            " FROM dream_changes c JOIN json_each(c.after, '$.created') made"
            f" WHERE c.kind = 'skill_draft' AND made.value IN ({_marks(chunk)})",
            chunk,
        )
        for row in rows:
            payload = json.loads(row["payload"])
            _retract(tx, row, payload if isinstance(payload, dict) else {})
        tx.execute(
            f"DELETE FROM skills WHERE id IN ({_marks(chunk)})"
            f" AND status IN ({_marks(_DRAFT_GONE_WITH)})",
            [*chunk, *_DRAFT_GONE_WITH],
        )


def _message_ids(tx: Transaction, conversation_ids: Sequence[int]) -> set[int]:
    found: set[int] = set()
    for chunk in _chunks(conversation_ids):
        rows = tx.fetch_all(
            f"SELECT id FROM messages WHERE conversation_id IN ({_marks(chunk)})", chunk
        )
        found.update(int(r[0]) for r in rows)
    return found


def _retract_changes(tx: Transaction, erased: Erasable, message_ids: set[int]) -> None:
    """Blank the dream changes made from the *erased* memories, messages
    (*message_ids*) or conversations, or made to its tasks and skills (the
    skills a change records or made count): the model may have reworded
    them in what it proposed, so no search for their text finds it.  A
    pending one is rejected: it cannot be applied."""
    if not (erased or message_ids):
        return
    naming = (
        (_NAMING_MEMORIES, set(erased.memory_ids)),
        (_NAMING_MESSAGES, message_ids),
        (_NAMING_CONVERSATIONS, set(erased.conversation_ids)),
        (_NAMING_TASKS, set(erased.task_ids)),
        (_NAMING_SKILLS, set(erased.skill_ids)),
    )
    rows = tx.fetch_all("SELECT id, status, payload, before, after, note FROM dream_changes")
    for row in rows:
        payload = json.loads(row["payload"])
        if isinstance(payload, dict) and (
            any(_names(payload, keys, ids) for keys, ids in naming)
            or _records_skill(row, set(erased.skill_ids))
        ):
            _retract(tx, row, payload)


def _records_skill(row: Any, skill_ids: set[int]) -> bool:
    """Whether the change *row* recorded, or made, one of *skill_ids*."""
    if not skill_ids:
        return False
    for column in ("before", "after"):
        data = None if row[column] is None else _json_column(row[column])
        if not isinstance(data, dict):
            continue
        states = data.get("skills")
        named = [*(states if isinstance(states, dict) else ()), *data.get("created", ())]
        if any(str(skill_id) in map(str, named) for skill_id in skill_ids):
            return True
    return False


def _retract(tx: Transaction, row: Any, payload: dict[str, Any]) -> None:
    """Blank the dream change *row*, whose payload is *payload* (a pending
    one is rejected)."""
    pending = row["status"] == "pending"
    note = RETRACTED_NOTE if pending else None if row["note"] is None else ERASED
    tx.execute(
        "UPDATE dream_changes SET summary = ?, payload = ?, before = ?, after = ?, note = ?,"
        " status = ?, decided_at = CASE WHEN ? THEN (julianday('now') - 2440587.5) * 86400.0"
        " ELSE decided_at END WHERE id = ?",
        (
            ERASED,
            json.dumps(_blanked_texts(payload)),
            _blanked_skill_states(row["before"]),
            _blanked_skill_states(row["after"]),
            note,
            "rejected" if pending else row["status"],
            int(pending),
            row["id"],
        ),
    )


def _blanked_texts(recorded: dict[str, Any]) -> dict[str, Any]:
    """*recorded* with every text the model wrote or quoted blanked (ids stay)."""
    return {
        key: ERASED if key in _PROPOSED_TEXTS and isinstance(value, str) else value
        for key, value in recorded.items()
    }


def _blanked_skill_states(value: str | None) -> str | None:
    """A change's before or after (JSON) with each skill's recorded name and
    text, and each task's text, blanked: a draft's is the model's text, made
    from what was erased.  A change so blanked can no longer be undone
    ("changed since")."""
    if value is None:
        return None
    data = _json_column(value)
    if not isinstance(data, dict):
        return value
    blanked = dict(data)
    for key in _RECORDED_STATES:
        states = data.get(key)
        if isinstance(states, dict) and states:
            blanked[key] = {
                item: _blanked_texts(state) if isinstance(state, dict) else state
                for item, state in states.items()
            }
    return value if blanked == data else json.dumps(blanked)


def _skill_texts_read(tx: Transaction, skill_ids: Sequence[int], tables: set[str]) -> set[str]:
    """The texts of these skills as ``read_skill`` gave them, found in the
    tools' stored results (a conversation's, a worker's) by the skill's
    name: a skill's text is in its file alone, which goes before its row."""
    names = _texts_of(tx, "skills", ("name",), skill_ids)
    found: set[str] = set()
    for table in ("messages", "worker_messages"):
        for name in names if table in tables else ():
            needles = _needles(name)
            rows = tx.fetch_all(
                f"SELECT content FROM {table} WHERE role = 'tool'"
                f" AND ({' OR '.join('instr(content, ?) > 0' for _ in needles)})",
                needles,
            )
            for row in rows:
                try:
                    result = json.loads(row[0])
                except ValueError:  # a result stored as plain text: not read_skill's
                    continue
                if isinstance(result, dict) and result.get("name") == name:
                    text = result.get("text")
                    found.update([text] if isinstance(text, str) else [])
    return found


def _unsay_tasks(tx: Transaction, task_ids: Sequence[int], texts: set[str]) -> bool:
    """What *task_ids* said on their own, found by the task's number in the
    message's metadata: a reminder (the task's text as it read then, which
    a rewording since no longer finds) becomes ``ERASED`` whole; a
    routine's answer, what the user asked it for, loses the task's *texts*
    (its text and prompt), in its conversation or in an event naming it
    in another.  The full-text index follows (its trigger).  Whether any
    message was changed."""
    quoted = sorted((t for t in texts if len(t.strip()) >= MIN_QUOTED_CHARS), key=len, reverse=True)
    changed = False
    for chunk in _chunks(task_ids):
        rows = tx.fetch_all(
            "SELECT id, content, json_extract(metadata, '$.kind') AS kind FROM messages"
            f" WHERE json_extract(metadata, '$.{SAID_FOR_TASK}') IN ({_marks(chunk)})",
            chunk,
        )
        for row in rows:
            said = ERASED if row["kind"] == REMINDER else _scrub_text(row["content"], quoted)
            if said != row["content"]:
                tx.execute("UPDATE messages SET content = ? WHERE id = ?", (said, row["id"]))
                changed = True
    return changed


def _unquote_tool_results(
    tx: Transaction, texts: set[str], erased_conversations: set[int], tables: set[str]
) -> bool:
    """Replace *texts* (of memories, tasks, skills) where a tool's stored
    result quotes them, or a review of the tasks' notice (what it added,
    moved or noted), a conversation's in its content and its metadata, a
    background worker's in its content, inside the JSON so it stays valid;
    the full-text index follows a conversation's content (its trigger).
    Whether any conversation's was changed."""
    quoted = sorted((t for t in texts if len(t.strip()) >= MIN_QUOTED_CHARS), key=len, reverse=True)
    changed = False
    for text in quoted:
        needles = _needles(text)
        found = " OR ".join("instr(content, ?) > 0 OR instr(metadata, ?) > 0" for _ in needles)
        rows = tx.fetch_all(
            "SELECT id, conversation_id, role, content, metadata,"
            " json_extract(metadata, '$.kind') AS kind FROM messages"
            f" WHERE (role IN ('tool', 'assistant') OR json_extract(metadata, '$.kind') = ?)"
            f" AND ({found})",
            [TASKS_REVIEWED, *(needle for needle in needles for _ in range(2))],
        )
        _unquote_summaries(tx, needles, erased_conversations)
        for row in rows:
            if row["conversation_id"] in erased_conversations:
                continue  # it goes whole
            content, metadata = _unquoted_message(row, text, needles)
            if (content, metadata) != (row["content"], row["metadata"]):
                tx.execute(
                    "UPDATE messages SET content = ?, metadata = ? WHERE id = ?",
                    (content, metadata, row["id"]),
                )
                changed = True
        if "worker_messages" in tables:  # a worker's transcript keeps its tools' results too
            found = " OR ".join("instr(content, ?) > 0" for _ in needles)
            rows = tx.fetch_all(
                "SELECT id, role, content, NULL AS metadata, NULL AS kind FROM worker_messages"
                f" WHERE role IN ('tool', 'assistant') AND ({found})",
                needles,
            )
            for row in rows:
                content, _ = _unquoted_message(row, text, needles)
                if content != row["content"]:
                    tx.execute(
                        "UPDATE worker_messages SET content = ? WHERE id = ?", (content, row["id"])
                    )
    return changed


def _unquoted_message(row: Any, text: str, needles: Sequence[str]) -> tuple[str, str | None]:
    """The content and metadata of the message *row* without *text*: a
    reply's in the call it ended with (its words are the conversation's),
    a tool's result's or a notice's whole."""
    if row["role"] == "assistant" and row["kind"] != TASKS_REVIEWED:
        return call_unsaid(row["content"], partial(_scrub_text, needles=needles)), row["metadata"]
    return _unquoted(row["content"], text, needles), _json_changed(row["metadata"], _erasing(text))


def _unquote_summaries(tx: Transaction, needles: Sequence[str], erased: set[int]) -> None:
    """Take *needles* out of the conversations' summaries that quote them
    (a compaction's, which every later prompt of its conversation carries)."""
    found = " OR ".join("instr(summary, ?) > 0" for _ in needles)
    for row in tx.fetch_all(f"SELECT id, summary FROM conversations WHERE {found}", needles):
        if row["id"] not in erased:  # it goes whole
            summary = _scrub_text(row["summary"], needles)
            tx.execute("UPDATE conversations SET summary = ? WHERE id = ?", (summary, row["id"]))


def _unquoted(content: str, text: str, needles: Sequence[str]) -> str:
    """A tool's stored result *content* without *text* (found as *needles*)."""
    try:
        return json.dumps(_each_string(json.loads(content), _erasing(text)), ensure_ascii=False)
    except ValueError:  # a result stored as plain text
        return _scrub_text(content, needles)


def _names(payload: dict[str, Any], keys: Sequence[str], ids: set[int]) -> bool:
    """Whether *payload* names one of *ids* under one of *keys*."""
    for key in keys:
        value = payload.get(key)
        named = value if isinstance(value, list) else [value]
        if any(isinstance(i, int) and not isinstance(i, bool) and i in ids for i in named):
            return True
    return False


def blank_dream_words(tx: Transaction, tables: set[str]) -> None:
    """Blank what the model said that a dream keeps: every answer in the
    dream log (``ERASED``), every pass message's notes (the count stays; a
    tripped breaker's message is Reverie's numbers and stays whole), the
    answers saved in a run's checkpoint, and the pass messages its checkpoint
    and stats repeat.  Only rows that change are written, so a second call
    changes nothing."""
    if "dream_log" in tables:
        rows = tx.fetch_all("SELECT id, outcome, message, raw_output FROM dream_log")
        for row in rows:
            raw = None if row["raw_output"] is None else ERASED
            message = row["message"] if row["outcome"] == "tripped" else blanked(row["message"])
            if (message, raw) != (row["message"], row["raw_output"]):
                tx.execute(
                    "UPDATE dream_log SET message = ?, raw_output = ? WHERE id = ?",
                    (message, raw, row["id"]),
                )
    if "dream_runs" in tables:
        for row in tx.fetch_all("SELECT id, checkpoint, stats FROM dream_runs"):
            checkpoint, stats = _blanked_run(row["checkpoint"]), _blanked_run(row["stats"])
            if (checkpoint, stats) != (row["checkpoint"], row["stats"]):
                tx.execute(
                    "UPDATE dream_runs SET checkpoint = ?, stats = ? WHERE id = ?",
                    (checkpoint, stats, row["id"]),
                )


def blanked(message: str) -> str:
    """A pass's *message* without its notes: "1 change applied. [erased]",
    "Nothing changed: [erased]"; as it was if it has none."""
    notes = notes_of(message)
    if not notes:
        return message
    count = message[: len(message) - len(notes)]
    if not count and message.startswith(_NOTHING_CHANGED):
        count = _NOTHING_CHANGED
    return f"{count}{ERASED}"


def _blanked_run(value: str | None) -> str | None:
    """A run's checkpoint or stats (JSON) without saved answers, its
    messages blanked; *value* itself (the same text) if nothing changes."""
    if value is None:
        return None
    data = _json_column(value)
    if not isinstance(data, dict):
        return value
    changed = dict(data)
    if changed.get("answers"):
        changed["answers"] = {}
    outcomes = changed.get("outcomes")
    if isinstance(outcomes, dict):
        changed["outcomes"] = {
            step: blanked(said) if _of_a_pass(said) else said for step, said in outcomes.items()
        }
    return value if changed == data else json.dumps(changed)


def _of_a_pass(said: object) -> bool:
    """Whether *said* is a pass's message (its count, or why nothing changed),
    not the sentence of one of the dream's own steps (the snapshot,
    ``MEMORIES.md``, erasing), which holds only Reverie's words."""
    return isinstance(said, str) and (notes_of(said) != said or said.startswith(_NOTHING_CHANGED))


def _with_replaced(tx: Transaction, memory_ids: Sequence[int]) -> tuple[int, ...]:
    """*memory_ids* that exist, and every memory they replaced, however long ago."""
    found = set(_existing(tx, "memories", memory_ids))
    frontier = sorted(found)
    while frontier:
        replaced: set[int] = set()
        for start in range(0, len(frontier), _IDS_PER_QUERY):
            chunk = frontier[start : start + _IDS_PER_QUERY]
            rows = tx.fetch_all(
                f"SELECT id FROM memories WHERE superseded_by IN ({_marks(chunk)})", chunk
            )
            replaced.update(int(r[0]) for r in rows)
        frontier = sorted(replaced - found)
        found |= replaced
    return tuple(sorted(found))


def _keep_sources_forgotten(tx: Transaction, memory_ids: Sequence[int]) -> None:
    """Mark the messages *memory_ids* were learned from as never to be
    recalled (schema_v14): their sources go with them."""
    for chunk in _chunks(memory_ids):
        tx.execute(
            "INSERT OR IGNORE INTO forgotten_messages (message_id)"
            " SELECT DISTINCT s.message_id FROM memory_sources s"
            " JOIN messages m ON m.id = s.message_id"
            f" WHERE s.memory_id IN ({_marks(chunk)})",
            chunk,
        )


def _keep_imports_erased(tx: Transaction, conversation_ids: Sequence[int]) -> None:
    """Record where the imported ones of *conversation_ids* came from (schema_v14)."""
    for chunk in _chunks(conversation_ids):
        tx.execute(
            "INSERT OR IGNORE INTO erased_imports (imported_from, external_id)"
            " SELECT imported_from, external_id FROM conversations"
            f" WHERE id IN ({_marks(chunk)})"
            " AND imported_from IS NOT NULL AND external_id IS NOT NULL",
            chunk,
        )


def _existing(tx: Transaction, table: str, ids: Sequence[int]) -> tuple[int, ...]:
    wanted = sorted(set(ids))
    found: list[int] = []
    for start in range(0, len(wanted), _IDS_PER_QUERY):
        chunk = wanted[start : start + _IDS_PER_QUERY]
        rows = tx.fetch_all(f"SELECT id FROM {table} WHERE id IN ({_marks(chunk)})", chunk)
        found += [int(r[0]) for r in rows]
    return tuple(sorted(found))


def _memory_texts(tx: Transaction, memory_ids: Sequence[int], tables: set[str]) -> set[str]:
    texts: set[str] = set()
    for chunk in _chunks(memory_ids):
        marks = _marks(chunk)
        texts.update(
            r[0] for r in tx.fetch_all(f"SELECT content FROM memories WHERE id IN ({marks})", chunk)
        )
        if "memory_history" in tables:
            for row in tx.fetch_all(
                f"SELECT old_content, new_content FROM memory_history WHERE memory_id IN ({marks})",
                chunk,
            ):
                texts.update(text for text in row if text)
    return texts


def _texts_of(tx: Transaction, table: str, columns: Sequence[str], ids: Sequence[int]) -> set[str]:
    """The texts in *columns* of the rows *ids* of *table* (a task's, a skill's)."""
    texts: set[str] = set()
    for chunk in _chunks(ids):
        for row in tx.fetch_all(
            f"SELECT {', '.join(columns)} FROM {table} WHERE id IN ({_marks(chunk)})", chunk
        ):
            texts.update(text for text in row if text)
    return texts


def _conversation_texts(tx: Transaction, conversation_ids: Sequence[int]) -> set[str]:
    texts: set[str] = set()
    for chunk in _chunks(conversation_ids):
        marks = _marks(chunk)
        for row in tx.fetch_all(
            f"SELECT title, summary FROM conversations WHERE id IN ({marks})", chunk
        ):
            texts.update(text for text in row if text)
        texts.update(
            r[0]
            for r in tx.fetch_all(
                f"SELECT content FROM messages WHERE conversation_id IN ({marks})", chunk
            )
        )
    return texts


def _unquote(tx: Transaction, texts: set[str], tables: set[str]) -> None:
    """Replace *texts* wherever the dream tables quote them."""
    quoted = sorted((t for t in texts if len(t.strip()) >= MIN_QUOTED_CHARS), key=len, reverse=True)
    for text in quoted:
        needles = _needles(text)
        _requote(tx, tables, needles, _erasing(text), partial(_scrub_text, needles=needles))


def _requote(
    tx: Transaction,
    tables: set[str],
    needles: Sequence[str],
    in_json: Callable[[str], str],
    in_text: Callable[[str], str],
    quoting: Sequence[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = _QUOTING_TABLES,
) -> bool:
    """Change each row of the *quoting* tables (the dream tables) holding
    one of *needles*: each string inside its JSON columns by *in_json*, its
    plain text columns by *in_text*.  Whether any row changed."""
    changed = False
    for table, key, json_columns, text_columns in quoting:
        if table not in tables:
            continue
        columns = [*json_columns, *text_columns]
        found = " OR ".join(f"instr({c}, ?) > 0" for c in columns for _ in needles)
        params = [needle for _ in columns for needle in needles]
        rows = tx.fetch_all(
            f"SELECT {key}, {', '.join(columns)} FROM {table} WHERE {found}", params
        )
        for row in rows:
            values = [_json_changed(row[c], in_json) for c in json_columns]
            values += [None if row[c] is None else in_text(row[c]) for c in text_columns]
            if values != [row[c] for c in columns]:
                assignments = ", ".join(f"{c} = ?" for c in columns)
                tx.execute(f"UPDATE {table} SET {assignments} WHERE {key} = ?", [*values, row[0]])
                changed = True
    return changed


def _needles(text: str) -> list[str]:
    """*text* as it may appear: itself, and inside a JSON string either way of escaping."""
    forms = [text, _in_json_string(text, True), _in_json_string(text, False)]
    return list(dict.fromkeys(forms))


def _in_json_string(text: str, ascii_only: bool) -> str:
    """*text* as written inside a JSON string (non-ASCII escaped or not)."""
    return json.dumps(text, ensure_ascii=ascii_only)[1:-1]


def _scrub_text(value: str, needles: Sequence[str]) -> str:
    for needle in needles:
        value = value.replace(needle, ERASED)
    return value


def _json_changed(value: str | None, change: Callable[[str], str]) -> str | None:
    """*value* (JSON) with *change* made to every string of it: made on the
    decoded data, so the JSON stays valid; *value* itself if nothing changed."""
    if value is None:
        return None
    data = _json_column(value)
    changed = _each_string(data, change)
    return value if changed == data else json.dumps(changed)


def _each_string(data: Any, change: Callable[[str], str]) -> Any:
    """*data* (decoded JSON) with *change* made to each string in it, keys too."""
    if isinstance(data, str):
        return change(data)
    if isinstance(data, list):
        return [_each_string(item, change) for item in data]
    if isinstance(data, dict):
        return {_each_string(k, change): _each_string(v, change) for k, v in data.items()}
    return data


def _erasing(text: str) -> Callable[[str], str]:
    """What takes *text* out of a string, leaving ``ERASED`` in its place."""
    return lambda found_in: found_in.replace(text, ERASED)


def _delete_ids(tx: Transaction, table: str, column: str, ids: Sequence[int]) -> None:
    for chunk in _chunks(ids):
        tx.execute(f"DELETE FROM {table} WHERE {column} IN ({_marks(chunk)})", chunk)


def _holds_any(database: Database, items: Erasable) -> bool:
    tables = {
        r[0] for r in database.fetch_all("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    for table, ids in zip(
        ("memories", "conversations", "tasks", "skills"), items.by_kind(), strict=True
    ):
        for chunk in _chunks(ids[1] if table in tables else ()):
            if database.fetch_value(
                f"SELECT 1 FROM {table} WHERE id IN ({_marks(chunk)}) LIMIT 1", chunk
            ):
                return True
    return False


def _tables(tx: Transaction) -> set[str]:
    return {r[0] for r in tx.fetch_all("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _chunks(ids: Sequence[int]) -> list[list[int]]:
    return [list(ids[i : i + _IDS_PER_QUERY]) for i in range(0, len(ids), _IDS_PER_QUERY)]


def _marks(chunk: Sized) -> str:
    return ", ".join("?" * len(chunk))


def _json_column(value: str) -> Any:
    """A JSON column's data; the columns are CHECKed ``json_valid``, so
    text that is not JSON is a bug, reported as ``QueryFailed``."""
    try:
        return json.loads(value)
    except ValueError as error:
        raise QueryFailed(f"a JSON column does not hold JSON: {error}") from error
