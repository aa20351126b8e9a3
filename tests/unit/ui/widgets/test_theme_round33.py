"""Round 33: a field's placeholder is readable in both schemes.

The style sheet gave fields their text colour, and Qt drew a placeholder
("Search by words or meaning (Ctrl+F)", "e.g. weekdays at 8:30, tomorrow 9")
in that colour at half strength: 3.25:1 on white, 4.46:1 in the dark, under
WCAG's 4.5:1 for text that says something.  Measured where Qt draws it.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.base.settings import Appearance
from desktop.ui.widgets.theme import BODY_TEXT_CONTRAST, contrast_ratio
from tests.unit.ui.widgets.test_theme import MakeTheme, make_theme  # noqa: F401 (the fixture)


def _placeholder_contrast(field: QWidget) -> float:
    """The contrast of the strongest ink in *field* (only its placeholder is
    written) against its commonest colour (its background)."""
    image = field.grab().toImage()
    counts: dict[str, int] = {}
    for y in range(4, image.height() - 4):  # inside the border
        for x in range(4, image.width() - 4):
            name = QColor.fromRgb(image.pixel(x, y)).name()
            counts[name] = counts.get(name, 0) + 1
    background = max(counts, key=counts.__getitem__)
    return max(contrast_ratio(ink, background) for ink in counts)


@pytest.mark.parametrize("appearance", ["light", "dark"])
def test_a_fields_placeholder_is_readable(
    qtbot: QtBot,
    make_theme: MakeTheme,  # noqa: F811 (a fixture)
    appearance: Appearance,
) -> None:
    make_theme(appearance)
    line, box = QLineEdit(), QPlainTextEdit()
    for field in (line, box):
        qtbot.addWidget(field)
        field.setPlaceholderText("Search by words or meaning")
        field.resize(320, 60)
        field.show()
        assert _placeholder_contrast(field) >= BODY_TEXT_CONTRAST, type(field).__name__
