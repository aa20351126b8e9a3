"""The pieces of the skill editor: how a skill is drawn in the list, the words
for its use and for files that could not be read, and the pane that edits
one skill with a live preview of its summary and of its line in the prompt.

They show what they are given and change nothing; ``desktop.ui.skills.editor``
does the saving, renaming and moving.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics, QPainter
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.db.skills import Skill
from desktop.core.skills.library import (
    DELETED,
    SUMMARY_CHARS,
    SkillLine,
    SkillRefused,
    SkippedFile,
    skill_name,
    summary_of,
)
from desktop.ui.widgets.bidi import stored_order
from desktop.ui.widgets.cards import CardDelegate, draw_chip, draw_line, small_font
from desktop.ui.widgets.direction_guard import TextWarningBar, guarded
from desktop.ui.widgets.labels import count, named, when
from desktop.ui.widgets.line_breaks import breakable
from desktop.ui.widgets.theme import active_palette

SKILL_ROLE = Qt.ItemDataRole.UserRole
"""The item data role holding a list item's ``Skill``."""
UNREADABLE_ROLE = Qt.ItemDataRole.UserRole + 1
"""True on a list item whose file could not be read at the last sync."""
NO_SUMMARY = (
    "⚠ No summary: the first line says what the skill is for, and the model sees "
    "only that line in its list. Write it before saving."
)
_SKIPPED_SHOWN = 3
"""Files listed with their reason (each reason is long); the rest by name."""
NEW_SKILL_TEXT = "What this skill is for, in one line\n\nHow to do it, step by step.\n"


def uses_words(skill: Skill) -> str:
    """How often the skill was read, and when last: "used 3 times, last 4 Mar 2026, 10:12"."""
    if not skill.use_count:
        return "never used yet"
    said = "used once" if skill.use_count == 1 else f"used {skill.use_count} times"
    return said if skill.last_used_at is None else f"{said}, last {when(skill.last_used_at)}"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def skipped_text(
    directory: Path, skipped: Sequence[SkippedFile], shown: int = _SKIPPED_SHOWN
) -> str:
    """The files a sync could not take in, for the problems banner: the
    first *shown* with why, the rest by name."""
    files = count(len(skipped), "file", "files")
    lines = [f"{files} in {directory} could not be read as skills (the rest work):"]
    lines += [f"• {file.file_name}: {file.reason}" for file in skipped[:shown]]
    if rest := [file.file_name for file in skipped[shown:]]:
        lines.append(f"• and {', '.join(rest)} (hover here for why)")
    return "\n".join(lines)


def missing_text(directory: Path) -> str:
    """The problems banner when the skills folder itself is not there."""
    return (
        f"The skills folder {directory} is missing (moved or renamed?): its skills are "
        "kept as they were until it is back. To let them all go, make an empty folder there."
    )


def _normal(text: str) -> str:
    """*text* as saving would compare it (line ends and the trailing newline aside)."""
    return text.replace("\r\n", "\n").strip("\n")


def delete_question(
    parent: QWidget, skill: Skill, directory: Path, dirty: bool
) -> tuple[QMessageBox, QPushButton]:
    """The question before deleting *skill* (of the skills folder *directory*),
    not yet open, and its Delete button; Enter and Esc keep the skill."""
    text = (
        f"Delete the skill “{skill.name}”? Reverie stops using it and its file moves to "
        f"{directory / DELETED}; you can restore it from Deleted."
    )
    if dirty:
        text += " Your unsaved changes to it are discarded."
    box = QMessageBox(QMessageBox.Icon.Question, "Delete this skill?", text, parent=parent)
    box.setObjectName("skill-delete-confirm")
    box.setTextFormat(Qt.TextFormat.PlainText)  # the name as written ("&lt;3" is no "<3")
    delete = box.addButton("Delete", QMessageBox.ButtonRole.AcceptRole)
    keep = box.addButton("Keep it", QMessageBox.ButtonRole.RejectRole)
    delete.setAccessibleName(f"Delete the skill {skill.name}")
    keep.setAccessibleName("Keep the skill")
    box.setDefaultButton(keep)  # Enter must not delete by accident
    box.setEscapeButton(keep)
    box.setWindowModality(Qt.WindowModality.WindowModal)
    return box, delete


