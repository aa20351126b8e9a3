"""Agenda reviews with scripted model answers: what the model is shown, that
[NO_ACTION] shows nothing, that actions land on the right tasks and are
said in the conversation, and that bad answers and bad actions change
nothing."""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.jobs import JobControl
from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import ConversationStore, Database
from desktop.core.db.schedules import Daily
from desktop.core.db.tasks import Task, TaskStore
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.agenda import (
    ACTIONS,
    AGENDA_REVIEW,
    NO_ACTION,
    AgendaFailed,
    AgendaReview,
    AgendaReviewer,
    schema,
)
from desktop.core.tasks.routines import KIND
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from models.llama_chat import LlamaChatModel
from models.sampling import grammar_for_schema
from tests.fakes import HashingEmbedder, ScriptedChatModel, StepGate
from tests.reviewers import reviewer_for

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 22, 12, tzinfo=BERLIN)  # a Sunday
POSTED = "The user posted a letter to the bank."


@pytest.fixture
def tasks(database: Database) -> TaskService:
    return TaskService(TaskStore(database, clock=NOW.timestamp), BERLIN, clock=lambda: NOW)


@pytest.fixture
def reviewer(
    tasks: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
) -> AgendaReviewer:
    return reviewer_for(tasks, store, memories, broker, prompts)


@pytest.fixture
def conversation_id(store: ConversationStore) -> int:
    conversation = store.create("errands").id
    store.add_message(conversation, "user", "I posted the letter to the bank this morning.")
    store.add_message(conversation, "assistant", "Well done! One thing less to think about.")
    return conversation


@pytest.fixture
def letter(tasks: TaskService, conversation_id: int) -> Task:
    return tasks.add("Post the letter to the bank", conversation_id=conversation_id, priority=2)


@pytest.fixture
def ana(tasks: TaskService, conversation_id: int) -> Task:
    return tasks.add(
        "Call Ana", conversation_id=conversation_id, priority=1, schedule=Daily(time(17))
    )


def _actions(*actions: dict[str, Any]) -> str:
    return json.dumps({"actions": list(actions)})


def _review_requests(model: ScriptedChatModel) -> list[str]:
    return [messages[-1].content for messages, o in model.requests if o.json_schema is not None]


# -- nothing to do ------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer", [NO_ACTION, json.dumps(NO_ACTION), f"  {NO_ACTION}\n", _actions()]
)
def test_no_action_shows_and_stores_nothing(
    reviewer: AgendaReviewer,
    store: ConversationStore,
    tasks: TaskService,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
    answer: str,
) -> None:
    before = store.messages(conversation_id)
    model.queue(answer)

    review = reviewer.review(conversation_id)

    assert review == AgendaReview(conversation_id, (), (), None)
    assert store.messages(conversation_id) == before
    assert tasks.get(letter.id) == letter


# -- what the model sees ------------------------------------------------------------------


def test_the_model_sees_the_conversations_tasks_numbered_and_its_latest_messages(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
    ana: Task,
) -> None:
    tasks.add("Not this one", conversation_id=store.create("other").id)
    model.queue(NO_ACTION)

    reviewer.review(conversation_id)

    [(messages, options)] = [r for r in model.requests if r[1].json_schema is not None]
    asked = messages[-1].content
    assert "Current time: Sunday 2026-11-22 12:00 (CET)" in asked
    assert "[1] (P1) Call Ana [daily at 17:00]\n[2] (P2) Post the letter to the bank" in asked
    assert "Not this one" not in asked
    assert (
        "User: I posted the letter to the bank this morning.\n\n"
        "Reverie: Well done! One thing less to think about."
    ) in asked
    assert options.temperature == 0.0
    assert options.json_schema == schema(2)


def test_the_schema_allows_no_action_or_only_the_numbers_shown_and_compiles() -> None:
    shown = schema(3)
    grammar = grammar_for_schema(shown)

    assert shown["anyOf"][0] == {"const": NO_ACTION}
    assert shown["$defs"]["CompleteTask"]["properties"]["task"]["enum"] == [1, 2, 3]
    assert shown["$defs"]["RescheduleTask"]["properties"]["task"]["enum"] == [1, 2, 3]
    assert "NO_ACTION" in grammar and "update_memory" in grammar


