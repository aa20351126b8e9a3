"""Round 14, through whole agenda reviews with a scripted model: a task is
completed only on the user's words positively saying it is done
(``task_evidence.said_done``, a whitelist), never a repeating one, never
again on words the user overruled by undoing a dream's completion; and
what a review does is stored in one transaction with the notice that says
it, so a kill or a full disk between them leaves nothing changed unsaid."""

from __future__ import annotations

import json
import signal
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import ConversationStore, Database, open_database
from desktop.core.db.errors import DiskFull
from desktop.core.db.tasks import Task, TaskStore
from desktop.core.dreaming.control import DreamControl
from desktop.core.memory.service import MemoryService
from desktop.core.tasks.agenda import AGENDA_REVIEW, AgendaReview, AgendaReviewer
from desktop.core.tasks.routines import KIND
from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.children import READY_S, start_ready
from tests.dreams import make_dreamer
from tests.fakes import ScriptedChatModel
from tests.reviewers import reviewer_for
from tests.unit.core.db.conftest import START, FakeClock

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture
def model() -> ScriptedChatModel:
    """Answers a dream's memory passes with "nothing to do"."""
    return ScriptedChatModel(default='{"toSave": [], "toDelete": []}')


@dataclass
class Chat:
    clock: FakeClock
    store: ConversationStore
    tasks: TaskService
    reviewer: AgendaReviewer


@pytest.fixture
def chat(
    database: Database, broker: InferenceBroker, prompts: PromptLibrary, memories: MemoryService
) -> Chat:
    clock = FakeClock(START)
    store = ConversationStore(database, clock=clock)
    tasks = TaskService(
        TaskStore(database, clock=clock),
        BERLIN,
        clock=lambda: datetime.fromtimestamp(clock(), UTC),
    )
    return Chat(clock, store, tasks, reviewer_for(tasks, store, memories, broker, prompts))


def _asked(chat: Chat, text: str, schedule: str | None = None) -> Task:
    """A task the user asked for in a conversation of its own."""
    conversation = chat.store.create("chores").id
    chat.store.add_message(conversation, "user", f"Please remind me: {text}.")
    chat.clock.advance(10)
    when = None if schedule is None else parse_schedule(schedule, chat.tasks.now())
    task = chat.tasks.add(text, conversation_id=conversation, schedule=when)
    chat.clock.advance(30)
    chat.store.add_message(conversation, "assistant", "Noted.")
    return task


def _says(chat: Chat, task: Task, *said: str) -> None:
    assert task.conversation_id is not None
    for text in said:
        chat.clock.advance(30)
        chat.store.add_message(task.conversation_id, "user", text)


def _completing(chat: Chat, model: ScriptedChatModel, task: Task, quote: str) -> AgendaReview:
    model.queue(json.dumps({"actions": [{"action": "complete", "task": 1, "evidence": quote}]}))
    assert task.conversation_id is not None
    return chat.reviewer.review(task.conversation_id)


def _status(chat: Chat, task: Task) -> str:
    now = chat.tasks.get(task.id)
    assert now is not None
    return now.status


