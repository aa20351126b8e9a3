"""What the chat window's conversation list asks for: rename, delete, restore,
erase for good, learn again; and the list kept up to date.

The window owns which conversation is shown and whether a turn runs (the
``ConversationHost`` it hands over); these actions ask it, and never change
a turn's state themselves.  An erasure rewrites the database file, so it
runs on the window's worker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.core.base.errors import ReverieError
from desktop.core.chat.service import ChatService, TurnListener
from desktop.core.db import Conversation
from desktop.core.db.conversations import TITLE_LIMIT
from desktop.core.dreaming.erasure import Eraser
from desktop.ui.chat.conversation_list import ConversationList
from desktop.ui.widgets.direction_guard import ask_text
from desktop.ui.widgets.erase_outcome import erased_or_unfinished, erasure_notice

R = TypeVar("R")


class ConversationHost(Protocol):
    """What the actions need of the chat window."""

    @property
    def busy(self) -> bool: ...

    @property
    def conversation_id(self) -> int | None: ...

    def set_status(self, message: str) -> None: ...

    def show_problem(self, message: str, fix: str = "") -> None: ...

    def notice(self, text: str) -> None: ...

    def open_conversation(self, conversation_id: int, message_id: int | None = None) -> None: ...

    def show_conversation(self, conversation_id: int | None) -> None:
        """Show *conversation_id* at once (no greeting, even while busy)."""

    def run(
        self,
        task: Callable[[TurnListener], object],
        after: Callable[[object], None] | None = None,
        *,
        failed_as: str = ...,
    ) -> None:
        """Run *task* on the window's worker, then *after* with its result."""


class ConversationActions:
    """The conversation list's actions, for the window *host* (*parent* of
    the dialogs that ask first)."""

    def __init__(
        self,
        chat: ChatService | None,
        eraser: Eraser | None,
        shelf: ConversationList,
        host: ConversationHost,
        parent: QWidget,
    ) -> None:
        self._chat = chat
        self._eraser = eraser
        """Erases a deleted conversation for good (*Delete now*); None: nothing to erase with."""
        self._shelf = shelf
        self._host = host
        self._parent = parent

    def guarded(self, action: Callable[[ChatService], R]) -> R | None:
        """What *action* on the chat service gives; None, with the problem in
        the banner, if storage failed."""
        assert self._chat is not None
        try:
            return action(self._chat)
        except ReverieError as error:
            self._host.show_problem(f"That did not work: {error}")
            return None

    def refresh(self, query: str | None = None) -> None:
        """List the conversations matching *query* (the search box's text if
        None), or the deleted ones while those are shown."""
        if self._chat is None:
            return
        if self._shelf.showing_deleted:
            if (deleted := self.guarded(lambda chat: chat.deleted_conversations())) is not None:
                self._shelf.show_deleted(deleted, self._erased_on(deleted))
            return
        text = self._shelf.search.text() if query is None else query
        if (found := self.guarded(lambda chat: chat.conversations(text))) is not None:
            self._shelf.show_conversations(found, self._host.conversation_id)

    def _erased_on(self, deleted: list[Conversation]) -> dict[int, float]:
        """When each deleted conversation is erased for good, by id."""
        eraser = self._eraser
        if eraser is None:
            return {}
        return {
            c.id: eraser.conversation_erased_on(c.deleted_at)
            for c in deleted
            if c.deleted_at is not None
        }

    def rename(self, conversation_id: int) -> None:
        if self._chat is None:
            return
        conversation = self._chat.conversation(conversation_id)
        current = conversation.title if conversation is not None else ""
        title, accepted = ask_text(self._parent, "Rename conversation", "New name:", current)
        if accepted:
            renamed = self.guarded(lambda chat: chat.rename(conversation_id, title))
            if renamed is not None and len(" ".join(title.split())) > TITLE_LIMIT:
                self._host.set_status(
                    f"Names are kept to {TITLE_LIMIT} characters: the rest was left out."
                )
            self.refresh()

    def delete(self, conversation_id: int) -> None:
        shown = conversation_id == self._host.conversation_id
        if self._chat is None or self._replying_in(shown):
            return
        answer = QMessageBox.question(
            self._parent,
            "Delete conversation",
            "Delete this conversation? It disappears from the list; what Reverie "
            "learned from it stays in its memory.",
        )
        # Asked again: a reply may have begun while the question waited (a
        # message left waiting, answered when the chat model came back).
        if answer != QMessageBox.StandardButton.Yes or self._replying_in(shown):
            return
        self.guarded(lambda chat: chat.delete(conversation_id))
        if shown:
            self.guarded(
                lambda chat: self._host.open_conversation(chat.latest_or_new_conversation().id)
            )
        self.refresh()

    def _replying_in(self, shown: bool) -> bool:
        """Whether a reply streams in the conversation to delete (*shown*), said
        in the status: it would go on into a deleted conversation, and be lost."""
        if self._host.busy and shown:
            self._host.set_status("Stop the reply (Esc) before deleting this conversation")
            return True
        return False

    def restore(self, conversation_id: int) -> None:
        if self._chat is None:
            return
        if self.guarded(lambda chat: chat.restore(conversation_id)) is not None:
            self._host.set_status("Restored: the conversation is back in the list")
        self.refresh()

    def erase(self, conversation_id: int) -> None:
        """Erase a conversation for good (the list asked first), on the worker:
        erasing rewrites the database file."""
        if self._chat is None or self._host.busy:
            self._host.set_status("Stop the reply (Esc) before deleting for good")
            return
        eraser = self._eraser
        if eraser is None:
            self._host.show_problem("Reverie cannot erase here: its database is not open.")
            return
        if conversation_id == self._host.conversation_id:  # out of the list first, then away
            self.guarded(lambda chat: chat.delete(conversation_id))
            self.guarded(
                lambda chat: self._host.show_conversation(chat.latest_or_new_conversation().id)
            )

        def erased(result: object) -> None:
            self.refresh()
            if (notice := erasure_notice(result)) is not None:
                self._host.notice(notice)

        self._host.set_status("Erasing the conversation for good…")
        self._host.run(
            lambda _: erased_or_unfinished(lambda: eraser.erase_conversations([conversation_id])),
            erased,
            failed_as="It was not erased",
        )

    def learn_again(self, conversation_id: int) -> None:
        if self._chat is None:
            return
        if self.guarded(lambda chat: chat.learn_again(conversation_id)):
            self._host.set_status("The skipped part is read again at the next harvest check")
        self.refresh()
