"""What importing an archive would add, and what is there already.

Into a database that holds nothing of the user's yet (a fresh data folder)
everything is restored as it was, ids and all.  Into one that holds data,
the archive is merged: a conversation already there (the same start, and
its messages the first ones there: it may have gone on here, or been
renamed; without messages, the same title), a memory (made at the same
time with the same text: it may have been edited since), a task (the same
text, made at the same time; or the one task made at that moment, here and
in the archive alike: it was reworded) or a skill (the same name and text) is
skipped, so importing the same archive twice adds nothing the second time.
So is a conversation brought in from ChatGPT or Claude that was imported
here too (the same source and id), whatever it holds: it may have been
continued before the later export, renamed, or redacted by another
version, and the database holds each such conversation once.  What rests
on an item follows it: a conversation's messages and workers, a memory's
history and sources, a skill's uses.

Not merged: the dreams' records (their changes name rows by their ids in
the database they were made in, and undoing one in another database would
change the wrong rows) and a skill whose name is taken by another text
(the user's own is never replaced).  Both are counted as left out.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from desktop.core.db.archive_rows import ARCHIVED, ArchiveRows
from desktop.core.db.conversations import titled
from desktop.core.db.skills import EVERY_STATUS, name_key
from desktop.core.skills.library import SkillFileError, SkillLibrary, same_text
from desktop.core.transfer.archive import Archive

ROOTS = ("conversations", "memories", "tasks", "skills")
"""The kinds recognised when they are there already; the others follow them."""
DREAM_TABLES = ("dream_runs", "dream_changes", "dream_log", "dream_pass_marks")
OWNERS: dict[str, str] = {
    "messages": "conversation_id",
    "forgotten_messages": "message_id",
    "harvest_gaps": "conversation_id",
    "memory_sources": "memory_id",
    "memory_history": "memory_id",
    "skill_usage": "skill_id",
    "workers": "conversation_id",
    "worker_dependencies": "worker_id",
    "worker_messages": "worker_id",
    "dream_changes": "dream_run_id",
    "dream_log": "dream_run_id",
}
"""The reference a row follows: it is added when that row is."""


@dataclass
class ImportPlan:
    """What an import adds (per table, the positions of the archive's rows),
    finds there already and leaves out.

    ``present`` maps an archive id to the id of the same item in the
    database, per root table (and messages of conversations found there)."""

    fresh: bool
    added: dict[str, AbstractSet[int] | range] = field(default_factory=dict)
    """Into a fresh folder, every position (a ``range``: no row's number is held)."""
    added_ids: dict[str, set[int]] = field(default_factory=dict)
    """The ids added, per table, where a merge needs them (not into a fresh folder)."""
    present: dict[str, dict[int, int]] = field(default_factory=dict)
    left_out: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, dict[str, int]]:
        """Per table: how many rows are added, there already, left out."""
        return {
            table.name: {
                "added": len(self.added.get(table.name, ())),
                "present": len(self.present.get(table.name, {})),
                "left_out": self.left_out.get(table.name, 0),
            }
            for table in ARCHIVED
        }

    def known(self, table: str, old_id: int) -> bool:
        """Whether the archive's row *old_id* of *table* is in the database after the import."""
        return old_id in self.added_ids.get(table, ()) or old_id in self.present.get(table, {})


def plan_import(
    archive: Archive, rows: ArchiveRows, skills: SkillLibrary, *, sync: bool = True
) -> ImportPlan:
    """What importing *archive* into the database behind *rows* would do
    (planned again inside the import's transaction, without *sync*: it writes)."""
    if sync:
        skills.sync()  # a skill file put in the folder by hand is a skill already
    if not rows.holds_data():
        plan = ImportPlan(fresh=True)
        for name, found in archive.tables.items():
            plan.added[name] = range(len(found))
        return plan
    plan = ImportPlan(fresh=False)
    _conversations(archive, rows, plan)
    _memories(archive, rows, plan)
    _tasks(archive, rows, plan)
    _skills(archive, skills, plan)
    for name in ROOTS:
        plan.added[name] = {
            i
            for i, row in enumerate(archive.tables[name])
            if int(row["id"]) in plan.added_ids[name]
        }
    for name in DREAM_TABLES:
        if archive.tables[name]:
            plan.left_out[name] = len(archive.tables[name])
    _followers(archive, plan)
    if any(plan.added.values()):
        plan.notes.append(
            "What the archive holds comes back, also what you erased here after it was "
            "written: an archive does not know what was erased since."
        )
    if archive.tables["dream_runs"]:
        plan.notes.append(
            "The dreams' records were not merged: they name rows by their ids in the "
            "database they were made in. They come along only into a fresh data folder."
        )
    return plan


def _followers(archive: Archive, plan: ImportPlan) -> None:
    """The rows that follow an added item (``OWNERS``), in table order; one
    pointing at a row that will not be there is left out."""
    for table in ARCHIVED:
        if table.name in ROOTS or table.name in DREAM_TABLES:
            continue
        owner = next(r for r in table.references if r.column == OWNERS[table.name])
        added, added_ids, left_out = set(), set(), 0
        for position, row in enumerate(archive.tables[table.name]):
            if row[owner.column] not in plan.added_ids.get(owner.table, ()):
                continue  # its owner is there already (or left out): so is it
            hard = [r for r in table.references if not r.soft and row[r.column] is not None]
            if _unplaced(plan, table.name, row) or not all(
                plan.known(r.table, row[r.column]) for r in hard
            ):
                left_out += 1
                continue
            added.add(position)
            if table.has_id:
                added_ids.add(int(row["id"]))
        plan.added[table.name] = added
        plan.added_ids[table.name] = added_ids
        if left_out:
            plan.left_out[table.name] = left_out


def _unplaced(plan: ImportPlan, table: str, row: Mapping[str, Any]) -> bool:
    """Whether *row* rests on a message that does not come along (erased
    before the export): a source naming nothing, a gap ending nowhere."""
    if table == "memory_sources":
        return row["external_ref"] is None and not plan.known("messages", row["message_id"])
    if table == "harvest_gaps":
        ends = (row["first_message_id"], row["last_message_id"])
        return not all(plan.known("messages", end) for end in ends)
    return False


def _conversations(archive: Archive, rows: ArchiveRows, plan: ImportPlan) -> None:
    by_conversation: dict[int, list[tuple[int, bytes]]] = {}
    for message in archive.tables["messages"]:  # what each said, not its text: flat in memory
        by_conversation.setdefault(int(message["conversation_id"]), []).append(
            (int(message["id"]), _said(message))
        )
    added: set[int] = set()
    present: dict[int, int] = {}
    present_messages: dict[int, int] = {}
    differing = 0
    for conversation in archive.tables["conversations"]:
        old = int(conversation["id"])
        messages = by_conversation.get(old, [])
        for candidate, title in rows.conversations_started(conversation["created_at"]):
            if candidate in present.values() or (
                not messages and title != titled(str(conversation["title"]))
            ):
                continue
            theirs = _saying(rows, candidate, messages)
            if theirs is not None:  # the same, or gone on here since
                present[old] = candidate
                present_messages.update(zip((m for m, _ in messages), theirs, strict=True))
                break
        else:
            source, external = conversation["imported_from"], conversation["external_id"]
            there = None if source is None else rows.imported_conversation(source, external)
            if there is None:
                added.add(old)
                continue
            present[old] = there
            present_messages.update(_same_messages(messages, _said_in(rows, there)))
            differing += 1
    plan.added_ids["conversations"] = added
    plan.present["conversations"] = present
    plan.present["messages"] = present_messages
    if differing:
        plan.notes.append(
            f"{differing} conversation(s) brought in from another assistant are here already "
            "as imported here (continued, renamed or changed since): yours were kept."
        )


def _same_messages(
    messages: Sequence[tuple[int, bytes]], theirs: Sequence[tuple[int, bytes]]
) -> dict[int, int]:
    """The archive id of each of *messages* (its id and what it said) said
    in *theirs* too (the same role, text and time), and its id there."""
    waiting: dict[bytes, list[int]] = {}
    for their_id, said in theirs:
        waiting.setdefault(said, []).append(their_id)
    return {message: waiting[said].pop(0) for message, said in messages if waiting.get(said)}


def _saying(
    rows: ArchiveRows, conversation_id: int, messages: Sequence[tuple[int, bytes]]
) -> list[int] | None:
    """The ids of the first messages of *conversation_id* here if they say
    what *messages* (each one's id and what it said) say, in order; None if
    they do not.  Read as they are compared, never all held."""
    theirs: list[int] = []
    for (_, said), message in zip_longest(
        messages, rows.messages_of(conversation_id, len(messages))
    ):
        if message is None or _said(message) != said:
            return None
        theirs.append(int(message["id"]))
    return theirs


def _said_in(
    rows: ArchiveRows, conversation_id: int, limit: int | None = None
) -> list[tuple[int, bytes]]:
    """The id of each message of *conversation_id* here (its first *limit*)
    and what it said, as a digest: its text is not held."""
    return [(int(m["id"]), _said(m)) for m in rows.messages_of(conversation_id, limit)]


def _said(message: Mapping[str, Any]) -> bytes:
    """What *message* said (its role, text and time), as a digest."""
    return _digest([message["role"], message["content"], message["created_at"]])


def _digest(value: Any) -> bytes:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode()).digest()