class SkillDelegate(CardDelegate):
    """Draws a skill as its name over its summary, with how often it was
    used (or that its file could not be read) on the right."""

    role = SKILL_ROLE
    kind = Skill
    width_hint = 220

    def draw_card(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
        item: Skill,
        box: QRectF,
    ) -> None:
        skill = item
        font, small = QFont(option.font), small_font(option.font)
        font.setBold(True)
        title_height = QFontMetrics(font).height()
        title_box = QRectF(box.left(), box.top(), box.width(), title_height)
        summary_box = QRectF(
            box.left(), title_box.bottom() + 2, box.width(), QFontMetrics(small).height()
        )
        colours = active_palette()
        if index.data(UNREADABLE_ROLE):
            chip = ("⚠ unreadable", colours.warning_text, colours.warning_strong_bg)
        elif skill.use_count:
            chip = (
                count(skill.use_count, "use", "uses"),
                colours.accent_strong,
                colours.accent_soft,
            )
        else:
            chip = ("unused", colours.text_muted, colours.subtle)
        width = draw_chip(painter, small, title_box, *chip)
        title_box.setRight(title_box.right() - width - 6)
        live = skill.status == "active"
        title = colours.colour("text" if live else "text_muted")
        draw_line(painter, font, title, title_box, skill.name)
        summary = skill.summary or "(no summary)"
        draw_line(painter, small, colours.colour("text_muted"), summary_box, summary)


