"""A conversation as the chat shows it: its stored messages put into the
transcript (greeting first, tool calls, the summary divider, replies cut at
their length limit, what Reverie said unasked), and the Edit and Regenerate
buttons on the last exchange.

A long conversation is shown from its end, ``SHOWN_AT_ONCE`` messages at a
time: each message is a widget rendering its Markdown, so opening one of a
thousand turns took a minute and more.  The transcript's "Show earlier"
puts the next ones in above.  Only what is shown is read: a page, not the
whole conversation (50,000 messages were read to show 50).  Opened at an
old message (a memory's source, a recalled excerpt), it shows the page
from a few before it, and "Show later" puts the next ones in below (it
read from that message to the end: 49,969 rows at the 100th of 50,000)."""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtWidgets import QToolButton

from desktop.core.chat.service import ChatService, stored_tool_call
from desktop.core.chat.tools.toolbox import ToolCall
from desktop.core.db import Conversation, Message
from desktop.core.db.conversations import MessagePage
from desktop.core.db.message_kinds import is_worker_report, visible_text
from desktop.core.tasks import agenda, routines
from desktop.ui.chat.transcript import Transcript

CUT_SHORT = (
    "The reply above stopped at the longest reply allowed (Settings → Models: "
    "Max reply tokens). Regenerate it, or ask Reverie to go on."
)

_EDIT = ("Edit", "Edit your last message", "Rewrite it and send it again (Up in the empty box)")
_REGENERATE = ("Regenerate", "Answer your last message again", "Answer again (Ctrl+R)")
"""The actions' buttons: their text, accessible name and tip."""


SHOWN_AT_ONCE = 50
"""Stored messages put into the transcript at a time: opening a conversation
costs what this many cost, however long it is."""
_BEFORE_ASKED = 5
"""Messages shown before one asked for (a memory's source), for its context."""


Guarded = Callable[[Callable[[ChatService], object]], object]
"""Runs an action on the chat service, a storage error said, not raised."""


def show_history(
    transcript: Transcript,
    guarded: Guarded,
    conversation: Conversation,
    including: int | None = None,
) -> None:
    """Fill the (cleared) *transcript* with *conversation*'s last messages,
    or a page from a few before message *including* if it is older, and
    offer the earlier and later ones."""

    def show(chat: ChatService) -> None:
        asked = None if including is None else (including, _BEFORE_ASKED)
        page = chat.history_page(conversation.id, SHOWN_AT_ONCE, including=asked)
        _show(transcript, chat, conversation, page)
        _offer_earlier(transcript, guarded, conversation, page)
        _offer_later(transcript, guarded, conversation, page)

    guarded(show)


def _offer_earlier(
    transcript: Transcript, guarded: Guarded, conversation: Conversation, page: MessagePage
) -> None:
    """Offer the messages before *page*'s first: read when asked for."""
    first = page.messages[0].id if page.messages else None
    _offer_more(transcript, guarded, conversation, page.earlier, before=first)


def _offer_later(
    transcript: Transcript, guarded: Guarded, conversation: Conversation, page: MessagePage
) -> None:
    """Offer the messages after *page*'s last: read when asked for."""
    last = page.messages[-1].id if page.messages else 0
    _offer_more(transcript, guarded, conversation, page.later, after=last)


def _offer_more(
    transcript: Transcript,
    guarded: Guarded,
    conversation: Conversation,
    hidden: int,
    before: int | None = None,
    after: int | None = None,
) -> None:
    """Offer the *hidden* messages before message *before*, or after message
    *after*: the next page of them is read when asked for."""

    def show(chat: ChatService) -> None:
        page = chat.history_page(conversation.id, SHOWN_AT_ONCE, before=before, after=after)
        with transcript.above() if after is None else transcript.below():
            _show(transcript, chat, conversation, page)
        offer = _offer_earlier if after is None else _offer_later
        offer(transcript, guarded, conversation, page)

    offer = transcript.offer_earlier if after is None else transcript.offer_later
    offer(hidden, lambda: guarded(show))


def _show(
    transcript: Transcript, chat: ChatService, conversation: Conversation, page: MessagePage
) -> None:
    """Put *page*'s messages into *transcript*, in order."""
    for message in page.messages:
        shown = visible_text(message)
        if message.role in ("user", "assistant") and shown:
            view = transcript.add_message(message.role, shown, message.id)
            view.show_memories(chat.used_memories(message))
            view.show_excerpts(chat.used_excerpts(message))
            if said_on_its_own := unprompted(message):
                view.speaker.setText(f"{view.speaker.text()} · {said_on_its_own}")
            if (message.metadata or {}).get("finish_reason") == "length":
                transcript.add_notice(CUT_SHORT)
        elif message.role == "tool":
            show_tool_call(transcript, stored_tool_call(message))
        elif is_worker_report(message):  # the model reads it too, as an event
            transcript.add_notice(shown, "worker-report")
        if message.id == page.summarised_through:
            transcript.add_notice(
                "The messages above are summarised for the model; it reads this summary "
                f"instead of them:\n{conversation.summary or ''}",
                "summary-divider",
            )


def show_tool_call(transcript: Transcript, call: ToolCall) -> None:
    result = call.result
    transcript.add_tool_call(
        call.name,
        json.dumps(call.arguments, ensure_ascii=False),
        result.ok,
        result.summary,
        json.dumps(result.content, ensure_ascii=False),
    )


def unprompted(message: Message) -> str:
    """How Reverie came to say *message* unasked ("" for a reply): a task's
    reminder, a routine's answer, or what a review of the tasks did."""
    metadata = message.metadata or {}
    kind, task = metadata.get(routines.KIND), metadata.get(routines.TASK)
    if kind == agenda.AGENDA_REVIEW:
        return "went over your tasks"
    if kind in ("reminder", "routine"):
        return f"{kind} of task #{task}"
    return ""


def offer_actions(
    transcript: Transcript,
    asked: Message | None,
    answer: Message | None,
    edit: Callable[[], object],
    regenerate: Callable[[], object],
) -> list[QToolButton]:
    """Edit on *asked* (the user's last message) and Regenerate on *answer*
    (the model's answer to it), or on *asked* where it has none (a reply
    that was empty, stopped before a word, or failed), when they are shown;
    the buttons added.  What Reverie said on its own after them gets
    neither: regenerating keeps it."""
    return [
        *_action_on(transcript, asked, edit, _EDIT),
        *_action_on(transcript, answer or asked, regenerate, _REGENERATE),
    ]


def _action_on(
    transcript: Transcript,
    message: Message | None,
    act: Callable[[], object],
    words: tuple[str, str, str],
) -> list[QToolButton]:
    """A button that does *act* on *message* (*words*: its text, accessible
    name and tip), if the message is shown."""
    view = None if message is None else transcript.view_of(message.id)
    if view is None:
        return []
    button = view.add_action(*words)
    button.clicked.connect(act)
    return [button]
