"""Light and dark: the palettes' contrast, the style sheet rendered from them,
every window in both schemes with a visible focus ring on every stop, the
appearance setting over the system's scheme, and open windows restyled when
the scheme changes."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QInputDialog,
    QMessageBox,
    QProgressDialog,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from desktop.core.base.settings import Appearance, Settings
from desktop.ui.chat.window import ChatWindow
from desktop.ui.settings.window import SettingsWindow
from desktop.ui.widgets.theme import (
    BODY_TEXT_CONTRAST,
    DARK,
    FOCUS_PAIRS,
    LIGHT,
    NON_TEXT_CONTRAST,
    PALETTES,
    RING_ON_FILL_CONTRAST,
    RINGS_ON_FILLS,
    SCHEME_PROPERTY,
    TEXT_PAIRS,
    Palette,
    Scheme,
    Theme,
    active_palette,
    contrast_ratio,
    render_icons,
    style_sheet,
    style_sheet_template,
)
from tests.unit.ui.conftest import Windows, focus_stops

SCHEMES: tuple[Scheme, ...] = ("light", "dark")
WAIT_MS = 10_000
MakeTheme = Callable[[Appearance], Theme]
_GRID = 9
"""Pixels between the points sampled for a window's background."""
_BOXES = (QWidget, QSplitter, QStackedWidget)
"""Widgets that only hold others and draw nothing of their own."""


# -- the palettes ----------------------------------------------------------------
def test_contrast_ratio_is_wcags() -> None:
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast_ratio("#5b4bd6", "#5b4bd6") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # AA's edge
    with pytest.raises(ValueError, match="not a colour"):
        contrast_ratio("#12345", "#ffffff")


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=SCHEMES)
@pytest.mark.parametrize(("text", "background"), TEXT_PAIRS)
def test_every_text_is_readable_on_what_it_is_shown_on(
    palette: Palette, text: str, background: str
) -> None:
    colours = palette.colours()
    ratio = contrast_ratio(colours[text], colours[background])
    assert ratio >= BODY_TEXT_CONTRAST, f"{text} on {background}: {ratio:.2f}"


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=SCHEMES)
@pytest.mark.parametrize(("ring", "beside"), FOCUS_PAIRS)
def test_the_focus_ring_stands_out(palette: Palette, ring: str, beside: str) -> None:
    colours = palette.colours()
    ratio = contrast_ratio(colours[ring], colours[beside])
    assert ratio >= NON_TEXT_CONTRAST, f"{ring} beside {beside}: {ratio:.2f}"


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=SCHEMES)
@pytest.mark.parametrize(("ring", "fill"), RINGS_ON_FILLS)
def test_a_filled_buttons_ring_differs_from_its_fill(
    palette: Palette, ring: str, fill: str
) -> None:
    colours = palette.colours()
    ratio = contrast_ratio(colours[ring], colours[fill])
    assert ratio >= RING_ON_FILL_CONTRAST, f"{ring} around {fill}: {ratio:.2f}"


def _rules(sheet: str) -> Iterator[tuple[str, dict[str, str]]]:
    """Each rule of *sheet*: its selector and its declarations."""
    sheet = re.sub(r"/\*.*?\*/", "", sheet, flags=re.DOTALL)
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", sheet):
        declarations = dict(
            (name.strip(), value.strip())
            for name, _, value in (d.partition(":") for d in body.split(";") if ":" in d)
        )
        yield " ".join(selector.split()), declarations


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=SCHEMES)
def test_every_rule_with_its_own_text_and_background_is_readable(
    palette: Palette, tmp_path: Path
) -> None:
    checked = 0
    for selector, declarations in _rules(style_sheet(palette, tmp_path)):
        text, background = declarations.get("color"), declarations.get("background")
        if text is None or background is None or "transparent" in (text, background):
            continue
        if ":disabled" in selector:  # WCAG asks nothing of what cannot be used
            continue
        checked += 1
        ratio = contrast_ratio(text, background)
        assert ratio >= BODY_TEXT_CONTRAST, f"{selector}: {text} on {background}: {ratio:.2f}"
    assert checked > 20


def test_the_style_sheet_writes_no_colour_of_its_own() -> None:
    template = style_sheet_template()
    written = [
        value
        for _, declarations in _rules(template)
        for value in declarations.values()
        if re.search(r"#[0-9a-fA-F]{3,8}\b|rgba?\(", value)
    ]
    assert written == []
    names = set(re.findall(r"\$(\w+)", template)) - {"icons"}
    assert names <= set(LIGHT.colours())
    assert len(names) > 30  # a template, not a sheet with a stray dollar


@pytest.mark.parametrize("palette", [LIGHT, DARK], ids=SCHEMES)
def test_the_rendered_sheet_holds_the_palettes_colours_and_images(
    palette: Palette, tmp_path: Path
) -> None:
    icons = render_icons(palette, tmp_path)
    sheet = style_sheet(palette, icons)
    assert "$" not in sheet
    assert f"background: {palette.window}" in sheet
    other = DARK if palette is LIGHT else LIGHT
    assert f"background: {other.window}" not in sheet
    images = re.findall(r'url\("([^"]+)"\)', sheet)
    assert images and all(Path(image).is_file() for image in images)
    assert palette.on_primary in (icons / "check.svg").read_text(encoding="utf-8")


