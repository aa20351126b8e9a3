"""Round 35 of issue 15: a one-line field cut a long paste without a word.

A ``QLineEdit`` keeps at most 32,767 characters unless told otherwise, and a
longer paste (a task's text, a skill's name, a search, a server's address)
was cut to that with nothing said.  The bar under each editor now says so.
The server fields of the settings had no bar at all, for direction controls
either: an address pasted with a right-to-left override read on screen as
another host than the one written.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QWidget

from desktop.ui.settings.downloads import Downloads
from desktop.ui.settings.models_page import ModelsPage
from desktop.ui.settings.role_editor import SERVER
from desktop.ui.widgets.direction_guard import QT_LINE_LIMIT
from tests.unit.ui.conftest import Windows
from tests.unit.ui.settings.test_models_page import (  # noqa: F401 (the fixtures)
    Saved,
    catalog,
    library,
    page,
    secrets,
    tiny,
)
from tests.unit.ui.test_direction_guard_round33 import AS_WRITTEN, OVERRIDDEN, _fields, _warnings

PASTE = "tea " * 10_000  # 40,000 characters


def _cut_notes(window: QWidget) -> list[str]:
    return [label.text() for label in window.findChildren(QLabel, "text-cut") if label.isVisible()]


def _on_servers(models: ModelsPage) -> ModelsPage:
    """*models* with every role on a server, its fields shown."""
    for source in models.findChildren(QComboBox, "backend-source"):
        source.setCurrentIndex(source.findData(SERVER))
    return models


def test_every_line_field_says_when_a_paste_was_cut_to_fit(
    windows: Windows,
    page: tuple[ModelsPage, Saved, Downloads],  # noqa: F811 (a fixture)
) -> None:
    checked = set()
    every = {**windows, "models": _on_servers(page[0])}
    for name, window in every.items():
        for field in _fields(window):
            if not isinstance(field, QLineEdit) or field.maxLength() != QT_LINE_LIMIT:
                continue  # a field with a limit of its own says so itself
            if field.echoMode() != QLineEdit.EchoMode.Normal:
                continue  # an API key: no one pastes a page into it, and none is shown
            assert _cut_notes(window) == [], (name, field.objectName())
            field.setText(PASTE)
            assert field.text() == PASTE[:QT_LINE_LIMIT]
            assert _cut_notes(window) == [
                "This field holds at most 32,767 characters; the rest was left out."
            ], (name, field.objectName())
            field.setText(PASTE[:100])
            assert _cut_notes(window) == [], (name, field.objectName())
            checked.add(field.objectName())
    assert checked == {
        "",  # the settings' text (the time zone)
        "memory-search",
        "skill-name",
        "skill-search",
        "task-schedule",
        "task-text",
        "server-url",
        "server-model",
    }


def test_the_server_fields_show_an_address_as_written(
    page: tuple[ModelsPage, Saved, Downloads],  # noqa: F811 (a fixture)
) -> None:
    models = _on_servers(page[0])
    for name in ("server-url", "server-model"):
        [field, *_] = [f for f in models.findChildren(QLineEdit, name) if f.isVisible()]
        field.setText(OVERRIDDEN)
        [said] = _warnings(models)
        assert said.endswith(AS_WRITTEN)
        field.setText("")
        assert _warnings(models) == []
