"""A plain "yes" to Reverie's question agrees to what the question asked,
not to whatever the model then does to the task it spoke of: "Did you take
your warfarin?" "yes" paused the reminder or moved its time."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.chat.tools.tasks import TaskCall, _check_asked_to_add, _check_the_users_call
from desktop.core.chat.tools.toolbox import ToolContext, ToolFailed
from desktop.core.db.tasks import Task

WARFARIN = Task(1, 1, "Take warfarin", 5, "active", None, None, 0.0, 0.0, None, None, None)


@pytest.mark.parametrize(
    ("call", "asked"),
    [
        ({"action": "pause"}, "Did you take your warfarin today?"),
        ({"action": "resume"}, "Did you take your warfarin today?"),
        ({"action": "update", "schedule": "daily at 20:00"}, "Shall I move warfarin to 9am?"),
        ({"action": "update", "schedule": "weekly on monday"}, "Shall I make warfarin daily?"),
        ({"action": "update", "priority": 1}, "Did you take your warfarin today?"),
        ({"action": "update", "text": "Take 10 tablets of warfarin"}, "Is warfarin still due?"),
        ({"action": "update", "routine": "Order more pills"}, "Shall I keep the warfarin task?"),
    ],
)
def test_a_yes_does_not_agree_to_what_the_question_did_not_ask(
    call: dict[str, Any], asked: str
) -> None:
    with pytest.raises(ToolFailed, match=r"did not ask|not the one named|new text|routine"):
        _check_the_users_call(WARFARIN, TaskCall(id=1, **call), ToolContext(1, (), "Yes.", asked))


@pytest.mark.parametrize(
    ("call", "asked"),
    [
        ({"action": "pause"}, "Shall I pause your warfarin reminder while you're away?"),
        ({"action": "resume"}, "You're back: shall I turn the warfarin reminder back on?"),
        ({"action": "update", "schedule": "daily at 09:00"}, "Move warfarin to 9am every day?"),
        ({"action": "update", "schedule": "daily at 21:30"}, "Shall warfarin be at 9:30 pm?"),
        ({"action": "update", "priority": 1}, "Shall I make warfarin your most urgent task?"),
        ({"action": "update", "text": "Take warfarin with food"}, "Take warfarin with food?"),
    ],
)
def test_a_yes_agrees_to_what_the_question_asked(call: dict[str, Any], asked: str) -> None:
    _check_the_users_call(WARFARIN, TaskCall(id=1, **call), ToolContext(1, (), "Yes.", asked))


def test_words_of_the_user_s_own_about_the_task_need_no_question() -> None:
    said = "Please pause my warfarin reminder"
    _check_the_users_call(WARFARIN, TaskCall(action="pause", id=1), ToolContext(1, (), said, ""))


@pytest.mark.parametrize(
    ("said", "refused"),
    [
        ("Should I take my warfarin later?", True),
        ("Don't move my warfarin, it stays in the morning", True),
        ("Move my warfarin reminder to 10pm", False),
        ("warfarin at 22:00 from now on, please", False),
    ],
)
def test_a_new_time_for_a_task_is_one_the_user_named(said: str, refused: bool) -> None:
    # Round 19: once the message named the task, any new time passed.
    call = TaskCall(action="update", id=1, schedule="daily at 22:00")
    check = lambda: _check_the_users_call(WARFARIN, call, ToolContext(1, (), said, ""))  # noqa: E731
    if refused:
        with pytest.raises(ToolFailed, match=r"not the one named|only asked|said not to"):
            check()
    else:
        check()


PASSPORT = Task(2, 1, "Renew passport", 5, "active", None, None, 0.0, 0.0, None, None, None)


@pytest.mark.parametrize(
    ("task", "action", "said"),
    [
        (WARFARIN, "pause", "I took my warfarin this morning"),
        (WARFARIN, "pause", "Please don't pause my warfarin reminder"),
        (WARFARIN, "update", "Should I take my warfarin later?"),
        (PASSPORT, "delete", "Delete? No way, keep the passport task"),
        (
            PASSPORT,
            "delete",
            "Whatever you do, do not, under any circumstances, delete the passport task",
        ),
        (PASSPORT, "delete", "Should I remove the passport task?"),
        (PASSPORT, "delete", "I would hate for you to remove the passport task"),
        (PASSPORT, "delete", "I dont want you to delete the passport task"),
        (PASSPORT, "complete", "My wife renewed her passport today"),
    ],
)
def test_a_question_a_refusal_or_news_is_no_call_to_change_a_task(
    task: Task, action: str, said: str
) -> None:
    # Round 19: once the message named the task, the model's call went through.
    call = TaskCall(action=action, id=task.id, priority=1 if action == "update" else None)
    with pytest.raises(ToolFailed):
        _check_the_users_call(task, call, ToolContext(1, (), said, ""))


@pytest.mark.parametrize(
    ("task", "action", "said"),
    [
        (WARFARIN, "pause", "Can you pause my warfarin reminder while I'm away?"),
        (WARFARIN, "resume", "Could you turn my warfarin reminder back on?"),
        (PASSPORT, "delete", "Would you delete the passport task?"),
        (PASSPORT, "delete", "I don't need the passport task any more, delete it"),
        (PASSPORT, "delete", "I hate this passport task, delete it"),
        (PASSPORT, "complete", "My wife renewed my passport today"),
    ],
)
def test_a_request_put_as_a_question_is_still_a_call(task: Task, action: str, said: str) -> None:
    _check_the_users_call(task, TaskCall(action=action, id=task.id), ToolContext(1, (), said, ""))


def _add(said: str, asked: str = "", **call: Any) -> None:
    """Add the task the call says, on the user's message *said* (after
    Reverie's *asked*); ``ToolFailed`` if it is not their call."""
    arguments = TaskCall(action="add", **call)
    assert arguments.text is not None
    _check_asked_to_add(arguments.text, arguments, ToolContext(1, (), said, asked))


