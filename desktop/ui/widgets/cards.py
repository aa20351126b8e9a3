"""Lists drawn as cards: the look the memory browser, the skill editor and
the dream report share (a rounded highlight, a title line over a small grey
line, chips at the right end)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from desktop.ui.widgets.theme import active_palette


class CardDelegate(QStyledItemDelegate):
    """Draws an item holding a *kind* under *role* as a card of two lines;
    a subclass draws what is in it (``draw_card``)."""

    PAD = 8
    role: int
    kind: type
    width_hint = 240

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        item = index.data(self.role)
        if not isinstance(item, self.kind):
            super().paint(painter, option, index)
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        box = QRectF(option.rect.adjusted(2, 2, -2, -2))
        fill_item(painter, option, box)
        pad = self.PAD
        self.draw_card(
            painter, option, index, item, box.adjusted(pad + 2, pad - 2, -pad - 2, -pad + 2)
        )
        painter.restore()

    def draw_card(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
        item: Any,
        box: QRectF,
    ) -> None:
        """Draw *item* (a *kind*) inside *box*."""
        raise NotImplementedError

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        lines = QFontMetrics(option.font).height() + QFontMetrics(small_font(option.font)).height()
        return QSize(self.width_hint, lines + 2 * self.PAD + 6)


def fill_item(painter: QPainter, option: QStyleOptionViewItem, box: QRectF) -> None:
    """The selected or hovered background and the focus ring, as the memory list draws them."""
    colours = active_palette()
    for state, colour in (
        (QStyle.StateFlag.State_Selected, colours.selection),
        (QStyle.StateFlag.State_MouseOver, colours.hover),
    ):
        if option.state & state:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(colour))
            painter.drawRoundedRect(box, 6, 6)
            break
    if option.state & QStyle.StateFlag.State_HasFocus:
        painter.setPen(QPen(colours.colour("focus"), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)


def draw_chip(painter: QPainter, font: QFont, line: QRectF, text: str, fg: str, bg: str) -> float:
    """A small rounded label at the right end of *line*; its width."""
    metrics = QFontMetrics(font)
    width = metrics.horizontalAdvance(text) + 12
    height = min(line.height(), metrics.height() + 2)
    chip = QRectF(line.right() - width, line.center().y() - height / 2, width, height)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(bg))
    painter.drawRoundedRect(chip, height / 2, height / 2)
    painter.setFont(font)
    painter.setPen(QColor(fg))
    painter.drawText(chip, Qt.AlignmentFlag.AlignCenter, text)
    return width


def draw_line(painter: QPainter, font: QFont, colour: QColor, box: QRectF, text: str) -> None:
    painter.setFont(font)
    painter.setPen(colour)
    elided = QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideRight, int(box.width()))
    painter.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, elided)


def small_font(font: QFont) -> QFont:
    smaller = QFont(font)
    smaller.setPointSizeF(font.pointSizeF() * 0.85)
    return smaller
