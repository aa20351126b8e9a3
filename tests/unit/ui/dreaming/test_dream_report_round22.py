"""Round 22: what the dream report shows of a failure quoting HTML's characters,
and of a memory holding a long link."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import Database, MemoryStore
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.dreamer import Dreamer
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from desktop.ui.dreaming.report import DreamReportWindow
from desktop.ui.widgets.line_breaks import unbroken
from models.broker import InferenceBroker
from tests.fakes import ScriptedChatModel
from tests.on_screen import HOSTILE_TEXTS, label_shows, tip_shows
from tests.unit.core.db.conftest import START, FakeClock
from tests.unit.ui.dreaming.test_dream_report import add, dream, merge_answer


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def memories(
    database: Database, broker: InferenceBroker, prompts: PromptLibrary, clock: FakeClock
) -> MemoryService:
    return MemoryService(
        MemoryStore(database, clock=clock), Embeddings(broker), WriteGate.for_prompts(prompts)
    )


@pytest.fixture
def dreamer(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    tmp_path: Path,
    clock: FakeClock,
) -> Dreamer:
    return Dreamer(
        database,
        memories,
        broker,
        prompts,
        DreamSettings(quiet_seconds=0),
        [DecayPass(), DedupPass(), StalePass()],
        snapshots_dir=tmp_path / "snapshots",
        working_set_file=tmp_path / "MEMORIES.md",
        clock=clock,
    )


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


LONG_LINK = "https://example.com/recipes/" + "".join(f"Zm9vYmFy{n}_" for n in range(25))


def merge_of(memories: MemoryService, model: ScriptedChatModel, dreamer: Dreamer, text: str) -> int:
    """The id of a dream that merged two memories saying *text* into one."""
    add(memories, f"{text}, it said.")
    add(memories, f"{text}, they said.")
    model.queue(merge_answer(text))  # the model numbers what it is shown 1, 2
    return dream(dreamer).run.id


def test_a_long_link_in_a_merged_memory_wraps_and_undo_stays_in_view(
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    clock: FakeClock,
) -> None:
    """A dream that merged two memories holding a 320-character link made
    the report 2,176 px wide: at 1,100 px, the before and after ran off the
    right edge and "Undo this dream…" could only be found by scrolling
    sideways."""
    short = merge_of(memories, model, dreamer, "The user has a dog named Rex")
    clock.advance(60)  # the next dream looks at what changed after this one
    long = merge_of(memories, model, dreamer, f"The user's dog Rex has a page at {LONG_LINK}")
    report.refresh()
    report.select_run(short)
    least = report.detail.minimumSizeHint().width()  # the report of a short merge

    report.select_run(long)

    [merge] = report.detail.change_views
    assert merge.minimumSizeHint().width() <= least
    assert LONG_LINK in unbroken(label_shows(merge.details))
    assert LONG_LINK in unbroken(label_shows(merge.summary))