def test_tasks_without_a_conversation_are_left_out(
    reviewer: AgendaReviewer, tasks: TaskService, model: ScriptedChatModel
) -> None:
    tasks.add("Nobody's task", conversation_id=None)

    assert reviewer.due() == []
    assert reviewer.review_due() == []
    assert model.requests == []


# -- actions ------------------------------------------------------------------


def test_actions_land_on_the_tasks_named_and_are_said_in_the_conversation(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    store: ConversationStore,
    memories: MemoryService,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
    ana: Task,
) -> None:
    model.queue(
        _actions(
            {"action": "complete", "task": 2, "evidence": "I posted the letter to the bank"},
            {"action": "reschedule", "task": 1, "schedule": "daily at 18:00"},
            {"action": "add", "text": "Buy stamps", "priority": 4, "schedule": None},
            {
                "action": "update_memory",
                "fact": POSTED,
                "category": "other",
            },
        )
    )

    store.add_message(conversation_id, "user", "Can we move my call with Ana to 6pm?")
    store.add_message(conversation_id, "user", "And I need to buy stamps.")
    review = reviewer.review(conversation_id)

    posted, moved = tasks.get(letter.id), tasks.get(ana.id)
    assert posted is not None and posted.status == "active"  # asked about, not completed
    assert moved is not None and moved.schedule == Daily(time(18))
    [stamps] = [t for t in tasks.list() if t.text == "Buy stamps"]
    assert (stamps.conversation_id, stamps.priority) == (conversation_id, 4)
    [memory] = memories.store.listed()
    assert (memory.content, memory.source_kind) == (
        POSTED,
        "inferred",
    )
    assert review.refused == ()
    assert review.notice is not None
    assert review.notice.content == (
        "I went over your tasks:\n"
        f"- is #{letter.id} “Post the letter to the bank” done, as you said? "
        "Tell me, or complete it in Tasks.\n"
        f"- moved #{ana.id} “Call Ana” to daily at 18:00\n"
        f"- added #{stamps.id} “Buy stamps”\n"
        f"- noted: {POSTED}"
    )
    assert review.notice.role == "assistant"
    assert review.notice.metadata is not None
    assert review.notice.metadata[KIND] == AGENDA_REVIEW
    assert [a["action"] for a in review.notice.metadata[ACTIONS]] == [
        "complete",
        "reschedule",
        "add",
        "update_memory",
    ]
    assert store.messages(conversation_id)[-1] == review.notice


def test_bad_actions_are_refused_with_a_log_line_and_change_nothing(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    memories: MemoryService,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
    ana: Task,
    caplog: pytest.LogCaptureFixture,
) -> None:
    model.queue(
        _actions(
            {"action": "reschedule", "task": 1, "schedule": "once on 2026-11-01 09:00"},
            {"action": "complete", "task": 2, "evidence": "posted the letter to the bank"},
            {"action": "reschedule", "task": 2, "schedule": "daily at 10:00"},
            {"action": "add", "text": "call ana"},
            {"action": "update_memory", "fact": "banks"},  # the user's word, too short
            {"action": "reschedule", "task": 1, "schedule": "daily at 25:00"},
        )
    )

    with caplog.at_level(logging.INFO, logger="desktop.core.tasks.agenda"):
        review = reviewer.review(conversation_id)

    reasons = [reason for _, reason in review.refused]
    assert reasons[0].startswith("Once on 2026-11-01 09:00 is in the past (it is now")
    assert reasons[1] == f"task #{letter.id} already has an action in this review"
    assert reasons[2] == "“call ana” is already a task"
    assert reasons[3].startswith("not remembered: Too short to be a memory")
    assert reasons[4] == f"task #{ana.id} already has an action in this review"
    assert len(review.done) == 1  # the completion, which was fine
    assert tasks.get(ana.id) == ana
    assert [t.text for t in tasks.list()] == ["Call Ana", "Post the letter to the bank"]
    assert memories.store.listed() == []
    assert caplog.text.count("agenda review refused") == 5


