"""Conversation histories brought in from ChatGPT and Claude exports.

``HistoryImporter.preview(path)`` says what an import would add, what is
already there and what it skips, and why; ``run(path, learn, state)``
imports, as a long job in the biolab/orange3 way: a plain function that
reports progress and checks for cancellation through *state*
(``ImportState``), which the UI implements with signals and the command
line with printed lines.

The whole file is read before anything is stored, so a damaged or cut
short export changes nothing.  Then each conversation is stored in one
transaction, its messages with their own times: a cancel (checked before
each message is read for secrets, so a conversation of 200,000 messages
stops too), a crash or a full disk leaves only whole conversations.
Its text is redacted as a typed message is (the application's one
``Redactor``, each user message read after the messages before it, a
secret named later taken out of what came before), so it is stored as
checked for secrets.  The redaction is nearly all of an import's time
(``tests/bench/transfer.py``: the import takes 1.1 times the redaction
alone, about 100 messages a second of one to three sentences on 2 cores,
8 minutes for 50,000), hence the progress and the cancel.  Imported
"without learning", each conversation is marked harvested through its
last message, so the background harvest never reads it; otherwise the
harvest's backlog reads it as any other.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from desktop.core.base.errors import EnvironmentProblem, ReverieError
from desktop.core.base.text import cut, shows_nothing
from desktop.core.db import ConversationStore, ImportedMessage
from desktop.core.db.conversations import MADE_TITLE_CHARS, TITLE_READ
from desktop.core.privacy.redaction import Redactor, without
from desktop.core.transfer.foreign import (
    SOURCE_NAMES,
    ExportRefused,
    ForeignConversation,
    Source,
    Unusable,
    counted,
)
from desktop.core.transfer.progress import ImportState
from desktop.core.transfer.reading import ForeignExport, open_export

log = logging.getLogger(__name__)

EXTERNAL_ID = "external_id"
"""Imported message metadata key: the message's id in the export."""


@dataclass(frozen=True)
class Planned:
    """A conversation an import would add."""

    title: str
    external_id: str
    messages: int
    left_out: tuple[str, ...]
    """What of it is not imported ("2 attachments (images, files)")."""


@dataclass(frozen=True)
class Skipped:
    """A conversation an import leaves out, and why."""

    title: str
    external_id: str | None
    reason: str


ALREADY_THERE = "already imported"
ERASED_HERE = "imported before and erased for good since"


@dataclass(frozen=True)
class ImportPreview:
    path: Path
    source: Source
    source_name: str
    """"ChatGPT" or "Claude"."""
    new: tuple[Planned, ...]
    already: tuple[Skipped, ...]
    """Imported before (the same source and id), deleted or not: not added again."""
    skipped: tuple[Skipped, ...]
    """Nothing in them to import, or not conversations at all."""

    @property
    def new_messages(self) -> int:
        return sum(p.messages for p in self.new)


@dataclass(frozen=True)
class Imported:
    conversation_id: int
    title: str
    messages: int
    left_out: tuple[str, ...]


@dataclass(frozen=True)
class ImportResult:
    source_name: str
    imported: tuple[Imported, ...]
    skipped: tuple[Skipped, ...]
    """Already there, or with nothing to import; each with its reason."""
    failed: tuple[Skipped, ...]
    """Could not be stored (a full disk...); each with its reason."""
    cancelled: bool
    learn: bool

    @property
    def succeeded(self) -> bool:
        """Something was imported (an import that added nothing is no success)."""
        return bool(self.imported)

    def summary(self) -> str:
        """The result in one sentence for the user."""
        added = f"{counted(len(self.imported), 'conversation', 'conversations')} imported"
        messages = sum(i.messages for i in self.imported)
        parts = [f"{added} from {self.source_name} ({counted(messages, 'message', 'messages')})"]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        sentence = ", ".join(parts)
        if self.cancelled:
            sentence += "; cancelled before the rest"
        if self.imported and not self.learn:
            sentence += "; Reverie will not learn from them"
        return sentence + "."


