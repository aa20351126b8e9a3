"""The pieces of the dream report: the words for runs and changes, one change
with its before and after, one pass's line of the run's log with the model's
raw answer behind a toggle, the detail pane holding them, and what the runs
list's delegate draws with.

They show what they are given (dream changes carry their memories as they
were before and after; ``desktop.ui.dreaming.html`` writes those out) and
change nothing; ``desktop.ui.dreaming.report`` does the approving and undoing.
A pass's line counts its changes as they stand now, not as the pass left
them, so an approval, a rejection or an undo shows at once.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.db import DreamChange, DreamLogEntry, DreamRun
from desktop.core.db.tally import outcome_now, recounted
from desktop.core.dreaming.contradictions import ContradictionPass
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.dreaming.preferences import PreferencePass
from desktop.core.dreaming.skill_review import SkillPass
from desktop.core.dreaming.task_review import TaskPass
from desktop.ui.dreaming.html import before_after_html, risk_reason
from desktop.ui.widgets.labels import count, named, when
from desktop.ui.widgets.line_breaks import breakable
from desktop.ui.widgets.visibility import set_shown

RUN_ROLE = Qt.ItemDataRole.UserRole
"""The item data role holding a runs-list line's ``RunLine``."""
_PASSES = (
    DecayPass,
    DedupPass,
    ContradictionPass,
    StalePass,
    TaskPass,
    SkillPass,
    PreferencePass,
)
_PASS_TITLES = {p.name: p.title for p in _PASSES} | {
    "working_set": "Writing MEMORIES.md",
    "erase_expired": "Erasing deletions past their restore window",
}
RUN_STATUS = {
    "queued": "waiting to start",
    "running": "dreaming now",
    "paused": "paused",
    "completed": "completed",
    "failed": "failed",
    "cancelled": "cancelled",
}
CHANGE_STATUS = {
    "applied": "Applied",
    "pending": "Waiting for approval",
    "reverted": "Undone",
    "rejected": "Rejected",
}
OUTCOMES = {
    "applied": "made changes",
    "pending": "changes wait for your approval",
    "nothing": "nothing to change",
    "rolled_back": "rolled back",
    "tripped": "stopped by the safety limit",
    "failed": "failed",
    "cancelled": "cancelled",
}
_KINDS = {
    "merge": "Merge",
    "supersede": "Replace",
    "archive": "Archive",
    "decay": "Fade",
    "add": "New memory",
    "task_complete": "Complete task",
    "task_update": "Update task",
    "task_purge": "Purge task",
    "skill_rewrite": "Rewrite skill",
    "skill_retire": "Retire skill",
    "skill_draft": "Propose skill",
}
_TRIGGERS = {
    "manual": "asked for by you",
    "chat": "asked for with /dream",
    "schedule": "scheduled",
    "memories": "many new memories",
    "resume": "resumed",
}


@dataclass(frozen=True)
class RunLine:
    """One line of the runs list: a dream run, or (``run`` None) the entry
    listing every change waiting for approval."""

    run: DreamRun | None
    waiting: int
    """Changes (of this run, or of all runs) waiting for approval now."""


def pass_title(name: str) -> str:
    """A pass as the user knows it ("Merging duplicates"); a pass this
    window does not know yet reads as its name."""
    return _PASS_TITLES.get(name, name.replace("_", " ").capitalize())


def run_started(run: DreamRun) -> float:
    return run.started_at or run.created_at


def run_title(run: DreamRun) -> str:
    return f"Dream of {when(run_started(run))}"


def _made(run: DreamRun) -> str:
    """What the run did, as it finished (later approvals and undos aside)."""
    stats = run.stats or {}
    if run.status in ("running", "queued"):
        return "in progress"
    made = int(stats.get("applied", 0)) + int(stats.get("pending", 0))
    return "changed nothing" if not made else f"made {count(made, 'change', 'changes')}"


def run_facts(run: DreamRun) -> str:
    """The grey line under a run in the list."""
    return f"{_TRIGGERS.get(run.trigger, run.trigger)} · {_made(run)}"


