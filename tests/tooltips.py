"""How a tooltip reads on screen: Qt shows a tip as HTML when its first line
might be (``Qt.mightBeRichText``), as plain text otherwise."""

from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtGui import QTextDocument

HOSTILE_TEXTS = (
    "<b>Budget</b> for the R&D trip",
    '<img src="file:///etc/hostname"> the photo',
    '<a href="file:///etc/passwd">the link</a> to send',
    "Notes on <table><tr><td>layout</td></tr></table> tags",
    "Use &amp; in HTML, not a bare & sign",
)
"""Texts a user or a model writes that Qt would read as HTML (or entities)."""


def tip_shows(tip: str) -> str:
    """The text the tooltip *tip* shows (line breaks as newlines)."""
    document = QTextDocument()
    if QtGui.Qt.mightBeRichText(tip):
        document.setHtml(tip)
    else:
        document.setPlainText(tip)
    return document.toPlainText()
