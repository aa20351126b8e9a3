"""Break opportunities in text too long to wrap.

Qt's text layout breaks lines only where Unicode allows; a longer run with
no break opportunity (a link, a hash, a pasted token) would make its label
as wide as the run, and a view that never scrolls sideways cut off every
line of it on the right.  These functions put a zero-width space every few
characters of such a run, in plain text or in the text of HTML (never
inside a tag or an entity, never inside what a reader sees as one
character: a letter and its accents, an emoji and its skin tone, variation
selector or joined parts, a flag).  What is copied from a label is its
original text (``copies_unbroken``).  Text given breaks is text shown, so
it is also shown in its stored order (``bidi.stored_order``).
"""

from __future__ import annotations

from collections.abc import Sequence

import regex
from PySide6.QtCore import QMimeData
from PySide6.QtGui import QClipboard
from PySide6.QtWidgets import QApplication, QLabel

from desktop.ui.widgets.bidi import stored_order

_ZERO_WIDTH_SPACE = "\u200b"
_UNBROKEN_CHARS = 24
_BREAK_EVERY = 16
_BREAKING = r" \t\n\r\f\v\u1680\u2000-\u2006\u2008-\u200b\u2028\u2029\u205f\u3000"
"""Spaces that allow a line break (not the no-break ones) and the zero-width space."""
_PLAIN_RUN = regex.compile(rf"[^{_BREAKING}]{{{_UNBROKEN_CHARS},}}")
_HTML_RUN = regex.compile(rf"(?:&#?\w+;|[^{_BREAKING}&<>]){{{_UNBROKEN_CHARS},}}")
_CHARACTER = regex.compile(r"\X")
"""What a reader sees as one character (a grapheme cluster, Unicode's UAX #29)."""
_HTML_CHARACTER = regex.compile(r"&#?\w+;|\X")
_HTML_TAG = regex.compile(r"(<[^>]*>)")


def breakable(text: str) -> str:
    """Plain *text* with a zero-width space every few characters of a run
    too long to wrap, shown in its stored order."""
    return _PLAIN_RUN.sub(lambda run: _broken(_CHARACTER.findall(run.group())), stored_order(text))


def breakable_html(html: str) -> str:
    """*html* with the same breaks in its text (never inside a tag or an
    entity), shown in its stored order."""
    parts = _HTML_TAG.split(stored_order(html))
    parts[::2] = [
        _HTML_RUN.sub(lambda run: _broken(_HTML_CHARACTER.findall(run.group())), text)
        for text in parts[::2]
    ]
    return "".join(parts)


def unbroken(text: str) -> str:
    """*text* without the breaks put in (what a screen reader or a copy is given)."""
    return text.replace(_ZERO_WIDTH_SPACE, "")


def copies_unbroken(clipboard: QClipboard) -> None:
    """Take the breaks back out of what is copied from a label of this
    application: a link or a key selected and copied from one carried them,
    invisible, into the browser or the terminal it was pasted in, and no
    longer worked there."""
    if not clipboard.property("unbreaks-copies"):  # once, however many windows ask
        clipboard.setProperty("unbreaks-copies", True)
        clipboard.dataChanged.connect(_unbreak_copy)


def _unbreak_copy() -> None:
    clipboard = QApplication.clipboard()
    data = clipboard.mimeData()
    if (
        data is None
        or _ZERO_WIDTH_SPACE not in data.text()
        or not isinstance(QApplication.focusWidget(), QLabel)  # another application's copy
    ):
        return
    copy = QMimeData()
    copy.setText(unbroken(data.text()))
    if data.hasHtml():
        copy.setHtml(unbroken(data.html()))
    clipboard.setMimeData(copy)


def _broken(characters: Sequence[str]) -> str:
    return _ZERO_WIDTH_SPACE.join(
        "".join(characters[start : start + _BREAK_EVERY])
        for start in range(0, len(characters), _BREAK_EVERY)
    )
