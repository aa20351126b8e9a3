"""The chat's memory commands, ``/remember`` and ``/forget``, and the
"Memory updated" row (with Undo) that a remembered fact shows, whether the
user typed ``/remember`` or the model used its memory tool.

``/remember`` runs off the window's thread: a memory is embedded by the
chat model's lane, which a reply in flight holds until it ends, and its
text is read for secrets first (seconds for a long paste); on the window's
thread either froze the window, Stop included, until then."""

from __future__ import annotations

from collections.abc import Callable

from desktop.core.base.errors import ReverieError
from desktop.core.chat.service import ChatService
from desktop.core.memory.service import Remembered
from desktop.core.privacy.redaction import redact
from desktop.ui.chat.transcript import Transcript
from desktop.ui.chat.transcript_rows import MemoryUpdate

OffThread = Callable[[Callable[[], object], Callable[[object], None]], None]
"""Runs a task off the window's thread, then a callback with what it gave, on it."""


class MemoryCommands:
    """Runs the memory commands on *chat*, showing what came of them in
    *transcript*; *problem* shows what went wrong, *retype* puts a command
    back in the message box so nothing typed is lost."""

    def __init__(
        self,
        chat: ChatService,
        transcript: Transcript,
        problem: Callable[[str], None],
        retype: Callable[[str], None],
        off_thread: OffThread,
    ) -> None:
        self._chat = chat
        self._off_thread = off_thread
        self._transcript = transcript
        self._problem = problem
        self._retype = retype

    def remember(self, text: str, conversation_id: int | None) -> bool:
        """Keep *text* as a memory, off the window's thread; whether it
        runs (the runner's callback says when it is done)."""
        if not text.strip():
            self._transcript.add_notice("Write what to remember after /remember.")
            return False
        chat = self._chat

        def keep() -> tuple[Remembered, str] | ReverieError:
            try:
                remembered = chat.remember(text, conversation_id)
            except ReverieError as error:  # for the banner, not the log
                return error
            # Shown as stored: its source, with any secret taken out.
            source = remembered.source
            shown = redact(f"/remember {text.strip()}").text if source is None else ""
            return remembered, shown

        self._off_thread(keep, lambda result: self._remembered(text, result))
        return True

    def _remembered(self, text: str, result: object) -> None:
        if isinstance(result, ReverieError):
            self._problem(f"That was not remembered: {result}")
            self._retype(f"/remember {text}")
            return
        assert isinstance(result, tuple)
        remembered, shown = result
        if (source := remembered.source) is not None:
            self._transcript.add_message("user", source.content, source.id)
        else:
            self._transcript.add_message("user", shown)
        self.updated(remembered)

    def updated(self, remembered: Remembered) -> None:
        """ "Memory updated", with Undo for a memory that is new."""
        row = self._transcript.add_memory_update(
            f"Memory updated. {remembered.describe()}",
            remembered.memory.id,
            can_undo=remembered.outcome == "added",
        )
        row.undo_requested.connect(lambda: self._undo(remembered, row))

    def _undo(self, remembered: Remembered, row: MemoryUpdate) -> None:
        try:
            self._chat.undo_remember(remembered)
        except ReverieError as error:
            self._problem(f"That could not be undone: {error}")
            return
        row.undone(
            f"Undone: memory #{remembered.memory.id} was forgotten "
            "(it can be restored from the memory browser's Deleted list)."
        )

    def forget(self, text: str) -> None:
        if not text.strip():
            self._transcript.add_notice("Write what to forget after /forget, or a memory's #id.")
            return
        try:
            forgotten, candidates = self._chat.forget(text)
        except ReverieError as error:
            self._problem(f"Nothing was forgotten: {error}")
            return
        if forgotten:
            said = f"Forgotten (#{forgotten[0].id}): {forgotten[0].content}"
        elif candidates:
            listed = "\n".join(f"#{m.id}: {m.content}" for m in candidates)
            said = f"Several memories match; forget one by its number:\n{listed}"
        else:
            said = f"No memory matches “{text.strip()}”."
        self._transcript.add_notice(said)