class SkillPane(QWidget):
    """The right pane: one skill (its name, its Markdown, a live preview of
    its summary and of its line in the prompt, its use), a new skill being
    written, or a line saying what to do.  Its buttons are connected by the
    window."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("skill-pane")
        self.skill: Skill | None = None
        self.new = False
        """A new skill is being written (``skill`` is None)."""
        self.readable = True
        self.base_name = ""
        self.base_text = ""
        """The file's text the user started editing from."""
        self.path: Path | None = None
        self.title = named(QLabel(), "skill-title")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.state = named(QLabel(), "skill-state", "About this skill")
        self.accept_button = named(QPushButton("Accept"), "skill-accept", "Accept the draft")
        self.accept_button.setToolTip("Make it a skill Reverie can use (saving your edits first)")
        self.reject_button = named(QPushButton("Reject"), "skill-reject", "Reject the draft")
        self.reject_button.setToolTip("Put it with the deleted skills (restorable)")
        self.restore_button = named(QPushButton("Restore"), "skill-restore", "Restore the skill")
        self.erase_button = named(
            QPushButton("Delete now…"), "skill-erase", "Delete the skill now, for good"
        )
        self.erase_button.setToolTip(
            "Erase it and its file for good now, not restorable (asks first)"
        )
        self.can_erase = False
        """Whether a deleted skill can be erased for good from here (an eraser was given)."""
        self.name_edit = named(QLineEdit(), "skill-name", "Skill name")
        self.name_edit.setPlaceholderText("A short name, e.g. Brew tea")
        self.rename_button = named(QPushButton("Rename"), "skill-rename", "Rename the skill")
        self.rename_button.setToolTip("Rename it and its file (F2 to edit the name)")
        self.editor = named(QPlainTextEdit(), "skill-text", "Skill text, in Markdown")
        self.editor.setTabChangesFocus(True)  # Tab leaves the editor: keyboard users move on
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setPlaceholderText(NEW_SKILL_TEXT)
        self.summary = named(QLabel(), "skill-summary", "Summary preview")
        self.toc_intro = named(QLabel(), "skill-toc-intro")
        self.toc_line = named(QLabel(), "skill-toc-line", "The skill's line in the prompt")
        self.warning = named(QLabel(), "skill-warning", "Warning")
        self.edit_problem = named(QLabel(), "skill-edit-problem", "Why it was not saved")
        self.facts = named(QLabel(), "skill-facts", "Use and file")
        for label in (self.state, self.summary, self.toc_line, self.warning):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
        for label in (self.edit_problem, self.facts):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.toc_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.delete_button = named(QPushButton("Delete…"), "skill-delete", "Delete the skill")
        self.delete_button.setToolTip("Move it to the deleted skills, restorable (asks first)")
        self.revert_button = named(QPushButton("Revert"), "skill-revert", "Undo my changes")
        self.save_button = named(QPushButton("Save"), "skill-save", "Save the skill")
        self.save_button.setToolTip("Save (Ctrl+S)")
        self.name_edit.textChanged.connect(self.update_preview)
        self.editor.textChanged.connect(self.update_preview)
        self._lay_out()
        self.show_message("")

    def _lay_out(self) -> None:
        state = QHBoxLayout()
        state.addWidget(self.state, 1)
        for button in (
            self.restore_button,
            self.erase_button,
            self.reject_button,
            self.accept_button,
        ):
            state.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        name_label = QLabel("&Name")
        name_label.setBuddy(self.name_edit)
        name = QHBoxLayout()
        name.addWidget(name_label)
        name.addWidget(self.name_edit, 1)
        name.addWidget(self.rename_button)
        preview = QVBoxLayout()
        preview.setSpacing(2)
        for label in (self.summary, self.toc_intro, self.toc_line, self.warning):
            preview.addWidget(label)
        self.preview = named(QWidget(), "skill-preview")
        self.preview.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        self.preview.setLayout(preview)
        buttons = QHBoxLayout()
        buttons.addWidget(self.delete_button)
        buttons.addStretch(1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.save_button)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addLayout(state)
        body.addLayout(name)
        body.addWidget(TextWarningBar(self.name_edit))
        body.addWidget(guarded(self.editor), 1)
        body.addWidget(self.preview)
        body.addWidget(self.edit_problem)
        body.addLayout(buttons)
        body.addWidget(self.facts)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 14)
        layout.addWidget(self.title)
        layout.addWidget(self.body, 1)

    # -- what is typed -------------------------------------------------------
    def typed_name(self) -> str:
        return self.name_edit.text()

    def typed_text(self) -> str:
        return self.editor.toPlainText()

    def name_dirty(self) -> bool:
        return self.skill is not None and self.typed_name().strip() != self.base_name

    def text_dirty(self) -> bool:
        if self.new:
            return bool(self.typed_text().strip())
        return self.skill is not None and _normal(self.typed_text()) != _normal(self.base_text)

    def dirty(self) -> bool:
        """Has the user typed something not saved yet?"""
        if self.new:
            return bool(self.typed_name().strip() or self.typed_text().strip())
        return self.name_dirty() or self.text_dirty()

    def what(self) -> str:
        """The skill shown, as a question about it names it."""
        if self.skill is None:
            return "the new skill"
        return f"the skill “{self.skill.name}”"

    # -- showing ---------------------------------------------------------------
    def show_skill(self, skill: Skill, text: str | None, path: Path, problem: str = "") -> None:
        """Show *skill* with its file's *text* (None: unreadable, *problem* says
        why); what the user typed into this same skill stays."""
        same = self.skill is not None and self.skill.id == skill.id and not self.new
        keep_text = same and self.text_dirty()
        keep_name = same and self.name_dirty()
        self.skill, self.new, self.path = skill, False, path
        self.readable = text is not None
        self.title.setText(stored_order(skill.name))
        self.base_name = skill.name
        if not keep_name:
            self.name_edit.setText(skill.name)
        if text is None:
            if not keep_text:  # typing stays, to copy out; it cannot be saved over the file
                self.base_text = ""
                self.editor.setPlainText("")
        elif not keep_text:
            self.base_text = text
            if _normal(self.typed_text()) != _normal(text) or not same:
                self.editor.setPlainText(text)  # (just saved: the cursor stays where it was)
        self._show_state(skill, problem)
        self.facts.setText(
            f"{_capitalised(uses_words(skill))} · added {when(skill.created_at)}\nFile: {path}"
        )
        self.facts.show()
        if not same:
            self.edit_problem.hide()  # a refusal stays with the typing it was about
        self.body.show()
        self.update_preview()

    def _show_state(self, skill: Skill, problem: str) -> None:
        status = skill.status
        if not self.readable:
            said = f"This skill's file could not be read, so it cannot be edited here: {problem}"
        elif status == "draft":
            said = (
                "A draft proposed by dreaming. Accept it to let Reverie use it (edit it "
                "first if you like), or reject it: it goes to Deleted, restorable."
            )
        elif status == "deleted":
            said = "Deleted: Reverie does not use it. Restore it to use or edit it again."
        else:
            said = ""
        self.state.setText(said)
        self.state.setProperty("kind", "problem" if not self.readable else status)
        self.state.style().polish(self.state)
        self.state.setVisible(bool(said))
        self.accept_button.setVisible(status == "draft")
        self.reject_button.setVisible(status == "draft")
        self.restore_button.setVisible(status == "deleted")
        self.erase_button.setVisible(status == "deleted" and self.can_erase)
        editable = status != "deleted" and self.readable
        self.editor.setReadOnly(not editable)
        self.editor.setPlaceholderText(NEW_SKILL_TEXT if editable else "")
        self.editor.style().polish(self.editor)  # the style sheet greys a read-only editor
        self.name_edit.setReadOnly(status == "deleted")
        self.name_edit.style().polish(self.name_edit)
        self.rename_button.setVisible(status != "deleted")
        self.delete_button.setVisible(status != "deleted")
        self.delete_button.setText("Delete…")
        self.save_button.setVisible(editable)
        self.revert_button.setVisible(editable)

    def start_new(self) -> None:
        """An empty skill to write; saving creates it."""
        self.skill, self.new, self.readable, self.path = None, True, True, None
        self.base_name = self.base_text = ""
        self.title.setText("New skill")
        self.name_edit.setReadOnly(False)
        self.name_edit.style().polish(self.name_edit)
        self.name_edit.setText("")
        self.editor.setReadOnly(False)
        self.editor.setPlaceholderText(NEW_SKILL_TEXT)
        self.editor.style().polish(self.editor)
        self.editor.setPlainText("")
        self.state.hide()
        for button in (
            self.accept_button,
            self.reject_button,
            self.restore_button,
            self.erase_button,
        ):
            button.hide()
        self.rename_button.hide()
        self.delete_button.setText("Discard")
        self.delete_button.show()
        self.save_button.show()
        self.revert_button.hide()  # Discard is its revert
        self.facts.hide()
        self.edit_problem.hide()
        self.body.show()
        self.update_preview()

    def show_message(self, text: str) -> None:
        """No skill: say *text* (how to start)."""
        self.skill, self.new, self.path = None, False, None
        self.title.setText(text)
        self.body.hide()

    def show_problem(self, text: str) -> None:
        self.edit_problem.setText(text)
        self.edit_problem.setVisible(bool(text))

    def update_preview(self) -> None:
        """The summary and the prompt's line as they would read if saved now,
        with a warning when something would be refused."""
        text, raw_name = self.typed_text(), self.typed_name()
        summary = summary_of(text)
        warnings = []
        try:
            name = skill_name(raw_name)
        except SkillRefused as refusal:
            name = raw_name.strip() or "…"
            if raw_name.strip() or not self.new:
                warnings.append(f"⚠ {refusal}")
        if not summary:
            warnings.append(NO_SUMMARY)
        elif len(summary) >= SUMMARY_CHARS:
            warnings.append(
                f"The first line is long: the prompt shows its first {SUMMARY_CHARS} characters."
            )
        self.summary.setText(breakable(f"Summary: {summary}" if summary else "Summary: (none)"))
        status = "active" if self.skill is None else self.skill.status
        self.toc_intro.setText(
            {
                "active": "In the prompt's list of skills:",
                "draft": "Once accepted, the prompt lists it as:",
                "deleted": "Not in the prompt while deleted; restored, it reads:",
            }[status]
        )
        self.toc_line.setText(breakable(SkillLine(name, summary).render()))
        self.warning.setText("\n".join(warnings))
        self.warning.setVisible(bool(warnings) and self.readable)
        self.preview.setVisible(self.readable)
        dirty = self.dirty()
        self.save_button.setEnabled(dirty and self.readable)
        self.revert_button.setEnabled(dirty)
        self.rename_button.setEnabled(self.name_dirty())
