"""The dream report driven like a user would: real dreams on a real database,
a scripted model and the hashing embedder behind a real broker thread."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QMessageBox,
    QPushButton,
    QSplitter,
)
from pytestqt.qtbot import QtBot

from desktop.core.base.prompts import PromptLibrary
from desktop.core.base.settings import DreamSettings
from desktop.core.db import (
    ConversationStore,
    Database,
    DreamChange,
    Memory,
    MemoryStore,
    NewMemory,
)
from desktop.core.db.memory_writes import snapshot
from desktop.core.dreaming.control import DreamControl, DreamProgress
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.dreamer import Dreamer, DreamReport
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.dreaming.passes import DreamPass
from desktop.core.dreaming.preferences import PreferencePass
from desktop.core.memory.embedding import Embeddings
from desktop.core.memory.gate import WriteGate
from desktop.core.memory.service import MemoryService
from desktop.ui.dreaming.html import before_after_html
from desktop.ui.dreaming.report import EMPTY_REPORT, WAITING, DreamReportWindow
from desktop.ui.dreaming.views import ChangeView, LogView
from desktop.ui.widgets.theme import DARK, LIGHT, SCHEME_PROPERTY, qt_palette
from models.broker import InferenceBroker
from models.interfaces import ChatMessage, GenerationOptions
from tests.fakes import ScriptedChatModel, StepGate
from tests.on_screen import tip_shows
from tests.unit.core.db.conftest import START, FakeClock

WAIT_MS = 10_000
DAY = 86_400.0
REX = "The user has a dog named Rex"
REX_TWIN = "The user has a dog called Rex"
MERGED = "The user has a dog named Rex."

MakeDreamer = Callable[..., Dreamer]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel(default='{"toSave": [], "toDelete": []}')


@pytest.fixture
def memories(
    database: Database, broker: InferenceBroker, prompts: PromptLibrary, clock: FakeClock
) -> MemoryService:
    return MemoryService(
        MemoryStore(database, clock=clock), Embeddings(broker), WriteGate.for_prompts(prompts)
    )


@pytest.fixture
def make_dreamer(
    database: Database,
    memories: MemoryService,
    broker: InferenceBroker,
    prompts: PromptLibrary,
    clock: FakeClock,
    tmp_path: Path,
) -> MakeDreamer:
    def make(passes: Sequence[DreamPass] | None = None, **settings: object) -> Dreamer:
        return Dreamer(
            database,
            memories,
            broker,
            prompts,
            DreamSettings.model_validate({"quiet_seconds": 0, "max_retired_floor": 10, **settings}),
            passes or [DecayPass(), DedupPass(), StalePass()],
            snapshots_dir=tmp_path / "snapshots",
            working_set_file=tmp_path / "MEMORIES.md",
            clock=clock,
        )

    return make


@pytest.fixture
def dreamer(make_dreamer: MakeDreamer) -> Dreamer:
    return make_dreamer()


@pytest.fixture
def report(qtbot: QtBot, dreamer: Dreamer, memories: MemoryService) -> Iterator[DreamReportWindow]:
    window = DreamReportWindow(dreamer.dreams, dreamer.book, memories)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()
    assert not window._tasks.worker_thread.qthread.isRunning()


def add(memories: MemoryService, content: str, **fields: object) -> Memory:
    """A memory stored now, with its vector (``fields`` as ``NewMemory`` takes them)."""
    vector = memories.embed([content])
    item = NewMemory(content, None if vector is None else vector[0], "harvested", **fields)  # type: ignore[arg-type]  # a test's loose fields
    [memory_id] = memories.store.add_many([item], actor="harvest")
    return get(memories, memory_id)


def get(memories: MemoryService, memory_id: int) -> Memory:
    memory = memories.store.get(memory_id)
    assert memory is not None
    return memory


def merge_answer(content: str = MERGED, sources: tuple[int, ...] = (1, 2)) -> str:
    saved = {"content": content, "category": "people", "sourceIds": list(sources)}
    return json.dumps({"toSave": [saved], "toDelete": list(sources)})


def dream(dreamer: Dreamer, trigger: str = "manual") -> DreamReport:
    return dreamer.run(trigger, DreamControl())


def dream_a_merge(
    dreamer: Dreamer, memories: MemoryService, model: ScriptedChatModel, **first: object
) -> tuple[Memory, Memory, DreamReport]:
    """Two duplicates (the first with *first*'s fields) merged by a dream."""
    rex, twin = add(memories, REX, **first), add(memories, REX_TWIN)
    model.queue(merge_answer())
    return rex, twin, dream(dreamer)


def plain(html_text: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html_text)
    return doc.toPlainText()


def struck(html_text: str, text: str) -> bool:
    """Is *text* (its first occurrence) struck through in *html_text*?"""
    doc = QTextDocument()
    doc.setHtml(html_text)
    found = doc.find(text)
    assert not found.isNull(), f"{text!r} is not in {doc.toPlainText()!r}"
    return found.charFormat().fontStrikeOut()


def click(qtbot: QtBot, button: QAbstractButton) -> None:
    qtbot.waitUntil(button.isVisible)  # views built just now are shown by the event loop
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def settle(qtbot: QtBot, report: DreamReportWindow) -> None:
    """Wait until the worker has answered everything asked of it."""
    qtbot.waitUntil(lambda: not report.busy, timeout=WAIT_MS)


def the_change(report: DreamReportWindow, kind: str) -> ChangeView:
    [view] = [v for v in report.detail.change_views if v.change.kind == kind]
    return view


def the_log(report: DreamReportWindow, pass_name: str) -> LogView:
    [view] = [v for v in report.detail.log_views if v.header.text().find(pass_name) >= 0]
    return view


def listed(report: DreamReportWindow) -> list[str]:
    return [report.runs.item(row).text() for row in range(report.runs.count())]


# -- the list ---------------------------------------------------------------
def test_before_any_dream_the_report_says_what_dreaming_does(report: DreamReportWindow) -> None:
    assert report.windowTitle() == "Dreams — Reverie"
    assert report.list_stack.currentWidget() is report.empty_label
    assert report.empty_label.text() == EMPTY_REPORT
    assert report.count_label.text() == "0 dreams"


def test_runs_are_listed_newest_first_with_status_and_what_waits(
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    clock: FakeClock,
) -> None:
    *_, merged = dream_a_merge(dreamer, memories, model)
    clock.advance(DAY)
    add(memories, "The user drinks green tea every morning", pinned=True)
    add(memories, "The user drinks green tea each morning")
    model.queue(merge_answer("The user drinks green tea every morning."))
    risky = dream(dreamer, "nightly")
    clock.advance(DAY)
    control = DreamControl(on_progress=lambda _: control.stop("paused"))
    paused = dreamer.run("manual", control)

    report.refresh()

    assert report.run_ids() == [paused.run.id, risky.run.id, merged.run.id]
    texts = listed(report)
    assert texts[0] == "Waiting for approval: 1"
    assert texts[1].startswith("Dream of ") and ": paused, asked for by you" in texts[1]
    assert texts[2].endswith(": completed, nightly, made 1 change, 1 waiting for approval")
    assert texts[3].endswith(": completed, asked for by you, made 1 change")
    assert report.count_label.text() == "3 dreams"
    assert not report.runs.grab().isNull()  # the delegate draws every kind of line
    # Something waits: the report opens at it.
    assert report.detail.title.text() == "Waiting for approval"


def test_a_new_dream_appears_on_refresh_and_the_selection_stays(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    clock: FakeClock,
) -> None:
    *_, first = dream_a_merge(dreamer, memories, model)
    report.refresh()
    assert report.detail.run is not None and report.detail.run.id == first.run.id
    clock.advance(DAY)
    second = dream(dreamer)

    report.refresh()

    assert report.run_ids() == [second.run.id, first.run.id]
    assert report.detail.run is not None and report.detail.run.id == first.run.id
    report.runs.setFocus()
    qtbot.keyClick(report.runs, Qt.Key.Key_Up)  # the keyboard walks the list
    assert report.detail.run is not None and report.detail.run.id == second.run.id


# -- one run ----------------------------------------------------------------
def test_a_run_shows_each_change_before_and_after_and_what_each_pass_did(
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    clock: FakeClock,
) -> None:
    lyon = add(memories, "The user once visited Lyon in France.", importance=0.8)
    clock.advance(75 * DAY)  # 30 days of grace, then one half-life
    rex, twin, run = dream_a_merge(dreamer, memories, model)
    merged_id = get(memories, rex.id).superseded_by

    report.select_run(run.run.id)

    detail = report.detail
    assert detail.title.text().startswith("Dream of ")
    assert "Completed · asked for by you" in detail.facts.text()
    assert "2 applied" in detail.facts.text()
    merge = the_change(report, "merge")
    assert merge.status.text() == "Applied"
    assert merge.summary.text() == f"Merged 2 memories into one: {MERGED}"
    assert plain(merge.details.text()).split("\n") == [
        "2 memories → 1",
        f"#{rex.id} {REX}",
        f"#{twin.id} {REX_TWIN}",
        f"→ #{merged_id} {MERGED}",
    ]
    fade = the_change(report, "decay")
    assert f"#{lyon.id} importance 0.80 → 0.40 · The user once visited Lyon" in plain(
        fade.details.text()
    )
    assert "made changes" in the_log(report, "Merging duplicates").header.text()
    assert "MEMORIES.md lists" in the_log(report, "Writing MEMORIES.md").message.text()
    assert detail.undo_run_button.isEnabled()


def test_a_dream_that_changed_nothing_says_why(
    report: DreamReportWindow, dreamer: Dreamer, memories: MemoryService
) -> None:
    add(memories, "The user once visited Lyon in France.")
    run = dream(dreamer)
    report.select_run(run.run.id)

    assert report.detail.change_views == []
    assert report.detail.no_changes.text() == (
        "This dream changed nothing. What each pass did, above, says why."
    )
    assert [v.message.text() for v in report.detail.log_views][:3] == ["Nothing to change."] * 3
    assert not report.detail.undo_run_button.isEnabled()


def test_the_raw_answer_of_a_rolled_back_pass_is_one_toggle_away(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    add(memories, REX)
    add(memories, REX_TWIN)
    broken = '{"toSave": [{"content": "The user has a dog'
    model.queue(broken)
    run = dream(dreamer)
    report.select_run(run.run.id)

    dedup = the_log(report, "Merging duplicates")
    assert "rolled back" in dedup.header.text()
    assert dedup.message.text().startswith("Nothing changed: the model's answer was not usable")
    assert not dedup.raw.isVisible()
    click(qtbot, dedup.raw_toggle)
    assert dedup.raw.isVisible() and dedup.raw.text() == broken
    assert dedup.raw_toggle.text() == "▾ The model's answer"
    report.refresh()  # a dream finished meanwhile: what the user opened stays open
    qtbot.waitUntil(lambda: the_log(report, "Merging duplicates").raw.isVisible())
    assert not the_log(report, "Archiving what went stale").raw_toggle.isVisible()


def test_a_pass_stopped_by_the_safety_limit_says_so(
    report: DreamReportWindow,
    make_dreamer: MakeDreamer,
    memories: MemoryService,
    clock: FakeClock,
) -> None:
    strict = make_dreamer(max_retired_share=0.25, max_retired_floor=1)
    for n in range(4):
        add(memories, f"The user once tried hobby number {n}.")
    clock.advance(100 * DAY)
    run = dream(strict)
    report.refresh()
    report.select_run(run.run.id)

    stale = the_log(report, "Archiving what went stale")
    assert "stopped by the safety limit" in stale.header.text()
    assert "would have retired 4 of 4 active memories" in stale.message.text()


def test_failed_and_running_dreams_say_where_they_are(
    report: DreamReportWindow, dreamer: Dreamer
) -> None:
    failed = dreamer.dreams.start("nightly")
    dreamer.dreams.finish(failed.id, "failed", error="the disk is full")
    running = dreamer.dreams.start("manual")
    report.refresh()

    item = report.runs.item(2)
    assert "failed" in item.text() and tip_shows(item.toolTip()) == "the disk is full"
    report.select_run(failed.id)
    assert "Failed: the disk is full" in report.detail.facts.text()
    assert [v.message.text() for v in report.detail.log_views] == ["No pass ran."]
    report.select_run(running.id)
    assert "Dreaming now" in report.detail.facts.text()
    assert [v.message.text() for v in report.detail.log_views] == ["No pass has finished yet."]
    assert report.detail.no_changes.text() == "No changes yet."
    assert not report.detail.undo_run_button.isEnabled()


def test_memory_ids_open_the_memory_and_a_long_fade_shows_all_on_request(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    clock: FakeClock,
) -> None:
    places = ["Lyon", "Graz", "Kyoto", "Bled", "Porto", "Oslo", "Quito"]
    faded = [add(memories, f"Trip {n}: {place} was lovely.") for n, place in enumerate(places)]
    clock.advance(60 * DAY)
    rex, _, run = dream_a_merge(dreamer, memories, model)
    report.select_run(run.run.id)

    with qtbot.waitSignal(report.memory_requested) as requested:
        the_change(report, "merge").details.linkActivated.emit(f"memory:{rex.id}")
    assert requested.args == [rex.id]
    fade = the_change(report, "decay")
    assert "Show all 7" in plain(fade.details.text())
    assert f"#{faded[6].id} " not in plain(fade.details.text())
    fade.details.linkActivated.emit("more")
    assert f"#{faded[6].id} " in plain(fade.details.text())


# -- deciding and undoing -----------------------------------------------------
def test_a_risky_change_waits_and_approving_applies_it(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    rex, twin, run = dream_a_merge(dreamer, memories, model, pinned=True)
    assert run.pending == 1
    report.refresh()

    [view] = report.detail.change_views
    assert view.status.text() == "Waiting for approval"
    assert view.risk.text() == f"⚠ Waits for your approval: it touches a pinned memory (#{rex.id})."
    assert plain(view.details.text()).endswith(f"→ a new memory: {MERGED}")
    assert view.origin.text().startswith("From the dream of ")
    assert not view.undo_button.isVisible()
    with qtbot.waitSignal(report.memories_changed, timeout=WAIT_MS):
        click(qtbot, view.approve_button)
    settle(qtbot, report)

    assert (get(memories, rex.id).status, get(memories, twin.id).status) == ("superseded",) * 2
    merged = get(memories, get(memories, rex.id).superseded_by or 0)
    assert merged.content == MERGED and merged.pinned
    assert dreamer.dreams.change(view.change.id).status == "applied"
    assert report.notice.text() == f"Approved change #{view.change.id}: it is applied now."
    assert listed(report)[0] == "Waiting for approval: none"
    assert report.detail.no_changes.text() == "Nothing is waiting for your approval."
    report.select_run(run.run.id)
    assert the_change(report, "merge").status.text() == "Applied (you approved it)"


def test_rejecting_leaves_the_memories_as_they_were(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    rex, twin, _ = dream_a_merge(dreamer, memories, model, pinned=True)
    report.refresh()
    [view] = report.detail.change_views
    report.activateWindow()
    qtbot.waitUntil(view.reject_button.isVisible)
    view.reject_button.setFocus()

    qtbot.keyClick(view.reject_button, Qt.Key.Key_Space)  # from the keyboard
    settle(qtbot, report)

    assert get(memories, rex.id) == rex and get(memories, twin.id) == twin
    assert dreamer.dreams.change(view.change.id).status == "rejected"
    assert report.notice.text().startswith(f"Rejected change #{view.change.id}")
    assert report.detail.change_views == []
    assert QApplication.focusWidget() is report.runs  # the keyboard is not lost


def test_an_approval_refused_because_a_memory_changed_says_why(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    rex, twin, _ = dream_a_merge(dreamer, memories, model, pinned=True)
    edited = memories.edit(
        twin.id, "The user has a dog called Rex, a beagle.", expected=twin.content
    )
    report.refresh()
    [view] = report.detail.change_views

    click(qtbot, view.approve_button)
    settle(qtbot, report)

    assert report.problem.isVisible()
    assert report.problem.text() == (
        f"Not applied: memory #{twin.id} changed since (its text). "
        "It was set aside as rejected: your memories stay as they are."
    )
    assert get(memories, rex.id).status == "active"
    assert get(memories, twin.id) == edited.memory


def test_undoing_one_change_puts_its_memories_back(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    rex, twin, run = dream_a_merge(dreamer, memories, model)
    merged_id = get(memories, rex.id).superseded_by
    assert merged_id is not None
    report.select_run(run.run.id)
    view = the_change(report, "merge")

    with qtbot.waitSignal(report.memories_changed, timeout=WAIT_MS):
        click(qtbot, view.undo_button)
    settle(qtbot, report)

    assert (get(memories, rex.id).status, get(memories, twin.id).status) == ("active",) * 2
    assert memories.store.get(merged_id) is None
    assert report.notice.text() == (
        f"Undid change #{view.change.id}: the memories are back as they were."
    )
    undone = the_change(report, "merge")
    assert undone.status.text().startswith("Undone · ")
    assert not undone.undo_button.isVisible()
    assert "(taken back)" in plain(undone.details.text())
    assert not report.detail.undo_run_button.isEnabled()  # nothing applied is left


def test_undoing_a_whole_dream_asks_first_then_puts_everything_back(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    clock: FakeClock,
) -> None:
    stale = add(memories, "The user once liked a band called Vesper.")
    clock.advance(100 * DAY)
    rex, twin, run = dream_a_merge(dreamer, memories, model)
    assert get(memories, stale.id).status == "archived"
    report.select_run(run.run.id)

    click(qtbot, report.detail.undo_run_button)
    dialog = report.confirm_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.text().startswith("Undo the 3 changes this dream made?")
    keep, undo = _dialog_buttons(dialog)
    assert dialog.defaultButton() is keep  # Enter keeps them
    click(qtbot, keep)
    assert report.confirm_dialog is None and not report.busy
    assert get(memories, stale.id).status == "archived"

    click(qtbot, report.detail.undo_run_button)
    dialog = report.confirm_dialog
    assert dialog is not None
    _, undo = _dialog_buttons(dialog)
    click(qtbot, undo)
    settle(qtbot, report)

    assert get(memories, stale.id).status == "active"
    assert get(memories, stale.id).faded_importance is None  # its fading undone too
    assert (get(memories, rex.id).status, get(memories, twin.id).status) == ("active",) * 2
    assert report.notice.text().startswith("Undid this dream: 3 changes taken back")
    assert {v.change.status for v in report.detail.change_views} == {"reverted"}
    assert not report.detail.undo_run_button.isEnabled()


def _dialog_buttons(dialog: QMessageBox) -> tuple[QPushButton, QPushButton]:
    buttons = {b.text(): b for b in dialog.findChildren(QPushButton)}
    keep, undo = buttons["Keep them"], next(b for t, b in buttons.items() if t.startswith("Undo"))
    return keep, undo


def test_a_refused_undo_says_why_and_changes_nothing(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    rex, _, run = dream_a_merge(dreamer, memories, model)
    merged_id = get(memories, rex.id).superseded_by
    assert merged_id is not None
    memories.edit(merged_id, "The user has a border collie named Rex.", expected=MERGED)
    report.select_run(run.run.id)

    click(qtbot, the_change(report, "merge").undo_button)
    settle(qtbot, report)

    change = the_change(report, "merge").change
    assert report.problem.isVisible() and not report.notice.isVisible()
    assert report.problem.text() == (
        f"Change #{change.id} cannot be undone: memory #{merged_id} changed since (its text). "
        "Nothing was changed."
    )
    assert get(memories, rex.id).status == "superseded"
    assert change.status == "applied"

    report.undo_run(run.run.id)  # a dream is undone whole or not at all
    settle(qtbot, report)
    assert report.problem.text().startswith(f"Nothing was undone: Change #{change.id} cannot")
    assert get(memories, rex.id).status == "superseded"


def test_approving_never_blocks_the_window_while_the_model_is_busy(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    broker: InferenceBroker,
) -> None:
    rex, _, _ = dream_a_merge(dreamer, memories, model, pinned=True)
    report.refresh()
    [view] = report.detail.change_views
    gate = StepGate(allowed=0)
    model.gate = gate
    reply = broker.chat([ChatMessage("user", "Hello")], GenerationOptions(max_tokens=4))
    gate.wait_for_arrival(1)  # the broker is busy with a reply: embedding waits behind it

    click(qtbot, view.approve_button)

    assert report.busy and report.notice.text() == f"Approving change #{view.change.id}…"
    assert not view.approve_button.isEnabled() and not view.reject_button.isEnabled()
    assert get(memories, rex.id).status == "active"
    gate.open()
    reply.result(timeout=WAIT_MS / 1000)
    settle(qtbot, report)
    assert get(memories, rex.id).status == "superseded"


# -- the window -----------------------------------------------------------------
def test_show_waiting_and_show_run_bring_the_window_up_where_asked(
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    *_, run = dream_a_merge(dreamer, memories, model, pinned=True)
    report.close()

    report.show_run(run.run.id)
    assert report.isVisible() and report.detail.run is not None
    assert report.detail.run.id == run.run.id
    report.show_waiting()
    assert report.detail.title.text() == "Waiting for approval"
    report.select_run(999)
    assert report.problem.text() == "Dream #999 is not in the report."
    assert WAITING == 0


def test_esc_closes_and_every_control_has_an_accessible_name(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    add(memories, "The user drinks green tea every morning", pinned=True)
    add(memories, "The user drinks green tea each morning")
    model.queue(merge_answer("The user drinks green tea every morning."))
    dream(dreamer)
    *_, run = dream_a_merge(dreamer, memories, model)
    report.refresh()
    controls = report.findChildren(QAbstractButton)
    report.select_run(run.run.id)
    controls += report.findChildren(QAbstractButton)

    assert len(controls) >= 6
    assert all(control.accessibleName() for control in controls)
    assert report.runs.accessibleName() == "Dreams"
    report.activateWindow()
    report.runs.setFocus()
    qtbot.keyClick(report, Qt.Key.Key_Escape)
    assert not report.isVisible()
    assert QApplication.activeModalWidget() is None


def test_a_paused_dream_says_it_goes_on_later(
    report: DreamReportWindow, dreamer: Dreamer, memories: MemoryService
) -> None:
    add(memories, REX)
    heard: list[DreamProgress] = []

    def pause(progress: DreamProgress) -> None:
        heard.append(progress)
        control.stop("paused")

    control = DreamControl(on_progress=pause)
    run = dreamer.run("manual", control)
    report.refresh()
    report.select_run(run.run.id)

    assert heard and "Paused: it goes on where it stopped" in report.detail.facts.text()


def test_task_and_skill_changes_read_as_before_and_after() -> None:
    def change(kind: str, payload: dict[str, Any], before: Any, after: Any) -> DreamChange:
        return DreamChange(
            1, 1, "x", kind, "s", payload, before, after, "applied", False, None, 0, None
        )

    task = {"text": "Water plants", "priority": 5, "status": "active"}
    done = {**task, "status": "completed"}
    shown = before_after_html(
        change("task_complete", {"task": 3}, {"tasks": {"3": task}}, {"tasks": {"3": done}})
    )
    assert "Task #3:" in shown and "(P5, active)" in shown and "(P5, completed)" in shown
    skill = {"name": "brew-tea", "status": "active", "text": "How to brew tea\nlong text"}
    rewritten = before_after_html(
        change(
            "skill_rewrite",
            {"skill": 2, "text": "How to brew tea\nshort"},
            {"skills": {"2": skill}},
            {},
        )
    )
    assert "“brew-tea”" in rewritten and "long text" in rewritten and "short" in rewritten
    drafted = before_after_html(
        change("skill_draft", {"name": "invoices", "text": "Sum up"}, {}, {})
    )
    assert "New draft “invoices”" in drafted


# -- the report keeps up with what the user decides ------------------------------
TEA = "The user drinks green tea every morning"
TEA_TWIN = "The user drinks green tea each morning"


def the_changes(report: DreamReportWindow) -> dict[int, ChangeView]:
    return {view.change.id: view for view in report.detail.change_views}


def test_approving_and_rejecting_update_the_pass_line_at_once(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    add(memories, REX, pinned=True)
    add(memories, REX_TWIN)
    add(memories, TEA, pinned=True)
    add(memories, TEA_TWIN)
    model.queue(merge_answer(), merge_answer(TEA + "."))
    run = dream(dreamer)
    assert run.pending == 2
    report.select_run(run.run.id)
    dedup = the_log(report, "Merging duplicates")
    assert dedup.message.text() == "2 changes waiting for your approval."
    assert "changes wait for your approval" in dedup.header.text()
    first, second = sorted(the_changes(report))

    click(qtbot, the_changes(report)[first].approve_button)
    settle(qtbot, report)

    dedup = the_log(report, "Merging duplicates")
    assert dedup.message.text() == "1 change applied, 1 waiting for your approval."
    assert "made changes" in dedup.header.text()
    click(qtbot, the_changes(report)[second].reject_button)
    settle(qtbot, report)

    assert report.detail.run is not None and report.detail.run.id == run.run.id
    assert the_log(report, "Merging duplicates").message.text() == "1 change applied, 1 rejected."
    assert "1 applied · 1 rejected" in report.detail.facts.text()


def test_rejecting_every_change_of_a_pass_leaves_it_having_changed_nothing(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    *_, run = dream_a_merge(dreamer, memories, model, pinned=True)
    report.select_run(run.run.id)

    click(qtbot, the_change(report, "merge").reject_button)
    settle(qtbot, report)

    dedup = the_log(report, "Merging duplicates")
    assert dedup.message.text() == "1 change rejected."
    assert "nothing to change" in dedup.header.text()
    assert dedup.property("outcome") == "nothing"


def test_an_undone_change_shows_what_it_replaced_live_again(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    *_, run = dream_a_merge(dreamer, memories, model)
    report.select_run(run.run.id)
    details = the_change(report, "merge").details.text()
    assert struck(details, REX) and struck(details, REX_TWIN)  # superseded by the merge

    click(qtbot, the_change(report, "merge").undo_button)
    settle(qtbot, report)

    undone = the_change(report, "merge")
    assert not struck(undone.details.text(), REX) and not struck(undone.details.text(), REX_TWIN)
    lines = plain(undone.details.text()).split("\n")
    assert lines[1].endswith(f"{REX} (active again)")
    assert lines[2].endswith(f"{REX_TWIN} (active again)")
    assert lines[3].endswith(f"{MERGED} (taken back)")
    assert undone.status.text().startswith("Undone · ")
    assert undone.property("status") == "reverted"


def _changed(
    kind: str, status: str, payload: dict[str, Any], before: Any, after: Any
) -> DreamChange:
    return DreamChange(1, 1, "x", kind, "s", payload, before, after, status, False, None, 0, None)  # type: ignore[arg-type]  # a test's status


@pytest.mark.parametrize(
    ("status", "struck_out", "tag"),
    [
        ("applied", True, ""),
        ("pending", True, ""),
        ("reverted", False, "(undone)"),
        ("rejected", False, "(not applied)"),
    ],
)
def test_only_a_change_that_holds_strikes_out_what_it_replaces(
    memories: MemoryService, status: str, struck_out: bool, tag: str
) -> None:
    rome, oslo = add(memories, "The user lives in Rome."), add(memories, "The user lives in Oslo.")
    held = {"memories": {str(m.id): snapshot(m) for m in (rome, oslo)}}
    supersede = _changed("supersede", status, {"memory": rome.id, "by": oslo.id}, held, held)
    task = {"text": "Water plants", "priority": 5, "status": "active"}
    done = {"tasks": {"3": {**task, "status": "completed"}}}
    complete = _changed("task_complete", status, {"task": 3}, {"tasks": {"3": task}}, done)
    skill = {"name": "brew-tea", "status": "active", "text": "How to brew tea\nlong text"}
    rewrite = _changed(
        "skill_rewrite", status, {"skill": 2, "text": "short"}, {"skills": {"2": skill}}, {}
    )

    for change, replaced in (
        (supersede, "Rome"),
        (complete, "Water plants"),
        (rewrite, "long text"),
    ):
        shown = before_after_html(change)
        assert struck(shown, replaced) is struck_out, change.kind
        assert plain(shown).endswith(tag), change.kind
    assert (" (active again)" in plain(before_after_html(supersede))) is (status == "reverted")


def test_an_undone_fade_or_archive_says_it_was_undone(
    memories: MemoryService,
) -> None:
    memory = add(memories, "The user once visited Lyon in France.", importance=0.8)
    before = {"memories": {str(memory.id): snapshot(memory)}}
    fade = _changed("decay", "reverted", {"memories": [[memory.id, 0.4]]}, before, None)
    archive = _changed("archive", "reverted", {"memory": memory.id}, before, None)

    assert plain(before_after_html(fade)).startswith(
        "1 memory faded (undone: their importance is back)"
    )
    assert plain(before_after_html(archive)).endswith("active → archived (undone: active again)")
    archived = dataclasses.replace(archive, status="applied")
    assert plain(before_after_html(archived)).endswith("active → archived")


# -- model debris -----------------------------------------------------------------
def test_model_debris_is_not_shown_as_a_change(
    report: DreamReportWindow,
    make_dreamer: MakeDreamer,
    database: Database,
    model: ScriptedChatModel,
) -> None:
    conversation = ConversationStore(database).create("talk")
    for text in ("No, stop writing essays!", "Shorter please."):
        ConversationStore(database).add_message(conversation.id, "user", text)
    debris = [
        {"preference": said, "strength": "strong_correction", "sensitive": True, "messages": [1]}
        for said in ("1", "1. no writing essays", "German")
    ]
    model.queue(json.dumps({"preferences": debris}))
    run = dream(make_dreamer([PreferencePass(ConversationStore(database))]))

    report.select_run(run.run.id)

    assert report.detail.change_views == []
    assert report.detail.no_changes.isVisibleTo(report)
    [line] = report.detail.log_views[:1]
    assert "Noticing your preferences" in line.header.text()
    assert line.message.text() == "Nothing to change."
    assert report.runs.currentItem().text().endswith("changed nothing")


# -- opening the report at a dream -------------------------------------------------
def test_show_run_without_a_run_opens_at_the_newest_dream(
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    clock: FakeClock,
) -> None:
    report.close()
    report.show_run()  # no dream yet: the report says what dreaming does
    assert report.isVisible() and report.detail.run is None
    assert report.list_stack.currentWidget() is report.empty_label

    *_, first = dream_a_merge(dreamer, memories, model, pinned=True)
    report.refresh()
    assert report.detail.title.text() == "Waiting for approval"
    clock.advance(DAY)
    second = dream(dreamer)  # finished while the report was open

    report.show_run()

    assert report.isVisible()
    assert report.detail.run is not None and report.detail.run.id == second.run.id
    assert report.run_ids() == [second.run.id, first.run.id]
    report.show_run(first.run.id)
    assert report.detail.run is not None and report.detail.run.id == first.run.id


# -- light and dark -----------------------------------------------------------------
@pytest.fixture
def dark_scheme(qapp: QApplication) -> Iterator[Callable[[], None]]:
    """Switches the application to the dark scheme, as a ``Theme`` does; put back after."""
    palette = qapp.palette()

    def switch() -> None:
        qapp.setProperty(SCHEME_PROPERTY, "dark")
        qapp.setPalette(qt_palette(DARK))

    yield switch
    qapp.setProperty(SCHEME_PROPERTY, None)
    qapp.setPalette(palette)


def test_what_the_report_colours_itself_follows_the_scheme(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
    dark_scheme: Callable[[], None],
) -> None:
    *_, run = dream_a_merge(dreamer, memories, model)
    report.select_run(run.run.id)
    assert LIGHT.danger_text in the_change(report, "merge").details.text()

    dark_scheme()

    qtbot.waitUntil(lambda: DARK.danger_text in the_change(report, "merge").details.text())
    assert DARK.success_text in the_change(report, "merge").details.text()
    assert LIGHT.danger_text not in the_change(report, "merge").details.text()
    assert not report.runs.grab().isNull()  # the runs list paints in the dark colours too


# -- the smallest window ------------------------------------------------------------
def test_at_its_smallest_the_report_shows_the_runs_and_every_button_of_a_change(
    qtbot: QtBot,
    report: DreamReportWindow,
    dreamer: Dreamer,
    memories: MemoryService,
    model: ScriptedChatModel,
) -> None:
    dream_a_merge(dreamer, memories, model, pinned=True)
    report.refresh()
    report.resize(report.minimumSize())
    qtbot.waitUntil(lambda: report.size() == report.minimumSize())
    [view] = report.detail.change_views
    qtbot.waitUntil(view.approve_button.isVisible)

    viewport = report.detail_scroll.viewport()
    for button in (view.reject_button, view.approve_button):
        right = button.mapTo(viewport, button.rect().topRight()).x()
        assert 0 <= right < viewport.width(), button.text()
    assert report.runs.width() >= 240
    assert report.detail_scroll.horizontalScrollBar().maximum() == 0
    [splitter] = report.findChildren(QSplitter)
    assert not splitter.childrenCollapsible()  # the list is never a sliver


# -- skills and tasks: before, after, and what a change rests on -----------------
def test_a_pending_completion_shows_the_users_words_and_the_task_it_would_complete(
    qtbot: QtBot,
) -> None:
    task = {"text": "File the taxes", "priority": 5, "status": "active"}
    payload = {
        "task": 3,
        "evidence": "the taxes are <filed>",
        "message": 9,
        "waits": "the words quoted as yours do not mention the task",
    }
    change = _changed("task_complete", "pending", payload, {"tasks": {"3": task}}, None)

    view = ChangeView(change)
    qtbot.addWidget(view)

    shown = plain(view.details.text())
    assert shown.startswith("You said: “the taxes are <filed>”\n")  # escaped, not a tag
    assert "File the taxes (P5, active)\n→ File the taxes (P5, completed)" in shown
    assert struck(view.details.text(), "File the taxes (P5, active)")
    assert view.risk.text() == (
        "⚠ Waits for your approval: the words quoted as yours do not mention the task."
    )


def test_a_skill_rewrite_that_leaves_something_out_says_what_before_and_after(
    qtbot: QtBot,
) -> None:
    skill = {"name": "deploy", "status": "active", "text": "Deploy\nRun `make deploy` on port 8080"}
    payload = {
        "skill": 2,
        "text": "Deploy\nRun the deploy",
        "lost": ["make deploy", "8080"],
        "waits": "the new text leaves out “make deploy”, “8080”",
    }
    pending = _changed("skill_rewrite", "pending", payload, {"skills": {"2": skill}}, None)
    approved = dataclasses.replace(pending, status="applied", risky=True)

    waiting, applied = ChangeView(pending), ChangeView(approved)
    qtbot.addWidget(waiting)
    qtbot.addWidget(applied)

    assert "leaves out “make deploy”, “8080”" in waiting.risk.text()
    lines = plain(waiting.details.text()).split("\n")
    assert lines == [
        "“deploy”:",
        "Deploy",
        "Run `make deploy` on port 8080",
        "→ Deploy",
        "Run the deploy",
    ]
    assert struck(waiting.details.text(), "Run `make deploy` on port 8080")
    # Once the user approved it, the approval line is gone: the details say it.
    assert plain(applied.details.text()).startswith("Leaves out: make deploy, 8080\n“deploy”:")
