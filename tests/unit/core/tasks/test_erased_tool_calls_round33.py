"""Round 33: a task, a skill or a memory erased for good stayed word for
word in the chat's tool calls that made, changed, read or listed it.

A call stays in its conversation as the record of what was done, its
result too ("Task #1 added: …"); round 32 took an erased item's text out
of a result that quoted it as it read when erased.  What the call said
stayed: the arguments the reply wrote after its ``<tool_call>`` (shown
as the call, read by the model, in the word index), a task's text before
it was reworded (in the call that added it and its result), a memory as
the search tool quoted it (made safe for the prompt), a skill's name and
the text ``add_skill`` wrote, and a compaction's summary quoting any of
them.  The user's own messages are theirs and stay."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from desktop.core.base.paths import AppPaths
from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore, Database, Message
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.db.purge import ERASED
from desktop.core.db.workers import NewWorker, WorkerStore
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from tests.erasers import eraser_for
from tests.fakes import Recorder, ScriptedChatModel

MARK = "Quillbrook"


@dataclass(frozen=True)
class Talk:
    """A conversation where the user speaks and the scripted model calls a tool."""

    chat: ChatService
    model: ScriptedChatModel
    conversation: int

    def turn(self, said: str, name: str, arguments: dict[str, Any]) -> None:
        """The user says *said*; the model calls *name* with *arguments*, then answers."""
        call = json.dumps({"name": name, "arguments": arguments})
        self.model.queue(f"Sure. {TOOL_CALL_START}{call}", "Done.")
        turn = self.chat.send(self.conversation, said)
        turn.seed = False
        self.chat.run(turn, Recorder())


@pytest.fixture
def talk(chat: ChatService, model: ScriptedChatModel) -> Talk:
    return Talk(chat, model, chat.new_conversation(False).id)


def _records(store: ConversationStore, conversation_id: int) -> list[Message]:
    """The calls the replies made and their results, not what the user said."""
    return [
        m
        for m in store.messages(conversation_id, include_archived=True)
        if m.role == "tool" or TOOL_CALL_START in m.content
    ]


def _holding(messages: list[Message], words: str) -> list[str]:
    return [
        f"{m.role} #{m.id}"
        for m in messages
        if words in m.content or words in json.dumps(m.metadata, ensure_ascii=False)
    ]


def _summarised(store: ConversationStore, conversation_id: int, summary: str) -> None:
    first = store.messages(conversation_id)[0]
    store.apply_compaction(conversation_id, summary, first.id)


def _summary(store: ConversationStore, conversation_id: int) -> str | None:
    conversation = store.get(conversation_id)
    assert conversation is not None
    return conversation.summary


def test_an_erased_tasks_words_go_from_the_calls_that_added_reworded_and_listed_it(
    talk: Talk,
    store: ConversationStore,
    task_service: TaskService,
    database: Database,
    user_dirs: AppPaths,
) -> None:
    conversation = talk.conversation
    talk.turn(
        f"Add a task: buy {MARK} paint for the shed",
        "task",
        {"action": "add", "text": f"Buy {MARK} paint for the shed"},
    )
    [task] = task_service.list()
    kept = task_service.add("Call the plumber", conversation_id=conversation)
    talk.turn(
        f"Change the {MARK} paint task: {MARK} varnish instead",
        "task",
        {"action": "update", "id": task.id, "text": f"Buy {MARK} varnish for the shed"},
    )
    talk.turn("What are my tasks?", "task", {"action": "list"})
    _summarised(store, conversation, f"The user asked for “Buy {MARK} paint for the shed”.")
    assert (
        len(_holding(_records(store, conversation), MARK)) == 5
    )  # every call and result, not the listing call
    task_service.delete(task.id)
    now = [task_service.now().timestamp() + 31 * 86400]

    # Its restore window over: what the eraser erases on its own.
    eraser_for(database, user_dirs, clock=lambda: now[0]).erase_expired()

    records = _records(store, conversation)
    assert _holding(records, MARK) == []
    assert records[0].content == (
        f'Sure. {TOOL_CALL_START}{{"name": "task", "arguments": {{"action": "add", "text": '
        f'"{ERASED}"}}}}'
    )
    assert (records[1].metadata or {})["summary"] == f"Task #{task.id} added: {ERASED}"
    listed = json.loads(records[-1].content)["tasks"]
    assert [t["text"] for t in listed] == [ERASED, kept.text]  # the other task's stays
    assert _summary(store, conversation) == f"The user asked for “{ERASED}”."
    # What the user said stays theirs.
    said = [m.content for m in store.messages(conversation, include_archived=True)]
    assert f"Add a task: buy {MARK} paint for the shed" in said
    # The word index finds the user's message alone.
    found = database.fetch_all("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'varnish'")
    assert [row[0] for row in found] == [records[2].id - 1]


def test_an_erased_skills_name_and_text_go_from_the_calls_that_wrote_read_and_listed_it(
    talk: Talk,
    store: ConversationStore,
    skill_library: SkillLibrary,
    database: Database,
    user_dirs: AppPaths,
) -> None:
    conversation = talk.conversation
    name, text = f"{MARK} glaze", f"Mix the {MARK} glaze: two parts ash, one part clay."
    talk.turn(
        "Save that as a skill.",
        "add_skill",
        {"name": name, "text": text},
    )
    talk.turn("How do I make the glaze?", "read_skill", {"name": name})
    talk.turn("What skills do you have?", "list_skills", {})
    _summarised(store, conversation, f"Reverie saved the skill {name} and read it.")
    [skill] = skill_library.list()
    assert len(_holding(_records(store, conversation), MARK)) == 5  # not the listing call
    skill_library.delete(skill.id)

    eraser_for(database, user_dirs, skills=skill_library).erase_skills([skill.id])

    assert _holding(_records(store, conversation), MARK) == []
    assert _summary(store, conversation) == f"Reverie saved the skill {ERASED} and read it."
    assert [
        m.content for m in store.messages(conversation, include_archived=True) if m.role == "user"
    ] == [
        "Save that as a skill.",
        "How do I make the glaze?",
        "What skills do you have?",
    ]


def test_an_erased_memory_goes_from_the_call_that_remembered_it_and_a_search_that_found_it(
    talk: Talk,
    store: ConversationStore,
    memories: MemoryService,
    database: Database,
    user_dirs: AppPaths,
) -> None:
    conversation = talk.conversation
    talk.turn(
        f"My dog is called {MARK}.",
        "append_memory",
        {"content": f"The user's dog is called {MARK}.", "category": "people"},
    )
    talk.turn("What is my dog called?", "search_memory", {"query": "dog"})
    [memory] = memories.store.listed()
    assert len(_holding(_records(store, conversation), MARK)) == 3  # not the search call

    eraser_for(database, user_dirs).erase_memories([memory.id])

    assert _holding(_records(store, conversation), MARK) == []


def test_a_background_workers_call_and_its_result_lose_an_erased_tasks_words(
    talk: Talk, task_service: TaskService, database: Database, user_dirs: AppPaths
) -> None:
    task = task_service.add(f"Book the {MARK} ferry", conversation_id=talk.conversation)
    workers = WorkerStore(database)
    with workers.transaction() as tx:
        worker = workers.add(
            NewWorker(talk.conversation, "Check my tasks", "minimal", (), 0, 60), tx
        )
    call = {"name": "task", "arguments": {"action": "list"}}
    workers.add_message(worker, "assistant", f"Looking. {TOOL_CALL_START}{json.dumps(call)}")
    listed = {"tasks": [{"id": task.id, "text": task.text, "priority": 5, "status": "active"}]}
    workers.add_message(worker, "tool", json.dumps(listed))
    update = {"name": "task", "arguments": {"action": "update", "id": task.id, "text": task.text}}
    workers.add_message(worker, "assistant", f"Done. {TOOL_CALL_START}{json.dumps(update)}")
    task_service.delete(task.id)

    eraser_for(database, user_dirs).erase_tasks([task.id])

    said = [m.content for m in workers.messages(worker)]
    assert [MARK in text for text in said] == [False, False, False]
    assert said[2] == f"Done. {TOOL_CALL_START}{json.dumps(update).replace(task.text, ERASED)}"
