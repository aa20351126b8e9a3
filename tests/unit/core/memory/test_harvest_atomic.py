"""One harvest's facts and its watermark are kept together or not at all,
so a harvest cut short (a failed write, a kill) never counts a fact twice
when the same messages are read again."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore, Database, DiskFull, NewMemory, open_database
from desktop.core.db.memory_writes import MemoryWrites
from desktop.core.memory.service import MemoryService
from models.broker import InferenceBroker
from tests.children import heard, killed_in_copy, run_child
from tests.fakes import ScriptedChatModel
from tests.harvesters import Clock, harvest_answer, harvester_for, talk
from tests.unit.core.memory.harvest_child import harvest_all

CHILD = "tests.unit.core.memory.harvest_child"
KILLS = 10


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _counts(memories: MemoryService) -> dict[str, int]:
    return {m.content: m.reinforcement_count for m in memories.store.listed()}


def test_a_harvest_whose_write_fails_keeps_nothing_and_counts_once_when_read_again(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    model: ScriptedChatModel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    harvester = harvester_for(store, memories, broker, prompts, clock)
    memories.remember("The user has two cats.", source_kind="user_explicit", actor="user")
    conversation = store.create("c")
    talk(store, conversation.id, "I have two cats.", "My locker is 17.", "I play the cello.")
    answer = harvest_answer(
        ("The user has two cats.", "personal", [1]),
        ("The user's locker number is 17.", "other", [3]),
        ("The user plays the cello.", "preferences", [5]),
    )
    model.queue(answer, answer)
    added: list[str] = []
    add = MemoryWrites.add

    def disk_fills_on_the_second_new_fact(
        writes: MemoryWrites, item: NewMemory, blob: bytes | None = None
    ) -> int:
        added.append(item.content)
        if len(added) == 2:
            raise DiskFull("database or disk is full")
        return add(writes, item, blob)

    monkeypatch.setattr(MemoryWrites, "add", disk_fills_on_the_second_new_fact)
    with pytest.raises(DiskFull):
        harvester.harvest(conversation.id)

    assert _counts(memories) == {"The user has two cats.": 1}
    [cats] = memories.store.listed()
    assert [entry.actor for entry in memories.store.history(cats.id)] == ["user"]
    assert store.get(conversation.id).harvested_through_message_id is None  # type: ignore[union-attr]

    monkeypatch.undo()
    harvester.harvest(conversation.id)

    assert _counts(memories) == {
        "The user has two cats.": 2,
        "The user's locker number is 17.": 1,
        "The user plays the cello.": 1,
    }


def test_a_fact_named_twice_in_one_answer_is_seen_once(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: Clock,
    model: ScriptedChatModel,
) -> None:
    harvester = harvester_for(store, memories, broker, prompts, clock)
    conversation = store.create("c")
    said = talk(store, conversation.id, "I play the cello.", "Cello is my instrument.")
    model.queue(
        harvest_answer(
            ("The user plays the cello.", "preferences", [1]),
            ("The user plays the cello.", "preferences", [3]),
        )
    )

    report = harvester.harvest(conversation.id)

    assert report is not None and report.reinforced == ()
    [cello] = report.added
    assert _counts(memories) == {"The user plays the cello.": 1}
    assert memories.store.sources(cello.id).message_ids == (said[0].id, said[2].id)


# -- killed for real ------------------------------------------------------------
FACTS = [f"The user keeps {n} blue kites in locker {100 + n}." for n in range(1, 9)]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """A store of four conversations, each saying some of ``FACTS`` once,
    and how many conversations say each fact."""
    folder = tmp_path_factory.mktemp("harvest-kill-base")
    path = folder / "reverie.sqlite3"
    chance = random.Random(15)
    said: dict[str, int] = {}
    with open_database(path) as database:
        store = ConversationStore(database)
        for n in range(4):
            conversation = store.create(f"c{n}")
            for fact in chance.sample(FACTS, 5):
                store.add_message(conversation.id, "user", fact)
                store.add_message(conversation.id, "assistant", "Noted.")
                said[fact] = said.get(fact, 0) + 1
    return path, said


def _seen_counts(database: Database) -> dict[str, int]:
    rows = database.fetch_all("SELECT content, reinforcement_count FROM memories")
    return {row[0]: row[1] for row in rows}


@pytest.mark.slow
def test_a_harvest_killed_anywhere_counts_every_fact_as_often_as_it_was_said(
    base: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    path, said = base
    whole = tmp_path / "whole" / "reverie.sqlite3"
    whole.parent.mkdir()
    shutil.copy(path, whole)
    finished = run_child(CHILD, whole, whole.parent, 0)
    assert finished.returncode == 0, finished.stderr
    run = heard(finished.stdout)
    statements, in_transactions = run.count, run.inside
    with open_database(whole) as database:
        assert _seen_counts(database) == said  # no kill: the count to expect

    chance = random.Random(20261124)
    # Half the kills inside a write transaction, half anywhere at all.
    kills = chance.sample(in_transactions, KILLS // 2)
    kills += chance.sample(sorted(set(range(1, statements)) - set(kills)), KILLS - len(kills))
    wrong: list[str] = []
    for trial, kill_at in enumerate(sorted(kills)):
        copy = tmp_path / f"kill-{trial}" / "reverie.sqlite3"
        killed_in_copy(path, copy, CHILD, copy.parent, kill_at=str(kill_at))
        with open_database(copy) as database:
            assert database.fetch_value("PRAGMA integrity_check") == "ok"
            harvest_all(database, PromptLibrary(copy.parent / "prompts"))
            counts = _seen_counts(database)
        if counts != said:
            wrong.append(f"killed at statement {kill_at} of {statements}: {counts}")
    assert wrong == []