NOT_DONE = [
    # Round 14's repros, word for word: (task, what the user typed, the quote).
    # F1: a task named, moved, asked for or under way.
    ("Call the dentist", "Move the dentist call to Friday at 10.", "dentist call"),
    ("Call the dentist", "Call the dentist on Friday at 9.", "call the dentist on friday"),
    ("Water the plants", "Water the plants.", "water the plants"),
    ("Water the plants", "I am watering the plants right now.", "watering the plants"),
    ("File the taxes", "File the taxes is my biggest worry this month.", "file the taxes"),
    # F2: denials and plans no list had.
    ("Water the plants", "I keep forgetting to water the plants.", "water the plants"),
    ("Water the plants", "I was supposed to water the plants.", "water the plants"),
    ("Water the plants", "I meant to water the plants.", "water the plants"),
    ("Water the plants", "I wish I had watered the plants.", "watered the plants"),
    ("Water the plants", "I skipped watering the plants.", "watering the plants"),
    ("Water the plants", "I postponed watering the plants.", "watering the plants"),
    ("Water the plants", "Stop reminding me to water the plants.", "water the plants"),
    ("Water the plants", "I watered the plants... just kidding.", "watered the plants"),
    ("Water the plants", "I barely watered the plants.", "watered the plants"),
    ("Water the plants", "I doubt I watered the plants.", "watered the plants"),
    ("Water the plants", "Has anyone watered the plants", "watered the plants"),
    # F3: a denial or a question in other characters.
    ("Water the plants", "I have \uff4e\uff4f\uff54 watered the plants.", "watered the plants"),
    ("Water the plants", "I have n\u03bft watered the plants.", "watered the plants"),
    ("Water the plants", "I have n\u200bot watered the plants.", "watered the plants"),
    ("Water the plants", "I didn\u02bct water the plants.", "water the plants"),
    ("Water the plants", "I watered the plants\uff1f", "watered the plants"),
    ("Water the plants", "I watered the plants\u2753", "watered the plants"),
    # F4: a denial in German, French, Spanish.
    ("Pflanzen gie\u00dfen", "Ich habe die Pflanzen noch nicht gegossen.",
     "die Pflanzen noch nicht gegossen"),
    ("Arroser les plantes", "Je n'ai pas encore arros\u00e9 les plantes.",
     "pas encore arros\u00e9 les plantes"),
    ("Regar las plantas", "Todav\u00eda no he regado las plantas.", "no he regado las plantas"),
    # F6: a quote cut out of a word.
    ("Lock the door", "I unlocked the door.", "locked the door"),
    ("Pack the boxes", "I unpacked the boxes.", "packed the boxes"),
    ("Install the update", "I uninstalled the update.", "installed the update"),
]  # fmt: skip

DONE = [
    ("Water the plants", "I watered the plants this morning.", "I watered the plants"),
    ("File the taxes", "Finally, the taxes are filed!", "the taxes are filed"),
    ("Call the dentist", "My husband called the dentist for me.", "called the dentist"),
    ("Buy milk", "I bought the milk on the way home.", "bought the milk"),
    ("Pflanzen gie\u00dfen", "Pflanzen gie\u00dfen ist erledigt.",
     "Pflanzen gie\u00dfen ist erledigt"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "said", "quote"), NOT_DONE, ids=[c[1][:40] for c in NOT_DONE])
def test_words_that_do_not_positively_say_it_is_done_leave_the_task_open(
    chat: Chat, model: ScriptedChatModel, text: str, said: str, quote: str
) -> None:
    task = _asked(chat, text)
    _says(chat, task, said)

    review = _completing(chat, model, task, quote)

    assert _status(chat, task) == "active"
    assert review.notice is None and len(review.refused) == 1


@pytest.mark.parametrize(("text", "said", "quote"), DONE, ids=[c[1][:40] for c in DONE])
def test_words_positively_saying_it_is_done_ask_whether_it_is(
    chat: Chat, model: ScriptedChatModel, text: str, said: str, quote: str
) -> None:
    task = _asked(chat, text)
    _says(chat, task, said)

    review = _completing(chat, model, task, quote)

    # Round 15: a review never completes a task on words a model read.
    assert _status(chat, task) == "active"
    assert review.notice is not None and f"is #{task.id} “{text}” done" in review.notice.content


@pytest.mark.parametrize(
    ("said", "quote"),
    [
        (
            ["I watered the plants this morning.",
             "Sorry, scratch that: I haven't watered the plants, the can was empty."],
            "I watered the plants",
        ),
        (
            ["I watered the plants this morning.",
             "Sorry, scratch that: I haven't watered the plants, the can was empty."],
            "watered the plants this morning",
        ),
        (["I watered the plants. Actually no, I have not watered the plants."],
         "I watered the plants"),
    ],
)  # fmt: skip
def test_words_taken_back_later_leave_the_task_open_whatever_the_quote(
    chat: Chat, model: ScriptedChatModel, said: list[str], quote: str
) -> None:
    # Round 14, F5: a longer quote, found only in the older words, made them decide.
    task = _asked(chat, "Water the plants")
    _says(chat, task, *said)

    review = _completing(chat, model, task, quote)

    assert _status(chat, task) == "active" and review.notice is None


