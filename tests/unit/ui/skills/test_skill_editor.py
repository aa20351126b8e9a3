"""The skill editor driven like a user would, on a real database and a real
skills folder, with files changed behind its back as an editor would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from desktop.core.db.skills import Skill
from desktop.core.skills.library import SkillLibrary
from desktop.ui.skills.editor import EMPTY_SKILLS, SkillEditorWindow
from desktop.ui.skills.views import NO_SUMMARY

TEA = "# Brew the user's tea\n\n1. Boil water.\n2. Steep green tea for 2 minutes.\n"
BREAD = "Bake the sourdough\n\nFeed the starter the night before.\n"


@pytest.fixture
def folder(skill_library: SkillLibrary) -> Path:
    return skill_library.directory


@pytest.fixture
def editor(qtbot: QtBot, skill_library: SkillLibrary) -> Iterator[SkillEditorWindow]:
    window = SkillEditorWindow(skill_library)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()


def click(qtbot: QtBot, button: QAbstractButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def answer(qtbot: QtBot, dialog: QMessageBox | None, choice: str) -> None:
    assert dialog is not None and dialog.isVisible()
    buttons = {button.text(): button for button in dialog.findChildren(QPushButton)}
    click(qtbot, buttons[choice])


def shown(editor: SkillEditorWindow) -> Skill:
    assert editor.pane.skill is not None
    return editor.pane.skill


def type_text(editor: SkillEditorWindow, text: str) -> None:
    editor.pane.editor.setPlainText(text)


# -- the list -------------------------------------------------------------------
def test_no_skills_says_how_to_start(editor: SkillEditorWindow) -> None:
    assert editor.windowTitle() == "Skills — Reverie"
    assert editor.list_stack.currentWidget() is editor.empty_label
    assert editor.empty_label.text() == EMPTY_SKILLS
    assert [editor.tabs.tabText(i) for i in range(3)] == ["Skills", "Drafts", "Deleted"]


def test_skills_are_listed_by_name_with_their_use(
    editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA)
    skill_library.create("Bake bread", BREAD)
    skill_library.use("Brew tea", None)
    skill_library.use("Brew tea", None)
    editor.refresh()

    assert editor.skill_names() == ["Bake bread", "Brew tea"]
    assert editor.count_label.text() == "2 skills"
    assert shown(editor).name == "Bake bread"  # the first is open
    assert editor.pane.facts.text().startswith("Never used yet · added ")
    editor.select("Brew tea")
    assert editor.pane.editor.toPlainText() == TEA
    assert editor.pane.facts.text().startswith("Used 2 times, last ")
    assert editor.pane.facts.text().endswith(f"File: {folder / 'Brew tea.md'}")
    assert not editor.items.grab().isNull()  # the delegate paints used and unused skills


def test_search_looks_at_names_summaries_and_text(
    editor: SkillEditorWindow, skill_library: SkillLibrary
) -> None:
    skill_library.create("Brew tea", TEA)
    skill_library.create("Bake bread", BREAD)
    editor.refresh()

    editor.search.setText("steep")  # only in the text of "Brew tea"
    assert editor.skill_names() == ["Brew tea"]
    editor.search.setText("sourdough")
    assert editor.skill_names() == ["Bake bread"]
    editor.search.setText("coffee")
    assert editor.empty_label.text() == "No skills here match “coffee”."


# -- editing --------------------------------------------------------------------
def test_the_preview_shows_the_summary_and_the_prompts_line_as_you_type(
    editor: SkillEditorWindow, skill_library: SkillLibrary
) -> None:
    skill_library.create("Brew tea", TEA)
    editor.refresh()
    pane = editor.pane
    assert pane.summary.text() == "Summary: Brew the user's tea"
    assert pane.toc_intro.text() == "In the prompt's list of skills:"
    assert pane.toc_line.text() == "- Brew tea: Brew the user's tea"

    type_text(editor, "## Brew black tea with milk\n\nBoil water.")
    pane.name_edit.setText("Tea")
    assert pane.toc_line.text() == "- Tea: Brew black tea with milk"
    assert not pane.warning.isVisible()

    type_text(editor, "\n\n   \n")
    assert pane.summary.text() == "Summary: (none)"
    assert pane.toc_line.text() == "- Tea"
    assert pane.warning.isVisible() and pane.warning.text() == NO_SUMMARY

    pane.name_edit.setText("a/b")
    assert pane.warning.text().startswith("⚠ A skill name cannot contain path separators")


def test_saving_writes_the_file_and_the_summary_follows(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill = skill_library.create("Brew tea", TEA)
    editor.refresh()
    assert not editor.pane.save_button.isEnabled()

    type_text(editor, "Brew black tea\n\nWith milk.")
    with qtbot.waitSignal(editor.skills_changed):
        click(qtbot, editor.pane.save_button)

    assert (folder / "Brew tea.md").read_text(encoding="utf-8") == "Brew black tea\n\nWith milk.\n"
    assert skill_library.read(skill.id).skill.summary == "Brew black tea"
    assert editor.notice.text() == "Saved “Brew tea”."
    assert not editor.pane.dirty() and not editor.pane.save_button.isEnabled()
    assert editor.pane.editor.toPlainText() == "Brew black tea\n\nWith milk."  # cursor kept


def test_a_secret_saved_in_a_skill_is_a_marker_in_the_file_and_the_editor(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Router", "Restart the router\n")
    editor.refresh()

    type_text(editor, "Restart the router\n\nLog in with password Sk1!ll99.")
    with qtbot.waitSignal(editor.skills_changed):
        click(qtbot, editor.pane.save_button)

    stored = "Restart the router\n\nLog in with password [redacted password]."
    assert (folder / "Router.md").read_text(encoding="utf-8") == stored + "\n"
    assert editor.pane.editor.toPlainText() == stored + "\n"  # the file, as shown when opened
    assert not editor.pane.dirty() and not editor.pane.save_button.isEnabled()
    assert editor.notice.text() == (
        "Saved “Router”. Reverie replaced a password with [redacted password]: secrets are "
        "never stored. Keep them in a password manager."
    )


def test_an_empty_summary_is_refused_and_the_text_is_kept(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA)
    editor.refresh()
    type_text(editor, "\n\n")

    qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)

    assert editor.pane.edit_problem.isVisible()
    assert editor.pane.edit_problem.text().startswith("Not saved: A skill needs some text")
    assert (folder / "Brew tea.md").read_text(encoding="utf-8") == TEA
    assert editor.pane.editor.toPlainText() == "\n\n"
    editor.refresh()  # a refresh keeps the refusal with the typing it was about
    assert editor.pane.edit_problem.isVisible()


def test_a_new_skill_is_created_and_refusals_keep_the_typing(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA)
    editor.refresh()
    editor.activateWindow()

    qtbot.keyClick(editor, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    pane = editor.pane
    assert pane.new and pane.title.text() == "New skill"
    assert QApplication.focusWidget() is pane.name_edit
    pane.name_edit.setText("brew TEA")
    type_text(editor, BREAD)
    click(qtbot, pane.save_button)
    assert pane.edit_problem.text() == (
        "Not saved: There is already a skill called 'Brew tea'; choose another name."
    )
    pane.name_edit.setText("CON")
    click(qtbot, pane.save_button)
    assert "reserve for devices" in pane.edit_problem.text()
    assert sorted(p.name for p in folder.iterdir()) == ["Brew tea.md"]

    pane.name_edit.setText("Bake bread.md")
    with qtbot.waitSignal(editor.skills_changed):
        click(qtbot, pane.save_button)

    assert (folder / "Bake bread.md").read_text(encoding="utf-8") == BREAD
    assert editor.skill_names() == ["Bake bread", "Brew tea"]
    assert shown(editor).name == "Bake bread" and not pane.new and not pane.dirty()
    assert pane.name_edit.text() == "Bake bread"
    assert editor.notice.text() == "Created the skill “Bake bread”: Reverie can use it now."


def test_rename_moves_the_file_and_a_taken_name_is_refused(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA)
    skill_library.create("Bake bread", BREAD)
    editor.refresh()
    editor.select("Brew tea")
    pane = editor.pane
    assert not pane.rename_button.isEnabled()

    pane.name_edit.setText("bake BREAD")
    click(qtbot, pane.rename_button)
    assert pane.edit_problem.text() == (
        "Not renamed: There is already a skill called 'Bake bread'; choose another name."
    )
    assert pane.name_edit.text() == "bake BREAD" and (folder / "Brew tea.md").exists()

    pane.name_edit.setText("Make tea")
    qtbot.keyClick(pane.name_edit, Qt.Key.Key_Return)  # Enter renames
    assert not (folder / "Brew tea.md").exists()
    assert (folder / "Make tea.md").read_text(encoding="utf-8") == TEA
    assert editor.skill_names() == ["Bake bread", "Make tea"]
    assert editor.notice.text() == "Renamed “Brew tea” to “Make tea”."
    assert pane.toc_line.text() == "- Make tea: Brew the user's tea"


def test_delete_asks_and_deleted_skills_are_restored(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA)
    skill_library.create("Bake bread", BREAD)
    editor.refresh()
    editor.select("Brew tea")

    click(qtbot, editor.pane.delete_button)
    dialog = editor.confirm_dialog
    assert dialog is not None and dialog.defaultButton().text() == "Keep it"
    answer(qtbot, dialog, "Keep it")
    assert (folder / "Brew tea.md").exists()

    editor.activateWindow()
    editor.items.setFocus()
    qtbot.keyClick(editor.items, Qt.Key.Key_Delete)  # Del asks too
    answer(qtbot, editor.confirm_dialog, "Delete")
    assert (folder / ".deleted" / "Brew tea.md").read_text(encoding="utf-8") == TEA
    assert editor.skill_names() == ["Bake bread"]
    assert editor.notice.text() == "Deleted “Brew tea”. You can restore it from Deleted."
    assert editor.tabs.tabText(2) == "Deleted (1)"

    editor.show_tab("deleted")
    assert editor.skill_names() == ["Brew tea"]
    pane = editor.pane
    assert pane.editor.isReadOnly() and not pane.save_button.isVisible()
    assert pane.toc_intro.text() == "Not in the prompt while deleted; restored, it reads:"
    click(qtbot, pane.restore_button)
    assert (folder / "Brew tea.md").exists()
    assert editor.empty_label.text() == "No deleted skills."
    editor.show_tab("active")
    assert editor.skill_names() == ["Bake bread", "Brew tea"]


# -- drafts ---------------------------------------------------------------------
def test_drafts_from_dreaming_are_accepted_after_editing_or_rejected(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA, draft=True)
    skill_library.create("Bake bread", BREAD, draft=True)
    editor.refresh()
    assert editor.tabs.tabText(1) == "Drafts (2)" and editor.skill_names() == []

    editor.show_drafts()
    assert editor.skill_names() == ["Bake bread", "Brew tea"]
    pane = editor.pane
    assert pane.accept_button.isVisible() and pane.reject_button.isVisible()
    assert pane.toc_intro.text() == "Once accepted, the prompt lists it as:"
    type_text(editor, "Bake the rye sourdough\n\nFeed the starter.")
    click(qtbot, pane.accept_button)  # saves the edits, then accepts

    assert (folder / "Bake bread.md").read_text(encoding="utf-8") == (
        "Bake the rye sourdough\n\nFeed the starter.\n"
    )
    assert editor.skill_names() == ["Brew tea"] and shown(editor).name == "Brew tea"
    assert editor.notice.text().startswith("Accepted “Bake bread”")

    click(qtbot, pane.reject_button)
    assert (folder / ".deleted" / "Brew tea.md").exists()
    assert [s.name for s in skill_library.list()] == ["Bake bread"]
    assert editor.empty_label.text().startswith("No drafts.")


# -- files changed outside --------------------------------------------------------
def test_a_file_edited_outside_shows_its_new_text_on_refresh(
    editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA)
    editor.refresh()
    (folder / "Brew tea.md").write_text("Brew oolong\n", encoding="utf-8")
    (folder / "Bake bread.md").write_text(BREAD, encoding="utf-8")

    editor.refresh()

    assert editor.skill_names() == ["Bake bread", "Brew tea"]
    assert shown(editor).name == "Brew tea"
    assert editor.pane.editor.toPlainText() == "Brew oolong\n"
    assert editor.pane.toc_line.text() == "- Brew tea: Brew oolong"


def test_an_outside_edit_while_typing_is_never_overwritten_unasked(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA)
    editor.refresh()
    type_text(editor, "Brew black tea\n")
    (folder / "Brew tea.md").write_text("Brew oolong\n", encoding="utf-8")

    click(qtbot, editor.pane.save_button)
    assert editor.pane.edit_problem.text().startswith(
        "Not saved: the file changed outside Reverie while you edited it."
    )
    assert (folder / "Brew tea.md").read_text(encoding="utf-8") == "Brew oolong\n"
    assert editor.pane.editor.toPlainText() == "Brew black tea\n"

    click(qtbot, editor.pane.save_button)  # knowingly, now
    assert (folder / "Brew tea.md").read_text(encoding="utf-8") == "Brew black tea\n"

    type_text(editor, "Brew white tea\n")
    (folder / "Brew tea.md").write_text("Brew matcha\n", encoding="utf-8")
    editor.refresh()  # coming back to the window
    assert editor.pane.editor.toPlainText() == "Brew white tea\n"
    assert editor.pane.edit_problem.text().startswith("The file changed outside Reverie")
    click(qtbot, editor.pane.revert_button)
    assert editor.pane.editor.toPlainText() == "Brew matcha\n" and not editor.pane.dirty()


def test_a_file_that_is_not_utf8_is_listed_as_a_problem_and_the_rest_works(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    tea = skill_library.create("Brew tea", TEA)
    skill_library.create("Bake bread", BREAD)
    broken = b"Caf\xe9 au lait\n"
    (folder / "Brew tea.md").write_bytes(broken)  # saved as Latin-1 by another editor
    (folder / "Notes.md").write_bytes(b"\xff\xfe")

    editor.refresh()

    text = editor.skipped.text()
    assert editor.skipped.isVisible()
    assert text.startswith(f"2 files in {folder} could not be read as skills (the rest work):")
    assert f"• Brew tea.md: The skill file {folder / 'Brew tea.md'} is not UTF-8 text" in text
    assert "• Notes.md: " in text and "save it with the UTF-8 encoding" in text
    assert editor.skill_names() == ["Bake bread", "Brew tea"]  # no Notes: it never was a skill

    editor.select("Brew tea")
    pane = editor.pane
    assert pane.state.text().startswith("This skill's file could not be read")
    assert pane.editor.isReadOnly() and not pane.save_button.isVisible()
    assert not pane.preview.isVisible()
    assert (folder / "Brew tea.md").read_bytes() == broken
    assert skill_library.store.get(tea.id) == tea  # nothing changed because of it

    editor.select("Bake bread")  # the rest works
    type_text(editor, "Bake rye bread\n")
    assert editor.save()
    assert (folder / "Bake bread.md").read_text(encoding="utf-8") == "Bake rye bread\n"

    (folder / "Brew tea.md").write_text(TEA, encoding="utf-8")  # fixed by hand
    (folder / "Notes.md").unlink()
    editor.refresh()
    assert not editor.skipped.isVisible()


# -- unsaved edits ----------------------------------------------------------------
def test_switching_away_from_unsaved_edits_asks_first(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    skill_library.create("Brew tea", TEA)
    skill_library.create("Bake bread", BREAD)
    editor.refresh()  # Bake bread is open
    type_text(editor, "Bake rye bread\n")

    editor.select("Brew tea")
    dialog = editor.unsaved_dialog
    assert dialog is not None and dialog.text() == (
        "You changed the skill “Bake bread” and did not save it. Save before leaving it?"
    )
    answer(qtbot, dialog, "Keep editing")
    assert shown(editor).name == "Bake bread" and editor.items.currentItem().text() == "Bake bread"
    assert editor.pane.editor.toPlainText() == "Bake rye bread\n"

    editor.select("Brew tea")
    answer(qtbot, editor.unsaved_dialog, "Save")
    assert (folder / "Bake bread.md").read_text(encoding="utf-8") == "Bake rye bread\n"
    assert shown(editor).name == "Brew tea"

    type_text(editor, "Brew oolong\n")
    editor.new_skill()
    answer(qtbot, editor.unsaved_dialog, "Discard changes")
    assert (folder / "Brew tea.md").read_text(encoding="utf-8") == TEA
    assert editor.pane.new


def test_closing_with_unsaved_edits_asks_and_a_new_skill_counts(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary, folder: Path
) -> None:
    editor.new_skill()
    editor.pane.name_edit.setText("Brew tea")

    editor.close()
    assert editor.isVisible()
    dialog = editor.unsaved_dialog
    assert dialog is not None and "the new skill" in dialog.text()
    assert dialog.defaultButton().text() == "Save"
    answer(qtbot, dialog, "Save")  # refused: the text is missing, so it stays open
    assert editor.isVisible()
    assert editor.pane.edit_problem.text().startswith("Not saved: A skill needs some text")

    editor.close()
    answer(qtbot, editor.unsaved_dialog, "Discard changes")
    assert not editor.isVisible()
    assert not folder.exists() or not list(folder.iterdir())


# -- the window -------------------------------------------------------------------
def test_show_skill_finds_it_on_its_tab(
    editor: SkillEditorWindow, skill_library: SkillLibrary
) -> None:
    skill_library.create("Brew tea", TEA, draft=True)
    bread = skill_library.create("Bake bread", BREAD)
    skill_library.delete(bread.id)
    editor.close()
    editor.search.setText("tea")

    editor.show_skill(bread.id)

    assert editor.isVisible() and editor.status == "deleted"
    assert editor.search.text() == "" and shown(editor).id == bread.id
    editor.show_skill(999)
    assert editor.problem.text() == "There is no skill #999."


def test_ctrl_f_searches_esc_closes_and_every_control_has_an_accessible_name(
    qtbot: QtBot, editor: SkillEditorWindow, skill_library: SkillLibrary
) -> None:
    skill_library.create("Brew tea", TEA, draft=True)
    editor.show_drafts()
    buttons = editor.findChildren(QPushButton)
    assert len(buttons) >= 8
    assert all(button.accessibleName() for button in buttons)
    assert editor.pane.editor.tabChangesFocus()  # Tab moves on, out of the editor
    editor.activateWindow()
    editor.items.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is editor.search
    qtbot.keyClick(editor, Qt.Key.Key_F2)
    assert QApplication.focusWidget() is editor.pane.name_edit
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert not editor.isVisible()


def test_many_unreadable_files_are_named_and_the_reasons_are_one_hover_away(
    editor: SkillEditorWindow, folder: Path
) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("A", "B", "C", "D", "E"):
        (folder / f"{name}.md").write_bytes(b"\xff")
    editor.refresh()

    lines = editor.skipped.text().splitlines()
    assert lines[0] == f"5 files in {folder} could not be read as skills (the rest work):"
    assert len(lines) == 5 and lines[-1] == "• and D.md, E.md (hover here for why)"
    assert editor.skipped.toolTip().count("is not UTF-8 text") == 5
