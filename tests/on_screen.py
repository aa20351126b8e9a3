"""What a label or a tooltip reads on screen: Qt shows a tip, and a label
left to guess (``Qt.AutoText``), as HTML when its first line might be
(``Qt.mightBeRichText``), as plain text otherwise."""

from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

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
    return _as_shown(tip, QtGui.Qt.mightBeRichText(tip))


def label_shows(label: QLabel) -> str:
    """The text *label* shows (line breaks as newlines)."""
    text, format_ = label.text(), label.textFormat()
    rich = format_ == Qt.TextFormat.RichText or (
        format_ == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text)
    )
    return _as_shown(text, rich)


def _as_shown(text: str, rich: bool) -> str:
    document = QTextDocument()
    if rich:
        document.setHtml(text)
    else:
        document.setPlainText(text)
    return document.toPlainText()
