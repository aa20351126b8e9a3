"""A run without spaces is given places to break, and nothing else changes:
no break falls inside what a reader sees as one character (round 22 found
the labels' copy of this splitting nothing, and the chat's splitting an
emoji from its skin tone and a flag in two)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QLineEdit
from pytestqt.qtbot import QtBot

from desktop.ui.widgets.line_breaks import breakable, breakable_html, copies_unbroken, unbroken

ZWSP = "\u200b"
# Each written out as the code points a reader sees as one character.
CHARACTERS = {
    "an accent storm": "Z\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308",
    "a family (joined emoji)": "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "a thumb with a skin tone and a variation selector": "\U0001f44d\U0001f3fd\ufe0f",
    "a flag (two regional indicators)": "\U0001f1e9\U0001f1ea",
    "a subdivision flag (tag characters)": (
        "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    ),
    "a Hangul syllable in jamo": "\u1100\u1161\u11a8",
    "a Devanagari conjunct": "\u0915\u094d\u0937\u093f",
}


def test_a_long_run_breaks_every_so_often_and_reads_the_same() -> None:
    link = "https://example.com/" + "a" * 200
    shown = breakable(f"see {link} now")

    assert unbroken(shown) == f"see {link} now"
    assert ZWSP in shown and max(len(part) for part in shown.split(ZWSP)) <= 24
    assert breakable("short words stay as they are") == "short words stay as they are"


@pytest.mark.parametrize("kind", CHARACTERS)
@pytest.mark.parametrize("mixed", [False, True], ids=["alone", "among-letters"])
def test_no_break_falls_inside_a_character(kind: str, mixed: bool) -> None:
    character = CHARACTERS[kind]
    unit = f"{character}x" if mixed else character
    text = unit * 40
    for shown in (breakable(text), breakable_html(text)):
        assert ZWSP in shown and unbroken(shown) == text
        for piece in shown.split(ZWSP):
            # Every piece is whole units, or starts with the letter after one.
            rest = piece.removeprefix("x") if mixed else piece
            assert rest.replace(unit, "") in ("", character), (kind, piece)


def test_html_keeps_tags_and_entities_whole() -> None:
    html = "<a href='" + "h" * 60 + "'>" + "&amp;" * 30 + "</a>"
    shown = breakable_html(html)
    assert shown.startswith("<a href='" + "h" * 60 + "'>") and shown.endswith("</a>")
    assert unbroken(shown) == html
    assert all(piece.count("&") == piece.count(";") for piece in shown.split(ZWSP))


def test_what_is_copied_from_a_label_holds_no_breaks(qtbot: QtBot) -> None:
    """Round 23: a link selected and copied from a label carried the breaks
    put in it, invisible, into whatever it was pasted in."""
    link = "https://example.com/" + "a1b2c3" * 20
    clipboard = QGuiApplication.clipboard()
    copies_unbroken(clipboard)
    label = QLabel(breakable(f"see {link}"))
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    qtbot.addWidget(label)
    label.show()
    label.setFocus()
    qtbot.waitUntil(label.hasFocus)
    label.setSelection(0, len(label.text()))
    assert ZWSP in label.selectedText()

    qtbot.keyClick(label, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)

    qtbot.waitUntil(lambda: clipboard.text() == f"see {link}")


def test_another_application_s_copy_is_left_as_it_is(qtbot: QtBot) -> None:
    clipboard = QGuiApplication.clipboard()
    copies_unbroken(clipboard)
    elsewhere = QLineEdit()  # focus on something that is no label
    qtbot.addWidget(elsewhere)
    elsewhere.show()
    elsewhere.setFocus()
    clipboard.setText(f"kept{ZWSP}as{ZWSP}written")
    qtbot.wait(50)
    assert clipboard.text() == f"kept{ZWSP}as{ZWSP}written"
