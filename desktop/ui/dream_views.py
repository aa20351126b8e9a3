"""The pieces of the dream report: the words for runs and changes, one change
with its before and after, one pass's line of the run's log with the model's
raw answer behind a toggle, the detail pane holding them, and what the runs
list's delegate draws with.

They show what they are given (dream changes carry their memories as they
were before and after) and change nothing; ``desktop.ui.dream_report`` does
the approving and undoing.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

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

from desktop.core.db import DreamChange, DreamLogEntry, DreamRun, Memory
from desktop.core.db.memory_writes import from_snapshot
from desktop.core.dreaming.contradictions import ContradictionPass
from desktop.core.dreaming.dedup import DedupPass
from desktop.core.dreaming.fading import DecayPass, StalePass
from desktop.core.dreaming.preferences import PreferencePass
from desktop.core.dreaming.skill_review import SkillPass
from desktop.core.dreaming.task_review import TaskPass
from desktop.ui.memory_views import count, named

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
_PASS_TITLES = {p.name: p.title for p in _PASSES} | {"working_set": "Writing MEMORIES.md"}
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
_SKILL_CHARS = 300
_TRIGGERS = {
    "manual": "asked for by you",
    "chat": "asked for with /dream",
    "schedule": "scheduled",
    "memories": "many new memories",
    "resume": "resumed",
}
_SHOWN_FADED = 5
"""Faded memories listed before "Show all" (a decay change may hold hundreds)."""
_MEMORY_CHARS = 400
_OLD = "color:#8a3b3b; text-decoration:line-through"
_NEW = "color:#1d5e3a"
_LINK = "color:#5b4bd6; text-decoration:none"


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


def when(timestamp: float) -> str:
    moment = datetime.fromtimestamp(timestamp)
    return f"{moment.day} {moment:%b %Y, %H:%M}"


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


def memory_link(memory_id: int) -> str:
    return f'<a href="memory:{memory_id}" style="{_LINK}">#{memory_id}</a>'


def _text(memory: Memory) -> str:
    text = memory.content.strip()
    if len(text) > _MEMORY_CHARS:
        text = text[:_MEMORY_CHARS].rstrip() + "…"
    return html.escape(text)


def _memories(state: Mapping[str, Any] | None) -> dict[int, Memory]:
    found = (state or {}).get("memories", {})
    return {int(key): from_snapshot(data) for key, data in found.items()}


def before_after_html(change: DreamChange, *, show_all: bool = False) -> str:
    """The memories *change* touched, as they were, then what it makes of them."""
    before, after = _memories(change.before), _memories(change.after)
    payload = change.payload
    created = [int(i) for i in (change.after or {}).get("created", [])]
    taken_back = change.status == "reverted"
    if change.kind == "merge":
        superseded = {int(i) for i in payload.get("superseded", [])}
        sources = [int(i) for i in payload.get("sources", sorted(before))]
        lines = [f"<b>{len(sources)} memories → 1</b>"]
        for memory_id in sources:
            memory = before.get(memory_id)
            text = "" if memory is None else _text(memory)
            if memory_id in superseded:
                lines.append(f'{memory_link(memory_id)} <span style="{_OLD}">{text}</span>')
            else:
                lines.append(f"{memory_link(memory_id)} {text} <i>(kept)</i>")
        lines.append(_new_memory(str(payload.get("content", "")), created, taken_back))
        return "<br>".join(lines)
    if change.kind == "decay":
        return _decay_html(payload, before, show_all)
    if change.kind.startswith("task_"):
        return _task_html(change)
    if change.kind.startswith("skill_"):
        return _skill_html(change)
    if change.kind == "add":
        return _new_memory(str(payload.get("content", "")), created, taken_back)
    memory_id = int(payload.get("memory", 0))
    memory = before.get(memory_id)
    text = "" if memory is None else _text(memory)
    if change.kind == "archive":
        was = "active" if memory is None else memory.status
        return f"{memory_link(memory_id)} {text}<br>{was} → archived"
    if change.kind == "supersede":
        by = int(payload.get("by", 0))
        replacement = after.get(by) or before.get(by)
        new = "" if replacement is None else f' <span style="{_NEW}">{_text(replacement)}</span>'
        return (
            f'{memory_link(memory_id)} <span style="{_OLD}">{text}</span>'
            f"<br>→ replaced by {memory_link(by)}{new}"
        )
    return html.escape(change.summary)


def _task_html(change: DreamChange) -> str:
    """A task as it was (struck through where it changed) and as it became."""
    then = next(iter((change.before or {}).get("tasks", {}).items()), None)
    if then is None:
        return html.escape(change.summary)
    key, was = then
    became = (change.after or {}).get("tasks", {}).get(key, {})
    old = f"{html.escape(str(was['text']))} (P{was['priority']}, {was['status']})"
    if not became:
        return f"Task #{key}: {old}"
    new = f"{html.escape(str(became['text']))} (P{became['priority']}, {became['status']})"
    return f'Task #{key}: <span style="{_OLD}">{old}</span><br>→ <span style="{_NEW}">{new}</span>'


def _skill_html(change: DreamChange) -> str:
    """A skill's text as it was and as it became (the beginning of each)."""
    payload = change.payload
    if change.kind == "skill_draft":
        name = html.escape(str(payload.get("name", "")))
        return f'New draft “{name}”:<br><span style="{_NEW}">{_excerpt(payload.get("text"))}</span>'
    then: dict[str, Any] = next(iter((change.before or {}).get("skills", {}).values()), {})
    name = html.escape(str(then.get("name", "")))
    if change.kind == "skill_retire":
        return f"“{name}” → deleted (restorable), merged into skill #{payload.get('into')}"
    return (
        f'“{name}”:<br><span style="{_OLD}">{_excerpt(then.get("text"))}</span>'
        f'<br>→ <span style="{_NEW}">{_excerpt(payload.get("text"))}</span>'
    )


