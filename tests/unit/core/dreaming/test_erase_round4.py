"""Erasure defects found by the fourth round of attacks (issue 15).

- A dream change made from a conversation the user then erases is
  retracted and its text blanked; a draft skill made only from erased
  conversations goes (row and file) unless the user accepted it.
- "Delete now" on a memory takes its verbatim copy out of another
  conversation's ``search_memory`` result (the message and its index).
- A harvest waiting on the model stores nothing once its conversation is
  erased or deleted.
- A full disk while compacting after the rows were erased says they are
  gone and that compacting is finished later, not "Nothing was changed".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import MemorySettings
from desktop.core.base.tokens import TokenCounter
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database, DiskFull
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.db.purge import ERASED, Erasable, PurgeStore
from desktop.core.db.skills import EVERY_STATUS
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.erasure import UNFINISHED_SUFFIX, ErasedNotFinished
from desktop.core.dreaming.snapshots import take_snapshot
from desktop.core.memory.harvest import Harvester
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage
from tests.dreams import make_dreamer
from tests.erasers import eraser_for
from tests.fakes import HashingEmbedder, Recorder, ScriptedChatModel

DRAFT_MARKER = "brindlemoss"
DRAFT_TEXT = "Sorting the Brindlemoss receipts\n1. Gather the slips.\n2. File them in the ledger."


class ByPrompt(ScriptedChatModel):
    """Answers each dream pass by what its prompt asks."""

    task_text = ""

    def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
        asked = messages[-1].content
        if "several conversations" in asked:
            return json.dumps({"skills": [{"name": "receipt sorting", "text": DRAFT_TEXT}]})
        if "What the user said recently" in asked and self.task_text:
            return json.dumps(
                {"actions": [{"task": 1, "action": "update", "text": self.task_text}]}
            )
        return super()._next_reply(messages)


@pytest.fixture
def model() -> ScriptedChatModel:
    return ByPrompt(default='{"toSave": [], "toDelete": []}')


def files_holding(marker: str, folders: Sequence[Path]) -> list[str]:
    needle = marker.encode()
    return [
        str(path)
        for folder in folders
        for path in folder.rglob("*")
        if path.is_file() and needle in path.read_bytes().lower()
    ]


def two_conversations(store: ConversationStore, said: str) -> list[int]:
    ids = []
    for title in ("monday", "friday"):
        conversation = store.create(title)
        store.add_message(conversation.id, "user", said)
        ids.append(conversation.id)
    return ids


def dream(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    folder: Path,
    *,
    tasks: TaskService | None = None,
    skills: SkillLibrary | None = None,
) -> None:
    dreamer = make_dreamer(database, memories, broker, prompts, folder, tasks=tasks, skills=skills)
    dreamer.run("manual", DreamControl())


@pytest.fixture
def drafted(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    skill_library: SkillLibrary,
    store: ConversationStore,
    user_dirs: AppPaths,
) -> list[int]:
    """Two conversations a dream drafted the skill "receipt sorting" from."""
    ids = two_conversations(store, "Sort my brindlemoss receipts into the ledger please.")
    for _ in range(2):  # the second dream's snapshot copies the draft
        dream(database, memories, broker, prompts, user_dirs.data_dir, skills=skill_library)
    assert [s.name for s in skill_library.list(statuses=("draft",))] == ["receipt sorting"]
    assert files_holding(DRAFT_MARKER, [user_dirs.snapshots_dir]) != []
    [payload] = [json.loads(change[2]) for change in draft_changes(database)]
    assert payload["conversations"] == ids  # its provenance, recorded when it was planned
    return ids


def draft_changes(database: Database) -> list[tuple[str, str, str, str]]:
    return [
        (r["status"], r["summary"], r["payload"], r["after"])
        for r in database.fetch_all(
            "SELECT status, summary, payload, after FROM dream_changes WHERE kind = 'skill_draft'"
        )
    ]


def test_a_skill_draft_made_only_from_erased_conversations_goes_with_them(
    database: Database,
    skill_library: SkillLibrary,
    user_dirs: AppPaths,
    drafted: list[int],
) -> None:
    erased = eraser_for(database, user_dirs).erase_conversations(drafted)
    assert erased.conversations == 2
    [(_, summary, payload, after)] = draft_changes(database)
    assert summary == ERASED
    assert json.loads(payload)["text"] == ERASED
    assert DRAFT_MARKER not in (payload + after).lower()
    assert skill_library.list(statuses=EVERY_STATUS) == []
    assert files_holding(DRAFT_MARKER, [database.path.parent, user_dirs.data_dir]) == []


def test_a_draft_stays_while_one_of_its_conversations_does(
    database: Database,
    skill_library: SkillLibrary,
    user_dirs: AppPaths,
    drafted: list[int],
) -> None:
    eraser_for(database, user_dirs).erase_conversations(drafted[:1])
    [(_, summary, payload, _)] = draft_changes(database)
    assert (summary, json.loads(payload)["text"]) == (ERASED, ERASED)
    [still] = skill_library.list(statuses=EVERY_STATUS)
    assert (still.name, still.status) == ("receipt sorting", "draft")
    eraser_for(database, user_dirs).erase_conversations(drafted[1:])
    assert skill_library.list(statuses=EVERY_STATUS) == []
    assert files_holding(DRAFT_MARKER, [user_dirs.skills_dir]) == []


def test_an_accepted_draft_is_the_users_and_stays(
    database: Database,
    skill_library: SkillLibrary,
    user_dirs: AppPaths,
    drafted: list[int],
) -> None:
    [draft] = skill_library.list(statuses=("draft",))
    skill_library.accept(draft.id)
    eraser_for(database, user_dirs).erase_conversations(drafted)
    [kept] = skill_library.list()
    assert kept.name == "receipt sorting"
    assert DRAFT_MARKER in skill_library.read(kept.id).text.lower()
    [(_, summary, _, _)] = draft_changes(database)
    assert summary == ERASED


def test_a_rejected_draft_goes_too(
    database: Database,
    skill_library: SkillLibrary,
    user_dirs: AppPaths,
    drafted: list[int],
) -> None:
    [draft] = skill_library.list(statuses=("draft",))
    skill_library.reject(draft.id)
    eraser_for(database, user_dirs).erase_conversations(drafted)
    assert skill_library.list(statuses=EVERY_STATUS) == []
    assert files_holding(DRAFT_MARKER, [user_dirs.skills_dir]) == []


def test_a_draft_an_erasure_cut_short_left_goes_at_the_next_erasure(
    database: Database,
    skill_library: SkillLibrary,
    user_dirs: AppPaths,
    drafted: list[int],
) -> None:
    """A kill after the rows went, before the draft did: the next erasure, whatever it is
    asked, finds the draft from its provenance and finishes."""
    [draft] = skill_library.list(statuses=("draft",))
    PurgeStore(database).erase(Erasable(conversation_ids=tuple(drafted)), 0.0)  # the rows only
    assert skill_library.store.get(draft.id) is not None
    eraser = eraser_for(database, user_dirs)
    eraser.erase_expired()  # nothing due: it still finishes the draft
    assert skill_library.store.get(draft.id) is None
    assert files_holding(DRAFT_MARKER, [user_dirs.skills_dir]) == []


def test_a_task_rewrite_made_from_an_erased_conversation_is_blanked(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ByPrompt,
    task_service: TaskService,
    store: ConversationStore,
    user_dirs: AppPaths,
) -> None:
    task = task_service.add("Buy stamps", conversation_id=None)
    conversation = store.create("errands")
    store.add_message(conversation.id, "user", "The stamps are for the Gorsewick parcel.")
    model.task_text = "Buy stamps for the Gorsewick parcel"
    dream(database, memories, broker, prompts, user_dirs.data_dir, tasks=task_service)
    [row] = database.fetch_all("SELECT payload FROM dream_changes WHERE kind = 'task_update'")
    assert json.loads(row["payload"])["conversations"] == [conversation.id]
    eraser_for(database, user_dirs).erase_conversations([conversation.id])
    [row] = database.fetch_all(
        "SELECT summary, payload FROM dream_changes WHERE kind = 'task_update'"
    )
    assert row["summary"] == ERASED
    assert json.loads(row["payload"])["text"] == ERASED
    assert json.loads(row["payload"])["task"] == task.id


# -- a memory quoted whole in a tool's result ----------------------------------


def test_delete_now_takes_a_memory_out_of_a_search_result_in_another_conversation(
    chat: ChatService,
    memories: MemoryService,
    model: ScriptedChatModel,
    store: ConversationStore,
    database: Database,
    user_dirs: AppPaths,
) -> None:
    memory = memories.remember(
        "The velvetroot bike lock hangs under the desk lamp",
        source_kind="user_explicit",
        actor="user",
    ).memory
    conversation = store.create("Bike")
    call = {"name": "search_memory", "arguments": {"query": "bike lock"}}
    model.queue(f"Let me look. {TOOL_CALL_START}{json.dumps(call)}", "Under the desk lamp.")
    turn = chat.send(conversation.id, "Where did I put my bike lock?")
    turn.seed = False
    chat.run(turn, Recorder())
    [tool] = [m for m in store.messages(conversation.id) if m.role == "tool"]
    assert "velvetroot" in tool.content.lower()
    eraser_for(database, user_dirs).erase_memories([memory.id])
    [tool] = [m for m in store.messages(conversation.id) if m.role == "tool"]
    assert json.loads(tool.content) == {"memories": [{"id": memory.id, "memory": ERASED}]}
    assert store.search_messages("velvetroot") == []
    assert files_holding("velvetroot", [database.path.parent]) == []


# -- a harvest that outlives its conversation --------------------------------


@pytest.mark.parametrize("how", ["erase", "delete"])
def test_a_harvest_stores_nothing_from_a_conversation_gone_while_it_asked(
    how: str,
    database: Database,
    prompts: PromptLibrary,
    store: ConversationStore,
    user_dirs: AppPaths,
) -> None:
    eraser = eraser_for(database, user_dirs)
    conversation = store.create("gym")
    store.add_message(conversation.id, "user", "My locker at the quellford gym is number 42.")
    store.add_message(conversation.id, "assistant", "Noted.")
    gone: dict[str, Callable[[], object]] = {
        "erase": lambda: eraser.erase_conversations([conversation.id]),
        "delete": lambda: store.delete(conversation.id),
    }

    class GoneWhileThinking(ScriptedChatModel):
        def _next_reply(self, messages: Sequence[ChatMessage]) -> str:
            if "quellford" in messages[-1].content:
                gone[how]()  # the user acts while the model reads
            return super()._next_reply(messages)

    fact = {"fact": "The user's locker at the quellford gym is number 42.", "category": "personal"}
    model = GoneWhileThinking(default=json.dumps({"facts": [{**fact, "messages": [1]}]}))
    broker = InferenceBroker()
    broker.start()
    try:
        broker.load_chat_model(lambda: model).result(timeout=5)
        broker.load_embedder(HashingEmbedder).result(timeout=5)
        memories = MemoryService.over(database, broker, prompts)
        harvester = Harvester(
            store,
            memories,
            broker,
            prompts,
            TokenCounter(broker),
            context_length=100_000,
            settings=MemorySettings(harvest_after_messages=1),
        )
        assert harvester.harvest(conversation.id) is None
    finally:
        broker.stop()
    assert database.fetch_value("SELECT count(*) FROM memories") == 0
    left = store.get(conversation.id)
    assert left is None or left.harvested_through_message_id is None


# -- a full disk while compacting ------------------------------------------------


def test_a_full_disk_while_compacting_says_the_items_are_gone(
    database: Database,
    store: ConversationStore,
    user_dirs: AppPaths,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conversation = store.create("quince")
    store.add_message(conversation.id, "user", "The quince jam recipe is in the blue folder.")

    def disk_full(self: PurgeStore) -> object:
        raise DiskFull("Reverie cannot write: database or disk is full. Nothing was changed.")

    monkeypatch.setattr(PurgeStore, "compact", disk_full)
    eraser = eraser_for(database, user_dirs)
    with pytest.raises(ErasedNotFinished) as raised:
        eraser.erase_conversations([conversation.id])
    said = str(raised.value)
    assert "Nothing was changed" not in said
    assert "Erased 1 conversation" in said
    assert "later" in said
    assert store.get(conversation.id) is None
    assert Path(f"{database.path}{UNFINISHED_SUFFIX}").exists()  # the next erasure finishes it
    monkeypatch.undo()
    assert eraser.erase_expired().finished_earlier
    assert not Path(f"{database.path}{UNFINISHED_SUFFIX}").exists()


def test_a_dream_report_says_the_expired_items_are_gone_when_compacting_failed(
    database: Database,
    store: ConversationStore,
    user_dirs: AppPaths,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conversation = store.create("quince")
    store.add_message(conversation.id, "user", "The quince jam recipe is in the blue folder.")
    store.delete(conversation.id)

    def disk_full(self: PurgeStore) -> object:
        raise DiskFull("Reverie cannot write: database or disk is full. Nothing was changed.")

    monkeypatch.setattr(PurgeStore, "compact", disk_full)
    eraser = eraser_for(database, user_dirs, kept_days=0)
    said = eraser.erase_after_dream()
    assert said.startswith("Erased 1 conversation"), said
    assert "not erased" not in said


def test_a_full_disk_while_purging_the_snapshots_says_the_items_are_gone(
    database: Database,
    store: ConversationStore,
    user_dirs: AppPaths,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conversation = store.create("quince")
    store.add_message(conversation.id, "user", "The quince jam recipe is in the blue folder.")
    take_snapshot(database, user_dirs.snapshots_dir, "20270101-010000", skills_dir=None, keep=3)

    def disk_full(self: PurgeStore, path: Path, items: Erasable) -> bool:
        raise DiskFull("Reverie cannot write: database or disk is full. Nothing was changed.")

    monkeypatch.setattr(PurgeStore, "purge_copy", disk_full)
    eraser = eraser_for(database, user_dirs)
    with pytest.raises(ErasedNotFinished) as raised:
        eraser.erase_conversations([conversation.id])
    assert str(raised.value).startswith("Erased 1 conversation for good.")
    assert "snapshot" in str(raised.value)
    assert "Nothing was changed" not in str(raised.value)
    assert files_holding("quince", [user_dirs.snapshots_dir]) != []
    monkeypatch.undo()
    assert eraser.erase_expired().snapshots == 1
    assert files_holding("quince", [user_dirs.snapshots_dir]) == []
