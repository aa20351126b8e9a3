"""The Qt shell: the application object, the chat window and the tray, wired
to the Qt-free core that ``desktop.app`` (the composition root) built.
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from desktop.core.backends.roles import Preparation, preparing_text
from desktop.core.base import autostart, paths
from desktop.core.base.errors import ReverieError
from desktop.core.base.jobs import JobControl
from desktop.core.base.text import cut
from desktop.core.dreaming.secret_sweep import sweep_snapshots, sweep_stored_secrets
from desktop.core.dreaming.snapshots import damage_report
from desktop.core.privacy.redaction import Redactor
from desktop.core.transfer.archive import export_archive
from desktop.core.transfer.imports import Imports
from desktop.ui.chat.markdown import warm_up
from desktop.ui.chat.window import ChatWindow
from desktop.ui.dreaming.report import DreamReportWindow
from desktop.ui.dreaming.worker import DreamRunner
from desktop.ui.memory.browser import MemoryBrowser
from desktop.ui.shell.model_manager import ModelManager
from desktop.ui.shell.scheduler import MISSED_RUN_GRACE_S, Clock
from desktop.ui.shell.tray import Tray, tray_available
from desktop.ui.shell.work import WORKERS_JOB, GatheredReports, work_parts
from desktop.ui.skills.editor import SkillEditorWindow
from desktop.ui.tasks.runner import TaskRunner
from desktop.ui.tasks.window import TasksWindow
from desktop.ui.transfer.window import TransferWindow
from desktop.ui.widgets.folders import FolderNotOpened, open_folder
from desktop.ui.widgets.job_watcher import ProgressWatcher
from desktop.ui.widgets.line_breaks import copies_unbroken
from desktop.ui.widgets.theme import Theme
from desktop.ui.widgets.worker import TaskFailed, WorkerThread
from models.broker import Job, Role

if TYPE_CHECKING:
    from desktop.core.chat.service import TurnListener
    from desktop.core.db import Database
    from desktop.core.dreaming.dreamer import Dreamer, DreamReport
    from desktop.core.tasks.agenda import AgendaReview
    from desktop.core.tasks.routines import TaskRun
    from desktop.ui.shell.parts import Core
    from desktop.ui.workers.runner import WorkRunner
    from desktop.ui.workers.window import WorkWindow

log = logging.getLogger(__name__)

COMPACTION_JOB = "periodic-compaction"
MEMORY_JOB = "memory-upkeep"
INDEXED_PER_UPKEEP = 500
"""Past messages given vectors by one memory upkeep: a long history (the
first start after an upgrade, an import, a new embedding model) is indexed
over several upkeeps, so the harvest, compaction and quitting never wait
behind all of it at once."""
DREAM_NIGHTLY = "dream-nightly"
DREAM_INTERVAL = "dream-interval"
TASKS_JOB = "tasks-due"
AGENDA_JOB = "agenda-review"
CHECK_AGAIN_MS = 1000
"""How soon a job due before the start's damage check answered asks again."""
COMPACTION_SOON_MS = 60_000
"""How soon after the start, and after a turn that found a history too long
to summarise before its reply, the background compaction runs, not at the
clock's next tick up to half an hour on: a long history's summary (one a
quit cut short too: ``ChatService.compaction_owed``) is begun soon, in the
background work that gives way to the user."""
_NOTIFICATION_CHARS = 240


def qt_application() -> QApplication:
    """The process's QApplication, created on first use."""
    existing = QApplication.instance()
    return existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])


def icon_file(name: str = "reverie") -> Path:
    return paths.resources_dir() / "icons" / f"{name}.svg"


def app_icon(name: str = "reverie") -> QIcon:
    return QIcon(str(icon_file(name)))


def tray_icons() -> dict[str, QIcon]:
    """The tray's icon for each dreaming state."""
    return {
        "idle": app_icon(),
        "dreaming": app_icon("reverie-dreaming"),
        "paused": app_icon("reverie-paused"),
    }


def settle_garbage_collector() -> None:
    """Exempt everything built at start-up from future collections.

    A full collection walks every live object while holding the GIL; with
    Qt, the models and the libraries loaded that took ~30 ms, a visible
    stall when it lands during a streamed reply.  Objects that live for the
    whole run need not be walked again (``gc.freeze``).
    """
    gc.collect()
    gc.freeze()