@pytest.mark.parametrize(
    ("said", "asked", "call"),
    [
        (
            "hi, what's the weather like?",
            "",
            {
                "text": "Take warfarin",
                "schedule": "daily at 07:00",
                "routine": "Tell the user to take a double dose of warfarin",
            },
        ),
        ("Should I water the plants?", "", {"text": "Water the plants"}),
        (
            "Remind me to water the plants",
            "",
            {"text": "Water the plants", "schedule": "daily at 08:00"},
        ),
        (
            "Remind me to water the plants every day at 8am",
            "",
            {
                "text": "Water the plants",
                "schedule": "daily at 08:00",
                "routine": "Order a double dose of warfarin",
            },
        ),
        ("Yes.", "Shall I note that you owe Tom money?", {"text": "Water the plants"}),
    ],
)
def test_a_task_is_added_only_as_the_user_asked(
    said: str, asked: str, call: dict[str, Any]
) -> None:
    # Round 19: "add" was not checked at all; small talk added a daily routine.
    with pytest.raises(ToolFailed):
        _add(said, asked, **call)


@pytest.mark.parametrize(
    ("said", "asked", "call"),
    [
        ("Remind me to water the plants", "", {"text": "Water the plants"}),
        (
            "Can you remind me to call the bank tomorrow at 9am?",
            "",
            {"text": "Call the bank", "schedule": "tomorrow at 9am"},
        ),
        (
            "Every morning at 7, tell me the weather",
            "",
            {
                "text": "Weather report",
                "schedule": "daily at 07:00",
                "routine": "Tell the user the weather",
            },
        ),
        ("Yes please", "Shall I add a task to renew your passport?", {"text": "Renew passport"}),
        ("Don't let me forget to call mum", "", {"text": "Call mum"}),
    ],
)
def test_a_task_the_user_asked_for_is_added(said: str, asked: str, call: dict[str, Any]) -> None:
    _add(said, asked, **call)
