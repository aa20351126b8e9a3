"""The whole-app archive: written whole and private, the same bytes for the
same data, restored into a fresh folder as it was, merged without doubles."""

from __future__ import annotations

import json
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.base.settings import load_settings
from desktop.core.db import ConversationStore, Database, MemoryStore
from desktop.core.db.archive_rows import TABLES, ArchiveRows
from desktop.core.db.message_search import MessageSearch
from desktop.core.transfer.archive import (
    FORMAT_VERSION,
    ArchiveExists,
    export_archive,
    secret_keys,
)
from desktop.core.transfer.archive_import import import_archive, preview, run
from desktop.core.transfer.archive_read import is_archive, read_archive
from desktop.core.transfer.progress import PlainState
from tests.unit.core.transfer.archive_world import (
    ERASED_WORDS,
    World,
    fill,
    folder,
    open_folder,
)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made = fill(folder(tmp_path / "source"))
    yield made
    made.database.close()


@pytest.fixture
def exported(world: World, tmp_path: Path) -> Path:
    target = tmp_path / "everything.reverie.zip"
    export_archive(world.database, world.paths, target)
    return target


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _rows(path: Path, table: str) -> list[dict[str, object]]:
    lines = _entries(path)[f"tables/{table}.jsonl"].decode().splitlines()
    return [json.loads(line) for line in lines]


def test_the_archive_holds_every_kind_and_is_readable_by_the_user_alone(
    exported: Path, world: World
) -> None:
    assert stat.S_IMODE(exported.stat().st_mode) == 0o600
    assert is_archive(exported)
    archive = read_archive(exported)
    assert archive.manifest["format"] == "reverie-archive"
    assert archive.manifest["format_version"] == FORMAT_VERSION
    counts = archive.counts
    assert counts["conversations"] == 3  # the erased one is gone
    assert counts["memories"] == 4 and counts["memory_history"] >= 5
    assert counts["tasks"] == 2 and counts["skills"] == 2 and counts["skill_usage"] == 1
    assert counts["dream_runs"] == 1 and counts["dream_changes"] == 1 and counts["dream_log"] == 1
    assert counts["dream_pass_marks"] == 1
    assert counts["workers"] == 1 and counts["worker_messages"] == 1
    conversations = {c["id"]: c for c in archive.tables["conversations"]}
    assert conversations[world.off_record]["off_record"] == 1
    assert conversations[world.deleted]["deleted_at"] is not None
    assert conversations[world.compacted]["summary"] == "They talked about hiking."
    assert counts["harvest_gaps"] == 1
    assert any(m["metadata"] == '{"model": "tiny"}' for m in archive.tables["messages"])
    statuses = {s["status"] for s in archive.tables["skills"]}
    assert statuses == {"active", "draft"}
    assert archive.settings is not None
    assert archive.settings["models"]["max_reply_tokens"] == 1024
    assert not list(secret_keys(archive.settings))


def test_no_vectors_nor_derived_columns_are_exported(exported: Path) -> None:
    names = set(_entries(exported))
    assert not any("embedding" in name or "fts" in name for name in names)
    memory = _rows(exported, "memories")[0]
    assert "content_hash" not in memory and "embedding_model" not in memory


def test_an_erased_conversations_words_are_not_in_the_archive(exported: Path) -> None:
    assert all(ERASED_WORDS.encode() not in data for data in _entries(exported).values())
    # Its message is still named by the memory learned from it: by id only.
    sources = _rows(exported, "memory_sources")
    assert any(s["message_id"] is not None for s in sources)


def test_an_api_key_in_the_keyring_never_reaches_the_archive(world: World, tmp_path: Path) -> None:
    from desktop.core.base.secrets import SecretStore
    from tests.fakes import MemoryKeyring

    keys = SecretStore(MemoryKeyring())
    keys.set("api-key:chat", "sk-live-TOPSECRET-0123456789abcdef")
    target = tmp_path / "a.zip"
    export_archive(world.database, world.paths, target)
    assert all(b"TOPSECRET" not in data for data in _entries(target).values())
    assert list(secret_keys({"models": {"chat": {"api_key": "sk-1"}}})) == ["models.chat.api_key"]


def test_the_same_data_gives_the_same_bytes(world: World, tmp_path: Path) -> None:
    first, second = tmp_path / "1.zip", tmp_path / "2.zip"
    export_archive(world.database, world.paths, first)
    export_archive(world.database, world.paths, second)
    assert first.read_bytes() == second.read_bytes()


def test_an_existing_file_is_kept_unless_overwrite(exported: Path, world: World) -> None:
    before = exported.read_bytes()
    with pytest.raises(ArchiveExists):
        export_archive(world.database, world.paths, exported)
    assert exported.read_bytes() == before
    export_archive(world.database, world.paths, exported, overwrite=True)


