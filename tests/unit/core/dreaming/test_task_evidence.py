"""A dream completes a task only on the user's own words, quoted and found.

The small model says a task is done and quotes what the user said; the host
looks for the quote in what the user typed after the task was made, and
reads it in its sentence.  No quote, a quote nobody typed, words of
Reverie's, a command, an older message, or words cut out of a denial, a
question, a condition or a plan, or words that do not positively say it is
done: the task stays open and the report says why.  Words that only might
say so (a hedge, a done word not naming the task) wait for the user's
approval.  (The
phrasings themselves are tested on ``said_done``, in
tests/unit/core/tasks/test_task_evidence.py.)
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from desktop.core.db import Conversation, ConversationStore, Database
from desktop.core.db.conversations import MessageRole
from desktop.core.dreaming.control import DreamControl
from desktop.core.tasks.service import TaskService
from tests.fakes import ScriptedChatModel
from tests.unit.core.dreaming.conftest import Dreaming

TASK = "File the taxes"


@pytest.fixture
def dreaming(make_dreaming: Callable[..., Dreaming], tasks: TaskService) -> Dreaming:
    return make_dreaming(tasks=tasks)


@pytest.fixture
def store(database: Database, dreaming: Dreaming) -> ConversationStore:
    return ConversationStore(database, clock=dreaming.clock)


@pytest.fixture
def conversation(store: ConversationStore) -> Conversation:
    return store.create("c")


def _complete(evidence: str | None) -> str:
    action: dict[str, object] = {"task": 1, "action": "complete"}
    if evidence is not None:
        action["evidence"] = evidence
    return json.dumps({"actions": [action]})


def _tasks_log(dreaming: Dreaming, run_id: int) -> str:
    [entry] = [e for e in dreaming.dreamer.dreams.log_entries(run_id) if e.pass_name == "tasks"]
    return entry.message


def _status(tasks: TaskService, task_id: int) -> str:
    task = tasks.get(task_id)
    assert task is not None
    return task.status


@pytest.mark.parametrize(
    "evidence",
    [
        None,  # no quote at all
        "",  # an empty one
        "I filed the taxes",  # words the user never typed
        "done",  # one word: could be about anything
    ],
)
def test_a_completion_without_the_users_words_leaves_the_task_open_and_says_so(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    store: ConversationStore,
    conversation: Conversation,
    evidence: str | None,
) -> None:
    taxes = tasks.add(TASK, conversation_id=conversation.id)
    dreaming.clock.advance(60)
    store.add_message(conversation.id, "user", "done. What is the weather like today?")
    model.queue(_complete(evidence))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _status(tasks, taxes.id) == "active"
    assert dreaming.dreamer.dreams.changes(report.run.id) == []
    assert f"Task #{taxes.id} was left open" in _tasks_log(dreaming, report.run.id)


@pytest.mark.parametrize(
    ("role", "kind"),
    [
        ("assistant", None),  # Reverie's words, not the user's
        ("event", "seed"),  # a conversation's seed
        ("user", "command"),  # a command the user typed, not a statement
    ],
)
def test_a_quote_from_anything_but_the_users_own_message_is_no_evidence(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    store: ConversationStore,
    conversation: Conversation,
    role: MessageRole,
    kind: str | None,
) -> None:
    taxes = tasks.add(TASK, conversation_id=conversation.id)
    dreaming.clock.advance(60)
    metadata = None if kind is None else {"kind": kind}
    store.add_message(conversation.id, role, "/remember the taxes are filed", metadata=metadata)
    store.add_message(conversation.id, "user", "Thanks, and the weather?")
    model.queue(_complete("the taxes are filed"))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _status(tasks, taxes.id) == "active"
    assert f"Task #{taxes.id} was left open" in _tasks_log(dreaming, report.run.id)


def test_words_said_before_the_task_was_made_are_no_evidence(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    store: ConversationStore,
    conversation: Conversation,
) -> None:
    store.add_message(conversation.id, "user", "Last year the taxes are filed by Ana.")
    dreaming.clock.advance(60)
    taxes = tasks.add(TASK, conversation_id=conversation.id)
    model.queue(_complete("the taxes are filed"))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _status(tasks, taxes.id) == "active"
    assert f"Task #{taxes.id} was left open" in _tasks_log(dreaming, report.run.id)


def test_the_users_quoted_words_complete_the_task_once_approved_and_the_change_keeps_them(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    store: ConversationStore,
    conversation: Conversation,
) -> None:
    taxes = tasks.add(TASK, conversation_id=conversation.id)
    dreaming.clock.advance(60)
    said = store.add_message(conversation.id, "user", "Good news:  the Taxes are FILED at last!")
    model.queue(_complete("“the taxes are filed.”"))  # its own quotation marks and case

    report = dreaming.dreamer.run("manual", DreamControl())

    # Round 15: words read wrong ended tasks for good; the user approves what was read.
    assert report.pending == 1 and _status(tasks, taxes.id) == "active"
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    assert change.status == "pending"
    assert change.payload["waits"] == "you said ““the taxes are filed.””"
    assert change.payload["evidence"] == "“the taxes are filed.”"
    assert change.payload["message"] == said.id

    dreaming.dreamer.book.approve(change.id)

    assert _status(tasks, taxes.id) == "completed"


def test_a_done_word_that_does_not_name_the_task_waits_for_approval(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    store: ConversationStore,
    conversation: Conversation,
) -> None:
    taxes = tasks.add(TASK, conversation_id=conversation.id)
    dreaming.clock.advance(60)
    store.add_message(conversation.id, "user", "All done this morning.")
    model.queue(_complete("all done this morning"))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.pending == 1 and _status(tasks, taxes.id) == "active"
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    assert "do not mention the task" in change.payload["waits"]

    dreaming.dreamer.book.approve(change.id)

    assert _status(tasks, taxes.id) == "completed"


@pytest.mark.parametrize(
    ("said", "quote", "why"),
    [
        # Round 13: fragments cut out of a denial and a question.
        ("I have not filed the taxes yet, I will do it tomorrow.", "filed the taxes", "not done"),
        (
            "Please don't tell me the taxes are filed, they are not.",
            "the taxes are filed",
            "not done",
        ),
        ("Did I file the taxes? I can't remember.", "file the taxes", "ask whether"),
        ("If I file the taxes today, tell me.", "file the taxes", "a condition"),
        ("I need to file the taxes this week.", "file the taxes", "yet to be done"),
        ("I will file the taxes this week.", "file the taxes", "still to do"),
        # A negation anywhere in the sentence, or words that say nothing done.
        ("I didn't forget, I filed the taxes.", "filed the taxes", "not done"),
        ("I bought the milk this morning.", "I bought the milk", "do not say it is done"),
        ("File the taxes, please.", "file the taxes", "still to do"),
        ("Remind me to file the taxes on Monday.", "file the taxes", "still to do"),
    ],
)
def test_words_cut_out_of_a_denial_question_condition_or_plan_leave_the_task_open(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    store: ConversationStore,
    conversation: Conversation,
    said: str,
    quote: str,
    why: str,
) -> None:
    taxes = tasks.add(TASK, conversation_id=conversation.id)
    dreaming.clock.advance(60)
    store.add_message(conversation.id, "user", said)
    model.queue(_complete(quote))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert _status(tasks, taxes.id) == "active"
    assert report.pending == 0 and dreaming.dreamer.dreams.changes(report.run.id) == []
    note = _tasks_log(dreaming, report.run.id)
    assert f"Task #{taxes.id} was left open: the model thought it done, but" in note
    assert why in note


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        ("Maybe I filed the taxes last week.", "filed the taxes"),
        ("I think I filed the taxes yesterday.", "filed the taxes"),
    ],
)
def test_words_that_only_might_say_it_is_done_wait_for_approval(
    dreaming: Dreaming,
    tasks: TaskService,
    model: ScriptedChatModel,
    store: ConversationStore,
    conversation: Conversation,
    said: str,
    quote: str,
) -> None:
    taxes = tasks.add(TASK, conversation_id=conversation.id)
    dreaming.clock.advance(60)
    store.add_message(conversation.id, "user", said)
    model.queue(_complete(quote))

    report = dreaming.dreamer.run("manual", DreamControl())

    assert report.pending == 1 and _status(tasks, taxes.id) == "active"
    [change] = dreaming.dreamer.dreams.changes(report.run.id)
    assert change.payload["waits"].startswith("the sentence quoted as yours")