def test_the_images_folder_is_private_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        icons = render_icons(LIGHT, tmp_path / "style")
    finally:
        os.umask(previous)

    assert [oct(p.stat().st_mode & 0o777) for p in (icons.parent, icons)] == ["0o700"] * 2


def test_a_misspelt_colour_is_an_error_not_a_default(tmp_path: Path) -> None:
    with pytest.raises(KeyError, match="txet"):
        style_sheet(LIGHT, tmp_path, "QLabel { color: $txet; }")


# -- the theme in an application --------------------------------------------------
@pytest.fixture
def make_theme(qapp: QApplication, tmp_path: Path) -> Iterator[MakeTheme]:
    """Themes applied to the test's application, which is put back as it was."""
    sheet, palette, style = qapp.styleSheet(), qapp.palette(), qapp.style().name()
    made: list[Theme] = []

    def make(appearance: Appearance) -> Theme:
        made.append(Theme(qapp, tmp_path / "style", appearance))
        return made[-1]

    yield make
    for theme in made:
        shiboken6.delete(theme)  # its link to the system's scheme goes with it
    QGuiApplication.styleHints().unsetColorScheme()
    qapp.setProperty(SCHEME_PROPERTY, None)
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)
    if qapp.style().name() != style:
        qapp.setStyle(style)


def system_switches_to(scheme: Qt.ColorScheme) -> None:
    """The system's colour scheme changes, as the platform says it."""
    QGuiApplication.styleHints().colorSchemeChanged.emit(scheme)


def test_the_chosen_appearance_wins_over_the_system(
    qapp: QApplication, make_theme: MakeTheme
) -> None:
    theme = make_theme("light")
    system_switches_to(Qt.ColorScheme.Dark)
    assert theme.palette is LIGHT
    assert qapp.palette().color(QPalette.ColorRole.Window) == QColor(LIGHT.window)

    theme.set_appearance("dark")
    system_switches_to(Qt.ColorScheme.Light)
    assert theme.palette is DARK
    assert qapp.palette().color(QPalette.ColorRole.Window) == QColor(DARK.window)
    assert active_palette() is DARK


def test_following_the_system_switches_with_it(qtbot: QtBot, make_theme: MakeTheme) -> None:
    theme = make_theme("system")
    assert theme.palette is LIGHT  # the test platform does not say: light
    with qtbot.waitSignal(theme.changed) as switched:
        system_switches_to(Qt.ColorScheme.Dark)
    assert switched.args == ["dark"] and theme.palette is DARK
    with qtbot.assertNotEmitted(theme.changed):
        system_switches_to(Qt.ColorScheme.Dark)  # the same again: nothing to redo
    with qtbot.waitSignal(theme.changed) as switched:
        system_switches_to(Qt.ColorScheme.Unknown)
    assert switched.args == ["light"]


# -- every window ----------------------------------------------------------------
def shows_the_window(window: QWidget, widget: QWidget | None) -> bool:
    """Is *widget* (found at a point of *window*) nothing but a box of other
    widgets in boxes up to the window, so what shows there is the window's
    background?"""
    while widget is not None and widget is not window:
        if (
            type(widget) not in _BOXES
            or widget.objectName()
            or widget.autoFillBackground()
            or widget.testAttribute(Qt.WidgetAttribute.WA_StyledBackground)
        ):
            return False
        widget = widget.parentWidget()
    return True


def background_points(window: QWidget) -> list[QPoint]:
    """Points where nothing but the window itself is drawn (its margins and gaps)."""
    return [
        QPoint(x, y)
        for x in range(2, window.width() - 2, _GRID)
        for y in range(2, window.height() - 2, _GRID)
        if shows_the_window(window, window.childAt(x, y))
    ]


def colour_at(image: QImage, point: QPoint) -> str:
    return QColor(image.pixel(point)).name()


def dominant_colour(image: QImage) -> str:
    step = 4  # every 4th pixel of every 4th row is plenty
    seen = Counter(
        image.pixel(x, y)
        for x in range(0, image.width(), step)
        for y in range(0, image.height(), step)
    )
    return QColor(seen.most_common(1)[0][0]).name()


def assert_drawn_in(window: QWidget, palette: Palette) -> None:
    image = window.grab().toImage()
    points = background_points(window)
    assert points, f"{window.objectName()}: no background to sample"
    colours = Counter(colour_at(image, point) for point in points)
    assert set(colours) == {palette.window}, f"{window.objectName()}: {colours}"
    assert dominant_colour(image) in (palette.window, palette.surface)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_both_schemes_draw_every_window(
    qtbot: QtBot, windows: Windows, make_theme: MakeTheme, scheme: Scheme
) -> None:
    make_theme(scheme)
    for window in windows.values():
        qtbot.waitExposed(window)
        assert_drawn_in(window, PALETTES[scheme])