def line_text(line: RunLine) -> str:
    """A runs-list line as one sentence (the item's text, for screen readers and tests)."""
    if line.run is None:
        return f"Waiting for approval: {line.waiting or 'none'}"
    said = f"{run_title(line.run)}: {RUN_STATUS.get(line.run.status, line.run.status)}"
    said += f", {run_facts(line.run).replace(' · ', ', ')}"
    return said + (f", {line.waiting} waiting for approval" if line.waiting else "")


def _label(text: str, name: str, *, rich: bool = False) -> QLabel:
    """A word-wrapped label; plain *text* (a summary quoting a memory) with
    places to break a long link, which would widen the report past the window."""
    label = named(QLabel(text if rich else breakable(text)), name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    return label


class ChangeView(QFrame):
    """One change: what it is, its before and after, its status and what the
    user can do with it (buttons the report connects).

    Signals:
        memory_requested(int): the user clicked a memory's id.
    """

    memory_requested = Signal(int)

    def __init__(self, change: DreamChange, origin: str = "") -> None:
        super().__init__()
        self.setObjectName("dream-change")
        self.setProperty("status", change.status)  # the style sheet mutes what holds no more
        self.change = change
        kind = _KINDS.get(change.kind, change.kind)
        done_by = pass_title(change.pass_name)
        self.header = _label(f"<b>{kind}</b> · {html.escape(done_by)}", "dream-change-header")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.status = _label(self._status_text(), "dream-change-status")
        self.status.setWordWrap(False)
        self.status.setProperty("status", change.status)
        self.summary = _label(change.summary, "dream-change-summary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.risk = _label(
            f"⚠ Waits for your approval: {risk_reason(change)}.", "dream-change-risk"
        )
        set_shown(self.risk, change.status == "pending")
        self.details = _label(before_after_html(change), "dream-change-details", rich=True)
        self.details.setAccessibleName("Before and after")
        self.details.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.details.linkActivated.connect(self._on_link)
        self.note = _label(change.note or "", "dream-change-note")
        set_shown(self.note, bool(change.note))
        self.origin = _label(origin, "dream-change-origin")
        what = f"change #{change.id} ({kind.lower()})"
        self.approve_button = named(QPushButton("Approve"), "dream-approve", f"Approve {what}")
        self.approve_button.setToolTip("Apply this change to your memories")
        self.reject_button = named(QPushButton("Reject"), "dream-reject", f"Reject {what}")
        self.reject_button.setToolTip("Leave your memories as they are")
        self.undo_button = named(QPushButton("Undo"), "dream-undo-change", f"Undo {what}")
        self.undo_button.setToolTip("Put the memories back as they were before this change")
        set_shown(self.approve_button, change.status == "pending")
        set_shown(self.reject_button, change.status == "pending")
        set_shown(self.undo_button, change.status == "applied")
        self._lay_out()

    def _lay_out(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.header, 1)
        top.addWidget(self.status, 0, Qt.AlignmentFlag.AlignTop)
        buttons = QHBoxLayout()
        if self.origin.text():
            buttons.addWidget(self.origin, 1)
        else:
            self.origin.hide()
            buttons.addStretch(1)
        for button in (self.undo_button, self.reject_button, self.approve_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        layout.addLayout(top)
        for label in (self.summary, self.risk, self.details, self.note):
            layout.addWidget(label)
        layout.addLayout(buttons)

    def _status_text(self) -> str:
        change = self.change
        said = CHANGE_STATUS.get(change.status, change.status)
        if change.status == "applied" and change.risky:
            said = "Applied (you approved it)"
        if change.decided_at is not None and change.status in ("reverted", "rejected"):
            said += f" · {when(change.decided_at)}"
        return said

    @property
    def buttons(self) -> tuple[QPushButton, ...]:
        return (self.approve_button, self.reject_button, self.undo_button)

    def _on_link(self, link: str) -> None:
        if link == "more":
            self.details.setText(before_after_html(self.change, show_all=True))
        elif link.startswith("memory:"):
            self.memory_requested.emit(int(link.removeprefix("memory:")))


class LogView(QFrame):
    """What one pass of a run did, and why; the model's raw answer, when it
    was kept, behind a toggle."""

    def __init__(self, pass_name: str, outcome: str | None, message: str, raw: str | None) -> None:
        super().__init__()
        self.setObjectName("dream-log-entry")
        self.pass_name = pass_name
        title = pass_title(pass_name)
        said = "" if outcome is None else f" · {OUTCOMES.get(outcome, outcome)}"
        self.header = _label(f"<b>{html.escape(title)}</b>{said}", "dream-log-header", rich=True)
        self.setProperty("outcome", outcome or "")
        set_shown(self.header, bool(title))
        self.message = _label(message, "dream-log-message")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.raw_toggle = named(
            QToolButton(), "dream-raw-toggle", f"Show the model's answer for {title}"
        )
        self.raw_toggle.setText("▸ The model's answer")
        self.raw_toggle.setCheckable(True)
        self.raw_toggle.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        set_shown(self.raw_toggle, raw is not None)
        self.raw = _label(raw or "", "dream-raw-output")
        self.raw.setAccessibleName(f"The model's answer for {title}")
        self.raw.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.raw.hide()
        self.raw_toggle.toggled.connect(self.show_raw)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 2, 0, 4)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.message)
        layout.addWidget(self.raw_toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.raw)

    @classmethod
    def of(cls, entry: DreamLogEntry, changes: Sequence[DreamChange] = ()) -> LogView:
        """*entry* as it reads now: its count of changes taken again from
        *changes* (the run's, as the user approved, rejected or undid them)."""
        statuses = [c.status for c in changes if c.pass_name == entry.pass_name]
        message = entry.message
        if entry.outcome == "applied" and statuses:
            message = recounted(message, statuses)
        outcome = outcome_now(entry.outcome, statuses)
        return cls(entry.pass_name, outcome, message, entry.raw_output)

    def show_raw(self, shown: bool) -> None:
        self.raw_toggle.setChecked(shown)
        self.raw_toggle.setText(("▾" if shown else "▸") + " The model's answer")
        self.raw.setVisible(shown)


