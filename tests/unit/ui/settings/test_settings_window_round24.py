"""Opening the settings (round 24): each field's help line shows with the
window, never as a window of its own for a moment (a flash on screen, and a
quit Qt had planned dropped)."""

from __future__ import annotations

from desktop.ui.settings.window import SettingsWindow
from tests.stray_windows import windows_opened
from tests.unit.ui.settings.test_settings_window import (  # noqa: F401 (fixtures)
    Make,
    make,
    settings_file,
)


def test_opening_the_settings_opens_no_window_but_its_own(make: Make) -> None:  # noqa: F811
    with windows_opened() as opened:
        window: SettingsWindow = make()

    assert opened == ["settings-window"]
    forms = [window.form(page.title) for page in window.pages if page.own is not None]
    helps = [row.help for form in forms for row in form.rows.values()]
    assert helps and all(line.isHidden() == (not line.text()) for line in helps)  # as before
