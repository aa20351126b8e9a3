"""The chat's memory commands, ``/remember`` and ``/forget``, and the
"Memory updated" row (with Undo) that a remembered fact shows, whether the
user typed ``/remember`` or the model used its memory tool."""

from __future__ import annotations

from collections.abc import Callable

from desktop.core.base.errors import ReverieError
from desktop.core.chat.service import ChatService
from desktop.core.memory.service import Remembered
from desktop.core.privacy.redaction import redact
from desktop.ui.chat.transcript import Transcript
from desktop.ui.chat.transcript_rows import MemoryUpdate


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
    ) -> None:
        self._chat = chat
        self._transcript = transcript
        self._problem = problem
        self._retype = retype

    def remember(self, text: str, conversation_id: int | None) -> None:
        if not text.strip():
            self._transcript.add_notice("Write what to remember after /remember.")
            return
        try:
            remembered = self._chat.remember(text, conversation_id)
        except ReverieError as error:
            self._problem(f"That was not remembered: {error}")
            self._retype(f"/remember {text}")
            return
        # Shown as stored: its source, with any secret taken out.
        if remembered.source is not None:
            source = remembered.source
            self._transcript.add_message("user", source.content, source.id)
        else:
            self._transcript.add_message("user", redact(f"/remember {text.strip()}").text)
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
