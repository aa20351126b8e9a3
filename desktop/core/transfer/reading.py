"""An export opened for reading: which assistant made it, said by what it
holds, and its conversations one at a time.

The formats are recognised by their first conversation: ChatGPT's have a
``mapping`` of nodes, Claude's a list of ``chat_messages``.  Anything else
is refused as not an export (``NotAnExport``); a Reverie archive, when
there is one to read, is recognised before these (``FORMATS`` is the
place), never mistaken for either.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from desktop.core.base.paths import explain
from desktop.core.transfer import chatgpt, claude
from desktop.core.transfer.export_files import Document, documents
from desktop.core.transfer.foreign import (
    SOURCE_NAMES,
    ExportRefused,
    ForeignConversation,
    NotAnExport,
    Source,
    Unusable,
)
from desktop.core.transfer.json_stream import ItemTooLong, MalformedJson, NotAList, items


@dataclass(frozen=True)
class Format:
    source: Source
    looks_like: Callable[[Mapping[str, object]], bool]
    conversation: Callable[[object], ForeignConversation | Unusable]


FORMATS = (
    Format("chatgpt", chatgpt.looks_like, chatgpt.conversation),
    Format("claude", claude.looks_like, claude.conversation),
)
NOT_AN_EXPORT_HINT = (
    "Choose the .zip file of a ChatGPT or Claude data export, or its conversations.json."
)


@dataclass(frozen=True)
class ForeignExport:
    """The export at *path*, made by *format*'s assistant."""

    path: Path
    format: Format
    documents: tuple[Document, ...]

    @property
    def source(self) -> Source:
        return self.format.source

    @property
    def source_name(self) -> str:
        return SOURCE_NAMES[self.source]

    def conversations(self) -> Iterator[ForeignConversation | Unusable]:
        """Each of its conversations as read; ``ExportRefused`` when a file
        turns out damaged or cut short (what was read before it is not
        to be acted on: read to the end before storing anything)."""
        for document in self.documents:
            for item in _items(document):
                yield self.format.conversation(item)


def open_export(path: Path) -> ForeignExport:
    """The export at *path*, its format recognised; ``ExportRefused`` (or
    ``NotAnExport``) says why it cannot be read."""
    found = documents(path)
    for document in found:
        first = next(_items(document, first_only=True), None)
        if first is None:
            continue
        if isinstance(first, dict):
            for candidate in FORMATS:
                if candidate.looks_like(first):
                    return ForeignExport(path, candidate, found)
        raise NotAnExport(
            f"{document.name} is not a ChatGPT or Claude export (its conversations "
            "are of a kind Reverie does not know).",
            NOT_AN_EXPORT_HINT,
        )
    raise ExportRefused(f"{path} holds no conversations: there is nothing to import.")


def _items(document: Document, first_only: bool = False) -> Iterator[object]:
    """The items of *document*'s list, its faults as ``ExportRefused``."""
    try:
        with document.open() as stream:
            listed = items(stream)
            for item in listed:
                if first_only and item is None:
                    continue  # a null is no conversation: the next says what the file is
                yield item
                if first_only:
                    return
    except NotAList as error:
        raise NotAnExport(
            f"{document.name} is not a ChatGPT or Claude export ({error}).", NOT_AN_EXPORT_HINT
        ) from error
    except ItemTooLong as error:
        raise ExportRefused(
            f"{document.name} holds a conversation longer than {error.most:,} characters, "
            "more than Reverie reads at once; nothing was imported.",
            "Delete that conversation where it was made and export again.",
        ) from error
    except MalformedJson as error:
        raise ExportRefused(
            f"{document.name} is damaged or cut short ({error}); nothing was imported.",
            "Download the export again and import the new file.",
        ) from error
    except RecursionError as error:  # past Python's limit, which its message names
        raise ExportRefused(
            f"{document.name} is nested deeper than any export (lists or objects within one "
            "another hundreds of levels deep); nothing was imported.",
            "Download the export again and import the new file.",
        ) from error
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as error:
        # A zip's entry encrypted, or compressed by a method Python lacks
        # (NotImplementedError, RuntimeError).
        raise ExportRefused(
            f"{document.name} cannot be read ({error}); nothing was imported.",
            "Download the export again and import the new file.",
        ) from error
    except OSError as error:
        raise ExportRefused(f"{document.name} cannot be read: {explain(error)}.") from error
