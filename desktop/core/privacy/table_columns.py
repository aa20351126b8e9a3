"""A table's column of secrets, for ``redaction`` (round 26).

A spreadsheet pasted as CSV or TSV, a markdown table or a password
manager's export (1Password, Bitwarden, KeePass, LastPass) names its
columns once, in a header row ("Site\tLogin\tPassword", "| service |
login | pass |", '"Group","Title","Username","Password"'), and each row
below holds that column's value: "Pastel#de#nata" or "lumiere_9" under
"Password" is one, though no word beside it says so.  A column about a
password ("password_changed", "Last changed", "Password policy") holds
none, and a cell of words about it ("required", "see the card") or a
placeholder ("********", "${EBAY_PW}") is no value.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator

from desktop.core.base import text_scan
from desktop.core.privacy.credential_phrases import SECRET_HEADING, describes, placeholder

_NAMES_A_SECRET = re.compile(SECRET_HEADING, re.IGNORECASE)
"""A word any header of a secret column holds: the cheap test before a line is read."""
_SECRET_COLUMN = re.compile(
    r"(?:(?:login|admin|db|database|user|account|wi-?fi|root|app|master|router|device)[ _-]?)?"
    rf"(?:{SECRET_HEADING})",
    re.IGNORECASE,
)
"""A header naming a column of secrets: "Password", "login_password", "admin pass"."""
_SEPARATORS = ("\t", "|", ";", ",")
_CELL = {
    sign: re.compile(rf'[ \t]*(?:"(?:[^"\n]|"")*"|[^{re.escape(sign)}\n]*)') for sign in _SEPARATORS
}
"""A cell of a row split by the sign: quoted (a comma inside it) or not."""
_RULE = re.compile(r"[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|?)+[ \t]*")
"""A markdown table's line under its header: "|---|:--|"."""
_AROUND = " \t\"'`*"
_LONGEST_HEADER = 40
_ROWS = 200
"""The most rows read under one header (a table, not a file of data)."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each value of a column whose header names a secret is, row by row
    (each line read once: a long line of "pw: pw: ..." is no slower)."""
    if not text_scan.may_match(_NAMES_A_SECRET, text):
        return
    position = 0
    while (name := next(text_scan.scanned(_NAMES_A_SECRET, text, position), None)) is not None:
        start = text.rfind("\n", position, name.start()) + 1 or position
        position = yield from _column_values(text, start)


def _column_values(text: str, start: int) -> Generator[tuple[int, int], None, int]:
    """The values under the header line at *start*, if it is a table's
    header; returns where the next line to read starts."""
    end = _line_end(text, start)
    sign = next((s for s in _SEPARATORS if s in text[start:end]), None)
    if sign is None:
        return end + 1
    header = [text[low:high] for low, high in _cells(text, start, end, sign)]
    columns = [i for i, cell in enumerate(header) if _SECRET_COLUMN.fullmatch(cell)]
    labels = all(len(cell) <= _LONGEST_HEADER for cell in header)
    if not columns or len(header) < 2 or not labels:
        return end + 1
    line = end + 1
    if sign == "|" and (rule := _RULE.fullmatch(text, line, _line_end(text, line))):
        line = rule.end() + 1
    elif sign == "|" and text[start:end].lstrip().startswith("|"):
        return line  # a markdown table's row ("| password | X |"), not its header (round 27)
    for _ in range(_ROWS):
        if line >= len(text):
            break
        end = _line_end(text, line)
        cells = list(_cells(text, line, end, sign))
        if len(cells) != len(header):
            break
        for column in columns:
            low, high = cells[column]
            value = text[low:high]
            if value and _a_value(value):
                yield low, high
        line = end + 1
    return line


def _a_value(value: str) -> bool:
    """Is *value*, under a secret's header, a value rather than a placeholder
    ("********", "${EBAY_PW}") or words about it ("required", "see the card")?"""
    return not set(value) <= set("*\u2022x.-_") and not placeholder(value) and not describes(value)


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _cells(text: str, start: int, end: int, sign: str) -> Iterator[tuple[int, int]]:
    """Each cell of the row ``text[start:end]`` split by *sign*, without the
    quotes, spaces and markup around its content (a markdown row's outer
    bars open and close no cell)."""
    row = text[start:end].rstrip("\r")
    end = start + len(row)
    if sign == "|":
        bare = row.strip()
        if bare.startswith("|"):
            start = text.index("|", start) + 1
        if bare.endswith("|") and end > start:
            end = text.rindex("|", start, end)
    position = start
    pattern = _CELL[sign]
    while True:
        cell = pattern.match(text, position, end)
        low, high = cell.span() if cell is not None else (position, position)
        while low < high and text[low] in _AROUND:
            low += 1
        while high > low and text[high - 1] in _AROUND:
            high -= 1
        yield low, high
        position = cell.end() if cell is not None else position
        if position >= end or text[position] != sign:
            return
        position += 1
