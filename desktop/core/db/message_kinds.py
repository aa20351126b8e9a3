"""What kind of message a stored message is, read off its metadata and text.

The chat, the harvest and the agenda review all read conversations; these
say which messages are the greeting, which a command the user typed, and
what the user was shown of a reply.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop.core.db.conversations import Message

SEED = "seed"
"""Message metadata kind of the greeting a conversation opens with."""
COMMAND = "command"
"""Message metadata kind of a command the user typed (``/remember``): kept
in the transcript as the source of what it did, never read by the model."""
REMINDER = "reminder"
"""Message metadata ``kind`` of a task's reminder (a routine's answer: ``routine``)."""
SAID_FOR_TASK = "task_id"
"""Message metadata key: the task whose reminder or routine said the message
(in its conversation, or as an event in another)."""
TASKS_REVIEWED = "agenda_review"
"""Message metadata ``kind`` of what a review of the tasks said it did."""
WORKER_REPORT = "worker_report"
"""Message metadata kind of a system event saying how background workers
ended: read by the model, shown to the user as a notice."""
EVENT_MARK = "[SYSTEM EVENT]"
"""How a system event the model reads begins; the user is shown what follows."""
TOOL_CALL_START = "<tool_call>"
"""What opens a tool call at the end of a reply the model wrote."""


def kind_of(message: Message) -> object:
    """The kind in *message*'s metadata; None for a plain message or reply."""
    return (message.metadata or {}).get("kind")


def is_seed(message: Message) -> bool:
    return kind_of(message) == SEED


def greeting_first(messages: Sequence[Message]) -> list[Message]:
    return [m for m in messages if is_seed(m)] + [m for m in messages if not is_seed(m)]


def is_command(message: Message) -> bool:
    return kind_of(message) == COMMAND


def is_worker_report(message: Message) -> bool:
    return message.role == "event" and kind_of(message) == WORKER_REPORT


def visible_text(message: Message) -> str:
    """What the user is shown of a message: a reply without the tool call it
    ended with (the call is shown as a call); a workers' report without
    the mark that tells the model it is an event."""
    if is_worker_report(message):
        return message.content.removeprefix(EVENT_MARK).strip()
    if message.role != "assistant":
        return message.content
    return message.content.partition(TOOL_CALL_START)[0].rstrip()