def test_a_daily_task_is_not_ended_by_one_days_words(
    chat: Chat, model: ScriptedChatModel, caplog: pytest.LogCaptureFixture
) -> None:
    # Round 14, F8: "today" ended a daily task for good.
    task = _asked(chat, "Water the plants", "daily at 09:00")
    _says(chat, task, "I watered the plants today.")

    with caplog.at_level("INFO", logger="desktop.core.tasks.agenda"):
        review = _completing(chat, model, task, "I watered the plants today")

    assert _status(chat, task) == "active" and review.notice is None
    assert "(NotSaidDone: repeating)" in caplog.text


def test_a_completion_the_user_undid_is_not_made_again_from_the_same_words(
    chat: Chat,
    model: ScriptedChatModel,
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> None:
    # Round 14, F7: the next review read the same message and completed it again.
    dreamer = make_dreamer(
        database,
        memories,
        broker,
        prompts,
        tmp_path,
        DreamSettings(quiet_seconds=0, max_retired_floor=10),
        chat.clock,
        tasks=chat.tasks,
    )
    task = _asked(chat, "Call the dentist")
    _says(chat, task, "I called the dentist's office.")
    called = {"task": 1, "action": "complete", "evidence": "I called the dentist"}
    model.queue(json.dumps({"actions": [called]}))
    run = dreamer.run("manual", DreamControl()).run
    [change] = [c for c in dreamer.dreams.changes(run.id) if c.kind == "task_complete"]
    dreamer.book.approve(change.id)
    assert _status(chat, task) == "completed"
    chat.clock.advance(600)
    dreamer.book.revert(change.id)
    chat.clock.advance(3600)

    review = _completing(chat, model, task, "I called the dentist")

    assert _status(chat, task) == "active" and review.notice is None
    assert "you reopened it after the words it quoted" in review.refused[0][1]
    _says(chat, task, "OK, now I really called the dentist.")
    again = _completing(chat, model, task, "now I really called the dentist")
    assert again.notice is not None and f"is #{task.id} " in again.notice.content


@pytest.mark.timeout(30)
def test_a_long_pasted_list_is_read_quickly(chat: Chat, model: ScriptedChatModel) -> None:
    # Round 14, F9: quadratic; an 18 kB list had not been read after 20 s.
    task = _asked(chat, "Water the plants")
    paste = " ".join(f"{verb} the plants" for verb in ("water", "repot", "feed", "prune") * 275)
    _says(chat, task, "My garden list: " + paste)

    review = _completing(chat, model, task, "the plants")

    assert _status(chat, task) == "active" and len(review.refused) == 1


# -- one transaction ------------------------------------------------------------------

FERN_ANSWER = json.dumps(
    {
        "actions": [
            {"action": "complete", "task": 1, "evidence": "I watered the fern plants"},
            {"action": "update_memory", "fact": "The user waters the fern plants."},
            {"action": "add", "text": "Buy fern fertiliser"},
            {"action": "reschedule", "task": 2, "schedule": "daily at 18:00"},
        ]
    }
)


def _ferns(database: Database) -> int:
    """A conversation with two tasks, the user saying one is done: its id."""
    clock = FakeClock(START)
    store = ConversationStore(database, clock=clock)
    tasks = TaskService(TaskStore(database, clock=clock), BERLIN)
    conversation = store.create("Ferns").id
    store.add_message(conversation, "user", "Remind me to water the fern plants and call Grandma.")
    clock.advance(10)
    tasks.add("Water the fern plants", conversation_id=conversation, priority=1)
    tasks.add("Call Grandma", conversation_id=conversation, priority=2)
    clock.advance(10)
    store.add_message(conversation, "user", "I watered the fern plants this morning.")
    store.add_message(conversation, "user", "And call Grandma at 6pm every day from now on.")
    return conversation


def _as_left(database: Database) -> tuple[list[tuple[str, str]], int, int]:
    """The tasks (text, status), the memories and the notices a database holds."""
    tasks = [
        (r["text"], r["status"]) for r in database.fetch_all("SELECT * FROM tasks ORDER BY id")
    ]
    memories = database.fetch_value("SELECT count(*) FROM memories")
    notices = database.fetch_value(
        "SELECT count(*) FROM messages WHERE json_extract(metadata, '$.kind') = ?",
        (AGENDA_REVIEW,),
    )
    return tasks, memories, notices


UNTOUCHED = [("Water the fern plants", "active"), ("Call Grandma", "active")]


def test_a_notice_that_cannot_be_stored_undoes_the_whole_review(
    database: Database,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    memories: MemoryService,
    model: ScriptedChatModel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conversation = _ferns(database)
    schedules_before = database.fetch_all("SELECT schedule_kind FROM tasks ORDER BY id")
    real = ConversationStore.add_message

    def add_message(self: ConversationStore, *args: object, **kwargs: object) -> object:
        metadata = kwargs.get("metadata")
        if isinstance(metadata, dict) and metadata.get(KIND) == AGENDA_REVIEW:
            raise DiskFull("the disk is full")
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ConversationStore, "add_message", add_message)
    model.queue(FERN_ANSWER)
    tasks = TaskService(TaskStore(database), BERLIN)
    reviewer = reviewer_for(tasks, ConversationStore(database), memories, broker, prompts)

    with pytest.raises(DiskFull):
        reviewer.review(conversation)

    assert _as_left(database) == (UNTOUCHED, 0, 0)
    assert database.fetch_all("SELECT schedule_kind FROM tasks ORDER BY id") == schedules_before


# The child reviews the conversation the test made, and stops dead just
# before its notice is stored: it says "ready" there and waits to be killed.
CHILD = """
import json, sys, time
from pathlib import Path
from zoneinfo import ZoneInfo
from desktop.core.db import ConversationStore, open_database
from desktop.core.db.tasks import TaskStore
from desktop.core.memory.service import MemoryService
from desktop.core.base.prompts import PromptLibrary
from desktop.core.tasks.service import TaskService
from models.broker import InferenceBroker
from tests.fakes import HashingEmbedder, ScriptedChatModel
from tests.reviewers import reviewer_for

path, conversation, answer = sys.argv[1], int(sys.argv[2]), sys.argv[3]
database = open_database(Path(path))
model = ScriptedChatModel()
model.queue(answer)
broker = InferenceBroker()
broker.start()
broker.load_chat_model(lambda: model).result(timeout=30)
broker.load_embedder(lambda: HashingEmbedder()).result(timeout=30)
prompts = PromptLibrary(Path(path).parent / "prompts")
memories = MemoryService.over(database, broker, prompts)
real = ConversationStore.add_message

def add_message(self, *args, **kwargs):
    if (kwargs.get("metadata") or {}).get("kind") == "agenda_review":
        print("ready", flush=True)
        time.sleep(600)  # killed here: every action is applied, nothing said yet
    return real(self, *args, **kwargs)

ConversationStore.add_message = add_message
tasks = TaskService(TaskStore(database), ZoneInfo("Europe/Berlin"))
reviewer_for(tasks, ConversationStore(database), memories, broker, prompts).review(conversation)
print("not killed", flush=True)
"""


def test_a_review_killed_before_its_notice_leaves_nothing_changed_and_the_next_one_says_all(
    tmp_path: Path,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    model: ScriptedChatModel,
) -> None:
    # Round 14 (storage, finding 1): each action committed on its own, the
    # notice after: a kill between left tasks completed, added and moved
    # with no word in the conversation, and the next review never said it.
    path = tmp_path / "reverie.sqlite3"
    with open_database(path) as database:
        conversation = _ferns(database)

    child = start_ready(["-c", CHILD, str(path), str(conversation), FERN_ANSWER], "reviewing")
    child.send_signal(signal.SIGKILL)
    try:
        child.wait(READY_S)
    except subprocess.TimeoutExpired:  # pragma: no cover - a child that would not die
        child.kill()
        raise
    assert child.stdout is not None
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL

    with open_database(path) as database:
        assert _as_left(database) == (UNTOUCHED, 0, 0)
        model.queue(FERN_ANSWER)  # the next hourly review, as the model answers again
        memories = MemoryService.over(database, broker, prompts)
        tasks = TaskService(TaskStore(database), BERLIN)
        review = reviewer_for(tasks, ConversationStore(database), memories, broker, prompts).review(
            conversation
        )
        left = _as_left(database)

    assert left == (
        [
            ("Water the fern plants", "active"),  # asked about, never completed by a review
            ("Call Grandma", "active"),
            ("Buy fern fertiliser", "active"),
        ],
        1,
        1,
    )
    assert review.notice is not None and len(review.done) == 4
