"""The task pass with the real SmolLM2 and more open tasks than its context
holds (round 12): shown in parts that fit, never rolled back for it, and the
old completed tasks purged all the same."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Daily
from desktop.core.db.tasks import TaskStore
from desktop.core.dreaming.control import DreamControl
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.task_review import TaskPass
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel

TASKS = 120
CONTEXT = 4096
"""The app's default context: 120 tasks take some 4,500 tokens."""
DAY = 86_400.0


@pytest.mark.model
@pytest.mark.slow
def test_120_open_tasks_are_reviewed_in_parts_that_fit_the_real_models_context(
    fresh_smollm2: Callable[[], LlamaChatModel],
    smollm2_path: Path,
    database: Database,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    tasks = TaskService(TaskStore(database), ZoneInfo("Europe/Berlin"))
    conversations = ConversationStore(database)
    chores = conversations.create("chores")
    for n in range(TASKS):
        tasks.add(
            f"Reply to the email from the landlord about the heating, item {n}",
            conversation_id=chores.id,
            schedule=Daily(time(9, n % 60)),
        )
    old = tasks.add("Buy a lamp", conversation_id=chores.id)
    tasks.complete(old.id)
    database._execute(  # completed 40 days ago: due for the purge
        "UPDATE tasks SET completed_at = completed_at - 40 * ? WHERE id = ?", (DAY, old.id)
    )
    conversations.add_message(chores.id, "user", "I replied to the landlord about item 3, done.")
    broker = InferenceBroker()
    broker.start()
    asked: list[tuple[list[ChatMessage], GenerationOptions]] = []
    try:
        broker.load_chat_model(lambda: LlamaChatModel(smollm2_path, context_length=CONTEXT)).result(
            timeout=60
        )
        chat = broker.chat

        def recorded(
            messages: Sequence[ChatMessage], options: GenerationOptions, *rest: Any
        ) -> Any:
            asked.append((list(messages), options))
            return chat(messages, options, *rest)

        broker.chat = recorded  # type: ignore[method-assign,assignment]  # seeing what the model is asked
        dreamer = Dreamer(
            database,
            MemoryService.over(database, broker, prompts),
            broker,
            prompts,
            DreamSettings(quiet_seconds=0),
            [TaskPass(tasks, conversations)],
            snapshots_dir=tmp_path / "snapshots",
            working_set_file=tmp_path / "MEMORIES.md",
            tasks=tasks,
        )

        report = dreamer.run("manual", DreamControl())
    finally:
        broker.stop()

    [entry] = dreamer.dreams.log_entries(report.run.id)
    assert entry.outcome in ("applied", "nothing"), entry.message
    assert tasks.get(old.id).status == "deleted"  # type: ignore[union-attr]
    assert len(asked) >= 2  # 120 tasks are more than one prompt holds
    shown = [int(n) for m, _ in asked for n in re.findall(r"heating, item (\d+)", m[-1].content)]
    assert sorted(shown) == list(range(TASKS))
    counter = fresh_smollm2()  # the same tokenizer and chat template
    for messages, options in asked:  # with room for the whole answer
        assert len(counter.prompt_tokens(messages)) + options.max_tokens <= CONTEXT