class ReverieApplication(QObject):
    """Owns the QApplication and the top-level windows for one run.

    A QObject, so that Qt signals may call its methods: PySide frees a
    connection to a plain Python object's method unsafely once that object
    is gone (a crash seen in the test run).

    Signals:
        database_damaged(str): a check found the database damaged; what to
            tell the user.
        damage_met(): a statement failed on a damaged page (from any thread).
    """

    database_damaged = Signal(str)
    damage_met = Signal()

    def __init__(self, core: Core, loads: Mapping[Role, Job]) -> None:
        """*loads*: the jobs loading each role's models (``desktop.app.load_models``)."""
        super().__init__()
        self.qt = qt_application()
        self.qt.setApplicationName("Reverie")
        self.qt.setWindowIcon(app_icon())
        copies_unbroken(self.qt.clipboard())
        self.theme = Theme(self.qt, core.paths.style_dir, core.settings.chat.appearance, self)
        self.has_tray = tray_available()
        self.qt.setQuitOnLastWindowClosed(not self.has_tray)
        self.window = ChatWindow(
            core.chat, self._conversation_id(core), hide_on_close=self.has_tray, eraser=core.eraser
        )
        self.window.set_chat_available(False, "")
        self.window.set_status("Loading the chat model…")
        for problem in core.problems:
            self.window.show_problem(problem)
        self.tray = Tray(tray_icons()) if self.has_tray else None
        if self.tray is not None:
            self.tray.open_chat_requested.connect(self.show_chat)
            self.tray.quit_requested.connect(self.quit)
        login = autostart.for_this_system(icon=icon_file())
        folders = [("Open data folder", core.paths.data_dir), ("Open logs", core.paths.log_dir)]
        self.models = ModelManager(core, self.window, self, autostart=login, folders=folders)
        self.models.watch(loads)
        self._preparing_said = self._said_before_preparing = ""
        self.preparing = ProgressWatcher(self)  # the first start's conversion, in the status bar
        self.preparing.progressed.connect(self._show_preparation)
        core.preparation.add_listener(self.preparing.report)
        if self.tray is not None:
            self.tray.settings_requested.connect(self.models.open_settings)
            self.tray.data_folder_requested.connect(lambda: self._open_folder(core.paths.data_dir))
            self.tray.logs_requested.connect(lambda: self._open_folder(core.paths.log_dir))
        self.models.settings_window.saved.connect(self.theme.follow_settings)
        self.memory_browser = self._memory_browser(core)
        self.tasks_view, self.skill_editor = self._task_and_skill_windows(core)
        self.transfer_view = self._transfer_window(core)
        self.maintenance = WorkerThread("maintenance", self.window)
        self.maintenance.worker.failed.connect(_maintenance_failed)
        self.database_damaged.connect(self.window.show_damage)
        self.maintenance.submit(lambda _: warm_up())  # before the first reply needs it
        database, snapshots = core.database, core.paths.snapshots_dir
        # What the last check found: None until it answers, "" for sound.
        # Set by the check (at start, and again when damage is met); every
        # gate of Reverie's own writing reads it.
        self._damage: str | None = None if database is not None else ""
        if database is not None:  # before anything below writes to it
            self.maintenance.submit(lambda _: self._check_database(database, snapshots))
            # Damage met later (a sector gone bad mid-session) is checked the
            # same way: the banner then names the way back, and Reverie's own
            # work stops there.
            database.when_damaged(self.damage_met.emit)
            self.damage_met.connect(lambda: self._check_again(database, snapshots))
        if (eraser := core.eraser) is not None:  # deletions past their restore window
            self.maintenance.submit(self._while_sound(eraser.erase_expired))
        self._sweep = JobControl()
        if (conversations := core.conversations) is not None:  # stored by an older version
            self.maintenance.submit(
                self._while_sound(lambda: sweep_stored_secrets(conversations, self._sweep))
            )
        if database is not None and eraser is not None:  # and in its snapshots
            held = eraser.snapshots_lock
            self.maintenance.submit(
                self._while_sound(
                    lambda: sweep_snapshots(database, snapshots, self._sweep, under=held)
                )
            )
        if core.memories is not None:  # a new embedder: every memory gets its vector again
            self.maintenance.worker.notice.connect(self.window.notice)
            self.models.embedder_changed.connect(
                lambda: self.maintenance.submit(
                    lambda listener: (
                        None if self._background_refusal() else self._embed_again(listener)
                    )
                )
            )
        self.clock = Clock(self.window)
        self._compaction_soon = QTimer(self)
        self._compaction_soon.setSingleShot(True)
        self.clock.due.connect(self._on_due)
        if core.chat is not None:
            self.clock.every(COMPACTION_JOB, core.settings.chat.compaction_interval_minutes)
            self._compaction_soon.timeout.connect(lambda: self._on_due(COMPACTION_JOB))
            self._compaction_soon.start(COMPACTION_SOON_MS)
        if core.harvester is not None:
            self.clock.every(MEMORY_JOB, core.settings.memory.harvest_check_minutes)
        self.window.busy_changed.connect(self._on_busy)
        self.window.turn_ended.connect(lambda _: self._refresh_task_and_skill_windows())
        self._core = core
        self.dream_report: DreamReportWindow | None = None
        self.dreams = self._dream_runner(core)
        self._reload_after_turn = False
        self.window.turn_ended.connect(self._on_turn_ended)
        self.tasks = self._task_runner(core)
        self.work_reports = GatheredReports(self)
        """Background work's reports, shown a batch at a time."""
        self.work_view, self.work = self._work(core)
        self._shut_down = False
        self.qt.aboutToQuit.connect(self.shutdown)

    def _open_folder(self, folder: Path) -> None:
        """Show *folder* in the file manager (the tray's "Open data folder",
        "Open logs"); a notification says why if it could not be."""
        try:
            open_folder(folder)
        except FolderNotOpened as problem:
            log.warning("%s", problem)
            if self.tray is not None:
                self.tray.notify("Reverie could not open a folder", str(problem))

    def _check_database(self, database: Database, snapshots: Path) -> None:
        """On the maintenance worker: say if the database is damaged (and
        how to go back to a sound copy), and then let nothing at start write
        to it."""
        report = None
        try:
            report = damage_report(database, snapshots)
        finally:  # a bug in the check must not leave every gate "still checking"
            self._damage = report or ""
        if report is not None:
            log.error("%s", report)
            self.database_damaged.emit(report)

    def _check_again(self, database: Database, snapshots: Path) -> None:
        """A statement failed on a damaged page: check the file again unless
        a check is under way or already found it damaged."""
        if self._damage == "":
            self._damage = None  # Reverie's own work waits for the answer
            self.maintenance.submit(lambda _: self._check_database(database, snapshots))

    def _background_refusal(self) -> str:
        """Why Reverie's own background writing (dreams, harvests, memory
        upkeep, summaries, scheduled tasks) may not run now; "" if it may.
        On a damaged file every page it takes may be one still in use."""
        if self._damage is None:
            return "Reverie is still checking its database; ask again in a moment."
        if self._damage:
            return (
                "Reverie's database is damaged (see the message at the top of the chat "
                "window), so it does no work of its own there: no dreams, no memory "
                "upkeep, no scheduled tasks, until the file is sound again."
            )
        return ""

    def _embed_again(self, listener: TurnListener) -> None:
        """On the maintenance worker, once an embedding model loaded (at the
        start too): say how many memories wait for its vectors (another
        model's, or another size's: a server swapped while Reverie was
        closed), then give them and the past messages theirs."""
        memories = self._core.memories
        assert memories is not None
        if waiting := memories.vectors_owed():
            which = "1 memory is" if waiting == 1 else f"{waiting} memories are"
            listener.notice(
                f"{which} being embedded again with the embedding model in use, in the "
                "background; until then found by their words."
            )
        memories.embed_missing()
        self._index_messages()

    def _index_messages(self) -> int:
        """Give past messages their vectors (background priority), after the
        memories' and the harvest's work, at most ``INDEXED_PER_UPKEEP`` a
        run; none while recall is turned off."""
        indexer = self._core.message_indexer
        if indexer is None or not self._core.settings.memory.recall_past_conversations:
            return 0
        return indexer.index_missing(limit=INDEXED_PER_UPKEEP)

    def _while_sound(self, job: Callable[[], object]) -> Callable[[TurnListener], object]:
        """*job* as a maintenance task that does nothing once the database was
        found damaged (``_check_database``, which runs first on that worker)."""
        return lambda _: None if self._background_refusal() else job()

    def _show_preparation(self, step: Preparation) -> None:
        """The memory model's preparation in the status bar; once it is over,
        what the bar said before (or was told meanwhile) comes back."""
        if self._shut_down:
            return
        shown = self.window.statusBar().currentMessage()
        if shown != self._preparing_said:
            self._said_before_preparing = shown  # e.g. "Loading the chat model…"
        if step.over:
            if shown == self._preparing_said:
                self.window.set_status(self._said_before_preparing)
            self._preparing_said = ""
            return
        self._preparing_said = preparing_text(step.fraction)
        if shown != self._preparing_said:
            self.window.set_status(self._preparing_said)

    def _memory_browser(self, core: Core) -> MemoryBrowser | None:
        if core.memories is None or core.conversations is None or core.chat is None:
            return None
        browser = MemoryBrowser(
            core.memories, core.conversations, eraser=core.eraser, own=core.paths
        )
        self.window.memories_requested.connect(browser.present)
        self.window.memory_requested.connect(browser.show_memory)
        browser.open_conversation_requested.connect(self._open_conversation)
        if self.tray is not None:
            self.tray.memories_requested.connect(browser.present)
        return browser

    def _task_and_skill_windows(
        self, core: Core
    ) -> tuple[TasksWindow | None, SkillEditorWindow | None]:
        """The tasks window and the skill editor, opened from the tray and the chat."""
        tasks = (
            None
            if core.tasks is None
            else TasksWindow(core.tasks, core.conversations, eraser=core.eraser)
        )
        skills = None if core.skills is None else SkillEditorWindow(core.skills, eraser=core.eraser)
        self.window.tasks_button.setVisible(tasks is not None)
        self.window.skills_button.setVisible(skills is not None)
        if self.tray is not None:
            self.tray.tasks_action.setEnabled(tasks is not None)
            self.tray.skills_action.setEnabled(skills is not None)
        if tasks is not None:
            self.window.tasks_requested.connect(tasks.present)
            tasks.open_conversation_requested.connect(self._open_conversation)
            if self.tray is not None:
                self.tray.tasks_requested.connect(tasks.present)
        if skills is not None:
            self.window.skills_requested.connect(skills.present)
            if self.tray is not None:
                self.tray.skills_requested.connect(skills.present)
        return tasks, skills

    def _transfer_window(self, core: Core) -> TransferWindow | None:
        """Import and export, from the tray; what an import added shows at once."""
        database = core.database
        if database is None or core.conversations is None:
            return None
        paths, skills = core.paths, core.skills
        view = TransferWindow(
            Imports(database, paths, Redactor(), skills),
            lambda target: export_archive(database, paths, target, overwrite=True, skills=skills),
            refusal=self._import_refusal,
        )
        view.imported.connect(self._after_import)
        self.models.settings_window.transfer_requested.connect(view.present)
        if self.tray is not None:
            self.tray.transfer_requested.connect(view.present)
        return view

    def _import_refusal(self) -> str:
        """Why nothing may be imported now: not into a database found damaged."""
        if self._damage is None:
            return "Reverie is still checking its database; try again in a moment."
        if self._damage:
            return (
                "Reverie's database is damaged (see the message at the top of the chat "
                "window); nothing is written into it until the file is sound again."
            )
        return ""

    def _after_import(self) -> None:
        self.window.conversations.refresh()
        if self.memory_browser is not None and self.memory_browser.isVisible():
            self.memory_browser.refresh()
        self._refresh_task_and_skill_windows()

    def _refresh_task_and_skill_windows(self) -> None:
        """Tasks and skills changed behind the windows (a tool call, a dream)."""
        for window in (self.tasks_view, self.skill_editor):
            if window is not None and window.isVisible():
                window.refresh()

    def quit(self) -> None:
        """Quit, once no window holds unsaved edits: each with some asks
        first (keeping on editing there cancels quitting)."""
        editors = [
            w for w in (self.skill_editor, self.tasks_view, self.memory_browser) if w is not None
        ]

        def next_one(remaining: list[SkillEditorWindow | TasksWindow | MemoryBrowser]) -> None:
            if not remaining:
                self.qt.quit()
                return
            remaining[0].resolve_unsaved("quitting Reverie", lambda: next_one(remaining[1:]))

        next_one(list(editors))

    def _dream_runner(self, core: Core) -> DreamRunner | None:
        """Dreaming, started by the clock, the tray, ``/dream`` or a wave of new memories."""
        if self.tray is not None:
            self.tray.set_dreaming_available(core.dreamer is not None)
        if core.dreamer is None:
            return None
        settings = core.settings.dream
        runner = DreamRunner(
            core.dreamer,
            core.activity,
            settings.quiet_seconds,
            self,
            refusal=self._background_refusal,
        )
        runner.finished.connect(self._on_dream_finished)
        runner.failed.connect(self._on_dream_failed)
        report = self.dream_report = self._dream_report_window(core.dreamer, core)
        if report is not None:
            runner.finished.connect(lambda _: report.refresh())
        runner.finished.connect(lambda _: self._refresh_task_and_skill_windows())
        self.window.dreaming_available = True
        self.window.dream_requested.connect(lambda: self._dream("chat"))
        if self.tray is not None:
            self.tray.dream_requested.connect(lambda: self._dream("manual"))
            self.tray.dreaming_paused.connect(self._pause_dreaming)
            runner.state_changed.connect(self.tray.set_dream_state)
            if report is not None:
                self.tray.dream_report_requested.connect(report.present)
        if report is not None:
            self.window.dreams_button.show()
            self.window.dream_report_requested.connect(report.present)
        if settings.enabled:
            self.clock.daily_at(DREAM_NIGHTLY, settings.nightly_hour, settings.nightly_minute)
            if settings.every_hours:
                self.clock.every(DREAM_INTERVAL, settings.every_hours * 60, MISSED_RUN_GRACE_S)
        return runner

    def _task_runner(self, core: Core) -> TaskRunner | None:
        """Scheduled tasks speaking up (checked as every minute starts) and
        agenda reviews (every ``tasks.agenda_review_minutes``)."""
        if core.routines is None or core.agenda is None:
            return None
        runner = TaskRunner(core.routines, core.agenda, self)
        runner.ran.connect(self._on_task_ran)
        runner.reviewed.connect(self._on_agenda_reviewed)
        runner.failed.connect(self._on_task_work_failed)
        self.clock.each_minute(TASKS_JOB)
        if core.settings.tasks.agenda_review_minutes:
            self.clock.every(AGENDA_JOB, core.settings.tasks.agenda_review_minutes)
        return runner

    def _work(self, core: Core) -> tuple[WorkWindow | None, WorkRunner | None]:
        """Background workers: run as soon as the start's damage check found
        the database sound (``_start_work``), again whenever one is spawned
        or ends, and when the clock opens a time gate; the Work window."""
        self.window.work_button.setVisible(core.workers is not None)
        if self.tray is not None:
            self.tray.work_action.setEnabled(core.workers is not None)
        if core.workers is None:
            return None, None
        view, runner = work_parts(
            core.workers, self.window, self.tray, self.clock, self, self._background_refusal
        )
        runner.reported.connect(self.work_reports.add)
        self.work_reports.gathered.connect(self._on_work_reported)
        QTimer.singleShot(0, self, self._start_work)
        return view, runner

    def _start_work(self) -> None:
        """Resume the workers a quit left (``Workers.recover``) once the
        database was found sound; never on a damaged one."""
        if self._shut_down or self.work is None:
            return
        if self._damage is None:  # the check has not answered yet
            QTimer.singleShot(CHECK_AGAIN_MS, self, self._start_work)
            return
        self.work.wake()

    def _on_work_reported(self, conversation_ids: frozenset[int]) -> None:
        """Reports of background work (a batch): shown where they were asked
        for, once; one notification for those of other conversations."""
        if self.window.conversation_id in conversation_ids:
            self._show_new_messages()
        if self.tray is not None and conversation_ids - {self.window.conversation_id}:
            self.tray.notify("Reverie", "Background work ended; its report is in its conversation.")

    def _on_task_ran(self, run: TaskRun) -> None:
        """A notification; the open conversation shows what was said there."""
        title, text = _run_notice(run)
        if self.tray is not None:
            self.tray.notify(title, _shortened(text))
        self._refresh_tasks_view()  # its next run moved on
        if run.conversation_id is None or run.conversation_id != self.window.conversation_id:
            return
        if run.as_event or not run.ok:  # not a message of the transcript
            self.window.notice(f"{title}: {text}")
        else:
            self._show_new_messages()

    def _on_agenda_reviewed(self, review: AgendaReview) -> None:
        if not review.done:  # [NO_ACTION]: nothing to show
            return
        self._refresh_tasks_view()
        if self.tray is not None:
            self.tray.notify("Reverie went over your tasks", _shortened("; ".join(review.done)))
        if review.conversation_id == self.window.conversation_id:
            self._show_new_messages()

    def _on_task_work_failed(self, message: str) -> None:
        log.warning("scheduled task work failed: %s", message)
        if self.tray is not None:
            self.tray.notify("Reverie could not run its scheduled tasks", message)

    def _refresh_tasks_view(self) -> None:
        if self.tasks_view is not None:
            self.tasks_view.refresh()

    def _show_new_messages(self) -> None:
        """The open conversation got a message from background work: show it
        now, or once the user's turn in it has ended."""
        if self.window.busy:
            self._reload_after_turn = True
        elif (conversation_id := self.window.conversation_id) is not None:
            self.window.open_conversation(conversation_id)

    def _on_turn_ended(self, _status: str) -> None:
        if self._reload_after_turn:
            self._reload_after_turn = False
            self._show_new_messages()
        chat = self._core.chat
        if chat is not None and chat.owes_compaction() and not self._compaction_soon.isActive():
            self._compaction_soon.start(COMPACTION_SOON_MS)

    def _dream_report_window(self, dreamer: Dreamer, core: Core) -> DreamReportWindow | None:
        if core.memories is None:
            return None
        window = DreamReportWindow(dreamer.dreams, dreamer.book, core.memories)
        if self.memory_browser is not None:
            window.memory_requested.connect(self.memory_browser.show_memory)
            window.memories_changed.connect(self.memory_browser.refresh)
        return window

    def _dream(self, trigger: str) -> None:
        if self.dreams is None:
            return
        if refused := self._background_refusal():
            if trigger == "chat":
                self.window.notice(refused)
            elif trigger == "manual" and self.tray is not None:
                self.tray.notify("Reverie does not dream now", refused)
            return
        if self.dreams.dream(trigger):
            if trigger == "chat":
                self.window.notice(
                    "Dreaming now: tidying what I remember. I will say what changed."
                )
        elif trigger in ("chat", "manual"):
            busy = "Dreaming is paused." if self.dreams.paused else "A dream is already running."
            self.window.notice(busy)

    def _pause_dreaming(self, paused: bool) -> None:
        if self.dreams is not None:
            self.dreams.pause() if paused else self.dreams.resume()

    def _on_dream_finished(self, report: DreamReport) -> None:
        if report.run.status != "completed":
            return
        said = f"Dream finished: {report.changes} change{'s' if report.changes != 1 else ''}"
        if report.pending:
            said += f", {report.pending} waiting for your approval"
        if self.tray is not None:
            self.tray.notify("Reverie", said + ".")
        if report.run.trigger == "chat":
            shown = self.dream_report
            run_id = report.run.id
            opened = None if shown is None else ("Open the report", lambda: shown.show_run(run_id))
            self.window.notice(said + ".", opened)

    def _on_dream_failed(self, message: str) -> None:
        log.warning("dream failed: %s", message)
        if self.tray is not None:
            self.tray.notify("Reverie could not dream", message)

    def _on_busy(self, busy: bool) -> None:
        activity = self._core.activity
        if busy:
            activity.turn_started()
        else:  # after its greeting alone, the user is not mid-conversation
            activity.turn_ended(by_user=not self.window.only_greeting)

    def _open_conversation(self, conversation_id: int, message_id: int | None = None) -> None:
        self.show_chat()
        self.window.open_conversation(conversation_id, message_id)

    def _on_due(self, name: str) -> None:
        if self._shut_down:
            return
        if self._damage is None:  # a run missed at start: once the check has answered
            QTimer.singleShot(CHECK_AGAIN_MS, self, lambda: self._on_due(name))
            return
        if self._damage:  # said in the banner; chat itself goes on
            return
        chat = self._core.chat
        if name == COMPACTION_JOB and chat is not None:
            self.maintenance.submit(self._while_sound(chat.compact_idle))
        harvester, memories = self._core.harvester, self._core.memories
        if name == MEMORY_JOB and harvester is not None and memories is not None:
            self.maintenance.submit(
                self._while_sound(
                    lambda: (
                        memories.embed_missing(),
                        harvester.harvest_due(),
                        self._index_messages(),
                    )
                )
            )
        dreamer = self._core.dreamer
        early = name == MEMORY_JOB and self._core.settings.dream.enabled
        if early and dreamer is not None and dreamer.due_early():
            self._dream("memories")
        if name in (DREAM_NIGHTLY, DREAM_INTERVAL):
            self._dream("schedule")
        if name == TASKS_JOB and self.tasks is not None:
            self.tasks.run_due()
        if name == AGENDA_JOB and self.tasks is not None:
            self.tasks.review()
        if name == WORKERS_JOB and self.work is not None:
            self.work.wake()

    def shutdown(self) -> None:
        """Stop the clock, then the work in flight (keeping what was said)."""
        if self._shut_down:
            return
        self._shut_down = True
        self.qt.aboutToQuit.disconnect(self.shutdown)
        self._core.preparation.remove_listener(self.preparing.report)
        self.theme.stop_following()
        self.clock.stop()
        self._compaction_soon.stop()
        if self.tasks is not None:
            self.tasks.stop()  # a routine cut short stays due: it runs at the next start
        if self.dreams is not None:
            self.dreams.stop()  # paused where it was: the next dream goes on from there
        if self.work is not None:
            self.work.stop()  # a worker cut short resumes from its messages at the next start
        if self.dream_report is not None:
            self.dream_report.shutdown()
            self.dream_report.deleteLater()
        self.models.shutdown()
        self.window.shutdown()
        if self.memory_browser is not None:
            self.memory_browser.shutdown()
            self.memory_browser.deleteLater()
        for editor in (self.tasks_view, self.skill_editor, self.work_view, self.transfer_view):
            if editor is not None:
                editor.shutdown()
                editor.deleteLater()
        # Background work held back while the user was chatting would keep the
        # maintenance worker (a harvest, a summary) waiting: end it all now.
        self._core.broker.stop()
        self._sweep.cancel()  # goes on at the next start
        self.maintenance.stop()

    def _conversation_id(self, core: Core) -> int | None:
        if core.chat is None:
            return None
        try:
            return core.chat.latest_or_new_conversation().id
        except ReverieError as error:
            core.problems.append(f"Conversations are unavailable: {error}")
            core.chat = None
            return None

    def _quit_on_signals(self) -> None:
        """Quit cleanly (saving a reply in flight) on Ctrl+C or a polite kill;
        unsaved edits in a window are asked about first, as the tray's Quit does
        (Qt would otherwise stop quitting at the window that refuses to close)."""
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, lambda *_: self.quit())
        # Python runs signal handlers only between bytecodes; an idle Qt loop
        # never gives it the chance unless a timer wakes the interpreter.
        self._signal_timer = QTimer(self.qt)
        self._signal_timer.timeout.connect(lambda: None)
        self._signal_timer.start(250)

    def show_chat(self) -> None:
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()

    def run(self, *, start_hidden: bool) -> int:
        self._quit_on_signals()
        self.clock.start()
        settle_garbage_collector()
        if self.tray is not None:
            self.tray.show()
        if not (start_hidden and self.tray is not None):
            self.show_chat()
        self.models.suggest_if_small()
        return int(self.qt.exec())


def _maintenance_failed(failure: TaskFailed) -> None:
    """Upkeep cut short (quitting stops the models under it) is said only
    at debug level; a real failure is a warning."""
    if not failure.stopped:
        log.warning("maintenance failed: %s", failure.message)


def _run_notice(run: TaskRun) -> tuple[str, str]:
    """A task run's notification: its title and text."""
    if not run.ok:
        return "Reverie could not run a scheduled task", f"“{run.task.text}”: {run.problem}"
    if run.kind == "reminder":
        return "Reminder", run.task.text
    return f"Reverie: {run.task.text}", run.said


def _shortened(text: str) -> str:
    return cut(" ".join(text.split()), _NOTIFICATION_CHARS)