@pytest.mark.parametrize(
    "answer",
    [
        _actions({"action": "complete", "task": 3}),  # only 2 were shown
        '{"actions": [{"action": "complete"',  # cut off
        _actions({"action": "explode", "task": 1}),
        "Sure! Let me look at your tasks.",
    ],
    ids=["unknown number", "cut off", "unknown action", "prose"],
)
def test_an_answer_off_the_schema_fails_and_changes_nothing(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
    ana: Task,
    answer: str,
) -> None:
    before = store.messages(conversation_id)
    model.queue(answer)

    with pytest.raises(AgendaFailed):
        reviewer.review(conversation_id)

    assert (tasks.get(letter.id), tasks.get(ana.id)) == (letter, ana)
    assert store.messages(conversation_id) == before
    assert reviewer.due() == [conversation_id]  # tried again next time


def test_a_task_changed_while_the_model_thought_is_not_touched(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
) -> None:
    gate = StepGate()
    model.gate = gate
    model.queue(_actions({"action": "complete", "task": 1}))
    reviews: list[AgendaReview] = []
    thread = threading.Thread(target=lambda: reviews.append(reviewer.review(conversation_id)))
    thread.start()
    gate.wait_for_arrival(1)

    renamed = tasks.update(letter.id, text="Post the letter to the bank by Friday")
    gate.open()
    thread.join()

    [review] = reviews
    assert review.refused[0][1] == f"task #{letter.id} changed while the review was thinking"
    assert tasks.get(letter.id) == renamed and review.notice is None


# -- when a conversation is reviewed ---------------------------------------------------


def test_each_conversation_with_active_tasks_is_reviewed_every_time(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
    ana: Task,
) -> None:
    quiet = store.create("quiet").id
    tasks.add("Renew the passport", conversation_id=quiet)
    finished = store.create("finished").id
    tasks.complete(tasks.add("Old errand", conversation_id=finished).id)
    paused = store.create("paused").id
    tasks.pause(tasks.add("Some day", conversation_id=paused).id)

    assert reviewer.due() == [conversation_id, quiet]
    model.queue(_actions({"action": "add", "text": "Buy stamps"}), NO_ACTION)
    assert [r.conversation_id for r in reviewer.review_due()] == [conversation_id, quiet]
    # Nothing changed since, yet the hour that passed may matter: both again.
    assert reviewer.due() == [conversation_id, quiet]

    for task in tasks.list(("active",), conversation_id=quiet):
        tasks.complete(task.id)
    assert reviewer.due() == [conversation_id]


def test_one_failed_review_does_not_stop_the_others(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
) -> None:
    other = store.create("other").id
    tasks.add("Water the plants", conversation_id=other)
    store.add_message(other, "user", "I watered the plants.")
    model.queue(
        "not json", _actions({"action": "complete", "task": 1, "evidence": "watered the plants"})
    )

    reviews = reviewer.review_due()

    assert [r.conversation_id for r in reviews] == [other]
    assert reviews[0].notice is not None and "is #" in reviews[0].notice.content


def test_a_stopped_review_stops_without_failing_or_changing_anything(
    tasks: TaskService,
    store: ConversationStore,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
) -> None:
    chatting = InferenceBroker(background_allowed=lambda: False)  # holds the review back
    chatting.start()
    try:
        chatting.load_chat_model(lambda: model).result(timeout=5)
        reviewer = reviewer_for(tasks, store, None, chatting, prompts)
        control = JobControl()
        reviews: list[AgendaReview] = []
        thread = threading.Thread(target=lambda: reviews.extend(reviewer.review_due(control)))
        thread.start()
        control.cancel()
        thread.join(timeout=10)
        assert not thread.is_alive()
    finally:
        chatting.stop()

    assert reviews == [] and tasks.get(letter.id) == letter
    assert reviewer.due() == [conversation_id]


def test_too_small_a_context_drops_the_oldest_messages_first(
    tasks: TaskService,
    store: ConversationStore,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
) -> None:
    store.add_message(conversation_id, "user", "word " * 300)
    store.add_message(conversation_id, "user", "Newest message.")
    reviewer = reviewer_for(tasks, store, None, broker, prompts, context_length=800)
    model.queue(NO_ACTION)

    reviewer.review(conversation_id)

    [asked] = _review_requests(model)
    assert "User: Newest message." in asked
    assert "posted the letter" not in asked and "word word" not in asked


