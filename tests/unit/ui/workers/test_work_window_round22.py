"""Round 22: the Work window fed a model's hostile objective.

A row's tooltip (the whole objective) was read as HTML when the objective
held a tag: "<h1>…</h1>" showed as a heading, an "<img>" as a picture, the
text the model wrote was not what the user saw."""

from __future__ import annotations

from PySide6.QtGui import Qt as QtText
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.tools.sub_sessions import SpawnCall
from desktop.core.chat.tools.toolbox import ToolContext
from desktop.core.db import ConversationStore, Database
from desktop.ui.workers.window import WorkWindow
from models.broker import InferenceBroker
from tests.work import workers_over

OBJECTIVE = "<h1>Sum</h1> the <img src='bills.png'> & <b>May</b>'s &amp; bills"


def _as_shown(tip: str) -> str:
    """*tip* as a tooltip shows it: Qt reads it as HTML when it might be."""
    document = QTextDocument()
    if QtText.mightBeRichText(tip):
        document.setHtml(tip)
    else:
        document.setPlainText(tip)
    return document.toPlainText()


def test_a_rows_tooltip_shows_the_objective_as_written(
    qtbot: QtBot, database: Database, broker: InferenceBroker, prompts: PromptLibrary
) -> None:
    workers = workers_over(database, broker, prompts)
    conversation = ConversationStore(database).create("bills")
    workers.spawn(SpawnCall(objective=OBJECTIVE), ToolContext(conversation.id))
    window = WorkWindow(workers)
    qtbot.addWidget(window)
    window.show()

    [row] = window._items()

    assert _as_shown(row.toolTip(0)) == OBJECTIVE
    window.shutdown()