def _excerpt(text: object) -> str:
    shown = str(text or "")
    cut = shown if len(shown) <= _SKILL_CHARS else shown[: _SKILL_CHARS - 1] + "…"
    return html.escape(cut).replace("\n", "<br>")


def _new_memory(content: str, created: Sequence[int], taken_back: bool) -> str:
    text = f'<span style="{_NEW}">{html.escape(content)}</span>'
    if not created:
        return f"→ a new memory: {text}"
    if taken_back:  # undone: the memory it wrote is gone
        return f"→ #{created[0]} {text} <i>(taken back)</i>"
    return f"→ {memory_link(created[0])} {text}"


def _decay_html(payload: Mapping[str, Any], before: Mapping[int, Memory], show_all: bool) -> str:
    faded = [(int(memory_id), float(value)) for memory_id, value in payload.get("memories", [])]
    shown = faded if show_all else faded[:_SHOWN_FADED]
    lines = [f"<b>{count(len(faded))} faded</b>"]
    for memory_id, importance in shown:
        memory = before.get(memory_id)
        old = "?" if memory is None else f"{memory.current_importance:.2f}"
        text = "" if memory is None else _text(memory)
        lines.append(f"{memory_link(memory_id)} importance {old} → {importance:.2f} · {text}")
    if len(faded) > len(shown):
        lines.append(f'<a href="more" style="{_LINK}">Show all {len(faded)}</a>')
    return "<br>".join(lines)


def risk_reason(change: DreamChange) -> str:
    """Why a risky change waits for the user: what it touches that they hold dear."""
    before = _memories(change.before)
    for memory_id, memory in before.items():
        if memory.pinned:
            return f"it touches a pinned memory (#{memory_id})"
    for memory_id, memory in before.items():
        if memory.source_kind == "user_explicit":
            return f"it touches a memory you told Reverie yourself (#{memory_id})"
    seen = max(before.values(), key=lambda m: m.reinforcement_count, default=None)
    if seen is not None and seen.reinforcement_count > 1:
        return f"it touches a memory seen {seen.reinforcement_count} times (#{seen.id})"
    return "dreaming asks before making this kind of change"


