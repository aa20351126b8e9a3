"""Round 27 tests of desktop.core.tasks.service.

A pasted megabyte was read for secrets before its length was looked at: a
task's text (at most 1,000 characters) and a routine's prompt (2,000) were
taken through the redaction whole and only then measured, so a megabyte
pasted into the Tasks window's field froze it for 6 to 21 seconds, and
2 MB in a routine's prompt for two minutes, before saying it was too long.
A text longer than its limit by more than taking secrets out could shorten
it is now refused unread, with the same words.

And each look for due tasks read every open task's run again (below)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from desktop.core.db import Database
from desktop.core.db.tasks import TaskStore
from desktop.core.privacy.redaction import MOST_TAKEN_OUT, Redacted, Redactor
from desktop.core.tasks.schedules import parse_schedule
from desktop.core.tasks.service import PROMPT_CHARS, TEXT_CHARS, TaskRefused, TaskService
from tests.reads import statements_of
from tests.unit.core.tasks.test_tasks_round12 import Clock, _next, _service

PASTED = "Buy oat milk and ring the plumber about the boiler. " * 20_000
"""About a megabyte, as a page pasted by mistake."""
LONDON = ZoneInfo("Europe/London")
DAILY = parse_schedule("daily at 9am")


class ReadingRedactor(Redactor):
    """A redactor that notes the length of each text it reads for secrets."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[int] = []

    def __call__(self, text: str, *, after: object = ()) -> Redacted:
        self.read.append(len(text))
        return super().__call__(text)


@pytest.fixture
def redactor() -> ReadingRedactor:
    return ReadingRedactor()


@pytest.fixture
def tasks(database: Database, redactor: ReadingRedactor) -> TaskService:
    now = datetime(2027, 3, 26, 10, tzinfo=UTC)
    return TaskService(TaskStore(database), UTC, clock=lambda: now, redactor=redactor)


def test_a_pasted_page_as_a_task_is_refused_for_its_length_unread(
    tasks: TaskService, redactor: ReadingRedactor
) -> None:
    with pytest.raises(TaskRefused, match=f"A task is at most {TEXT_CHARS} characters"):
        tasks.add(PASTED, conversation_id=None)

    assert redactor.read == []
    assert tasks.list() == []


def test_a_pasted_page_as_a_routines_prompt_is_refused_for_its_length_unread(
    tasks: TaskService, redactor: ReadingRedactor
) -> None:
    with pytest.raises(TaskRefused, match=f"prompt is at most {PROMPT_CHARS} characters"):
        tasks.add("Morning news", conversation_id=None, ai_prompt=PASTED)

    assert all(size < 100 for size in redactor.read)  # the task's text, not the prompt
    assert tasks.list() == []


def test_a_text_a_long_secret_brings_under_the_limit_is_still_read_and_kept(
    tasks: TaskService, redactor: ReadingRedactor
) -> None:
    key = "-----BEGIN PRIVATE KEY-----\n" + "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n" * 60
    key += "-----END PRIVATE KEY-----"
    assert TEXT_CHARS < len(key) < MOST_TAKEN_OUT

    task = tasks.add(f"Move the server key {key} to the vault", conversation_id=None)

    assert "MIIE" not in task.text
    assert task.text.startswith("Move the server key")
    assert max(redactor.read) > TEXT_CHARS


# -- looking for due tasks -------------------------------------------------------
#
# Each look for due tasks computed every open task's next run again (to
# catch a clock set back), 2.5 s with 10,000 tasks, and the task runner
# looks again after every task it runs: 100 tasks due at 9:00 cost four
# minutes of looking.  The runs are read again only when the clock went
# back since it was last read.


def _reads_of(tasks: TaskService, database: Database) -> list[str]:
    return statements_of(tasks.due, database)


def test_looking_for_due_tasks_reads_only_those_due_while_the_clock_goes_on(
    database: Database,
) -> None:
    clock = Clock(datetime(2026, 11, 30, 8, 0, tzinfo=LONDON))
    tasks = _service(database, clock, LONDON)
    for number in range(20):
        tasks.add(f"Chore {number}", conversation_id=None, schedule=DAILY)
    clock.now = datetime(2026, 11, 30, 9, 0, tzinfo=LONDON)
    first = tasks.due()
    tasks.mark_run(first[0].id)

    reads = _reads_of(tasks, database)

    assert len(first) == 20
    assert len(reads) == 1  # the due tasks, not every open one again
    assert len(tasks.due()) == 19


def test_a_run_recorded_while_the_clock_ran_ahead_is_read_again_once_it_is_put_right(
    database: Database,
) -> None:
    clock = Clock(datetime(2026, 11, 30, 8, 0, tzinfo=LONDON))
    tasks = _service(database, clock, LONDON)
    task = tasks.add("Water the plants", conversation_id=None, schedule=DAILY)
    clock.now = datetime(2027, 6, 1, 9, 0, tzinfo=LONDON)  # a wrong time server
    tasks.mark_run(task.id)
    assert _next(tasks, task, LONDON) == "2027-06-02 09:00"

    clock.now = datetime(2026, 11, 30, 8, 30, tzinfo=LONDON)  # put right
    assert tasks.due() == []
    clock.now = datetime(2026, 11, 30, 9, 0, tzinfo=LONDON)

    assert [due.id for due in tasks.due()] == [task.id]
    assert len(_reads_of(tasks, database)) == 1
