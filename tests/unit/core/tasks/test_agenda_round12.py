"""The agenda review of a conversation with more tasks than the model's
context holds (round 12): the most urgent that fit are reviewed, with the
newest messages, instead of the review failing every time."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.tokens import MESSAGE_OVERHEAD
from desktop.core.db import ConversationStore, Database
from desktop.core.db.tasks import TaskStore
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.interfaces import ChatMessage, Chunk, GenerationOptions, ShouldStop
from models.llama_chat import ContextOverflow
from tests.fakes import ScriptedChatModel
from tests.reviewers import reviewer_for

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 22, 12, tzinfo=BERLIN)
TASK = "Reply to the email from the landlord about the heating and the kitchen window, item {n}"


class TightModel(ScriptedChatModel):
    """Refuses a prompt its context cannot hold, as llama.cpp does (a word is a token here)."""

    def stream(
        self,
        messages: Sequence[ChatMessage],
        options: GenerationOptions,
        should_stop: ShouldStop | None = None,
    ) -> Iterator[Chunk]:
        tokens = sum(self.count_tokens(m.content) + MESSAGE_OVERHEAD for m in messages)
        if tokens + options.max_tokens > self.context_length:
            raise ContextOverflow(tokens, self.context_length)
        yield from super().stream(messages, options, should_stop)


@pytest.fixture
def model() -> ScriptedChatModel:
    return TightModel()


def test_a_conversation_with_more_tasks_than_fit_reviews_the_most_urgent(
    database: Database,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    tasks = TaskService(TaskStore(database, clock=NOW.timestamp), BERLIN, clock=lambda: NOW)
    chat = store.create("chores").id
    made = [
        tasks.add(TASK.format(n=n), conversation_id=chat, priority=1 + n % 10) for n in range(300)
    ]
    for n in range(30):
        store.add_message(chat, "user", f"Some words about the flat, note {n}. " * 8)
    store.add_message(chat, "user", "I replied to the landlord about item 0.")
    replied = {"action": "complete", "task": 1, "evidence": "I replied to the landlord"}
    model.queue(json.dumps({"actions": [replied]}))
    reviewer = reviewer_for(tasks, store, None, broker, prompts)

    review = reviewer.review(chat)

    [(messages, options)] = model.requests
    asked = messages[-1].content
    assert "I replied to the landlord about item 0." in asked  # the newest message
    shown = [int(n) for n in re.findall(r"kitchen window, item (\d+)", asked)]
    assert 0 < len(shown) < 300
    left = set(range(300)) - set(shown)
    assert max(made[n].priority for n in shown) <= min(made[n].priority for n in left)
    assert options.json_schema is not None
    numbers = options.json_schema["$defs"]["CompleteTask"]["properties"]["task"]["enum"]
    assert numbers == list(range(1, len(shown) + 1))
    assert len(review.done) == 1
    assert review.notice is not None and f"is #{made[0].id} " in review.notice.content
