"""The composition root end to end: real models, a real database file, a real
(offscreen) window; and what the user sees when a part cannot start."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QPushButton, QToolButton
from pytestqt.qtbot import QtBot

from desktop.app import LOG_FILE_NAME, PreparationPrinter, build_core, load_models, main
from desktop.core.backends.roles import Preparation, PreparationProgress
from desktop.core.base.paths import ENV_CACHE, ENV_CONFIG, ENV_DATA, AppPaths, resolve_paths
from desktop.core.base.settings import (
    Backend,
    DreamSettings,
    ModelSettings,
    Settings,
    TaskSettings,
    load_settings,
    save_settings,
)
from desktop.core.db import ConversationStore, DatabaseUnavailable, open_database
from desktop.core.db.message_search import MessageSearch
from desktop.core.db.schedules import Daily
from desktop.core.dreaming.snapshots import take_snapshot
from desktop.ui.chat.transcript_rows import ActionNotice
from desktop.ui.shell import application
from desktop.ui.shell.application import (
    AGENDA_JOB,
    COMPACTION_JOB,
    DREAM_INTERVAL,
    DREAM_NIGHTLY,
    MEMORY_JOB,
    TASKS_JOB,
    ReverieApplication,
)
from desktop.ui.shell.tray import Tray
from desktop.ui.widgets.worker import TaskDone, TaskFailed
from models.broker import Role, RoleHealth
from models.convert_bert import DEFAULT_GGUF_NAME, Progress
from tests.damage import filled, garble_an_index, garble_the_schema
from tests.pipes import a_reader_comes_late
from tests.unit.core.transfer.exports import chatgpt_line, write_json

WAIT_MS = 60_000


@pytest.fixture
def app_paths(tmp_path: Path, minilm_path: Path) -> AppPaths:
    """User dirs under tmp_path, with the embedder already converted (the
    session's conversion, linked in)."""
    paths = resolve_paths({"REVERIE_HOME": str(tmp_path / "home")})
    paths.ensure()
    for source in minilm_path.parent.iterdir():
        os.link(source, paths.models_dir / source.name)
    return paths


@pytest.fixture
def notified(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The app builds its tray as on a desktop that has one (offscreen has
    none); what the tray would pop up is kept here, title and text."""
    said: list[tuple[str, str]] = []
    monkeypatch.setattr(application, "tray_available", lambda: True)
    monkeypatch.setattr(Tray, "notify", lambda _, title, text: said.append((title, text)))
    return said


@pytest.fixture
def started(qtbot: QtBot, app_paths: AppPaths) -> Iterator[ReverieApplication]:
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    # The chat model is loaded and the first conversation's greeting written.
    qtbot.waitUntil(lambda: app.window.chat_available and not app.window.busy, timeout=WAIT_MS)
    yield app
    app.shutdown()
    core.close()


@pytest.mark.model
def test_a_message_goes_from_the_window_to_the_local_model_and_back(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    window = started.window
    window.input.setPlainText("Hello! Who are you?")
    assert window.send_button.isEnabled(), window.banner.text()
    with qtbot.waitSignal(window.turn_ended, timeout=WAIT_MS) as ended:
        window.send()
    assert ended.args == ["Ready"]
    greeting, asked, answer = (view.role for view in window.transcript.messages)
    assert (greeting, asked, answer) == ("seed", "user", "assistant")
    assert all(view.text.strip() for view in window.transcript.messages)
    assert not window.banner.isVisible()


@pytest.mark.model
def test_the_clock_starts_periodic_compaction_on_the_maintenance_worker(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    finished: list[TaskDone] = []  # the worker's signal arrives on its own thread
    started.maintenance.worker.done.connect(finished.append)
    started.clock.start()
    started.clock.run_soon(COMPACTION_JOB)
    # Compaction finds nothing idle to compact in a fresh install (0); the
    # renderer's warm-up (None) may finish before or after the connection.
    qtbot.waitUntil(lambda: bool(finished) and finished[-1].result == 0, timeout=WAIT_MS)
    assert [done.result for done in finished] in ([0], [None, 0])


@pytest.mark.model
def test_the_clock_starts_memory_upkeep_on_the_maintenance_worker(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    memories = started._core.memories
    assert memories is not None
    remembered = memories.store.add(  # stored while no embedder was loaded
        "The user's bicycle is green.", embedding=None, source_kind="imported", actor="system"
    )
    finished: list[TaskDone] = []
    started.maintenance.worker.done.connect(finished.append)
    started.clock.start()
    started.clock.run_soon(MEMORY_JOB)
    # The upkeep ran (no conversation is due for a harvest; the messages it
    # indexes after are counted third) and the memory has its vector: given by
    # the upkeep, or by the embedding of every memory missing one that
    # follows the embedder's load at start.
    qtbot.waitUntil(
        lambda: any(d.result[1] == [] for d in finished if isinstance(d.result, tuple)),
        timeout=WAIT_MS,
    )
    qtbot.waitUntil(
        lambda: bool(memories.store.get(remembered.id).embedding_model),  # type: ignore[union-attr]
        timeout=WAIT_MS,
    )


@pytest.mark.model
def test_the_memory_upkeep_gives_past_messages_their_vectors_a_share_at_a_time(
    qtbot: QtBot, started: ReverieApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(application, "INDEXED_PER_UPKEEP", 2)
    core = started._core
    assert core.conversations is not None and core.database is not None
    conversation = core.conversations.create("bikes")
    for text in ("My bicycle is green.", "It has a bell.", "And a basket."):
        core.conversations.add_message(conversation.id, "user", text)
    search = MessageSearch(core.database, embedding_model=lambda: core.broker.embedder_name)
    missing = len(search.unembedded(100))  # with the greeting
    started.clock.start()

    started.clock.run_soon(MEMORY_JOB)
    # Two given vectors, the rest waiting for the next upkeep (all at once
    # would never leave this many).
    qtbot.waitUntil(lambda: len(search.unembedded(100)) == missing - 2, timeout=WAIT_MS)
    started.clock.run_soon(MEMORY_JOB)
    qtbot.waitUntil(lambda: not search.unembedded(100), timeout=WAIT_MS)


@pytest.mark.model
def test_recalling_past_conversations_is_turned_off_by_a_save_at_once(
    started: ReverieApplication,
) -> None:
    core = started._core
    assert core.chat is not None and core.message_indexer is not None
    earlier = core.chat.new_conversation()
    core.chat.send(earlier.id, "My bicycle is green with yellow mudguards.")
    core.message_indexer.index_missing()
    asking = core.chat.new_conversation()
    core.chat.send(asking.id, "What colour is my bicycle?")
    assert (
        "My bicycle is green with yellow mudguards." in core.chat.assembled(asking.id).turn_context
    )

    memory = core.settings.memory.model_copy(update={"recall_past_conversations": False})
    started.models.apply(core.settings.model_copy(update={"memory": memory}))

    assert "mudguards" not in core.chat.assembled(asking.id).turn_context


@pytest.mark.model
def test_a_corrupt_chat_model_disables_chat_with_the_reason(
    qtbot: QtBot, app_paths: AppPaths
) -> None:
    broken = app_paths.data_dir / "broken.gguf"
    broken.write_bytes(b"GGUF" + os.urandom(4096))
    save_settings(
        Settings(models=ModelSettings(chat=(Backend(kind="local", model=str(broken)),))),
        app_paths.settings_file,
    )
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        qtbot.waitUntil(lambda: "broken.gguf" in app.window.banner.text(), timeout=WAIT_MS)
        assert not app.window.chat_available
        status = app.window.statusBar().currentMessage()
        assert status == "No chat model: commands work, replies need a model"
        assert app.window.banner.fix_button.text() == "Choose a model…"
        assert "broken.gguf" in app.window.banner.text()
        assert broken.read_bytes()[:4] == b"GGUF"  # the user's file is left alone
    finally:
        app.shutdown()
        core.close()


def test_an_unreadable_database_is_reported_and_left_untouched(app_paths: AppPaths) -> None:
    garbage = os.urandom(8192)
    app_paths.database_file.write_bytes(garbage)
    core = build_core(app_paths)
    try:
        assert core.chat is None
        assert any("reverie.sqlite3" in problem for problem in core.problems)
    finally:
        core.close()
    assert app_paths.database_file.read_bytes() == garbage


@pytest.mark.model
def test_check_reports_every_part_and_replies(
    app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REVERIE_HOME", str(app_paths.data_dir.parent))
    assert main(["--check", "--prompt", "Say hi."]) == 0
    out = capsys.readouterr().out
    assert "driver: " in out
    assert "chat model: SmolLM2 135M Instruct (embedded), on this computer\n" in out
    assert "background model: the chat's: SmolLM2 135M Instruct" in out
    assert "embeddings model: all-MiniLM-L6-v2 (embedded), on this computer\n" in out
    assert "secrets: " in out
    reply_line = next(line for line in out.splitlines() if line.startswith("reply: "))
    assert len(reply_line) > len("reply: ")


def test_first_start_writes_the_default_settings_for_the_user_to_edit(app_paths: AppPaths) -> None:
    core = build_core(app_paths)
    try:
        assert core.problems == []
        assert load_settings(app_paths.settings_file) == (Settings(), None)
    finally:
        core.close()


@pytest.mark.model
def test_the_memory_browser_opens_from_the_chat_and_leads_back_to_it(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    browser = started.memory_browser
    assert browser is not None
    memories, conversations = started._core.memories, started._core.conversations
    assert memories is not None and conversations is not None
    conversation = conversations.create("Pets")
    message = conversations.add_message(conversation.id, "user", "My cat is called Miso.")
    memory = memories.remember(
        "The user's cat is called Miso.",
        source_kind="harvested",
        actor="harvest",
        message_ids=[message.id],
    ).memory

    started.window.memory_requested.emit(memory.id)  # as a chip does
    qtbot.waitUntil(browser.isVisible, timeout=WAIT_MS)
    browser.open_conversation_requested.emit(conversation.id, message.id)

    assert started.window.conversation_id == conversation.id
    assert "My cat is called Miso." in started.window.transcript.plain_text()


def test_tasks_and_skills_are_built_in_the_settings_zone_and_reach_the_chat(
    app_paths: AppPaths,
) -> None:
    save_settings(Settings(tasks=TaskSettings(time_zone="Asia/Tokyo")), app_paths.settings_file)
    (app_paths.skills_dir / "Brew tea.md").write_text("Brew the user's tea\n", encoding="utf-8")
    core = build_core(app_paths)
    try:
        assert core.tasks is not None and core.tasks.zone == ZoneInfo("Asia/Tokyo")
        assert core.chat is not None
        conversation = core.chat.new_conversation()
        # The chat's own time is in that zone too: "yesterday" (read in it)
        # and the dates the model is given agree.
        assert "(JST)" in core.chat.assembled(conversation.id).turn_context
        assert "- Brew tea: Brew the user's tea" in core.chat.assembled(conversation.id).system
        offered = core.chat.assembled(conversation.id, frozenset({"task", "read_skill"})).system
        assert "- task(action: add | complete" in offered
    finally:
        core.close()


@pytest.mark.model
def test_slash_dream_dreams_in_the_background_says_what_changed_and_fills_the_report(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    assert started.dreams is not None and started.dream_report is not None
    window = started.window

    with qtbot.waitSignal(started.dreams.finished, timeout=WAIT_MS) as finished:
        window.input.setPlainText("/dream")
        window.send()
        assert "Dreaming now" in window.transcript.plain_text()

    assert finished.args[0].run.status == "completed"
    qtbot.waitUntil(lambda: "Dream finished: 0 changes." in window.transcript.plain_text())
    assert (started._core.paths.working_set_file).exists()
    assert started.dream_report.run_ids() == [finished.args[0].run.id]
    [notice] = window.transcript.findChildren(ActionNotice, "action-notice")
    [open_report] = notice.findChildren(QToolButton)
    qtbot.mouseClick(open_report, Qt.MouseButton.LeftButton)  # the notice opens its report
    assert started.dream_report.isVisible()
    started.dream_report.hide()
    qtbot.mouseClick(window.dreams_button, Qt.MouseButton.LeftButton)  # no tray needed
    assert started.dream_report.isVisible()
    window.input.setPlainText("/dream")
    window.send()  # one dream after another is fine
    qtbot.waitUntil(lambda: started.dreams is not None and not started.dreams.running)


def test_the_nightly_dream_is_scheduled_at_the_configured_hour(
    qtbot: QtBot, app_paths: AppPaths
) -> None:
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    try:
        app.clock.start()
        due = app.clock.next_time(DREAM_NIGHTLY)
        assert due is not None and (due.hour, due.minute) == (1, 0)
    finally:
        app.shutdown()
        core.close()


def test_with_every_hours_set_dreams_are_also_scheduled_that_often(
    qtbot: QtBot, app_paths: AppPaths
) -> None:
    save_settings(Settings(dream=DreamSettings(every_hours=6)), app_paths.settings_file)
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    try:
        app.clock.start()
        due = app.clock.next_time(DREAM_INTERVAL)
        assert due is not None
        assert 359 <= (due - datetime.now().astimezone()).total_seconds() / 60 <= 360
    finally:
        app.shutdown()
        core.close()


@pytest.mark.model
def test_right_after_the_start_its_greeting_does_not_hold_a_dream_back(
    qtbot: QtBot, app_paths: AppPaths
) -> None:
    # "Dream now" right after the start waited the quiet period: the
    # greeting Reverie says on its own counted as the user mid-conversation.
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    try:
        qtbot.addWidget(app.window)
        qtbot.waitUntil(lambda: app.window.chat_available and not app.window.busy, timeout=WAIT_MS)
        assert [view.role for view in app.window.transcript.messages] == ["seed"]
        settings, _ = load_settings(app_paths.settings_file)
        assert core.activity.quiet(settings.dream.quiet_seconds)
    finally:
        app.shutdown()
        core.close()


@pytest.mark.model
def test_the_tray_dreams_now_shows_the_dream_pauses_it_and_says_when_it_finished(
    qtbot: QtBot, notified: list[tuple[str, str]], started: ReverieApplication
) -> None:
    tray, dreams = started.tray, started.dreams
    assert tray is not None and dreams is not None
    states: list[str] = []
    dreams.state_changed.connect(states.append)

    with qtbot.waitSignal(dreams.finished, timeout=WAIT_MS) as finished:
        tray.dream_action.trigger()

    assert finished.args[0].run.trigger == "manual"
    assert states[0] == "dreaming" and states[-1] == "idle" and tray.state == "idle"
    assert notified == [("Reverie", "Dream finished: 0 changes.")]

    tray.pause_action.trigger()
    assert dreams.paused and tray.state == "paused" and not tray.dream_action.isEnabled()
    started.window.input.setPlainText("/dream")
    started.window.send()
    assert "Dreaming is paused." in started.window.transcript.plain_text()
    tray.pause_action.trigger()
    assert not dreams.paused and tray.state == "idle"


@pytest.mark.model
def test_a_wave_of_new_memories_starts_a_dream_early(qtbot: QtBot, app_paths: AppPaths) -> None:
    save_settings(
        Settings(dream=DreamSettings(early_after_new_memories=1)), app_paths.settings_file
    )
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        assert core.memories is not None and app.dreams is not None
        qtbot.waitUntil(lambda: app.window.chat_available, timeout=WAIT_MS)
        core.memories.remember(
            "The user's bicycle is green.", source_kind="user_explicit", actor="user"
        )
        app.clock.start()
        with qtbot.waitSignal(app.dreams.finished, timeout=WAIT_MS) as finished:
            app.clock.run_soon(MEMORY_JOB)
        assert finished.args[0].run.trigger == "memories"
    finally:
        app.shutdown()
        core.close()


def test_the_tasks_window_and_the_skill_editor_open_from_the_chat_and_quitting_asks_first(
    qtbot: QtBot, app_paths: AppPaths
) -> None:
    (app_paths.skills_dir / "Brew tea.md").write_text("Brew the user's tea\n", encoding="utf-8")
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        assert core.tasks is not None and core.conversations is not None
        assert app.tasks_view is not None and app.skill_editor is not None
        conversation = core.conversations.create("Garden")
        core.tasks.add("Water the plants", conversation_id=conversation.id)
        app.window.show()
        qtbot.mouseClick(app.window.tasks_button, Qt.MouseButton.LeftButton)
        assert app.tasks_view.isVisible()
        assert app.tasks_view.group_titles() == ["“Garden” · 1 task"]
        qtbot.mouseClick(app.window.skills_button, Qt.MouseButton.LeftButton)
        assert app.skill_editor.isVisible() and app.skill_editor.skill_names() == ["Brew tea"]

        app.skill_editor.pane.editor.setPlainText("Brew green tea\n")
        app.quit()  # as the tray's Quit does: the unsaved skill is asked about first
        dialog = app.skill_editor.unsaved_dialog
        assert dialog is not None and dialog.text().endswith("Save before quitting Reverie?")
        keep = next(b for b in dialog.findChildren(QPushButton) if b.text() == "Keep editing")
        qtbot.mouseClick(keep, Qt.MouseButton.LeftButton)
        assert app.skill_editor.isVisible() and app.skill_editor.pane.dirty()
    finally:
        app.shutdown()
        core.close()


def test_a_due_task_speaks_up_in_the_open_conversation_and_the_tray_when_the_clock_says(
    qtbot: QtBot, notified: list[tuple[str, str]], app_paths: AppPaths
) -> None:
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        assert app.tasks is not None and core.tasks is not None
        # Due a minute ago, while Reverie was not running: a run its schedule
        # has (one it has not is moved to its schedule's next when looked at).
        missed = datetime.now().replace(second=0, microsecond=0) - timedelta(minutes=1)
        core.tasks.store.add(
            "Water the plants",
            conversation_id=app.window.conversation_id,
            schedule=Daily(missed.time()),
            next_run_at=missed.timestamp(),
        )
        app.clock.start()
        tick, review = app.clock.next_time(TASKS_JOB), app.clock.next_time(AGENDA_JOB)
        assert tick is not None and tick.second == 0
        assert review is not None
        assert 59 <= (review - datetime.now().astimezone()).total_seconds() / 60 <= 60

        with qtbot.waitSignal(app.tasks.ran, timeout=WAIT_MS):
            app.clock.run_soon(TASKS_JOB)

        # shown once the greeting (a real model, on a loaded machine) has ended
        qtbot.waitUntil(
            lambda: "Reminder: Water the plants" in app.window.transcript.plain_text(),
            timeout=WAIT_MS,
        )
        assert notified == [("Reminder", "Water the plants")]
    finally:
        app.shutdown()
        core.close()


def test_agenda_reviews_can_be_switched_off(qtbot: QtBot, app_paths: AppPaths) -> None:
    save_settings(Settings(tasks=TaskSettings(agenda_review_minutes=0)), app_paths.settings_file)
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        app.clock.start()
        assert app.clock.next_time(AGENDA_JOB) is None
        assert app.clock.next_time(TASKS_JOB) is not None
    finally:
        app.shutdown()
        core.close()


@pytest.mark.model
def test_open_task_and_skill_windows_show_what_a_turn_or_a_dream_changed(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    core = started._core
    assert core.tasks is not None and core.skills is not None and started.dreams is not None
    assert started.tasks_view is not None and started.skill_editor is not None
    started.tasks_view.present()
    started.skill_editor.present()
    task = core.tasks.add("Water the plants", conversation_id=None)  # as the task tool would
    core.skills.create("brew-tea", "How to brew tea\nBoil, steep.")

    started.window.turn_ended.emit("Ready")

    assert task.id in started.tasks_view.task_ids()
    assert "brew-tea" in started.skill_editor.skill_names()
    core.tasks.complete(task.id)  # as a dream's task pass would
    with qtbot.waitSignal(started.dreams.finished, timeout=WAIT_MS):
        started.dreams.dream("manual")
    assert task.id not in started.tasks_view.task_ids()  # done: no longer listed as to do


@pytest.mark.model
def test_a_chat_model_saved_in_the_settings_takes_over_without_a_restart(
    qtbot: QtBot, started: ReverieApplication, smollm2_path: Path
) -> None:
    core = started._core
    local = Backend(kind="local", model=str(smollm2_path))
    chosen = core.settings.model_copy(
        update={"models": core.settings.models.model_copy(update={"chat": (local,)})}
    )
    status = started.models.page.roles[Role.CHAT].status

    assert started.models.settings_window.save(chosen)

    qtbot.waitUntil(lambda: status.text().startswith("In use: "), timeout=WAIT_MS)
    assert status.text() == f"In use: {smollm2_path.name}, on this computer."
    assert core.broker.backends(Role.CHAT)[0].label == smollm2_path.name
    assert load_settings(core.paths.settings_file)[0].models.chat == (local,)
    assert started.window.chat_available


@pytest.mark.model
def test_not_now_hides_the_model_suggestion_for_good(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    started.models.suggest_if_small()
    card = started.window.suggestion
    assert card.isVisibleTo(started.window)
    assert "fits this computer" in started.window.suggestion.label.text()

    dismiss = card.findChild(QPushButton, "model-suggestion-dismiss")
    assert dismiss is not None
    qtbot.mouseClick(dismiss, Qt.MouseButton.LeftButton)
    started.models.suggest_if_small()  # asked again, as at the next start

    assert not card.isVisibleTo(started.window)
    saved, _ = load_settings(started._core.paths.settings_file)
    assert saved.models.suggest_model is False


@pytest.mark.model
def test_a_role_that_cannot_answer_is_named_in_the_banner_until_it_can(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    banner = started.window.roles_banner
    problem = "qwen at http://box:8080/v1: Cannot reach the server."

    started.models.health_changed.emit(RoleHealth(Role.BACKGROUND, problem))

    assert banner.isVisibleTo(started.window)
    assert banner.text() == f"Background work: {problem} It will try again later; nothing is lost."
    started.models.health_changed.emit(RoleHealth(Role.BACKGROUND, None))
    assert not banner.isVisibleTo(started.window)


# --- the first start's preparation of the memory model ------------------------

PREPARING = "Preparing the memory model (first start only)…"


@pytest.mark.model
def test_check_on_a_first_start_prints_the_preparation_and_then_never_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    converted = resolve_paths().models_dir / DEFAULT_GGUF_NAME  # the test's own, empty dirs
    assert not converted.exists()

    assert main(["--check", "--prompt", "Say hi."]) == 0

    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if line.startswith(f"Reverie: {PREPARING}")]
    assert said[0] == f"Reverie: {PREPARING} 0% (reading the weights)"
    assert any(line.endswith("% (checking the converted model)") for line in said)
    assert said[-1] == f"Reverie: {PREPARING} 100% (done)"
    assert len(said) <= 14  # each stage and every 10% at most: not a line per tensor
    assert converted.is_file()

    assert main(["--check", "--prompt", "Say hi."]) == 0  # the next start: converted already

    assert PREPARING not in capsys.readouterr().err


def test_the_printer_says_each_stage_and_within_one_every_two_seconds_and_ten_percent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    now = [0.0]
    printer = PreparationPrinter(clock=lambda: now[0])

    def step(at: float, fraction: float, stage: str) -> None:
        now[0] = at
        printer(Preparation(fraction, stage))

    step(0.0, 0.0, "reading the weights")
    step(1.0, 0.2, "reading the weights")  # 20% on, but only 1 s after the last line
    step(2.5, 0.25, "reading the weights")  # 2.5 s on: printed
    step(4.6, 0.3, "reading the weights")  # 2 s on, but only 5% more
    step(4.7, 0.5, "writing tensors 1/101")  # a new stage
    step(4.8, 0.6, "writing tensors 41/101")
    step(5.0, 0.8, "checking the converted model")
    step(6.0, 1.0, "done")

    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"Reverie: {PREPARING} 0% (reading the weights)",
        f"Reverie: {PREPARING} 25% (reading the weights)",
        f"Reverie: {PREPARING} 50% (writing tensors 1/101)",
        f"Reverie: {PREPARING} 80% (checking the converted model)",
        f"Reverie: {PREPARING} 100% (done)",
    ]


def test_a_failed_preparation_prints_nothing_more(capsys: pytest.CaptureFixture[str]) -> None:
    printer = PreparationPrinter(clock=lambda: 0.0)
    printer(Preparation(0.8, "checking the converted model"))
    printer(Preparation(0.8, "checking the converted model", failed=True))

    assert capsys.readouterr().err == f"Reverie: {PREPARING} 80% (checking the converted model)\n"


def _report_from_a_loading_thread(
    progress: PreparationProgress, steps: Callable[[Progress], None]
) -> None:
    """Report *steps* as a model load does: on a thread of its own."""

    def load() -> None:
        try:
            with progress.reporting() as report:
                steps(report)
        except RuntimeError:
            pass  # the load's failure, as the broker would keep it

    loading = threading.Thread(target=load)
    loading.start()
    loading.join()


@pytest.mark.model
def test_the_status_bar_shows_the_preparation_then_what_it_said_before(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    window, progress = started.window, started._core.preparation
    window.set_status("Loading the chat model…")

    _report_from_a_loading_thread(progress, lambda report: report(0.42, "writing tensors 9/101"))
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == f"{PREPARING} 42%")
    window.set_status("Ready: SmolLM2")  # the chat loaded meanwhile
    _report_from_a_loading_thread(progress, lambda report: report(0.8, "checking"))
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == f"{PREPARING} 80%")
    _report_from_a_loading_thread(progress, lambda report: report(1.0, "done"))

    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "Ready: SmolLM2")


@pytest.mark.model
def test_a_failed_preparation_gives_the_status_bar_back(
    qtbot: QtBot, started: ReverieApplication
) -> None:
    window, progress = started.window, started._core.preparation
    window.set_status("Loading the chat model…")
    shown: list[str] = []
    window.statusBar().messageChanged.connect(shown.append)

    def fail(report: Progress) -> None:
        report(0.1, "reading the weights")
        raise RuntimeError("the disk is full")

    _report_from_a_loading_thread(progress, fail)

    qtbot.waitUntil(lambda: len(shown) == 2)
    assert shown == [f"{PREPARING} 10%", "Loading the chat model…"]


def _run_in(paths: AppPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    """``main`` runs in *paths* (whose memory model is converted already)."""
    monkeypatch.setenv(ENV_DATA, str(paths.data_dir))
    monkeypatch.setenv(ENV_CONFIG, str(paths.config_dir))
    monkeypatch.setenv(ENV_CACHE, str(paths.cache_dir))


@pytest.mark.model
def test_check_refuses_a_database_it_cannot_write(
    app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    build_core(app_paths).close()  # an up-to-date database: opening it needs no write
    app_paths.database_file.chmod(0o400)
    try:
        if os.access(app_paths.database_file, os.W_OK):
            pytest.skip(
                "this process writes whatever the permission bits say (root); "
                "tests/unit/core/db/test_writable.py covers the refusal here"
            )
        _run_in(app_paths, monkeypatch)

        assert main(["--check", "--prompt", "Say hi."]) == 1

        err = capsys.readouterr().err
        assert f"The database {app_paths.database_file} is read-only" in err
    finally:
        app_paths.database_file.chmod(0o600)


@pytest.mark.model
def test_a_named_pipe_where_the_log_goes_is_a_problem_at_start_not_a_hang(
    app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _run_in(app_paths, monkeypatch)
    pipe = app_paths.log_dir / LOG_FILE_NAME
    os.mkfifo(pipe, 0o600)

    with a_reader_comes_late(pipe):
        assert main(["--check", "--prompt", "Say hi."]) == 1

    problems = [line for line in capsys.readouterr().err.splitlines() if "problem: " in line]
    assert problems == [
        f"problem: No log file is written: {pipe} is a named pipe, not a regular file, where "
        "the log goes. Move or remove it; the next start writes the log there again."
    ]


@pytest.mark.model
def test_a_named_pipe_at_the_database_is_named_by_check_not_waited_on(
    app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # SQLite read it as a failing disk, and the user was told to check the disk.
    _run_in(app_paths, monkeypatch)
    pipe = app_paths.database_file
    os.mkfifo(pipe, 0o600)

    with a_reader_comes_late(pipe):
        assert main(["--check", "--prompt", "Say hi."]) == 1

    problems = [line for line in capsys.readouterr().err.splitlines() if "problem: " in line]
    assert problems == [
        "problem: Conversations and memory are unavailable: Reverie cannot use its database: "
        f"{pipe} is a named pipe, not a database file. Nothing was changed. Move it away "
        "(or rename it); Reverie then starts a new database there."
    ]


def test_a_log_file_reverie_cannot_write_is_said_by_a_models_command_too(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    user_dirs.log_dir.mkdir(parents=True)
    pipe = user_dirs.log_dir / LOG_FILE_NAME
    os.mkfifo(pipe, 0o600)

    with a_reader_comes_late(pipe):
        assert main(["models", "list"]) == 0

    err = capsys.readouterr().err
    assert f"Reverie: No log file is written: {pipe} is a named pipe" in err


@pytest.mark.model
def test_a_socket_that_cannot_be_listened_on_is_said_and_reverie_starts_anyway(
    qtbot: QtBot, app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    deep = tmp_path / ("t" * 110)  # too long a path for a local socket in it
    deep.mkdir()
    monkeypatch.setenv("TMPDIR", str(deep))
    _run_in(app_paths, monkeypatch)
    running: list[ReverieApplication] = []
    run = ReverieApplication.run

    def recorded_run(app: ReverieApplication, *, start_hidden: bool) -> int:
        running.append(app)
        return run(app, start_hidden=start_hidden)

    monkeypatch.setattr(ReverieApplication, "run", recorded_run)
    seen: list[str] = []
    looking = QTimer()
    looks = iter(range(400))  # 20 s at most, once the app runs
    closed: list[int] = []  # looks since the windows were closed
    stuck: list[str] = []

    def look_then_close() -> None:
        # Until the app runs (an event loop may turn while it is built), and
        # then until its window shows a banner or the looks run out: then
        # close the windows, as the user would (offscreen has no tray: the
        # last window closed quits).  quit() itself leaves Qt unable to run
        # the next tests' event loops, so it is only the way out of a hang:
        # once CI waited 70 min here.
        if not running:
            return
        [app] = running
        if closed:
            closed[0] += 1
            if closed[0] == 200:  # 10 s after: Qt's last-window rule did not quit
                stuck.append(_still_open())
                app.quit()
            return
        banner = app.window.banner.text() if app.window.isVisible() else ""
        if not banner and next(looks, None) is not None:
            return
        seen.extend(filter(None, [banner]))
        closed.append(0)
        for window in [w for w in QApplication.topLevelWidgets() if w.isVisible()]:
            window.close()

    looking.timeout.connect(look_then_close)
    looking.start(50)
    assert main([]) == 0
    looking.stop()
    assert not stuck, f"closing the last window did not quit Reverie: {stuck}"

    [banner] = seen
    assert "Reverie could not make sure it runs only once" in banner
    assert "the path is too long" in banner


def _still_open() -> str:
    """What may keep Qt from quitting when the last window is closed: the
    windows still shown, and whether that rule is on."""
    widgets = [
        f"{type(w).__name__}({w.objectName()!r})"
        for w in QApplication.topLevelWidgets()
        if w.isVisible()
    ]
    windows = [
        f"{w.objectName() or type(w).__name__}:{w.type().name}"
        for w in QGuiApplication.topLevelWindows()
        if w.isVisible()
    ]
    rule = QApplication.quitOnLastWindowClosed()
    return f"widgets shown {widgets}, windows shown {windows}, quit on last closed: {rule}"


def test_a_damaged_database_is_said_at_start_and_nothing_there_writes_to_it(
    qtbot: QtBot, app_paths: AppPaths
) -> None:
    filled(app_paths.database_file)
    with open_database(app_paths.database_file) as database:
        store = ConversationStore(database)
        store.delete(store.create("Long gone").id)
        with database.transaction() as tx:
            tx.execute("UPDATE conversations SET deleted_at = 0 WHERE title = 'Long gone'")
    garble_an_index(app_paths.database_file)
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        qtbot.waitUntil(lambda: "SQLite found" in app.window.banner.text(), timeout=WAIT_MS)
        assert "no sound copy" in app.window.banner.text()
        ran = []
        app.maintenance.submit(lambda _: ran.append(True))  # after the start's jobs
        qtbot.waitUntil(lambda: bool(ran), timeout=WAIT_MS)
        # The deletion past its restore window waits for a sound file.
        assert core.database is not None
        assert core.database.fetch_value("SELECT count(*) FROM conversations WHERE deleted_at = 0")
        # A read failing on the damage later keeps the way back in the banner.
        app.window.show_problem("That did not work: the file is damaged.")
        assert "That did not work" in app.window.banner.text()
        assert "no sound copy" in app.window.banner.text()
    finally:
        app.shutdown()
        core.close()


@pytest.mark.model
def test_a_database_too_damaged_to_open_names_the_sound_copy_at_start_and_in_check(
    app_paths: AppPaths, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    filled(app_paths.database_file)
    with open_database(app_paths.database_file) as database:
        copy = take_snapshot(
            database, app_paths.snapshots_dir, "20261120T010000Z", skills_dir=None, keep=3
        )
    garble_the_schema(app_paths.database_file)
    core = build_core(app_paths)
    try:
        assert core.database is None
        assert any(f"The newest sound copy is {copy}" in said for said in core.problems)
    finally:
        core.close()
    _run_in(app_paths, monkeypatch)

    assert main(["--check", "--prompt", "Say hi."]) == 1

    assert f"The newest sound copy is {copy}" in capsys.readouterr().err


def test_on_a_damaged_database_reverie_does_no_background_work_and_says_why_when_asked(
    qtbot: QtBot, app_paths: AppPaths, tmp_path: Path
) -> None:
    # Round 18: a resumed dream, /dream or a vector fill still wrote to the file.
    filled(app_paths.database_file)
    garble_an_index(app_paths.database_file)
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        qtbot.waitUntil(lambda: "SQLite found" in app.window.banner.text(), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: app.window.chat_available, timeout=WAIT_MS)
        assert core.database is not None
        before = core.database.fetch_value("SELECT count(*) FROM conversations")
        for job in (COMPACTION_JOB, MEMORY_JOB, DREAM_NIGHTLY, DREAM_INTERVAL, TASKS_JOB):
            app._on_due(job)
        app.models.embedder_changed.emit()
        assert app.dreams is not None and not app.dreams.dream("resume")  # the tray's resume
        app.window.input.setPlainText("/dream")
        app.window.send()
        assert "database is damaged" in app.window.transcript.plain_text()
        ran = []
        app.maintenance.submit(lambda _: ran.append(True))  # after every job above
        qtbot.waitUntil(lambda: bool(ran), timeout=WAIT_MS)
        assert core.database is not None
        assert core.database.fetch_value("SELECT count(*) FROM dream_runs") == 0
        assert not app.dreams.running
        transfer = app.transfer_view  # nor is anything imported into it
        assert transfer is not None
        history = [chatgpt_line("t1", "Tulips", "When do I plant tulips?", "In autumn.")]
        transfer.preview_file(write_json(tmp_path / "conversations.json", history))
        qtbot.waitUntil(transfer.import_button.isEnabled, timeout=WAIT_MS)
        transfer.import_button.click()
        assert "database is damaged" in transfer.problem.text()
        assert core.database.fetch_value("SELECT count(*) FROM conversations") == before
    finally:
        app.shutdown()
        core.close()


def test_damage_met_mid_session_is_checked_and_the_way_back_named(
    qtbot: QtBot, app_paths: AppPaths
) -> None:
    # Round 18: a read that failed on damage later said only "the file is
    # damaged ... move it aside (Reverie then starts a new one)".
    filled(app_paths.database_file)
    with open_database(app_paths.database_file) as database:
        copy = take_snapshot(
            database, app_paths.snapshots_dir, "20261120T010000Z", skills_dir=None, keep=3
        )
    core = build_core(app_paths)
    app = ReverieApplication(core, load_models(core))
    qtbot.addWidget(app.window)
    try:
        checked = []
        app.maintenance.submit(lambda _: checked.append(True))  # after the start's check
        qtbot.waitUntil(lambda: bool(checked), timeout=WAIT_MS)
        assert not app._background_refusal()  # sound at start
        garble_an_index(app_paths.database_file)  # a sector goes bad

        assert core.conversations is not None
        [conversation] = core.conversations.list()
        with pytest.raises(DatabaseUnavailable, match="keep it where it is"):
            core.conversations.messages(conversation.id)

        qtbot.waitUntil(lambda: "SQLite found" in app.window.banner.text(), timeout=WAIT_MS)
        assert f"The newest sound copy is {copy}" in app.window.banner.text()
        assert "database is damaged" in app._background_refusal()
    finally:
        app.shutdown()
        core.close()


@pytest.mark.model
def test_upkeep_cut_short_by_quitting_is_no_failure_and_a_real_one_still_is(
    qtbot: QtBot, started: ReverieApplication, caplog: pytest.LogCaptureFixture
) -> None:
    core = started._core
    assert core.conversations is not None
    conversation = core.conversations.create("bikes")
    core.conversations.add_message(conversation.id, "user", "My bicycle is green.")
    failures: list[TaskFailed] = []
    started.maintenance.worker.failed.connect(failures.append)

    def broken() -> None:
        raise RuntimeError("the disk is full")

    started.maintenance.submit(lambda _: broken())
    qtbot.waitUntil(lambda: len(failures) == 1, timeout=WAIT_MS)
    # Quitting stops the broker under the message indexing in flight.
    quitting = threading.Event()
    started.maintenance.submit(lambda _: (quitting.wait(), started._index_messages()))
    core.broker.stop()
    quitting.set()
    qtbot.waitUntil(lambda: len(failures) == 2, timeout=WAIT_MS)

    assert [failure.stopped for failure in failures] == [False, True]
    said = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert ("WARNING", "maintenance failed: the disk is full") in said
    assert ("ERROR", "chat work failed") in said  # with its traceback
    assert [line for line in said if line[0] != "DEBUG"] == [
        ("ERROR", "chat work failed"),
        ("WARNING", "maintenance failed: the disk is full"),
    ]
