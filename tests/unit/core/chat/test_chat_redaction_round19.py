"""Round 19: a value named a secret in the next message was taken out of
the messages and memories only: the task made of the first message, its
routine, and a skill written with the value (its file too) kept it."""

from __future__ import annotations

from datetime import time

from desktop.core.chat.service import ChatService
from desktop.core.db import ConversationStore
from desktop.core.db.schedules import Daily
from desktop.core.skills.library import SkillLibrary
from desktop.core.tasks.service import TaskService

VALUE = "kettle-moon-42"


def test_a_value_named_later_leaves_the_tasks_and_skills_made_with_it(
    chat: ChatService,
    store: ConversationStore,
    task_service: TaskService,
    skill_library: SkillLibrary,
) -> None:
    conversation = store.create("Anna").id
    chat.send(conversation, f"remind me tonight to text Anna {VALUE}")
    task = task_service.add(
        f"Text Anna {VALUE}",
        conversation_id=conversation,
        schedule=Daily(time(20)),
        ai_prompt=f"Remind the user to text Anna {VALUE}",
    )
    skill = skill_library.create("Texting Anna", f"Texting Anna\nSend Anna {VALUE} when asked.")
    deleted = skill_library.create("Old Anna", f"Old Anna\n{VALUE}")
    skill_library.delete(deleted.id)
    other = task_service.add("Water the plants", conversation_id=conversation)

    chat.send(conversation, "^ that's our wifi password btw, don't tell anyone")

    kept = task_service.get(task.id)
    assert kept is not None and VALUE not in kept.text and VALUE not in (kept.ai_prompt or "")
    assert "[redacted password]" in kept.text
    assert VALUE not in skill_library.read(skill.id).text
    for made in (skill, deleted):
        now = skill_library.store.get(made.id)
        assert now is not None and VALUE not in skill_library.path(now).read_text()
    assert task_service.get(other.id) == other  # nothing else changed
