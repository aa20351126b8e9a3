"""Erasing takes the model's words too: a dream's kept answer or message may
reword an erased memory (no exact quote to find), so every erasure blanks
the answers and notes the dream log keeps, here and in every snapshot."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from desktop.core.base.paths import AppPaths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import ConversationStore, Database, DreamStore, MemoryStore, open_database
from desktop.core.db.purge import ERASED, RETRACTED_NOTE
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.passes import PassContext, PassRejected
from desktop.core.dreaming.proposals import Proposal
from desktop.core.dreaming.snapshots import SNAPSHOT_PREFIX
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.erasers import eraser_for

MARKER = "glimmerwharf"
T0 = 1_800_000_000.0


def _files_of(database: Database) -> list[Path]:
    """The database file and its side files (WAL, shared memory) that exist."""
    found = [Path(f"{database.path}{suffix}") for suffix in ("", "-wal", "-shm")]
    return [path for path in found if path.is_file()]


def _holding_marker(paths: list[Path]) -> list[Path]:
    assert paths  # a check over no file would pass whatever is in them
    return [path for path in paths if MARKER.encode() in path.read_bytes().lower()]


def test_reworded_quotes_in_the_dream_log_are_erased_in_the_database_and_snapshots(
    database: Database, user_dirs: AppPaths
) -> None:
    memories = MemoryStore(database)
    memory = memories.add(
        "My spare house key is hidden under the Glimmerwharf garden gnome",
        embedding=None,
        source_kind="user_explicit",
        actor="user",
    )
    dreams = DreamStore(database)
    run = dreams.start("test")
    reworded = json.dumps({"toSave": [{"content": "Key under the glimmerwharf gnome."}]})
    rejected = "Nothing changed: the model named memories it was not shown."
    dreams.log(run.id, "dedup", "rolled_back", rejected, reworded)
    dreams.log(run.id, "contradictions", "failed", f"Nothing changed: about the {MARKER} gnome")
    dreams.log(
        run.id, "preferences", "applied", f"1 change applied. “{MARKER} gnome” was left alone"
    )
    tripped = "Nothing changed: the pass would have retired 9 of 10 active memories."
    dreams.log(run.id, "tasks", "tripped", tripped)
    outcomes = {"dedup": rejected, "working_set": "MEMORIES.md was written again."}
    dreams.save_checkpoint(
        run.id, {"done": ["dedup"], "answers": {"dedup:1@1": reworded}, "outcomes": outcomes}
    )
    user_dirs.snapshots_dir.mkdir(parents=True, exist_ok=True)
    snapshot = user_dirs.snapshots_dir / f"{SNAPSHOT_PREFIX}20270110-010000.sqlite3"
    database.snapshot_to(snapshot)

    eraser_for(database, user_dirs, clock=lambda: T0).erase_memories([memory.id])

    entries = dreams.log_entries(run.id)
    assert [(e.message, e.raw_output) for e in entries] == [
        (f"Nothing changed: {ERASED}", ERASED),
        (f"Nothing changed: {ERASED}", None),
        (f"1 change applied. {ERASED}", None),
        (tripped, None),  # Reverie's own words and numbers: kept
    ]
    # The answers a paused dream saved go: it asks the model again when it resumes.
    stored = database.fetch_value("SELECT checkpoint FROM dream_runs WHERE id = ?", (run.id,))
    assert json.loads(str(stored)) == {
        "done": ["dedup"],
        "answers": {},
        "outcomes": {"dedup": f"Nothing changed: {ERASED}", "working_set": outcomes["working_set"]},
    }
    assert _holding_marker([*_files_of(database), snapshot]) == []
    with open_database(snapshot) as copy:
        first = DreamStore(copy).log_entries(run.id)[0]
        assert first.raw_output == ERASED


def test_erasing_a_conversation_blanks_the_dream_log_too(
    database: Database, user_dirs: AppPaths
) -> None:
    conversations = ConversationStore(database)
    conversation = conversations.create("The gnome")
    conversations.add_message(conversation.id, "user", f"The {MARKER} gnome hides my key")
    dreams = DreamStore(database)
    run = dreams.start("test")
    dreams.log(run.id, "tasks", "rolled_back", "Nothing changed.", f"gnome {MARKER} key")

    eraser_for(database, user_dirs, clock=lambda: T0).erase_conversations([conversation.id])

    [entry] = dreams.log_entries(run.id)
    assert entry.raw_output == ERASED


def test_an_erasure_with_nothing_erased_leaves_the_dream_log_alone(
    database: Database, user_dirs: AppPaths
) -> None:
    dreams = DreamStore(database)
    run = dreams.start("test")
    dreams.log(run.id, "dedup", "rolled_back", "Nothing changed: odd answer.", "{not json")

    eraser_for(database, user_dirs, clock=lambda: T0).erase_expired()
    eraser_for(database, user_dirs, clock=lambda: T0).erase_memories([12345])  # no such memory

    [entry] = dreams.log_entries(run.id)
    assert (entry.message, entry.raw_output) == ("Nothing changed: odd answer.", "{not json")


def test_a_dream_change_made_from_an_erased_memory_or_message_is_blanked(
    database: Database, user_dirs: AppPaths
) -> None:
    """A merge waiting for approval proposes the model's rewording of its
    sources; a task completion quotes part of a message: neither is a whole
    text the erasure can look for."""
    memories = MemoryStore(database)
    source = memories.add(
        f"The {MARKER} gnome hides my key", embedding=None, source_kind="harvested", actor="harvest"
    )
    other = memories.add(
        "Likes green tea", embedding=None, source_kind="harvested", actor="harvest"
    )
    conversations = ConversationStore(database)
    talk = conversations.create("Chores")
    said = conversations.add_message(talk.id, "user", f"I finally fed the {MARKER} cat today")
    dreams = DreamStore(database)
    run = dreams.start("test")
    with database.transaction() as tx:
        merge = DreamStore.add_change(
            tx,
            run.id,
            "dedup",
            "merge",
            f"Merged 2 memories into one: {MARKER} key spot",
            {
                "sources": [source.id, other.id],
                "superseded": [source.id, other.id],
                "content": f"Key spot: {MARKER}",
                "category": "general",
            },
            status="pending",
            risky=True,
            now=T0,
        )
        done = DreamStore.add_change(
            tx,
            run.id,
            "tasks",
            "complete",
            f"Completed: fed the {MARKER} cat",
            {"task": 3, "evidence": f"fed the {MARKER} cat", "message": said.id},
            status="applied",
            risky=False,
            now=T0,
        )
        kept = DreamStore.add_change(
            tx,
            run.id,
            "dedup",
            "archive",
            "Archived a memory about tea",
            {"memory": other.id + 100},
            status="pending",
            risky=True,
            now=T0,
        )

    eraser = eraser_for(database, user_dirs, clock=lambda: T0)
    eraser.erase_memories([source.id])
    eraser.erase_conversations([talk.id])

    changes = {c.id: c for c in dreams.changes(run.id)}
    assert (changes[merge].status, changes[merge].note) == ("rejected", RETRACTED_NOTE)
    assert changes[merge].payload["content"] == changes[merge].summary == ERASED
    assert changes[merge].payload["sources"] == [source.id, other.id]
    assert (changes[done].status, changes[done].payload["evidence"]) == ("applied", ERASED)
    assert (changes[kept].status, changes[kept].summary) == (
        "pending",
        "Archived a memory about tea",
    )
    assert _holding_marker(_files_of(database)) == []


class _Wordy:
    """A pass whose answer is rejected, worded about the marker."""

    name, title = "wordy", "Saying the marker"

    def plan(self, context: PassContext) -> list[Proposal]:
        raise PassRejected(f"Nothing changed: about the {MARKER} gnome", f"the {MARKER} gnome")


class _Erasing:
    """A pass during which the user deletes the marker's memory for good."""

    name, title = "erasing", "Deleting now meanwhile"

    def __init__(self, erase: Callable[[], object]) -> None:
        self._erase = erase

    def plan(self, context: PassContext) -> list[Proposal]:
        self._erase()
        return []


def test_what_a_dream_wrote_after_an_erasure_during_it_is_blanked_too(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    user_dirs: AppPaths,
) -> None:
    memory = memories.store.add(
        f"My spare key is under the {MARKER} gnome",
        embedding=None,
        source_kind="user_explicit",
        actor="user",
    )
    eraser = eraser_for(database, user_dirs, clock=lambda: T0)
    dreamer = Dreamer(
        database,
        memories,
        broker,
        prompts,
        DreamSettings(quiet_seconds=0),
        [_Wordy(), _Erasing(lambda: eraser.erase_memories([memory.id]))],
        snapshots_dir=user_dirs.snapshots_dir,
        working_set_file=user_dirs.working_set_file,
        eraser=eraser,
    )

    report = dreamer.run("manual", DreamControl())

    assert MARKER in report.outcomes["wordy"]  # the dream held the words while it ran...
    assert _holding_marker(_files_of(database)) == []  # ...and none stayed on disk