def _memories(archive: Archive, rows: ArchiveRows, plan: ImportPlan) -> None:
    """The memories there already: made at the same time with the same text,
    whatever they say now (``ArchiveRows.memories_by_origin``), each one's
    text held as a digest."""
    made_with: dict[int, tuple[int, bytes]] = {}  # the first "add" of each, as a digest
    for entry in archive.tables["memory_history"]:
        first = made_with.get(entry["memory_id"])
        if entry["operation"] == "add" and (first is None or int(entry["id"]) < first[0]):
            made_with[entry["memory_id"]] = (int(entry["id"]), _digest(entry["new_content"]))
    there = {(at, _digest(text)): found for at, text, found in rows.memories_by_origin()}
    added: set[int] = set()
    present: dict[int, int] = {}
    for row in archive.tables["memories"]:
        made = made_with.get(row["id"])
        origin = (row["created_at"], made[1] if made else _digest(row["content"]))
        if (found := there.get(origin)) is None:
            added.add(int(row["id"]))
        else:
            present[int(row["id"])] = found
    plan.added_ids["memories"] = added
    plan.present["memories"] = present


def _tasks(archive: Archive, rows: ArchiveRows, plan: ImportPlan) -> None:
    """The tasks there already: the same text made at the same time, or the
    one task made at that moment here and in the archive (reworded since:
    two made at once are told apart by their text only)."""
    there = rows.ids_by("tasks", ("text", "created_at"))
    made_here = rows.ids_made_at("tasks")
    made_there = Counter(row["created_at"] for row in archive.tables["tasks"])
    added: set[int] = set()
    present: dict[int, int] = {}
    for row in archive.tables["tasks"]:
        found = there.get((row["text"], row["created_at"]))
        alone = made_here.get(row["created_at"], [])
        if found is None and len(alone) == 1 and made_there[row["created_at"]] == 1:
            found = alone[0]
        if found is None:
            added.add(int(row["id"]))
        else:
            present[int(row["id"])] = found
    plan.added_ids["tasks"] = added
    plan.present["tasks"] = present