# -- completing a task only on the user's own words ------------------------------------


@dataclass(frozen=True)
class Asked:
    """A task the user asked for (Reverie said it noted it), on one clock
    for messages and tasks that ticks a second a call: what was said before
    the task was made is older than it."""

    task: Task
    tasks: TaskService
    store: ConversationStore

    @property
    def conversation_id(self) -> int:
        assert self.task.conversation_id is not None
        return self.task.conversation_id


@pytest.fixture
def asked(database: Database) -> Asked:
    ticks = itertools.count(NOW.timestamp())

    def clock() -> float:
        return float(next(ticks))

    store = ConversationStore(database, clock=clock)
    tasks = TaskService(TaskStore(database, clock=clock), BERLIN, clock=lambda: NOW)
    conversation = store.create("taxes").id
    store.add_message(conversation, "user", "Please remind me to file the taxes.")
    task = tasks.add("File the taxes", conversation_id=conversation)
    store.add_message(conversation, "assistant", "Noted: I will remind you to file the taxes.")
    return Asked(task, tasks, store)


def _review_completing(
    asked: Asked,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    evidence: str | None,
    caplog: pytest.LogCaptureFixture,
    context_length: int = 4096,
) -> AgendaReview:
    action: dict[str, Any] = {"action": "complete", "task": 1}
    if evidence is not None:
        action["evidence"] = evidence
    model.queue(_actions(action))
    reviewer = reviewer_for(asked.tasks, asked.store, None, broker, prompts, context_length)
    with caplog.at_level(logging.INFO, logger="desktop.core.tasks.agenda"):
        return reviewer.review(asked.conversation_id)


@pytest.mark.parametrize(
    ("said", "evidence", "kind"),
    [
        # Round 13: completed on the model's word alone.
        (None, None, "unquoted"),
        ("I still haven't filed the taxes, remind me later.", None, "unquoted"),
        # Reverie's own words, and the user's asking before the task was made.
        (None, "remind you to file the taxes", "unquoted"),
        (None, "remind me to file the taxes", "unquoted"),
        # Words cut out of a denial, a question, a condition or a plan.
        ("I still haven't filed the taxes, remind me later.", "filed the taxes", "negated"),
        ("I have not filed the taxes yet.", "filed the taxes", "negated"),
        ("Did I file the taxes? I forget.", "file the taxes", "question"),
        ("Have I filed the taxes already", "filed the taxes", "question"),
        ("If I file the taxes this week, tell Ana.", "file the taxes", "conditional"),
        ("I will file the taxes on Monday.", "file the taxes", "intent"),
        ("I need to file the taxes.", "file the taxes", "obligation"),
        ("I bought the milk and the bread.", "I bought the milk", "unsaid"),
    ],
)
def test_a_completion_without_the_users_words_saying_it_is_done_is_refused(
    asked: Asked,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    caplog: pytest.LogCaptureFixture,
    said: str | None,
    evidence: str | None,
    kind: str,
) -> None:
    if said is not None:
        asked.store.add_message(asked.conversation_id, "user", said)
    before = asked.store.messages(asked.conversation_id)

    review = _review_completing(asked, broker, prompts, model, evidence, caplog)

    assert asked.tasks.get(asked.task.id) == asked.task
    assert review.done == () and review.notice is None
    assert asked.store.messages(asked.conversation_id) == before
    [(_, reason)] = review.refused
    assert reason.startswith(f"task #{asked.task.id} was not asked about: ")
    assert f"agenda review refused an action: complete (NotSaidDone: {kind})" in caplog.text
    for word in ("taxes", "milk", "filed"):  # the log names kinds, never the words
        assert word not in caplog.text