# -- drawing the runs list (its delegate lives with the window) ---------------
STATUS_COLOURS: dict[str, tuple[str, str]] = {
    "queued": ("accent_strong", "accent_soft"),
    "running": ("accent_strong", "accent_soft"),
    "paused": ("text_secondary", "subtle"),
    "completed": ("success_text", "success_bg"),
    "failed": ("danger_text", "danger_bg"),
    "cancelled": ("text_secondary", "subtle"),
}
"""A run's status chip: the palette's names of its text and fill colours."""


_RUN_STATE = {
    "queued": "Waiting to start.",
    "running": "Dreaming now: this report fills in as each pass finishes.",
    "paused": "Paused: it goes on where it stopped at the next dream.",
    "cancelled": "Cancelled: what its finished passes changed is kept.",
}
WAITING_INTRO = (
    "Dreaming leaves a change for you to approve when it touches a memory you hold dear "
    "(one that is pinned, that you told Reverie yourself, or that was seen many times), "
    "completes a task, or rewrites a task or a skill in words it cannot check against "
    "what was there and what you said."
)


def _took(run: DreamRun) -> str:
    if run.finished_at is None or run.started_at is None:
        return ""
    seconds = max(0.0, run.finished_at - run.started_at)
    if seconds < 1:
        return " · took under a second"
    return f" · took {seconds:.0f} s" if seconds < 120 else f" · took {seconds / 60:.0f} min"


def _tally(changes: Sequence[DreamChange]) -> str:
    """How many of *changes* are in each status now."""
    counted = Counter[str](change.status for change in changes)
    said = {"applied": "applied", "pending": "waiting for approval", "reverted": "undone"}
    said["rejected"] = "rejected"
    return " · ".join(
        f"{counted[status]} {word}" for status, word in said.items() if counted[status]
    )