def test_a_change_of_scheme_restyles_the_open_windows(
    qtbot: QtBot, windows: Windows, make_theme: MakeTheme
) -> None:
    theme = make_theme("system")
    for window in windows.values():
        assert_drawn_in(window, LIGHT)
    system_switches_to(Qt.ColorScheme.Dark)
    for window in windows.values():
        assert_drawn_in(window, DARK)
    theme.set_appearance("light")
    for window in windows.values():
        assert_drawn_in(window, LIGHT)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_message_input_and_progress_dialogs_are_themed_too(
    qtbot: QtBot, window: ChatWindow, make_theme: MakeTheme, scheme: Scheme
) -> None:
    make_theme(scheme)
    palette = PALETTES[scheme]
    question = QMessageBox(
        QMessageBox.Icon.Question,
        "Delete this conversation?",
        "Its messages are gone for good.",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        window,
    )
    name = QInputDialog(window)
    name.setLabelText("New name:")
    progress = QProgressDialog("Preparing the memory model…", "Cancel", 0, 100, window)
    progress.setValue(42)
    for dialog in (question, name, progress):
        dialog.show()
        qtbot.waitExposed(dialog)
        image = dialog.grab().toImage()
        assert colour_at(image, QPoint(2, 2)) == palette.window, type(dialog).__name__
        label_text = dialog.palette().color(QPalette.ColorRole.WindowText).name()
        assert contrast_ratio(label_text, palette.window) >= BODY_TEXT_CONTRAST
        dialog.close()


# -- focus -------------------------------------------------------------------------
def bring_into_view(widget: QWidget) -> None:
    parent = widget.parentWidget()
    while parent is not None:
        if (
            isinstance(parent, QScrollArea)
            and (content := parent.widget()) is not None
            and content.isAncestorOf(widget)
        ):
            parent.ensureWidgetVisible(widget, 8, 8)
        parent = parent.parentWidget()


def ring_pixels(image: QImage, palette: Palette) -> Counter[str]:
    rings = {palette.focus, palette.focus_primary}
    return Counter(
        name
        for y in range(image.height())
        for x in range(image.width())
        if (name := QColor(image.pixel(x, y)).name()) in rings
    )


def rings_missing(qtbot: QtBot, window: QWidget, palette: Palette) -> list[str]:
    """The focus stops of *window* (as it shows now) that show no ring when focused."""
    missing = []
    for stop in focus_stops(window):
        bring_into_view(stop)
        if focused := QApplication.focusWidget():
            focused.clearFocus()
        area = QRect(stop.mapTo(window, QPoint(0, 0)), stop.size()).adjusted(-2, -2, 2, 2)
        before = ring_pixels(window.grab(area).toImage(), palette)
        stop.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(stop.hasFocus)
        after = ring_pixels(window.grab(area).toImage(), palette)
        stop.clearFocus()
        gained = max(
            after[colour] - before[colour] for colour in (palette.focus, palette.focus_primary)
        )
        if gained < 2 * min(stop.width(), stop.height()):
            name = stop.accessibleName() or stop.objectName() or type(stop).__name__
            missing.append(f"{type(stop).__name__} “{name}” (+{gained})")
    return missing


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_focus_stop_of_every_window_shows_a_ring(
    qtbot: QtBot, windows: Windows, make_theme: MakeTheme, scheme: Scheme
) -> None:
    make_theme(scheme)
    palette = PALETTES[scheme]
    missing: list[str] = []
    checked = 0
    for title, window in windows.items():
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)
        if isinstance(window, SettingsWindow):  # each page in turn
            for page in window.page_titles():
                window.show_page(page)
                missing += [f"{title}, {page}: {m}" for m in rings_missing(qtbot, window, palette)]
                checked += len(focus_stops(window))
        else:
            missing += [f"{title}: {m}" for m in rings_missing(qtbot, window, palette)]
            checked += len(focus_stops(window))
    assert checked > 40
    assert not missing, "no focus ring:\n" + "\n".join(missing)


# -- the setting ---------------------------------------------------------------------
def test_the_appearance_saved_in_the_settings_applies_at_once(
    qtbot: QtBot, make_theme: MakeTheme, tmp_path: Path
) -> None:
    theme = make_theme("system")
    window = SettingsWindow(Settings(), tmp_path / "settings.json")
    qtbot.addWidget(window)
    window.saved.connect(theme.follow_settings)
    window.show()
    appearance = window.form("Chat").rows["appearance"].editor.widget
    assert isinstance(appearance, QComboBox)
    assert [appearance.itemText(i) for i in range(appearance.count())] == [
        "Follow the system",
        "Light",
        "Dark",
    ]
    assert appearance.currentText() == "Follow the system"

    appearance.setCurrentIndex(appearance.findData("dark"))
    with qtbot.waitSignal(theme.changed):
        qtbot.mouseClick(window.save_button, Qt.MouseButton.LeftButton)

    assert theme.scheme == "dark"
    assert_drawn_in(window, DARK)
    window.shutdown()
