"""Text from outside (a paste, a file, a model) made safe to store and show,
and quantities said as people read them."""

from __future__ import annotations


def scrub(text: str) -> str:
    """*text* with surrogate pairs joined and lone surrogates (which UTF-8, and
    so SQLite, cannot hold) replaced by U+FFFD; everything else unchanged."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def size_text(count: int | None) -> str:
    """*count* bytes as people read sizes: "1.1 GB", "98 MB", "300 KB"."""
    if count is None:
        return "?"
    if count >= 1_000_000_000:
        return f"{count / 1e9:.1f} GB"
    if count >= 1_000_000:
        return f"{count / 1e6:.0f} MB"
    if count >= 1_000:
        return f"{count / 1e3:.0f} KB"
    return f"{count} B"


def duration_text(seconds: float) -> str:
    """*seconds* as "1 h 5 min", "3 min" or "40 s"."""
    whole = int(seconds)
    if whole >= 3600:
        return f"{whole // 3600} h {whole % 3600 // 60} min"
    if whole >= 60:
        return f"{whole // 60} min"
    return f"{whole} s"
