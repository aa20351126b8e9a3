"""Round 22: what the dream report shows of a failure quoting HTML's characters."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.db import Database
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.memory.service import MemoryService
from desktop.ui.dreaming.report import DreamReportWindow
from models.broker import InferenceBroker
from tests.dreams import make_dreamer
from tests.on_screen import HOSTILE_TEXTS, tip_shows


@pytest.fixture
def dreamer(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    tmp_path: Path,
) -> Dreamer:
    return make_dreamer(database, memories, broker, prompts, tmp_path)


@pytest.fixture
def report(qtbot: QtBot, dreamer: Dreamer, memories: MemoryService) -> Iterator[DreamReportWindow]:
    window = DreamReportWindow(dreamer.dreams, dreamer.book, memories)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def test_a_failed_dreams_tooltip_shows_its_error_as_written(
    report: DreamReportWindow, dreamer: Dreamer
) -> None:
    """An error quoting a memory or the model's answer ("... <b>Budget</b>
    ...") was read as HTML in the runs list's tooltip."""
    for text in HOSTILE_TEXTS:
        run = dreamer.dreams.start("manual")
        dreamer.dreams.finish(run.id, "failed", error=f"The answer could not be read: {text}")
    report.refresh()

    tips = {tip_shows(report.runs.item(row).toolTip()) for row in range(report.runs.count())}
    assert tips - {""} == {f"The answer could not be read: {text}" for text in HOSTILE_TEXTS}
