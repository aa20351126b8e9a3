"""Text from outside (a paste, a file, a model) made safe to store and show."""

from __future__ import annotations


def scrub(text: str) -> str:
    """*text* with surrogate pairs joined and lone surrogates (which UTF-8, and
    so SQLite, cannot hold) replaced by U+FFFD; everything else unchanged."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
