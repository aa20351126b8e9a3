"""How much of a zip an import may unpack: a zip bomb is refused before it is read.

A zip bomb is a small file whose entries unpack to gigabytes (deflate packs
a run of one byte about a thousand to one).  An archive's entries are read
whole, so one would fill the memory; an export's ``conversations.json`` is
read as a stream, but a bomb of white space would keep an import busy for
hours.  Text and JSON pack between 4 and 40 to one (a ChatGPT export of
short messages, the densest measured, 36); so the entries an import reads
may together unpack to ``FREE_BYTES`` and to ``PACKING_RATIO`` times what
they take packed beyond that.  The sizes a zip states are the most its
reader gives (Python's ``zipfile`` stops there), so they are checked, not
the bytes.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable

PACKING_RATIO = 100
FREE_BYTES = 64 << 20
"""What any zip may unpack to, however well it packs (a few short files do)."""


def overpacked(entries: Iterable[zipfile.ZipInfo]) -> str | None:
    """Why reading *entries* is refused, in words ("its entries unpack to
    ..."), or None if they unpack to what a zip of text may."""
    found = list(entries)
    unpacked = sum(entry.file_size for entry in found)
    packed = sum(entry.compress_size for entry in found)
    if unpacked <= FREE_BYTES + PACKING_RATIO * packed:
        return None
    return (
        f"its entries would unpack to {_size(unpacked)} from {_size(packed)}, "
        f"more than {PACKING_RATIO} times, as a zip bomb does"
    )


def _size(count: int) -> str:
    return f"{count / (1 << 20):,.1f} MB" if count >= 1 << 20 else f"{count:,} bytes"
