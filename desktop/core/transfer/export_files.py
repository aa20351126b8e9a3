"""Where an export's conversations are: the files to read, whatever the
user pointed at.

An export is a .zip as it was downloaded (read entry by entry, never
extracted), the folder it was unpacked into, or one of its files.  Its
conversations are in ``conversations.json``, or in newer ChatGPT exports
in shards (``conversations-000.json``, ``conversations-001.json``…) with
an ``export_manifest.json`` beside them; a shard pointed at brings its
sibling shards.  The manifest's format is not documented: it is only read
for the shard names it holds, and an export missing one of them is
refused as incomplete.  Which assistant made the export is said by what
the files hold, not by their names (``reading``).
"""

from __future__ import annotations

import codecs
import io
import json
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, TextIO

from desktop.core.base.files import kind_in_the_way
from desktop.core.base.paths import explain
from desktop.core.transfer.foreign import ExportRefused, NotAnExport
from desktop.core.transfer.unpacking import overpacked

CONVERSATIONS = "conversations.json"
MANIFEST = "export_manifest.json"
MANIFEST_MOST = 16 << 20
"""The largest manifest read (an export's list of its files: kilobytes);
a larger one is not read at all, and costs only the check it adds."""
_SHARD = re.compile(r"conversations-(\d+)\.json")
_ZIP_MAGIC = b"PK\x03\x04"


@dataclass(frozen=True)
class Document:
    """One JSON file of an export: *name* for messages, *open* to read it as text."""

    name: str
    open: Callable[[], AbstractContextManager[TextIO]]


def documents(path: Path) -> tuple[Document, ...]:
    """The files holding the conversations of the export at *path*, in order."""
    try:
        if path.is_dir():
            return _in_folder(path)
        if (kind := kind_in_the_way(path)) is not None:  # never opened: a pipe would wait
            raise ExportRefused(f"{path} is {kind}, not a file.", "Choose the export's file.")
        if not path.is_file():
            raise ExportRefused(f"{path} is not there.", "Check the path and try again.")
        if zipfile.is_zipfile(path):
            return _in_zip(path)
        with path.open("rb") as handle:
            zip_start = handle.read(4) == _ZIP_MAGIC
    except OSError as error:
        raise ExportRefused(f"{path} cannot be read: {explain(error)}.") from error
    if zip_start:  # a .zip whose end is missing: cut short while downloaded
        raise ExportRefused(
            f"{path} is a damaged .zip file (it breaks off).",
            "Download the export again and import the new file.",
        )
    if _SHARD.fullmatch(path.name):
        return _in_folder(path.parent)
    return (Document(str(path), lambda: _text_file(path)),)


def _in_folder(folder: Path) -> tuple[Document, ...]:
    names = [entry.name for entry in folder.iterdir() if entry.is_file()]
    chosen = _chosen(names)
    if not chosen:
        raise NotAnExport(
            f"{folder} holds no {CONVERSATIONS}: it is not a ChatGPT or Claude export.",
            "Choose the .zip file the export came in, or its conversations.json.",
        )
    if MANIFEST in names:
        _check_complete(_bounded((folder / MANIFEST).open("rb")), names)
    return tuple(Document(str(folder / name), _opener(folder / name)) for name in chosen)


def _opener(path: Path) -> Callable[[], AbstractContextManager[TextIO]]:
    return lambda: _text_file(path)


def _in_zip(path: Path) -> tuple[Document, ...]:
    try:
        with zipfile.ZipFile(path) as archive:
            entries = [info.filename for info in archive.infolist() if not info.is_dir()]
            by_name: dict[str, list[str]] = {}
            for entry in entries:
                by_name.setdefault(PurePosixPath(entry).name, []).append(entry)
            chosen = _chosen(by_name)
            manifest = by_name.get(MANIFEST)
            read = [_shallowest(by_name[name]) for name in chosen] + (manifest or [])[:1]
            if why := overpacked(archive.getinfo(entry) for entry in read):
                raise ExportRefused(f"{path} cannot be imported: {why}.")
            if chosen and manifest:
                _check_complete(_bounded(archive.open(manifest[0])), by_name)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as error:
        # An encrypted manifest, or one compressed by a method Python lacks.
        raise ExportRefused(f"{path} is a damaged .zip file: {error}.") from error
    if not chosen:
        raise NotAnExport(f"{path} holds no {CONVERSATIONS}: it is not a ChatGPT or Claude export.")
    return tuple(
        Document(f"{path}: {entry}", _zip_opener(path, entry))
        for entry in (_shallowest(by_name[name]) for name in chosen)
    )


