"""Round 27: a pasted megabyte was read for secrets before its length was
looked at.

A task's text (at most 1,000 characters) and a routine's prompt (2,000)
were taken through the redaction whole and only then measured: a megabyte
pasted into the Tasks window's field froze it for 6 to 21 seconds, and
2 MB in a routine's prompt for two minutes, before saying it was too long.
A text longer than its limit by more than taking secrets out could shorten
it is now refused unread, with the same words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from desktop.core.db import Database
from desktop.core.db.tasks import TaskStore
from desktop.core.privacy.redaction import MOST_TAKEN_OUT, Redacted, Redactor
from desktop.core.tasks.service import PROMPT_CHARS, TEXT_CHARS, TaskRefused, TaskService

PASTED = "Buy oat milk and ring the plumber about the boiler. " * 20_000
"""About a megabyte, as a page pasted by mistake."""


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
