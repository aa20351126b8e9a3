"""Erasing for good: after "Delete now", or once the restore window has passed,
a memory's or a conversation's text is nowhere on disk: not in the database
file, its WAL, any snapshot, the log, ``MEMORIES.md`` nor a fresh export."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import _logging
from desktop.core.base.paths import AppPaths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import ConversationStore, Database, DreamStore, MemoryStore, open_database
from desktop.core.db.migrations import MIGRATIONS, applied_versions, latest_version
from desktop.core.db.purge import ERASED, Erasable, PurgeStore
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.erasure import DAY
from desktop.core.dreaming.snapshots import SNAPSHOT_PREFIX
from desktop.core.dreaming.working_set import write_working_set
from desktop.core.memory.export import export_jsonl, export_markdown
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.dreams import make_dreamer
from tests.erasers import eraser_for

MEMORY_MARKER = "zorblattian"
MEMORY_TEXT = "I keep my grandmother's recipes in the Zorblattian cookbook"
MEMORY_EDITED = "I keep my grandmother's recipes in the Zorblattian cookbook on the top shelf"
MESSAGE_MARKER = "qwixtorp"
MESSAGE_TEXT = "My cousin Qwixtorp lives by the old lighthouse in Brittany"
T0 = 1_800_000_000.0


@pytest.fixture
def app_db(user_dirs: AppPaths) -> Iterator[Database]:
    """The app's database, in the app's data folder, with the app's log file."""
    user_dirs.ensure()
    with _logging(user_dirs, verbose=True):
        database = open_database(user_dirs.database_file)
        yield database
        database.close()


def files_holding(marker: str, paths: AppPaths, exports: list[Path]) -> list[str]:
    """Every file (database, WAL, snapshots, logs, MEMORIES.md, exports) whose
    bytes contain *marker*, in any case."""
    candidates = [
        *paths.data_dir.glob("reverie.sqlite3*"),
        *paths.snapshots_dir.glob("*"),
        *paths.log_dir.glob("*"),
        paths.working_set_file,
        *exports,
    ]
    needle = marker.encode()
    return [
        str(path) for path in candidates if path.is_file() and needle in path.read_bytes().lower()
    ]


