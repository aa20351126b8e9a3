"""The settings window driven like a user would, saving to a real settings
file in a temporary folder and reading it back as Reverie would at start."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)
from pytestqt.qtbot import QtBot

from desktop.core.base.settings import (
    Backend,
    ChatSettings,
    ModelSettings,
    Settings,
    load_settings,
    save_settings,
)
from desktop.ui.settings.window import Live, SettingsWindow, changed_settings, setting_words

W = TypeVar("W", bound=QWidget)
PAGES = ["Chat", "Memory", "Dreaming", "Tasks", "Model options", "Desktop"]
Make = Callable[..., SettingsWindow]


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    return tmp_path / "config" / "settings.json"


@pytest.fixture
def make(qtbot: QtBot, settings_file: Path) -> Iterator[Make]:
    """Opens settings windows (on *settings_file* unless told otherwise)."""
    made: list[SettingsWindow] = []

    def open_window(
        settings: Settings | None = None,
        *,
        path: Path | None = None,
        extra_pages: Sequence[tuple[str, QWidget]] = (),
        live: Live = lambda _name: False,
    ) -> SettingsWindow:
        window = SettingsWindow(
            settings or Settings(), path or settings_file, extra_pages=extra_pages, live=live
        )
        qtbot.addWidget(window)
        window.show()
        made.append(window)
        return window

    yield open_window
    for window in made:
        window.shutdown()
        window.revert()  # so that closing at the end asks nothing


@pytest.fixture
def window(make: Make) -> SettingsWindow:
    return make()


def field(window: SettingsWindow, page: str, name: str, kind: type[W]) -> W:
    widget = window.form(page).rows[name].editor.widget
    assert isinstance(widget, kind), type(widget)
    return widget


def problem_under(window: SettingsWindow, page: str, name: str) -> QLabel:
    return window.form(page).rows[name].problem


def click(qtbot: QtBot, button: QAbstractButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def answer(qtbot: QtBot, dialog: QMessageBox | None, choice: str) -> None:
    assert dialog is not None and dialog.isVisible()
    buttons = {button.text(): button for button in dialog.findChildren(QPushButton)}
    click(qtbot, buttons[choice])


def press(
    qtbot: QtBot,
    window: SettingsWindow,
    key: Qt.Key,
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """Press *key* in the window, as its shortcuts hear it (it must be active)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.page_list.setFocus()
    qtbot.keyClick(window, key, modifier)


def on_disk(path: Path) -> Settings:
    settings, problem = load_settings(path)
    assert problem is None
    return settings


# -- pages ----------------------------------------------------------------------
def test_a_page_per_group_in_plain_words(window: SettingsWindow) -> None:
    assert window.windowTitle() == "Settings — Reverie"
    assert window.page_titles() == PAGES
    assert window.current_page() == "Chat"
    assert window.form("Chat").rows["memories_top_k"].label.text() == "Memories top k"
    options = window.form("Model options")
    assert list(options.rows) == [
        "context_length", "max_reply_tokens", "temperature", "threads", "hub_endpoint",
    ]  # fmt: skip
    assert options.rows["max_reply_tokens"].label.text() == "Max reply tokens"
    window.show_page("Dreaming")
    assert window.current_page() == "Dreaming"
    assert field(window, "Dreaming", "enabled", QCheckBox).isVisible()
    assert not field(window, "Chat", "tools_enabled", QCheckBox).isVisible()
    with pytest.raises(ValueError, match="no settings page 'Models'"):
        window.show_page("Models")


def test_the_callers_page_comes_first(make: Make) -> None:
    models = QLabel("the models")
    window = make(extra_pages=[("Models", models)])
    assert window.page_titles() == ["Models", *PAGES]
    assert window.current_page() == "Models" and models.isVisible()
    assert not window.defaults_button.isEnabled()  # nothing of the window's own here
    window.show_page("Tasks")
    assert not models.isVisible() and window.defaults_button.isEnabled()