def _skills(archive: Archive, skills: SkillLibrary, plan: ImportPlan) -> None:
    there = {name_key(s.name): s for s in skills.list(statuses=EVERY_STATUS)}
    files = {s.file_name.casefold() for s in there.values()}
    added: set[int] = set()
    present: dict[int, int] = {}
    taken = 0
    unreadable: list[str] = []
    for row in archive.tables["skills"]:
        old = int(row["id"])
        holder = there.get(name_key(str(row["name"])))
        if holder is None and str(row["file_name"]).casefold() not in files:
            added.add(old)
            continue
        if holder is None:  # its file name is another skill's
            taken += 1
            continue
        try:
            same = same_text(skills.read(holder.id).text, archive.skill_files[old].text)
        except SkillFileError:  # one in the bin whose file was removed by hand, say
            unreadable.append(holder.name)
            continue
        if same:
            present[old] = holder.id
        else:
            taken += 1
    plan.added_ids["skills"] = added
    plan.present["skills"] = present
    if taken or unreadable:
        plan.left_out["skills"] = taken + len(unreadable)
    if taken:
        plan.notes.append(
            f"{taken} skill(s) were not imported: a skill of the same name with "
            "another text is there already (yours was kept)."
        )
    if unreadable:
        plan.notes.append(
            f"{len(unreadable)} skill(s) were not imported: a skill of the same name is "
            f"there already whose file cannot be read ({', '.join(unreadable)})."
        )