def _shallowest(entries: list[str]) -> str:
    """The shallowest copy of a name: an export nested in a folder of the zip."""
    return min(entries, key=lambda e: e.count("/"))


def _zip_opener(path: Path, entry: str) -> Callable[[], AbstractContextManager[TextIO]]:
    return lambda: _zip_entry(path, entry)


def _chosen(names: Iterable[str]) -> list[str]:
    """The shards in their order, or else ``conversations.json``."""
    names = list(names)
    shards = sorted((int(m.group(1)), n) for n in names if (m := _SHARD.fullmatch(n)))
    if shards:
        return [name for _, name in shards]
    return [CONVERSATIONS] if CONVERSATIONS in names else []


def _bounded(stream: AbstractContextManager[IO[bytes]]) -> bytes | None:
    """What *stream* holds, if no more than ``MANIFEST_MOST`` bytes."""
    with stream as handle:
        read = handle.read(MANIFEST_MOST + 1)
    return read if len(read) <= MANIFEST_MOST else None


def _check_complete(manifest: bytes | None, present: Iterable[str]) -> None:
    """Refuse an export whose manifest names a shard it does not hold."""
    if manifest is None:  # larger than any export's list of its files
        return  # it only ever adds a check
    try:
        named = set(_shard_names(json.loads(manifest)))
    except (ValueError, RecursionError):  # unreadable, or nested past Python's limit:
        return  # it only ever adds a check
    missing = sorted(named - set(present))
    if missing:
        raise ExportRefused(
            f"The export is incomplete: {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing ({MANIFEST} names "
            f"{'it' if len(missing) == 1 else 'them'}).",
            "Download the export again, or unpack all of it.",
        )


def _shard_names(value: object) -> Iterator[str]:
    if isinstance(value, str):
        name = PurePosixPath(value.replace("\\", "/")).name
        if _SHARD.fullmatch(name):
            yield name
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _shard_names(key)
            yield from _shard_names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _shard_names(item)


@contextmanager
def _text_file(path: Path) -> Iterator[TextIO]:
    with path.open("rb") as raw:
        yield _as_text(raw)


@contextmanager
def _zip_entry(path: Path, entry: str) -> Iterator[TextIO]:
    with zipfile.ZipFile(path) as archive, archive.open(entry) as raw:
        yield _as_text(raw)


def _as_text(raw: IO[bytes]) -> TextIO:
    """*raw* read as text: UTF-8, or UTF-16 or UTF-32 if it begins with
    their byte-order mark (as Notepad saves "Unicode").  A byte that is
    not UTF-8 is read as Windows-1252 reads it (``_NOT_UTF8``): an export
    saved again as "ANSI" keeps its accents, and one bad byte in a long
    history is no reason to refuse all of it."""
    start = raw.peek(4)[:4] if isinstance(raw, io.BufferedReader | zipfile.ZipExtFile) else b""
    marked = next((name for mark, name in _MARKS if start.startswith(mark)), None)
    if marked is not None:
        return io.TextIOWrapper(raw, encoding=marked, errors="replace")
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors=_NOT_UTF8)


_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16's, which begins it
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_NOT_UTF8 = "reverie.export.windows-1252"


def _read_as_windows_1252(error: UnicodeError) -> tuple[str, int]:
    """The bytes UTF-8 could not read as Windows-1252 has them (U+FFFD for
    the five it leaves unassigned), and where to go on."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    bad = error.object[error.start : error.end]
    return bad.decode("cp1252", errors="replace"), error.end


# Codec error handlers are named in one registry for the whole process.
codecs.register_error(_NOT_UTF8, _read_as_windows_1252)
