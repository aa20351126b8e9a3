"""Tests of tasks and skills in chat: the active tasks and the skills' table
of contents in the system prompt, and the tools used inside a turn.

A real database and broker; a scripted model writes the calls a model would.
"""

from __future__ import annotations

import json
from datetime import time

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import ChatSettings, ModelSettings
from desktop.core.chat.service import ChatService
from desktop.core.chat.tools.memory import memory_tools
from desktop.core.chat.tools.toolbox import Toolbox
from desktop.core.db import ConversationStore
from desktop.core.db.message_kinds import TOOL_CALL_START
from desktop.core.db.schedules import Daily
from desktop.core.memory.service import MemoryService
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.fakes import Recorder, ScriptedChatModel


def _answer(chat: ChatService, text: str) -> tuple[int, Recorder]:
    conversation = chat.new_conversation()
    recorder = Recorder()
    turn = chat.send(conversation.id, text)
    turn.seed = False
    chat.run(turn, recorder)
    return conversation.id, recorder


def test_the_active_tasks_are_in_the_system_prompt_with_their_schedule(
    chat: ChatService, task_service: TaskService, store: ConversationStore
) -> None:
    conversation = store.create("tasks").id
    walk = task_service.add(
        "Walk", conversation_id=conversation, priority=2, schedule=Daily(time(9))
    )
    rent = task_service.add("Pay the rent", conversation_id=conversation, priority=1)
    task_service.pause(task_service.add("Flute", conversation_id=conversation).id)

    system = chat.assembled(conversation).system

    assert (
        "The user's active tasks (priority, id, text, schedule):\n"
        f"[P1] #{rent.id}: Pay the rent\n"
        f"[P2] #{walk.id}: Walk [daily at 09:00]"
    ) in system
    assert "Flute" not in system


def test_the_skills_table_of_contents_is_in_the_system_prompt(
    chat: ChatService, skill_library: SkillLibrary, store: ConversationStore
) -> None:
    conversation = store.create("skills").id
    assert "Skills: none yet." in chat.assembled(conversation).system

    skill_library.create("Brew tea", "Brew the user's tea\n1. Boil water.\n")
    skill_library.create("Plan the week", "Plan the week on Sunday\n", draft=True)

    system = chat.assembled(conversation).system
    assert "Skills you can load (name: what it is for)." in system
    assert "- Brew tea: Brew the user's tea" in system
    assert "Plan the week" not in system  # a draft waits for the user
    assert "Boil water" not in system  # only the summary; read_skill loads the rest


def test_the_table_of_contents_keeps_to_the_configured_size(
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    skill_library: SkillLibrary,
) -> None:
    chat = ChatService(
        store,
        memories,
        broker,
        prompts,
        ModelSettings(),
        ChatSettings(skills_chars=200),
        toolbox=Toolbox(memory_tools(memories), prompts),
        skills=skill_library,
    )
    for number in range(20):
        skill_library.create(f"skill {number:02}", f"What skill number {number} is for\n")

    assembled = chat.assembled(store.create("skills").id)

    listed = [line for line in assembled.system.splitlines() if line.startswith("- skill ")]
    assert 0 < len(listed) < 20
    assert len("\n".join(listed)) <= 200
    assert assembled.oversized == ()  # chosen to fit, never cut or condensed


def test_a_task_added_in_a_turn_belongs_to_it_and_reaches_the_next_prompt(
    chat: ChatService, model: ScriptedChatModel, task_service: TaskService
) -> None:
    call = {
        "name": "task",
        "arguments": {"action": "add", "text": "Water the plants", "schedule": "daily at 09:00"},
    }
    model.queue(f"Noted. {TOOL_CALL_START}{json.dumps(call)}", "I will remind you at nine.")

    conversation_id, recorder = _answer(chat, "Remind me to water the plants at nine every day.")

    [task] = task_service.list()
    assert (task.conversation_id, task.text) == (conversation_id, "Water the plants")
    [called] = [value for kind, value in recorder.events if kind == "tool"]
    assert called.result.summary == f"Task #{task.id} added: Water the plants [daily at 09:00]"
    second_prompt = model.requests[1][0]
    assert f"[P5] #{task.id}: Water the plants [daily at 09:00]" in second_prompt[0].content


def test_a_skill_read_in_a_turn_is_recorded_for_its_conversation(
    chat: ChatService, model: ScriptedChatModel, skill_library: SkillLibrary
) -> None:
    skill = skill_library.create("Brew tea", "Brew the user's tea\n1. Boil water.\n")
    call = {"name": "read_skill", "arguments": {"name": "Brew tea"}}
    model.queue(f"{TOOL_CALL_START}{json.dumps(call)}", "Boil the water first.")

    conversation_id, _ = _answer(chat, "How do I make my tea?")

    assert [use.conversation_id for use in skill_library.uses(skill.id)] == [conversation_id]
    assert "1. Boil water." in model.requests[1][0][-1].content  # the tool's result
