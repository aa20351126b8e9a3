"""The tray icon and its menu: the icon and tooltip follow dreaming, and the
menu's actions say what the user chose."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QIcon
from pytestqt.qtbot import QtBot

from desktop.ui.shell.application import tray_icons
from desktop.ui.shell.tray import Tray


@pytest.fixture
def icons(qtbot: QtBot) -> dict[str, QIcon]:
    return tray_icons()


@pytest.fixture
def tray(icons: dict[str, QIcon]) -> Tray:
    return Tray(icons)


@pytest.mark.parametrize(
    ("state", "icon", "tooltip", "can_dream"),
    [
        ("idle", "idle", "Reverie", True),
        ("dreaming", "dreaming", "Reverie is dreaming: tidying its memories", False),
        ("waiting", "dreaming", "Reverie is dreaming (waiting while you chat)", False),
        ("paused", "paused", "Reverie: dreaming is paused", False),
    ],
)
def test_the_icon_tooltip_and_menu_follow_the_dream(
    tray: Tray, icons: dict[str, QIcon], state: str, icon: str, tooltip: str, can_dream: bool
) -> None:
    paused: list[bool] = []
    tray.dreaming_paused.connect(paused.append)

    tray.set_dream_state(state)

    assert tray.icon.icon().cacheKey() == icons[icon].cacheKey()
    assert tray.icon.toolTip() == tooltip
    assert tray.dream_action.isEnabled() is can_dream
    assert tray.pause_action.isChecked() is (state == "paused")
    assert paused == []  # showing the state is not the user choosing it


def test_the_menu_says_what_the_user_chose(qtbot: QtBot, tray: Tray) -> None:
    with qtbot.waitSignal(tray.dream_requested):
        tray.dream_action.trigger()
    with qtbot.waitSignal(tray.dreaming_paused) as paused:
        tray.pause_action.trigger()
    assert paused.args == [True]
    with qtbot.waitSignal(tray.dreaming_paused) as resumed:
        tray.pause_action.trigger()
    assert resumed.args == [False]
    for action, signal in [
        (tray.open_action, tray.open_chat_requested),
        (tray.memories_action, tray.memories_requested),
        (tray.tasks_action, tray.tasks_requested),
        (tray.skills_action, tray.skills_requested),
        (tray.report_action, tray.dream_report_requested),
        (tray.transfer_action, tray.transfer_requested),
        (tray.data_folder_action, tray.data_folder_requested),
        (tray.logs_action, tray.logs_requested),
        (tray.quit_action, tray.quit_requested),
    ]:
        with qtbot.waitSignal(signal):
            action.trigger()


def test_without_dreaming_its_actions_are_off(tray: Tray) -> None:
    tray.set_dreaming_available(False)

    assert not any(
        a.isEnabled() for a in (tray.dream_action, tray.pause_action, tray.report_action)
    )
    assert tray.open_action.isEnabled()