def test_restored_into_a_fresh_folder_it_exports_byte_for_byte_the_same(
    exported: Path, tmp_path: Path
) -> None:
    paths = folder(tmp_path / "fresh")
    database = open_folder(paths)
    try:
        seen = preview(exported, database, paths)
        assert seen.fresh and seen.settings
        assert seen.counts["messages"]["added"] == len(read_archive(exported).tables["messages"])
        result = run(exported, database, paths, PlainState())
        assert not result.cancelled and result.fresh and result.settings_restored
        again = tmp_path / "again.zip"
        export_archive(database, paths, again)
        assert again.read_bytes() == exported.read_bytes()
        settings, problem = load_settings(paths.settings_file)
        assert problem is None and settings.models.max_reply_tokens == 1024
        assert (paths.skills_dir / ".drafts" / "Draft idea.md").is_file()
        gaps = ConversationStore(database).harvest_gaps()
        assert len(gaps) == 1
        assert [c.unlearned_parts for c in ConversationStore(database).list()].count(1) == 1
        # Nothing has a vector: the background upkeep finds every memory to
        # embed, the message indexer every findable message (on the record, kept).
        assert len(MemoryStore(database).without_vectors(100)) == 4
        unembedded = MessageSearch(database, embedding_model=lambda: "minilm").unembedded(100)
        assert len(unembedded) == 3
    finally:
        database.close()


def test_a_merge_adds_what_is_new_and_nothing_the_second_time(
    exported: Path, tmp_path: Path
) -> None:
    paths = folder(tmp_path / "busy")
    database = open_folder(paths)
    try:
        conversations = ConversationStore(database)
        own = conversations.create("Mine")
        conversations.add_message(own.id, "user", "My own words.")
        first = run(exported, database, paths, PlainState())
        assert not first.fresh and not first.settings_restored
        assert first.added("conversations") == 3 and first.added("messages") == 5
        assert first.added("memories") == 4 and first.added("tasks") == 2
        assert first.added("skills") == 2 and first.added("workers") == 1
        assert first.added("dream_runs") == 0 and first.added("harvest_gaps") == 1
        assert first.counts["dream_runs"]["left_out"] == 1
        assert any("settings were kept" in note for note in first.notes)
        _check_relations(database)
        before = _dump(database)
        second_look = preview(exported, database, paths)
        assert all(c["added"] == 0 for c in second_look.counts.values())
        second = run(exported, database, paths, PlainState())
        assert all(second.added(name) == 0 for name in second.counts)
        assert second.counts["conversations"]["present"] == 3
        assert _dump(database) == before
    finally:
        database.close()


def _check_relations(database: Database) -> None:
    """Every memory's message sources and the superseded memory's successor are kept."""
    store = MemoryStore(database)
    rows = ArchiveRows(database)
    memories = {m["content"]: m for m in rows.rows(TABLES["memories"])}
    berlin, hamburg = memories["The user lives in Berlin."], memories["The user lives in Hamburg."]
    assert berlin["status"] == "superseded" and berlin["superseded_by"] == hamburg["id"]
    hiking = memories["The user loves hiking in the Swiss Alps."]
    sources = store.sources(int(hiking["id"]))
    messages = ConversationStore(database).messages_by_ids(sources.message_ids)
    assert [m.content for m in messages] == ["I love hiking in the Alps."]
    assert sources.external_refs == ("bench:turn-1",)
    assert [h.operation for h in store.history(int(hiking["id"]))] == ["add", "update"]
    [trip] = [c for c in rows.rows(TABLES["conversations"]) if c["title"] == "Trip plans"]
    said = {m.content: m.id for m in ConversationStore(database).messages(int(trip["id"]))}
    assert trip["harvested_through_message_id"] == said["Remind me to pack socks."]
    [worker] = rows.rows(TABLES["workers"])
    assert worker["conversation_id"] == trip["id"]
    assert worker["asked_in"] == said["Remind me to pack socks."]


def _dump(database: Database) -> dict[str, list[dict[str, object]]]:
    rows = ArchiveRows(database)
    return {table.name: rows.rows(table) for table in rows.iter_tables()}


def test_importing_into_the_folder_it_came_from_adds_nothing(exported: Path, world: World) -> None:
    before = _dump(world.database)
    result = run(exported, world.database, world.paths, PlainState())
    assert all(result.added(name) == 0 for name in result.counts)
    assert _dump(world.database) == before


class _CancelledAfter(PlainState):
    def __init__(self, looks: int) -> None:
        super().__init__()
        self.looks = looks

    def is_cancelled(self) -> bool:
        self.looks -= 1
        return self.looks < 0


@pytest.mark.parametrize("looks", [0, 1])
def test_a_cancelled_import_imports_nothing(exported: Path, tmp_path: Path, looks: int) -> None:
    paths = folder(tmp_path / "fresh")
    database = open_folder(paths)
    try:
        result = run(exported, database, paths, _CancelledAfter(looks))
        assert result.cancelled and not result.settings_restored
        assert not ArchiveRows(database).holds_data()
        assert not paths.settings_file.exists()
        assert not paths.skills_dir.exists() or not list(paths.skills_dir.rglob("*.md"))
    finally:
        database.close()


def test_import_archive_opens_the_data_folder_for_the_import(
    exported: Path, tmp_path: Path
) -> None:
    paths = folder(tmp_path / "cli")
    state = PlainState()
    result = import_archive(exported, paths, state)
    assert result.fresh and result.added("conversations") == 3
    assert state.done == state.total > 0
    database = open_folder(paths)
    try:
        assert ArchiveRows(database).holds_data()
    finally:
        database.close()