@pytest.mark.parametrize(
    ("said", "evidence"),
    [
        ("I filed the taxes this morning.", "I filed the taxes"),
        ("Done: filed the taxes.", "done: filed the taxes"),
        ("Finally, the taxes are filed!", "the taxes are filed"),
        ("Ana filed the taxes for us yesterday.", "filed the taxes"),
        # Words that only might say so are asked about too.
        ("Maybe I filed the taxes last week.", "filed the taxes"),
        ("All done, finally.", "all done, finally"),
    ],
)
def test_the_users_words_saying_it_is_done_are_asked_about_once(
    asked: Asked,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    caplog: pytest.LogCaptureFixture,
    said: str,
    evidence: str,
) -> None:
    asked.store.add_message(asked.conversation_id, "user", said)

    review = _review_completing(asked, broker, prompts, model, evidence, caplog)

    # Round 15: a review asks, and never completes a task on words a model read.
    assert asked.tasks.get(asked.task.id) == asked.task
    assert review.refused == ()
    assert review.notice is not None and review.notice.metadata is not None
    assert review.notice.content.endswith(
        f"- is #{asked.task.id} “File the taxes” done, as you said? "
        "Tell me, or complete it in Tasks."
    )
    # The quote stays in the user's message only: erasing that erases it.
    message = [m for m in asked.store.messages(asked.conversation_id) if m.role == "user"][-1]
    assert review.notice.metadata[ACTIONS] == [
        {"action": "complete", "task": 1, "asked": asked.task.id, "asked_from": message.id}
    ]

    again = _review_completing(asked, broker, prompts, model, evidence, caplog)

    assert again.notice is None
    [(_, reason)] = again.refused
    assert reason == f"task #{asked.task.id} was asked about those words already"


def test_words_the_review_did_not_show_are_no_evidence(
    asked: Asked,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
    caplog: pytest.LogCaptureFixture,
) -> None:
    asked.store.add_message(asked.conversation_id, "user", "I filed the taxes this morning.")
    asked.store.add_message(asked.conversation_id, "user", "word " * 300)
    asked.store.add_message(asked.conversation_id, "user", "Newest message.")

    review = _review_completing(
        asked, broker, prompts, model, "I filed the taxes", caplog, context_length=800
    )

    [shown] = _review_requests(model)
    assert "filed the taxes" not in shown  # too old to fit the small context
    assert asked.tasks.get(asked.task.id) == asked.task and len(review.refused) == 1
    assert "(NotSaidDone: unquoted)" in caplog.text


# -- the real small model ------------------------------------------------------------


def _real_review(
    fresh_smollm2: Callable[[], LlamaChatModel],
    tasks: TaskService,
    store: ConversationStore,
    database: Database,
    prompts: PromptLibrary,
    conversation_id: int,
) -> AgendaReview:
    """One review of *conversation_id* by SmolLM2, under the schema, greedy."""
    broker = InferenceBroker()
    broker.start()
    try:
        chat = fresh_smollm2()
        broker.load_chat_model(lambda: chat).result(timeout=60)
        broker.load_embedder(lambda: HashingEmbedder()).result(timeout=5)
        memories = MemoryService.over(database, broker, prompts)
        reviewer = reviewer_for(tasks, store, memories, broker, prompts, context_length=2048)
        return reviewer.review(conversation_id)
    finally:
        broker.stop()


@pytest.mark.model
def test_the_real_small_model_leaves_a_conversation_with_nothing_new_alone(
    fresh_smollm2: Callable[[], LlamaChatModel],
    tasks: TaskService,
    store: ConversationStore,
    database: Database,
    prompts: PromptLibrary,
) -> None:
    conversation_id = store.create("weather").id
    store.add_message(conversation_id, "user", "What a grey day it is today.")
    store.add_message(conversation_id, "assistant", "It is. A good day for a book.")
    task = tasks.add("Renew the passport", conversation_id=conversation_id, priority=3)
    before = store.messages(conversation_id)

    review = _real_review(fresh_smollm2, tasks, store, database, prompts, conversation_id)

    # Nothing in the talk touches the task: the answer is no action, and
    # nothing is shown, stored or changed.
    assert review == AgendaReview(conversation_id, (), (), None)
    assert store.messages(conversation_id) == before
    assert tasks.list() == [task]


@pytest.mark.model
@pytest.mark.xfail(
    strict=True,
    reason="SmolLM2-135M answers no action when the user says a task is done: "
    "agenda reviews need a bigger model to do anything",
)
def test_the_real_small_model_asks_about_a_task_the_user_said_was_done(
    fresh_smollm2: Callable[[], LlamaChatModel],
    tasks: TaskService,
    store: ConversationStore,
    database: Database,
    prompts: PromptLibrary,
    conversation_id: int,
    letter: Task,
) -> None:
    review = _real_review(fresh_smollm2, tasks, store, database, prompts, conversation_id)

    assert review.notice is not None and f"is #{letter.id} " in review.notice.content


