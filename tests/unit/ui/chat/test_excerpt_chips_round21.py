"""Round 21: the chips of what a reply was given, fed titles and texts the
user (or an importer: a ChatGPT export's titles) wrote.

A chip's tooltip was read as HTML when the title or text held a tag (a
pasted page, "<b>notes</b>"): the tag was rendered, not shown.  And a chip's
text took an "&" as its mnemonic: a conversation titled "R&D budget" gave
its chip the shortcut Alt+D, which opened that other conversation."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QKeySequence, Qt, QTextDocument
from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from desktop.core.db.message_search import Excerpt
from desktop.core.memory.service import MemoryService
from desktop.ui.chat.transcript import Transcript

TITLE = "R&D <b>budget</b>"
TEXT = "<img src='x'> keep <i>this</i> & that &amp; <table><tr><td>cell</td></tr></table>"


def _as_shown(tip: str) -> str:
    """*tip* as a tooltip shows it: Qt reads it as HTML when it might be."""
    document = QTextDocument()
    if Qt.mightBeRichText(tip):
        document.setHtml(tip)
    else:
        document.setPlainText(tip)
    return document.toPlainText()


@pytest.mark.parametrize("kind", ["excerpt", "memory"])
def test_a_chip_shows_the_user_s_text_as_written_and_takes_no_shortcut_from_it(
    qtbot: QtBot, memories: MemoryService, kind: str
) -> None:
    transcript = Transcript()
    qtbot.addWidget(transcript)
    view = transcript.add_message("assistant", "Here you go.", 1)
    if kind == "excerpt":
        view.show_excerpts([Excerpt(5, 2, TITLE, 1_700_000_000.0, "user", TEXT)])
        [chip] = view.excerpt_chips
    else:
        memory = memories.store.add(
            f"{TITLE}: {TEXT}", embedding=None, source_kind="imported", actor="system"
        )
        view.show_memories([memory])
        [chip] = view.memory_chips

    assert isinstance(chip, QToolButton)
    assert QKeySequence.mnemonic(chip.text()).isEmpty(), chip.text()
    shown = _as_shown(chip.toolTip())
    assert "R&D <b>budget</b>" in shown
    assert "<img src='x'> keep <i>this</i> & that &amp; <table>" in shown