class ReportDetail(QWidget):
    """The right pane: one run (what it was, what each pass did, its
    changes), or every change waiting for approval, from any run.

    Signals:
        memory_requested(int): the user clicked a memory's id.
    """

    memory_requested = Signal(int)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("dream-detail")
        self.run: DreamRun | None = None
        self.change_views: list[ChangeView] = []
        self.log_views: list[LogView] = []
        self.title = _label("", "dream-detail-title")
        self.facts = _label("", "dream-facts")
        self.facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.undo_run_button = named(
            QPushButton("Undo this dream…"), "dream-undo-run", "Undo every change of this dream"
        )
        self.undo_run_button.setToolTip(
            "Put every memory this dream changed back as it was (asks first)"
        )
        self.log_section = named(QLabel("What each pass did"), "dream-section")
        self.changes_section = named(QLabel("Changes"), "dream-section")
        self.no_changes = _label("", "dream-no-changes")
        self._log_box = QVBoxLayout()
        self._log_box.setSpacing(6)
        self._changes_box = QVBoxLayout()
        self._changes_box.setSpacing(10)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.undo_run_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.addLayout(top)
        layout.addWidget(self.facts)
        layout.addWidget(self.log_section)
        layout.addLayout(self._log_box)
        layout.addWidget(self.changes_section)
        layout.addWidget(self.no_changes)
        layout.addLayout(self._changes_box)
        layout.addStretch(1)

    def show_run(
        self, run: DreamRun, changes: Sequence[DreamChange], log: Sequence[DreamLogEntry]
    ) -> None:
        self.run = run
        self.title.setText(run_title(run))
        state = _RUN_STATE.get(run.status, "")
        if run.status == "failed":
            state = f"Failed: {run.error or 'no reason was recorded'}"
        facts = f"{RUN_STATUS.get(run.status, run.status).capitalize()}"
        facts += f" · {_TRIGGERS.get(run.trigger, run.trigger)}{_took(run)}"
        tally = _tally(changes)
        self.facts.setText("\n".join(part for part in (facts, tally, state) if part))
        self.undo_run_button.show()
        self.undo_run_button.setEnabled(
            run.status not in ("running", "queued") and any(c.status == "applied" for c in changes)
        )
        self._show_log(run, log, changes)
        self.changes_section.show()
        self.no_changes.setText(
            "This dream changed nothing. What each pass did, above, says why."
            if run.status not in ("running", "queued")
            else "No changes yet."
        )
        self._show_changes(changes, {})

    def show_waiting(self, changes: Sequence[DreamChange], origins: Mapping[int, str]) -> None:
        """Every change waiting for approval; *origins* names each one's dream (by run id)."""
        self.run = None
        self.title.setText("Waiting for approval")
        self.facts.setText(WAITING_INTRO)
        self.undo_run_button.hide()
        self._show_log(None, ())
        self.changes_section.hide()
        self.no_changes.setText("Nothing is waiting for your approval.")
        self._show_changes(changes, origins)

    def show_message(self, text: str) -> None:
        """No run to show: say *text* (how dreaming works, before the first dream)."""
        self.run = None
        self.title.setText(text)
        self.facts.setText("")
        self.undo_run_button.hide()
        self._show_log(None, ())
        self.changes_section.hide()
        self._show_changes((), {})
        self.no_changes.hide()

    def _show_log(
        self,
        run: DreamRun | None,
        log: Sequence[DreamLogEntry],
        changes: Sequence[DreamChange] = (),
    ) -> None:
        expanded = {v.pass_name for v in self.log_views if not v.raw.isHidden()}
        discard(self.log_views)
        views = [LogView.of(entry, changes) for entry in log]
        logged = {entry.pass_name for entry in log}
        # What the run said besides its passes' log (writing MEMORIES.md).
        outcomes = {} if run is None else dict((run.stats or {}).get("outcomes", {}))
        views += [LogView(k, None, str(v), None) for k, v in outcomes.items() if k not in logged]
        if run is not None and not views:
            said = "No pass has finished yet." if run.status == "running" else "No pass ran."
            views = [LogView("", None, said, None)]
        self.log_views = views
        for view in views:
            if view.pass_name in expanded:
                view.show_raw(True)
            self._log_box.addWidget(view)
        self.log_section.setVisible(run is not None)

    def _show_changes(self, changes: Sequence[DreamChange], origins: Mapping[int, str]) -> None:
        discard(self.change_views)
        self.change_views = [ChangeView(c, origins.get(c.dream_run_id, "")) for c in changes]
        for view in self.change_views:
            view.memory_requested.connect(self.memory_requested)
            self._changes_box.addWidget(view)
        self.no_changes.setVisible(not changes)


def discard(views: Sequence[QWidget]) -> None:
    """Take *views* out of the window now (Qt deletes them later)."""
    for view in views:
        view.hide()
        view.setParent(None)
        view.deleteLater()