@pytest.mark.parametrize(
    ("said", "add"),
    [
        ("hi, what's the weather like?", {"text": "Take a double dose of warfarin daily"}),
        ("Thanks, talk soon!", {"text": "Take warfarin", "schedule": "daily at 08:00"}),
        ("Should I call mom on Sunday?", {"text": "Call mom on Sunday"}),  # only asked
        ("Remind me to call mom", {"text": "Call mom", "schedule": "daily at 08:00"}),
        ("Here is the email from Jo:\nRemind me to buy stamps", {"text": "Buy stamps"}),
    ],
)
def test_a_task_no_message_of_the_user_asks_for_is_not_added(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
    said: str,
    add: dict[str, str],
) -> None:
    # The chat's task tool adds a task only when the user asks for it; a
    # review added "Take a double dose of warfarin daily" after small talk.
    store.add_message(conversation_id, "user", said)
    model.queue(_actions({"action": "add", **add}))

    review = reviewer.review(conversation_id)

    assert [reason for _, reason in review.refused] == [
        "the user has not asked for this task in the messages shown"
    ]
    assert tasks.list() == [letter] and review.notice is None


@pytest.mark.parametrize(
    ("said", "add"),
    [
        ("remind me to call mom on Sunday", {"text": "Call mom on Sunday"}),
        (
            "I have to call mom every Sunday at 18:00",
            {"text": "Call mom", "schedule": "weekly on sunday at 18:00"},
        ),
        ("Could you add buying stamps to my list?", {"text": "Buy stamps"}),
    ],
)
def test_a_task_the_user_asked_for_is_added(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
    said: str,
    add: dict[str, str],
) -> None:
    store.add_message(conversation_id, "user", said)
    model.queue(_actions({"action": "add", **add}))

    review = reviewer.review(conversation_id)

    assert review.refused == ()
    assert [t.text for t in tasks.list() if t != letter] == [add["text"]]


def test_the_actions_kept_with_the_notice_hold_no_secret(
    reviewer: AgendaReviewer,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
    letter: Task,
) -> None:
    # Round 15: the task added and the memory noted were redacted, the
    # actions kept as the model wrote them in the notice's metadata were not.
    model.queue(
        _actions(
            {"action": "add", "text": "Change the router password Tb4Wq71Ns", "schedule": None},
            {
                "action": "update_memory",
                "fact": "The user's router password is Rm6Jc28Vd.",
                "category": "other",
            },
        )
    )
    store.add_message(conversation_id, "user", "Remind me to change the router password.")

    review = reviewer.review(conversation_id)

    assert review.notice is not None
    kept = json.dumps(review.notice.metadata)
    assert "Tb4Wq71Ns" not in kept and "Rm6Jc28Vd" not in kept
    assert "[redacted password]" in kept
    assert all("Tb4Wq71Ns" not in m.content for m in store.messages(conversation_id))


@pytest.mark.parametrize(
    ("said", "schedule"),
    [
        ("hi, what's the weather like?", "daily at 22:00"),  # nothing asked
        ("Can we move my call with Ana to 6pm?", "daily at 22:00"),  # not that time
        ("Call Ana just once more, on Friday at 17:00 please", "once on 2031-12-05 17:00"),
    ],
)
def test_a_review_moves_a_task_only_as_the_user_asked(
    reviewer: AgendaReviewer,
    tasks: TaskService,
    store: ConversationStore,
    model: ScriptedChatModel,
    conversation_id: int,
    ana: Task,
    said: str,
    schedule: str,
) -> None:
    # Round 19: a daily 08:00 medication moved to 22:00, or made a one-off,
    # after small talk.  A repeating task is never made one-off by a review.
    store.add_message(conversation_id, "user", said)
    model.queue(_actions({"action": "reschedule", "task": 1, "schedule": schedule}))

    review = reviewer.review(conversation_id)

    assert tasks.get(ana.id) == ana
    [(_, reason)] = review.refused
    assert "has not asked to move" in reason or "does not end its reminders" in reason