def _label(text: str, name: str, *, rich: bool = False) -> QLabel:
    label = named(QLabel(text), name)
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
        self.risk.setVisible(change.status == "pending")
        self.details = _label(before_after_html(change), "dream-change-details", rich=True)
        self.details.setAccessibleName("Before and after")
        self.details.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.details.linkActivated.connect(self._on_link)
        self.note = _label(change.note or "", "dream-change-note")
        self.note.setVisible(bool(change.note))
        self.origin = _label(origin, "dream-change-origin")
        what = f"change #{change.id} ({kind.lower()})"
        self.approve_button = named(QPushButton("Approve"), "dream-approve", f"Approve {what}")
        self.approve_button.setToolTip("Apply this change to your memories")
        self.reject_button = named(QPushButton("Reject"), "dream-reject", f"Reject {what}")
        self.reject_button.setToolTip("Leave your memories as they are")
        self.undo_button = named(QPushButton("Undo"), "dream-undo-change", f"Undo {what}")
        self.undo_button.setToolTip("Put the memories back as they were before this change")
        self.approve_button.setVisible(change.status == "pending")
        self.reject_button.setVisible(change.status == "pending")
        self.undo_button.setVisible(change.status == "applied")
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
        title = pass_title(pass_name)
        said = "" if outcome is None else f" · {OUTCOMES.get(outcome, outcome)}"
        self.header = _label(f"<b>{html.escape(title)}</b>{said}", "dream-log-header", rich=True)
        self.setProperty("outcome", outcome or "")
        self.header.setVisible(bool(title))
        self.message = _label(message, "dream-log-message")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.raw_toggle = named(
            QToolButton(), "dream-raw-toggle", f"Show the model's answer for {title}"
        )
        self.raw_toggle.setText("▸ The model's answer")
        self.raw_toggle.setCheckable(True)
        self.raw_toggle.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.raw_toggle.setVisible(raw is not None)
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
    def of(cls, entry: DreamLogEntry) -> LogView:
        return cls(entry.pass_name, entry.outcome, entry.message, entry.raw_output)

    def show_raw(self, shown: bool) -> None:
        self.raw_toggle.setChecked(shown)
        self.raw_toggle.setText(("▾" if shown else "▸") + " The model's answer")
        self.raw.setVisible(shown)


# -- drawing the runs list (its delegate lives with the window) ---------------
STATUS_COLOURS: dict[str, tuple[str, str]] = {
    "queued": ("#4a3fb0", "#efecfd"),
    "running": ("#4a3fb0", "#e6e2fb"),
    "paused": ("#5c5872", "#efeef4"),
    "completed": ("#1d5e3a", "#e3f3e8"),
    "failed": ("#8c1d18", "#fdeceb"),
    "cancelled": ("#5c5872", "#efeef4"),
}


_RUN_STATE = {
    "queued": "Waiting to start.",
    "running": "Dreaming now: this report fills in as each pass finishes.",
    "paused": "Paused: it goes on where it stopped at the next dream.",
    "cancelled": "Cancelled: what its finished passes changed is kept.",
}
WAITING_INTRO = (
    "Dreaming leaves a change for you to approve when it touches a memory you hold dear: "
    "one that is pinned, that you told Reverie yourself, or that was seen many times."
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
        self._show_log(run, log)
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

    def _show_log(self, run: DreamRun | None, log: Sequence[DreamLogEntry]) -> None:
        expanded = {v.header.text() for v in self.log_views if not v.raw.isHidden()}
        discard(self.log_views)
        views = [LogView.of(entry) for entry in log]
        logged = {entry.pass_name for entry in log}
        # What the run said besides its passes' log (writing MEMORIES.md).
        outcomes = {} if run is None else dict((run.stats or {}).get("outcomes", {}))
        views += [LogView(k, None, str(v), None) for k, v in outcomes.items() if k not in logged]
        if run is not None and not views:
            said = "No pass has finished yet." if run.status == "running" else "No pass ran."
            views = [LogView("", None, said, None)]
        self.log_views = views
        for view in views:
            if view.header.text() in expanded:
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