# -- saving ---------------------------------------------------------------------
def test_an_edit_saved_is_in_the_file(
    qtbot: QtBot, window: SettingsWindow, settings_file: Path
) -> None:
    assert not window.save_button.isEnabled() and not settings_file.exists()
    field(window, "Chat", "memories_top_k", QSpinBox).setValue(25)
    assert window.save_button.isEnabled() and window.is_dirty()
    assert window.page_list.item(0).text() == "Chat •"

    with qtbot.waitSignal(window.saved) as saved:
        click(qtbot, window.save_button)

    assert on_disk(settings_file).chat.memories_top_k == 25
    assert saved.args == [window.current()]
    assert window.current().chat.memories_top_k == 25
    assert window.notice.text() == (
        "Saved. Some changes take effect when Reverie restarts: Memories top k (Chat)."
    )
    assert not window.is_dirty() and not window.save_button.isEnabled()
    assert window.page_list.item(0).text() == "Chat"


def test_live_changes_need_no_restart(qtbot: QtBot, make: Make, settings_file: Path) -> None:
    window = make(live=lambda name: name.startswith("dream."))
    window.show_page("Dreaming")
    field(window, "Dreaming", "enabled", QCheckBox).setChecked(False)
    with qtbot.waitSignal(window.saved):
        press(qtbot, window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert window.notice.text() == "Saved."
    assert on_disk(settings_file).dream.enabled is False


def test_only_the_model_options_are_edited_there_and_the_models_are_kept(
    qtbot: QtBot, make: Make, settings_file: Path
) -> None:
    models = ModelSettings(chat=(Backend(kind="local", model="/m/big.gguf"),), added=("/m/a.gguf",))
    window = make(Settings(models=models))
    field(window, "Model options", "threads", QSpinBox).setValue(3)
    field(window, "Model options", "hub_endpoint", QLineEdit).setText("https://hf-mirror.com/")
    with qtbot.waitSignal(window.saved):
        click(qtbot, window.save_button)
    saved = on_disk(settings_file).models
    assert saved == models.model_copy(
        update={"threads": 3, "hub_endpoint": "https://hf-mirror.com"}
    )
    assert "Threads (Model options)" in window.notice.text()


@pytest.mark.parametrize(
    ("page", "name", "edit", "reason"),
    [
        (
            "Model options",
            "threads",
            lambda w: w.setValue(300),
            "Should be less than or equal to 256.",
        ),
        (
            "Tasks",
            "time_zone",
            lambda w: w.setText("Mars/Olympus"),
            "'Mars/Olympus' is not a time zone Reverie knows; use a name from the IANA",
        ),
        (
            "Dreaming",
            "contradiction_band",
            lambda w: w.findChildren(QDoubleSpinBox)[0].setValue(0.9),
            "The band is two similarities, low then high, between 0 and 1.",
        ),
        (
            "Chat",
            "language",
            lambda w: w.setText("e!"),
            "Should match pattern '^[A-Za-z_-]{2,16}$'.",
        ),
    ],
)
def test_a_value_refused_says_why_under_it_and_is_never_saved(
    qtbot: QtBot,
    window: SettingsWindow,
    settings_file: Path,
    page: str,
    name: str,
    edit: Callable[[QWidget], None],
    reason: str,
) -> None:
    save_settings(Settings(), settings_file)
    before = settings_file.read_bytes()
    window.show_page(page)
    field(window, "Chat", "memories_top_k", QSpinBox).setValue(11)  # a valid edit besides

    edit(window.form(page).rows[name].editor.widget)

    problem = problem_under(window, page, name)
    assert problem.isVisible() and problem.text().startswith(reason)
    assert window.form(page).value() is None and window.edited() is None
    assert not window.save_button.isEnabled()
    assert window.page_list.item(window.page_titles().index(page)).text() == f"{page} ⚠"
    assert window.state.text() == f"To save, fix the marked setting on the {page} page."
    window.show_page("Memory")
    with qtbot.assertNotEmitted(window.saved):
        press(qtbot, window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert window.current_page() == page  # taken to the problem
    assert window.problem.isVisible() and "cannot be used" in window.problem.text()
    assert settings_file.read_bytes() == before


def test_typing_past_a_bound_is_refused_as_typed(qtbot: QtBot, window: SettingsWindow) -> None:
    window.show_page("Model options")
    threads = field(window, "Model options", "threads", QSpinBox)
    threads.setFocus()
    threads.selectAll()
    qtbot.keyClicks(threads, "300")
    assert threads.value() == 300
    assert problem_under(window, "Model options", "threads").text() == (
        "Should be less than or equal to 256."
    )
    qtbot.keyClick(threads, Qt.Key.Key_Backspace)
    assert threads.value() == 30
    assert not problem_under(window, "Model options", "threads").isVisible()
    assert window.save_button.isEnabled()


def test_revert_goes_back_to_what_is_saved(qtbot: QtBot, window: SettingsWindow) -> None:
    assert not window.revert_button.isEnabled()
    field(window, "Chat", "memories_top_k", QSpinBox).setValue(12)
    field(window, "Tasks", "time_zone", QLineEdit).setText("Nowhere/Special")
    assert window.revert_button.isEnabled()

    click(qtbot, window.revert_button)

    assert field(window, "Chat", "memories_top_k", QSpinBox).value() == 10
    assert field(window, "Tasks", "time_zone", QLineEdit).text() == ""
    assert not problem_under(window, "Tasks", "time_zone").isVisible()
    assert not window.is_dirty() and not window.save_button.isEnabled()
    assert window.edited() == window.current()


def test_restore_defaults_of_a_page_asks_first(
    qtbot: QtBot, make: Make, settings_file: Path
) -> None:
    mine = Settings(chat=ChatSettings(memories_top_k=42, language="de"))
    mine = mine.model_copy(update={"dream": mine.dream.model_copy(update={"nightly_hour": 3})})
    save_settings(mine, settings_file)
    window = make(mine)

    click(qtbot, window.defaults_button)
    answer(qtbot, window.confirm_dialog, "Cancel")
    assert window.confirm_dialog is None and not window.is_dirty()

    click(qtbot, window.defaults_button)
    dialog = window.confirm_dialog
    assert dialog is not None and "Chat page" in dialog.text()
    assert dialog.defaultButton().text() == "Cancel"
    answer(qtbot, dialog, "Restore defaults")
    assert field(window, "Chat", "memories_top_k", QSpinBox).value() == 10
    assert field(window, "Chat", "language", QLineEdit).text() == "en"
    assert window.is_dirty() and on_disk(settings_file) == mine  # nothing saved yet

    with qtbot.waitSignal(window.saved):
        click(qtbot, window.save_button)
    saved = on_disk(settings_file)
    assert saved.chat == ChatSettings()
    assert saved.dream.nightly_hour == 3  # another page's settings stay


def test_a_failing_save_shows_the_problem_and_keeps_the_edit(
    qtbot: QtBot, make: Make, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the config folder should be", encoding="utf-8")
    window = make(path=blocker / "settings.json")
    field(window, "Chat", "archive_days", QSpinBox).setValue(60)

    with qtbot.assertNotEmitted(window.saved):
        click(qtbot, window.save_button)

    assert window.problem.isVisible()
    assert window.problem.text().startswith(f"Could not save settings to {blocker}")
    assert window.problem.text().endswith("Your changes are still here.")
    assert field(window, "Chat", "archive_days", QSpinBox).value() == 60
    assert window.is_dirty() and window.save_button.isEnabled()
    assert window.current() == Settings()
    assert blocker.read_text(encoding="utf-8") == "a file where the config folder should be"


def test_a_file_of_a_newer_reverie_is_left_untouched(
    qtbot: QtBot, window: SettingsWindow, settings_file: Path
) -> None:
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text('{"version": 99, "future": true}', encoding="utf-8")
    field(window, "Memory", "harvest_check_minutes", QSpinBox).setValue(9)
    with qtbot.assertNotEmitted(window.saved):
        click(qtbot, window.save_button)
    assert "written by a newer Reverie" in window.problem.text()
    assert settings_file.read_text(encoding="utf-8") == '{"version": 99, "future": true}'
    assert window.is_dirty()


def test_another_page_saving_through_the_window_keeps_edits_elsewhere(
    qtbot: QtBot, window: SettingsWindow, settings_file: Path
) -> None:
    field(window, "Memory", "harvest_check_minutes", QSpinBox).setValue(9)
    chosen = Settings(models=ModelSettings(chat=(Backend(kind="local", model="/m/x.gguf"),)))

    with qtbot.waitSignal(window.saved) as saved:
        assert window.save(chosen)

    assert saved.args == [chosen] and on_disk(settings_file) == chosen
    assert window.current() == chosen
    assert window.notice.text() == (
        "Saved. Some changes take effect when Reverie restarts: Chat (Models)."
    )
    assert field(window, "Memory", "harvest_check_minutes", QSpinBox).value() == 9
    assert window.is_dirty() and window.save_button.isEnabled()
    edited = window.edited()
    assert edited is not None and edited.models == chosen.models


def test_a_change_from_elsewhere_reloads_the_pages(window: SettingsWindow) -> None:
    field(window, "Memory", "harvest_check_minutes", QSpinBox).setValue(9)
    elsewhere = Settings(chat=ChatSettings(memories_top_k=33))
    elsewhere = elsewhere.model_copy(
        update={"memory": elsewhere.memory.model_copy(update={"harvest_idle_minutes": 20})}
    )
    window.set_settings(elsewhere)
    assert field(window, "Chat", "memories_top_k", QSpinBox).value() == 33
    assert field(window, "Memory", "harvest_idle_minutes", QSpinBox).value() == 20
    assert field(window, "Memory", "harvest_check_minutes", QSpinBox).value() == 9  # typed
    assert window.form("Memory").changed_fields() == ["harvest_check_minutes"]
    assert not window.form("Chat").is_dirty()


def test_changed_settings_are_named_in_plain_words() -> None:
    old = Settings()
    new = old.model_copy(
        update={
            "chat": ChatSettings(memories_top_k=3),
            "models": ModelSettings(threads=2, suggest_model=False),
        }
    )
    names = changed_settings(old, new)
    assert names == ["models.threads", "models.suggest_model", "chat.memories_top_k"]
    assert [setting_words(name) for name in names] == [
        "Threads (Model options)",
        "Suggest model (Models)",
        "Memories top k (Chat)",
    ]


# -- unsaved edits --------------------------------------------------------------
def test_closing_with_unsaved_edits_asks(
    qtbot: QtBot, window: SettingsWindow, settings_file: Path
) -> None:
    field(window, "Chat", "memories_top_k", QSpinBox).setValue(20)

    window.close()
    assert window.isVisible()
    dialog = window.unsaved_dialog
    assert dialog is not None and dialog.defaultButton().text() == "Save"
    assert dialog.text() == (
        "You changed the setting “Memories top k” and did not save it. Save before closing?"
    )
    answer(qtbot, dialog, "Keep editing")
    assert window.isVisible() and window.is_dirty()

    field(window, "Dreaming", "nightly_minute", QSpinBox).setValue(30)
    window.close()
    dialog = window.unsaved_dialog
    assert dialog is not None
    assert "the settings of the Chat and Dreaming pages" in dialog.text()
    with qtbot.waitSignal(window.saved):
        answer(qtbot, dialog, "Save")
    assert not window.isVisible()
    assert on_disk(settings_file).chat.memories_top_k == 20


def test_closing_with_a_refused_value_cannot_save_it(
    qtbot: QtBot, window: SettingsWindow, settings_file: Path
) -> None:
    field(window, "Tasks", "time_zone", QLineEdit).setText("Mars/Olympus")
    press(qtbot, window, Qt.Key.Key_Escape)
    answer(qtbot, window.unsaved_dialog, "Save")  # refused: it cannot be used
    assert window.isVisible() and window.current_page() == "Tasks"
    assert "cannot be used" in window.problem.text()

    window.close()
    answer(qtbot, window.unsaved_dialog, "Discard changes")
    assert not window.isVisible() and not settings_file.exists()
    assert field(window, "Tasks", "time_zone", QLineEdit).text() == ""


# -- keyboard and accessibility -------------------------------------------------
def test_keyboard_and_accessible_names(qtbot: QtBot, window: SettingsWindow) -> None:
    controls = [
        widget
        for widget in window.findChildren(QWidget)
        if isinstance(widget, QPushButton | QAbstractSpinBox | QCheckBox | QComboBox | QLineEdit)
        and not isinstance(widget.parentWidget(), QAbstractSpinBox)  # a spin box's own line
    ]
    assert len(controls) > 40
    assert all(control.accessibleName() for control in controls)
    assert window.page_list.accessibleName() == "Settings pages"

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.page_list.setFocus()
    qtbot.keyClick(window.page_list, Qt.Key.Key_Down)
    assert window.current_page() == "Memory"
    qtbot.keyClick(window.page_list, Qt.Key.Key_Tab)
    first = field(window, "Memory", "harvest_after_messages", QSpinBox)
    assert QApplication.focusWidget() in (first, first.findChild(QLineEdit))

    press(qtbot, window, Qt.Key.Key_Escape)
    assert not window.isVisible()  # nothing unsaved: Esc just closes