@dataclass
class _Tally:
    """What a running import did so far."""

    imported: list[Imported] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    failed: list[Skipped] = field(default_factory=list)


class _Stopped(Exception):
    """The user cancelled while a conversation was read for secrets."""


class HistoryImporter:
    """Imports the conversations of other assistants' exports into *conversations*."""

    def __init__(
        self,
        conversations: ConversationStore,
        redactor: Redactor,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._conversations = conversations
        self._redact = redactor
        self._clock = clock

    def preview(self, path: Path) -> ImportPreview:
        """What importing *path* would do; ``ExportRefused`` if it cannot be
        read (damaged, cut short, not an export).  Reads the whole file."""
        return self._survey(open_export(path), lambda: False)[0]

    def run(self, path: Path, learn: bool, state: ImportState) -> ImportResult:
        """Import *path* (see the module's docstring); ``ExportRefused``
        before anything is stored if it cannot be read."""
        export = open_export(path)
        preview, cancelled = self._survey(export, state.is_cancelled)
        tally = _Tally(skipped=[*preview.already, *preview.skipped])
        if preview.new and not cancelled:
            wanted = {p.external_id for p in preview.new}
            cancelled = self._import_all(export, wanted, learn, state, tally)
        return ImportResult(
            preview.source_name,
            tuple(tally.imported),
            tuple(tally.skipped),
            tuple(tally.failed),
            cancelled,
            learn,
        )

    def _import_all(
        self,
        export: ForeignExport,
        wanted: set[str],
        learn: bool,
        state: ImportState,
        tally: _Tally,
    ) -> bool:
        """Import the conversations of *export* that are *wanted*; whether
        *state* cancelled it before the end."""
        total = len(wanted)
        state.set_progress(0, total)
        try:
            for conversation in self._wanted(export, wanted):
                if state.is_cancelled():
                    return True
                wanted.discard(conversation.external_id)  # twice in the file: once
                if not self._import_one(conversation, learn, tally, state.is_cancelled):
                    break
                state.set_progress(total - len(wanted), total)
        except ExportRefused as error:  # the file changed since it was read through
            tally.failed.append(Skipped("", None, str(error)))
        except _Stopped:  # mid-conversation: nothing of it was stored
            return True
        return False

    def _import_one(
        self,
        conversation: ForeignConversation,
        learn: bool,
        tally: _Tally,
        cancelled: Callable[[], bool],
    ) -> bool:
        """Import *conversation* into *tally*; whether to go on with the next.
        ``_Stopped`` if *cancelled* while it is read for secrets."""
        try:
            stored = self._store(conversation, learn, cancelled)
        except ReverieError as error:
            log.warning("an imported conversation could not be stored: %s", error)
            title = self._title(conversation)
            tally.failed.append(Skipped(title, conversation.external_id, str(error)))
            return not isinstance(error, EnvironmentProblem)  # a full disk fails the next too
        if stored is None:  # imported meanwhile (another import of the same file)
            title = self._title(conversation)
            tally.skipped.append(Skipped(title, conversation.external_id, ALREADY_THERE))
        else:
            tally.imported.append(stored)
        return True

    # -- reading -------------------------------------------------------------
    def _survey(
        self, export: ForeignExport, cancelled: Callable[[], bool]
    ) -> tuple[ImportPreview, bool]:
        """The preview of *export*, read to its end (or until *cancelled*:
        the second value says so)."""
        new: dict[str, Planned] = {}
        skipped: list[Skipped] = []
        stopped = False
        for item in export.conversations():
            if cancelled():
                stopped = True
                break
            if isinstance(item, Unusable):
                skipped.append(Skipped(self._shown(item.title), item.external_id, item.reason))
            elif item.external_id in new:
                skipped.append(
                    Skipped(self._title(item), item.external_id, "it is twice in the export")
                )
            else:
                new[item.external_id] = Planned(
                    self._title(item), item.external_id, len(item.messages), item.left_out
                )
        there = self._conversations.imported(export.source, new)
        erased = self._conversations.erased_imports(export.source, new)
        left = there.keys() | erased
        already = tuple(
            Skipped(planned.title, key, ALREADY_THERE)
            for key, planned in new.items()
            if key in there
        )
        skipped += [Skipped(new[key].title, key, ERASED_HERE) for key in sorted(erased)]
        preview = ImportPreview(
            export.path,
            export.source,
            export.source_name,
            tuple(planned for key, planned in new.items() if key not in left),
            already,
            tuple(skipped),
        )
        return preview, stopped

    @staticmethod
    def _wanted(export: ForeignExport, wanted: set[str]) -> Iterator[ForeignConversation]:
        for item in export.conversations():
            if isinstance(item, ForeignConversation) and item.external_id in wanted:
                yield item

    # -- storing -------------------------------------------------------------
    def _store(
        self, conversation: ForeignConversation, learn: bool, cancelled: Callable[[], bool]
    ) -> Imported | None:
        """Store *conversation* in one transaction; None if it was there already."""
        title, messages = self._redacted(conversation, cancelled)
        created = conversation.created_at or self._clock()
        updated = max(conversation.updated_at or created, created)
        rows = [
            ImportedMessage(
                message.role,
                text,
                message.created_at or created,
                {EXTERNAL_ID: message.external_id} if message.external_id else None,
            )
            for message, text in zip(conversation.messages, messages, strict=True)
        ]
        store = self._conversations
        with store.transaction() as tx:
            stored = store.create_imported(
                title,
                imported_from=conversation.source,
                external_id=conversation.external_id,
                created_at=created,
                updated_at=updated,
                tx=tx,
            )
            if stored is None:
                return None
            ids = store.add_imported_messages(stored.id, rows, tx)
            if not learn:
                store.mark_harvested(stored.id, ids[-1], tx=tx)
        return Imported(stored.id, title, len(rows), conversation.left_out)

    def _redacted(
        self, conversation: ForeignConversation, cancelled: Callable[[], bool]
    ) -> tuple[str, list[str]]:
        """The title and the texts of *conversation* as they are stored:
        redacted as ``ChatService`` redacts a typed message and a reply;
        ``_Stopped`` as soon as *cancelled*."""
        texts: list[str] = []
        last_user: int | None = None
        found: list[str] = []
        for message in conversation.messages:
            if cancelled():
                raise _Stopped
            if message.role != "user":
                texts.append(self._redact.text(message.text))
                continue
            # What it may answer or go on from: the user's latest message and
            # the latest of all, in order (``ConversationStore.last_messages``).
            before = sorted({i for i in (last_user, len(texts) - 1) if i is not None and i >= 0})
            cleaned = self._redact(message.text, after=[texts[i] for i in before])
            if named := (*cleaned.values, *cleaned.earlier):
                # A value said before it was named ("Zx8!pre55", then "that's my password").
                texts = [without(text, named) for text in texts]
                found.extend(named)
            last_user = len(texts)
            texts.append(cleaned.text)
        title = without(self._shown(conversation.title), found) if found else None
        return title or self._title(conversation, texts), texts

    def _title(self, conversation: ForeignConversation, texts: list[str] | None = None) -> str:
        """Its title as shown (redacted, on one line), or else its first
        message's first line (of *texts*, its stored texts, if given), or
        else the assistant's name."""
        if title := self._shown(conversation.title):
            return title
        said = texts if texts is not None else [m.text for m in conversation.messages]
        first = next(
            (t for m, t in zip(conversation.messages, said, strict=True) if m.role == "user"), ""
        )
        line = self._shown(first.strip().splitlines()[0]) if first.strip() else ""
        made = cut(line, MADE_TITLE_CHARS + 1)
        return made or f"A {SOURCE_NAMES[conversation.source]} conversation"

    def _shown(self, text: str) -> str:
        """*text* redacted, on one line (``ChatService.rename``); "" if a
        reader would see nothing of it."""
        shown = " ".join(self._redact.text(text[:TITLE_READ]).split()) if text.strip() else ""
        return "" if shows_nothing(shown) else shown