def fresh_exports(memories: MemoryService, store: ConversationStore, folder: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    jsonl, markdown = folder / "export.jsonl", folder / "export.md"
    export_jsonl(memories, store, jsonl)
    export_markdown(memories, store, markdown)
    return [jsonl, markdown]


def test_delete_now_leaves_no_trace_of_the_text_on_disk(
    app_db: Database,
    user_dirs: AppPaths,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    memories = MemoryService.over(app_db, broker, prompts)
    store = ConversationStore(app_db)
    kept = memories.remember(
        "I like green tea in the morning", source_kind="user_explicit", actor="user"
    )
    memory = memories.remember(MEMORY_TEXT, source_kind="user_explicit", actor="user").memory
    memories.edit(memory.id, MEMORY_EDITED, expected=MEMORY_TEXT)  # an old version in history
    conversation = store.create(f"About {MESSAGE_TEXT}")
    message = store.add_message(conversation.id, "user", MESSAGE_TEXT)
    store.add_message(conversation.id, "assistant", f"You said: {MESSAGE_TEXT}. Noted!")
    store.apply_compaction(conversation.id, f"They said {MESSAGE_TEXT}", message.id)
    dreams = DreamStore(app_db)
    run = dreams.start("test")
    dreams.log(
        run.id, "dedup", "rolled_back", "Nothing changed.", f'["{MEMORY_EDITED}", "{MESSAGE_TEXT}"]'
    )
    # As a dream leaves them: a snapshot, then MEMORIES.md.
    user_dirs.snapshots_dir.mkdir(parents=True, exist_ok=True)
    app_db.snapshot_to(user_dirs.snapshots_dir / f"{SNAPSHOT_PREFIX}20270115-010000.sqlite3")
    write_working_set(memories.store, user_dirs.working_set_file, 50)
    memories.set_status([memory.id], "deleted")
    store.delete(conversation.id)
    before = fresh_exports(memories, store, tmp_path / "before")
    # The checks can fail: soft-deleted, the text is still everywhere.
    assert len(files_holding(MEMORY_MARKER, user_dirs, before)) >= 5
    assert files_holding(MESSAGE_MARKER, user_dirs, [])

    eraser = eraser_for(app_db, user_dirs, clock=lambda: T0)
    erased = eraser.erase_memories([memory.id])
    erased_too = eraser.erase_conversations([conversation.id])

    assert (erased.memories, erased.snapshots, erased.wal_truncated) == (1, 1, True)
    assert (erased_too.conversations, erased_too.snapshots) == (1, 1)
    exports = fresh_exports(memories, store, tmp_path / "after")
    assert files_holding(MEMORY_MARKER, user_dirs, exports) == []
    assert files_holding(MESSAGE_MARKER, user_dirs, exports) == []
    # What was not erased is all still there, and the log says what happened.
    assert memories.store.get(kept.memory.id) is not None
    assert "green tea" in user_dirs.working_set_file.read_text()
    assert memories.store.get(memory.id) is None and store.get(conversation.id) is None
    [entry] = dreams.log_entries(run.id)
    assert entry.raw_output == ERASED  # the model's answer, whatever it quoted
    assert PurgeStore(app_db).erased() == Erasable((memory.id,), (conversation.id,))
    logged = "".join(path.read_text() for path in user_dirs.log_dir.glob("*"))
    assert f"memories [{memory.id}]" in logged  # the log says what went, by id only


def test_erasing_a_memory_erases_the_older_memories_it_replaced(
    database: Database, user_dirs: AppPaths
) -> None:
    store = MemoryStore(database)
    old = store.add("Lives in Rome", embedding=None, source_kind="harvested", actor="harvest")
    new = store.add("Lives in Oslo now", embedding=None, source_kind="harvested", actor="harvest")
    store.set_status(old.id, "superseded", "dream:dedup", superseded_by=new.id)

    erased = PurgeStore(database).erase(Erasable(memory_ids=(new.id,)), T0)

    assert erased.memory_ids == (old.id, new.id)
    assert store.get(old.id) is None
    assert store.search_text("Rome", status=None) == []


def test_a_deletion_stays_restorable_for_the_window_then_is_erased(
    database: Database, user_dirs: AppPaths
) -> None:
    now = [T0]
    memories = MemoryStore(database, clock=lambda: now[0])
    conversations = ConversationStore(database, clock=lambda: now[0])
    early = memories.add("Plays the oboe", embedding=None, source_kind="harvested", actor="harvest")
    late = memories.add("Reads sci-fi", embedding=None, source_kind="harvested", actor="harvest")
    first = conversations.create("first")
    second = conversations.create("second")
    memories.set_status(early.id, "deleted", "user")
    conversations.delete(first.id)
    now[0] = T0 + 20 * DAY
    memories.set_status(late.id, "deleted", "user")
    conversations.delete(second.id)
    memories.set_pinned(early.id, True, "user")  # a change while deleted starts no new window
    eraser = eraser_for(database, user_dirs, kept_days=30, clock=lambda: now[0])
    assert eraser.erased_on([early.id, late.id]) == {
        early.id: T0 + 30 * DAY,
        late.id: T0 + 50 * DAY,
    }

    now[0] = T0 + 29 * DAY
    assert eraser.erase_expired().describe() == "Nothing was due to be erased."
    now[0] = T0 + 31 * DAY
    erased = eraser.erase_expired()

    assert (erased.memories, erased.conversations) == (1, 1)
    assert memories.get(early.id) is None and conversations.get(first.id) is None
    # Younger than the window: still restorable, text and all.
    assert memories.set_status(late.id, "active", "user").content == "Reads sci-fi"
    assert conversations.restore(second.id).title == "second"
    assert [c.id for c in conversations.list()] == [second.id]


def test_a_window_of_zero_days_erases_at_the_next_purge(
    database: Database, user_dirs: AppPaths
) -> None:
    store = MemoryStore(database, clock=lambda: T0)
    memory = store.add("Has a cat", embedding=None, source_kind="harvested", actor="harvest")
    store.set_status(memory.id, "deleted", "user")

    erased = eraser_for(database, user_dirs, kept_days=0, clock=lambda: T0 + 1).erase_expired()

    assert erased.memories == 1 and store.get(memory.id) is None


def test_a_snapshot_of_an_older_run_is_purged_the_next_time_anything_is_erased(
    database: Database, user_dirs: AppPaths
) -> None:
    """A crash between the erasure and the snapshots' purge leaves a copy
    holding the text: the ids are kept, so the next erasure purges it."""
    store = MemoryStore(database)
    gone = store.add(
        "Owns a Zorblattian teapot", embedding=None, source_kind="harvested", actor="harvest"
    )
    other = store.add("Owns a bicycle", embedding=None, source_kind="harvested", actor="harvest")
    user_dirs.snapshots_dir.mkdir(parents=True, exist_ok=True)
    snapshot = user_dirs.snapshots_dir / f"{SNAPSHOT_PREFIX}20270101-010000.sqlite3"
    database.snapshot_to(snapshot)
    PurgeStore(database).erase(Erasable(memory_ids=(gone.id,)), T0)  # "crash": no snapshot purge
    assert MEMORY_MARKER.encode() in snapshot.read_bytes().lower()

    eraser_for(database, user_dirs, clock=lambda: T0).erase_memories([other.id])

    assert MEMORY_MARKER.encode() not in snapshot.read_bytes().lower()
    with open_database(snapshot) as copy:
        assert MemoryStore(copy).get(gone.id) is None


def test_a_dream_erases_the_deletions_past_the_window(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    old = memories.store.add(
        "Collects stamps", embedding=None, source_kind="harvested", actor="harvest"
    )
    memories.store.set_status(old.id, "deleted", "user")
    settings = DreamSettings(quiet_seconds=0, deleted_kept_days=0)
    dreamer = make_dreamer(database, memories, broker, prompts, tmp_path, settings)
    dreamer._passes = []  # only the dream's own steps: snapshot, MEMORIES.md, erasing

    report = dreamer.run("test", DreamControl())

    assert memories.store.get(old.id) is None
    assert (
        report.outcomes["erase_expired"]
        == "Erased 1 memory for good, from the database and 1 snapshot."
    )


def test_version_6_records_erasures_in_a_database_of_any_older_version(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with open_database(path, migrations=MIGRATIONS[:5]) as old:
        assert "erased_items" not in {r[0] for r in old.fetch_all("SELECT name FROM sqlite_master")}
    with open_database(path) as database:
        assert 6 in applied_versions(database)
        assert max(applied_versions(database)) == latest_version()
        PurgeStore(database).erase(Erasable(memory_ids=(7,), conversation_ids=(8,)), T0)
        assert PurgeStore(database).erased() == Erasable()  # nothing by those ids existed


def test_a_snapshot_of_the_first_schema_is_purged_with_its_vectors_too(
    database: Database, tmp_path: Path
) -> None:
    """An old copy still has sqlite-vec's table of vectors (schema 1)."""
    copy = tmp_path / "before-dream-old.sqlite3"
    with open_database(copy, migrations=MIGRATIONS[:1]) as old, old.transaction() as tx:
        tx.execute(
            "INSERT INTO memories (id, content, source_kind, created_at, last_seen_at,"
            " valid_from, content_hash, updated_at) VALUES (3, 'Owns a Zorblattian teapot',"
            " 'harvested', 1, 1, 1, printf('%064d', 3), 1)"
        )
        tx.execute(
            "INSERT INTO memory_vectors (memory_id, embedding, status, category)"
            " VALUES (3, vec_f32(?), 'active', 'general')",
            ("[" + ", ".join(["0.5"] * 384) + "]",),
        )

    assert PurgeStore(database).purge_copy(copy, Erasable(memory_ids=(3,)))

    assert MEMORY_MARKER.encode() not in copy.read_bytes().lower()
    with open_database(copy, migrations=MIGRATIONS[:1]) as old:
        assert old.fetch_value("SELECT count(*) FROM memory_vectors") == 0
    assert not PurgeStore(database).purge_copy(copy, Erasable(memory_ids=(3,)))  # nothing left
