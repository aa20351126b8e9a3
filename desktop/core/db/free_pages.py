"""The database's list of free pages, walked at open.

SQLite keeps the pages a deletion freed in a list (trunk pages, each
naming the next and up to a page's worth of free "leaf" pages; the first
trunk and the count are in the file's header:
https://www.sqlite.org/fileformat2.html#the_freelist).  Nothing reads that
list until a write needs a new page; damaged (a bad sector, a stray
write), the file opens and reads as before, and then every message or
memory that needs a page fails to save as damaged.  Walking it takes a read
of each trunk page alone, so the start does it and says what it found; the
integrity check, which finds it too, reads the whole file.

A rebuild of the file (``VACUUM``) makes the list anew from the tables and
keeps everything in them, so the way out loses nothing.
"""

from __future__ import annotations

import re

from desktop.core.db.connection import Database, connect
from desktop.core.db.errors import QueryFailed

_FIRST_TRUNK, _COUNT = 32, 36  # in the header (page 1)
_RESERVED = 20  # bytes at each page's end kept for extensions
_TRUNK_HEAD = 8  # the next trunk, then how many leaves it names


def free_list_damage(database: Database) -> str | None:
    """What is wrong with *database*'s list of free pages (read through its
    WAL), in a few words; None if it is sound or cannot be walked here (a
    driver without SQLite's page reader: the integrity check still finds it)."""
    try:
        header = _page(database, 1)
    except QueryFailed:
        return None
    pages = int(database.pragma("page_count"))
    usable = len(header) - header[_RESERVED]
    trunk, counted = _number(header, _FIRST_TRUNK), 0
    expected = _number(header, _COUNT)
    seen: set[int] = set()
    while trunk:
        if not 1 < trunk <= pages or trunk in seen:
            return _names(trunk, pages)
        seen.add(trunk)
        page = _page(database, trunk)
        leaves = _number(page, 4)
        if leaves > usable // 4 - 2:
            return f"its page {trunk} says it names {leaves} pages, more than a page holds"
        for at in range(_TRUNK_HEAD, _TRUNK_HEAD + 4 * leaves, 4):
            if not 1 < (leaf := _number(page, at)) <= pages:
                return _names(leaf, pages)
        counted += 1 + leaves
        if counted > expected:
            break
        trunk = _number(page, 0)
    if counted != expected:
        return f"it holds {counted} pages where the file's header counts {expected}"
    return None


_FINDINGS = 100
_IN_THE_LIST = re.compile(r"Freelist: ")
_CUT_OFF = re.compile(r"Page \d+: never used$")  # pages a damaged list no longer names


def only_the_free_list(database: Database) -> bool:
    """Whether SQLite's quick check of *database* (on a connection of its
    own) finds damage in its list of free pages and nowhere else: then a
    rebuild (``VACUUM``) keeps everything, and going back to a copy would
    lose what was said since it was taken."""
    with connect(database.path, database._driver, view="mode=ro", create=False) as checker:
        rows = checker.fetch_all(f"PRAGMA quick_check({_FINDINGS})")
    lines = [line for row in rows for line in str(row[0]).splitlines()]
    lines = [line for line in lines if line != "ok" and not line.startswith("*** ")]
    return (
        len(rows) < _FINDINGS  # all of them read
        and any(_IN_THE_LIST.match(line) for line in lines)
        and all(_IN_THE_LIST.match(line) or _CUT_OFF.match(line) for line in lines)
    )


def free_list_note(database: Database, damage: str) -> str:
    """What the user is told at start of the *damage* ``free_list_damage`` found."""
    path = database.path
    return (
        f"The list of free pages in Reverie's database {path} is damaged ({damage}). "
        "Nothing you saved is lost by it, but new messages and memories may fail to "
        f'save until it is rebuilt: quit Reverie and run  sqlite3 "{path}" "VACUUM"  '
        "(the sqlite3 program rebuilds the file and keeps everything in it)."
    )


def _names(number: int, pages: int) -> str:
    return f"it names page {number} as free, which cannot be (the file has {pages} pages)"


def _page(database: Database, number: int) -> bytes:
    data = database.fetch_value("SELECT data FROM sqlite_dbpage WHERE pgno = ?", (number,))
    return bytes(data or b"")


def _number(page: bytes, at: int) -> int:
    return int.from_bytes(page[at : at + 4], "big")
