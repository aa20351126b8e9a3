"""Reverie's look in light and dark: two palettes, and the scheme in effect.

Every colour is named once, in ``LIGHT`` and ``DARK``.  The style sheet
(``resources/styles/reverie.qss``) names them as ``$text``, ``$surface``…
and is rendered for one palette (``style_sheet``); the application's
``QPalette`` comes from the same palette (``qt_palette``), so what the style
sheet does not cover (message boxes, input dialogs, progress dialogs, menus,
scroll bars, tool tips) matches the rest.  Code that paints by hand (the
cards of the lists) asks ``active_palette()`` for its colours.

The few images the style sheet needs (a check mark, the arrows of lists
of choices and spin boxes) are SVG templates beside it, drawn in a colour
of the palette and written to a folder of the cache (``render_icons``): a
style sheet names images only by file.

``Theme`` keeps the application in the scheme the user chose: a fixed one,
or the system's (Qt's colour scheme), following it as it changes.
"""

from __future__ import annotations

import logging
import string
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from desktop.core.base import paths
from desktop.core.base.files import make_missing_folders, write_atomically
from desktop.core.base.settings import Appearance, Settings

log = logging.getLogger(__name__)

Scheme = Literal["light", "dark"]

SCHEME_PROPERTY = "reverieScheme"
"""The application's dynamic property naming the scheme in effect (for ``active_palette``)."""
STYLE = "Fusion"
"""The one widget style that draws everything from the palette on every
platform (the native styles of Windows and macOS keep their own greys)."""
BODY_TEXT_CONTRAST = 4.5
"""WCAG AA for body text."""
NON_TEXT_CONTRAST = 3.0
"""WCAG AA for what is not text but must be seen: the focus ring."""


@dataclass(frozen=True)
class Palette:
    """The colours of one scheme, each as ``#rrggbb``."""

    scheme: Scheme
    # Surfaces, from the window's background up.
    window: str
    surface: str
    """Panels, lists, fields and the transcript."""
    sunken: str
    """Read-only fields and raw output, set into a surface."""
    card: str
    """A card inside a panel (a dream's change)."""
    subtle: str
    """Quiet, neutral fills: a notice, a neutral status chip."""
    accent_soft: str
    """The user's messages, notices, chips."""
    selection: str
    hover: str
    # Text.
    text: str
    text_secondary: str
    text_muted: str
    """Help, facts and captions."""
    text_faint: str
    """Counts and "nothing here" sentences."""
    text_disabled: str
    accent: str
    """Accent text and lines: speakers, section titles, the chosen tab."""
    accent_strong: str
    """Accent text on soft accent fills: chips, links in cards."""
    # The primary button (Send, Save…).
    primary: str
    on_primary: str
    primary_disabled: str
    on_primary_disabled: str
    # Lines.
    border: str
    """Around panels and cards."""
    border_input: str
    """Around what takes input: fields, buttons."""
    divider: str
    rule: str
    """The left rule of tool calls and history entries."""
    found: str
    """Around a message found by search."""
    focus: str
    """The focus ring, and selected text (Qt's highlight)."""
    on_focus: str
    """Selected text on ``focus``."""
    focus_primary: str
    """The focus ring around a primary button (the ring must differ from its fill)."""
    # States.
    warning_bg: str
    warning_border: str
    warning_text: str
    warning_strong_bg: str
    danger_text: str
    danger_bg: str
    danger_border: str
    danger_disabled: str
    danger_fill: str
    danger_fill_disabled: str
    success_text: str
    success_bg: str
    success_rule: str
    success_border: str
    info_bg: str
    info_rule: str
    info_text: str
    inverse_bg: str
    """The off-the-record banner: the other scheme's colours, to stand out."""
    inverse_text: str

    def colours(self) -> dict[str, str]:
        """Every colour by name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "scheme"}

    def colour(self, name: str) -> QColor:
        return QColor(self.colours()[name])


LIGHT = Palette(
    scheme="light",
    window="#f7f6fb",
    surface="#ffffff",
    sunken="#f5f4f9",
    card="#fbfaff",
    subtle="#f1f0f6",
    accent_soft="#efecfd",
    selection="#e6e2fb",
    hover="#f3f1fb",
    text="#1f1d2b",
    text_secondary="#3f3a5c",
    text_muted="#615c78",
    text_faint="#6d6884",
    text_disabled="#9a96ad",
    accent="#5b4bd6",
    accent_strong="#4a3fb0",
    primary="#5b4bd6",
    on_primary="#ffffff",
    primary_disabled="#d9d4f3",
    on_primary_disabled="#ffffff",
    border="#dedbea",
    border_input="#c9c4e0",
    divider="#ebe9f3",
    rule="#cdc6f0",
    found="#8b7fd6",
    focus="#5b4bd6",
    on_focus="#ffffff",
    focus_primary="#241d6b",
    warning_bg="#fff4e0",
    warning_border="#f0c36d",
    warning_text="#5c3d00",
    warning_strong_bg="#ffe2a8",
    danger_text="#8c1d18",
    danger_bg="#fdeceb",
    danger_border="#f3b8b3",
    danger_disabled="#c9a9a7",
    danger_fill="#b3261e",
    danger_fill_disabled="#e3b5b1",
    success_text="#1d5e3a",
    success_bg="#eaf6ee",
    success_rule="#3c9a5f",
    success_border="#b9dcc4",
    info_bg="#eef3fc",
    info_rule="#7d9be0",
    info_text="#24365e",
    inverse_bg="#2f2b45",
    inverse_text="#f1effa",
)

DARK = Palette(
    scheme="dark",
    window="#17161d",
    surface="#201e29",
    sunken="#1a1922",
    card="#262331",
    subtle="#292736",
    accent_soft="#2e2950",
    selection="#3b3468",
    hover="#2a2738",
    text="#ece9f5",
    text_secondary="#cdc8e2",
    text_muted="#aba6c3",
    text_faint="#9c97b5",
    text_disabled="#67637e",
    accent="#ada2f9",
    accent_strong="#c6beff",
    primary="#5d4ed8",
    on_primary="#ffffff",
    primary_disabled="#37325a",
    on_primary_disabled="#8883a6",
    border="#393648",
    border_input="#524d6a",
    divider="#2f2c3b",
    rule="#514a82",
    found="#9d92f0",
    focus="#b4aaff",
    on_focus="#17161d",
    focus_primary="#e4dfff",
    warning_bg="#3b2f14",
    warning_border="#8f6d22",
    warning_text="#f5d9a0",
    warning_strong_bg="#52411a",
    danger_text="#ffb3ab",
    danger_bg="#3f1f1d",
    danger_border="#7d3a34",
    danger_disabled="#74585a",
    danger_fill="#b3261e",
    danger_fill_disabled="#4d2a28",
    success_text="#a3dcb8",
    success_bg="#1c3126",
    success_rule="#4fae73",
    success_border="#2f5a40",
    info_bg="#1d2742",
    info_rule="#5d7cc4",
    info_text="#bfd0f7",
    inverse_bg="#e6e2f5",
    inverse_text="#1f1d2b",
)

PALETTES: dict[Scheme, Palette] = {"light": LIGHT, "dark": DARK}

TEXT_PAIRS: tuple[tuple[str, str], ...] = (
    ("text", "window"),
    ("text", "surface"),
    ("text", "sunken"),
    ("text", "card"),
    ("text", "accent_soft"),
    ("text", "selection"),
    ("text", "hover"),
    ("text_secondary", "surface"),
    ("text_secondary", "sunken"),
    ("text_secondary", "card"),
    ("text_secondary", "accent_soft"),
    ("text_muted", "window"),
    ("text_muted", "surface"),
    ("text_muted", "sunken"),
    ("text_muted", "card"),
    ("text_muted", "subtle"),
    ("text_faint", "window"),
    ("text_faint", "surface"),
    ("accent", "window"),
    ("accent", "surface"),
    ("accent_strong", "surface"),
    ("accent_strong", "accent_soft"),
    ("accent_strong", "window"),
    ("on_primary", "primary"),
    ("on_focus", "focus"),
    ("warning_text", "warning_bg"),
    ("warning_text", "warning_strong_bg"),
    ("warning_text", "surface"),
    ("danger_text", "danger_bg"),
    ("danger_text", "surface"),
    ("danger_text", "window"),
    ("on_primary", "danger_fill"),
    ("success_text", "success_bg"),
    ("success_text", "surface"),
    ("info_text", "info_bg"),
    ("inverse_text", "inverse_bg"),
)
"""Every (text, background) pair the windows show: each meets ``BODY_TEXT_CONTRAST``."""

FOCUS_PAIRS: tuple[tuple[str, str], ...] = (
    ("focus", "window"),
    ("focus", "surface"),
    ("focus", "sunken"),
    ("focus", "card"),
    ("focus", "accent_soft"),
    ("focus_primary", "window"),
    ("focus_primary", "surface"),
)
"""The focus ring against what it is drawn on: each meets ``NON_TEXT_CONTRAST``."""

RING_ON_FILL_CONTRAST = 2.0
"""How far a filled button's ring differs from its fill.  The ring sits on
the window and meets 3:1 there; no colour meets 3:1 against both the window
and a mid-tone fill."""
RINGS_ON_FILLS: tuple[tuple[str, str], ...] = (
    ("focus_primary", "primary"),
    ("focus_primary", "danger_fill"),
)


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG's contrast ratio of two ``#rrggbb`` colours, from 1 to 21."""
    lighter, darker = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _luminance(colour: str) -> float:
    """WCAG's relative luminance."""
    rgb = QColor(colour)
    if not rgb.isValid():
        raise ValueError(f"{colour!r} is not a colour")

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(rgb.red()) + 0.7152 * linear(rgb.green()) + 0.0722 * linear(rgb.blue())


ICONS: dict[str, tuple[str, str]] = {
    "check": ("check", "on_primary"),
    "check-disabled": ("check", "on_primary_disabled"),
    "arrow-down": ("arrow-down", "text_muted"),
    "arrow-down-disabled": ("arrow-down", "text_disabled"),
    "arrow-up": ("arrow-up", "text_muted"),
    "arrow-up-disabled": ("arrow-up", "text_disabled"),
}
"""Each image the style sheet names (``$icons/<name>.svg``): its template in
``resources/styles/icons`` and the palette colour it is drawn in (``$ink``)."""


def _styles_dir() -> Path:
    return paths.resources_dir() / "styles"


def style_sheet_template() -> str:
    return (_styles_dir() / "reverie.qss").read_text(encoding="utf-8")


def render_icons(palette: Palette, directory: Path) -> Path:
    """Write the style sheet's images in *palette*'s colours to a folder of
    *directory* (one per scheme), and return that folder."""
    folder = directory / palette.scheme
    make_missing_folders(folder)
    for name, (template, colour) in ICONS.items():
        svg = (_styles_dir() / "icons" / f"{template}.svg").read_text(encoding="utf-8")
        drawn = string.Template(svg).substitute(ink=getattr(palette, colour))
        target = folder / f"{name}.svg"
        if not target.is_file() or target.read_text(encoding="utf-8") != drawn:
            write_atomically(target, drawn)
    return folder


def style_sheet(palette: Palette, icons: Path, template: str | None = None) -> str:
    """The style sheet in *palette*'s colours, its images from *icons*
    (``render_icons``).  A ``$name`` the palette does not have raises
    ``KeyError``: a misspelt colour is a bug, not a default."""
    text = style_sheet_template() if template is None else template
    return string.Template(text).substitute(palette.colours(), icons=icons.as_posix())


def qt_palette(palette: Palette) -> QPalette:
    """*palette* as Qt's: what the style sheet does not style is drawn in it."""
    qt = QPalette()
    roles = QPalette.ColorRole
    for role, name in (
        (roles.Window, "window"),
        (roles.WindowText, "text"),
        (roles.Base, "surface"),
        (roles.AlternateBase, "sunken"),
        (roles.Text, "text"),
        (roles.Button, "surface"),
        (roles.ButtonText, "text"),
        (roles.BrightText, "on_primary"),
        (roles.ToolTipBase, "surface"),
        (roles.ToolTipText, "text"),
        (roles.PlaceholderText, "text_muted"),
        # Selected text, and the focus a widget draws itself (a message of the chat).
        (roles.Highlight, "focus"),
        (roles.HighlightedText, "on_focus"),
        (roles.Accent, "primary"),
        (roles.Link, "accent"),
        (roles.LinkVisited, "accent_strong"),
        # The bevels and frames Fusion draws from these.
        (roles.Light, "surface"),
        (roles.Midlight, "divider"),
        (roles.Mid, "border_input"),
        (roles.Dark, "border_input"),
        (roles.Shadow, "window"),
    ):
        qt.setColor(role, palette.colour(name))
    disabled = QPalette.ColorGroup.Disabled
    for role in (roles.WindowText, roles.Text, roles.ButtonText, roles.HighlightedText):
        qt.setColor(disabled, role, palette.colour("text_disabled"))
    qt.setColor(disabled, roles.Highlight, palette.colour("primary_disabled"))
    return qt


def scheme_for(appearance: Appearance, system: Qt.ColorScheme) -> Scheme:
    """The scheme to show: the one chosen, or else the system's (light when
    the system does not say)."""
    if appearance != "system":
        return appearance
    return "dark" if system == Qt.ColorScheme.Dark else "light"


def active_palette() -> Palette:
    """The palette in effect (light before any ``Theme`` applied one), for
    code that paints by hand."""
    app = QApplication.instance()
    scheme = app.property(SCHEME_PROPERTY) if app is not None else None
    return DARK if scheme == "dark" else LIGHT


class Theme(QObject):
    """Keeps *app* in the scheme *appearance* asks for, restyling every
    window when that scheme changes: the user chose another, or the system
    switched while it is followed.

    Signals:
        changed(str): the scheme in effect ("light" or "dark") changed; every
            widget was restyled already.  For what renders its own colours.
    """

    changed = Signal(str)

    def __init__(
        self,
        app: QApplication,
        icons: Path,
        appearance: Appearance = "system",
        parent: QObject | None = None,
    ) -> None:
        """*icons*: a folder to write the style sheet's images to (``render_icons``)."""
        super().__init__(parent)
        self._app = app
        self._icons = icons
        self._appearance: Appearance = appearance
        hints = QGuiApplication.styleHints()
        self._system = hints.colorScheme()
        hints.colorSchemeChanged.connect(self._on_system_scheme)
        self._scheme: Scheme | None = None
        app.setStyle(STYLE)
        self._ask_platform()
        self._apply()

    @property
    def appearance(self) -> Appearance:
        return self._appearance

    @property
    def scheme(self) -> Scheme:
        """The scheme in effect."""
        return scheme_for(self._appearance, self._system)

    @property
    def palette(self) -> Palette:
        return PALETTES[self.scheme]

    def set_appearance(self, appearance: Appearance) -> None:
        """Show *appearance* from now on (the setting was saved)."""
        if appearance == self._appearance:
            return
        self._appearance = appearance
        self._ask_platform()
        self._apply()

    def stop_following(self) -> None:
        """Leave the application as it is and no longer follow the system
        (the app is quitting: nothing is left listening to it)."""
        QGuiApplication.styleHints().colorSchemeChanged.disconnect(self._on_system_scheme)

    def follow_settings(self, settings: Settings) -> None:
        """The settings were saved: show the appearance they hold (at once)."""
        self.set_appearance(settings.chat.appearance)

    def _ask_platform(self) -> None:
        """Tell the platform too, so what Qt does not draw (title bars, the
        file dialog) follows where it can; most Linux platforms cannot."""
        hints = QGuiApplication.styleHints()
        if self._appearance == "system":
            hints.unsetColorScheme()
            self._system = hints.colorScheme()
        else:
            wanted = Qt.ColorScheme.Dark if self._appearance == "dark" else Qt.ColorScheme.Light
            hints.setColorScheme(wanted)

    def _on_system_scheme(self, scheme: Qt.ColorScheme) -> None:
        if self._appearance == "system":  # else it is our own request echoed back
            self._system = scheme
            self._apply()

    def _apply(self) -> None:
        scheme = self.scheme
        if scheme == self._scheme:
            return
        self._scheme = scheme
        palette = PALETTES[scheme]
        self._app.setProperty(SCHEME_PROPERTY, scheme)
        self._app.setPalette(qt_palette(palette))
        try:
            icons = render_icons(palette, self._icons)
        except OSError as error:  # a full or read-only disk: the windows, without arrows
            log.warning("could not write the style sheet's images to %s: %s", self._icons, error)
            icons = self._icons / palette.scheme
        self._app.setStyleSheet(style_sheet(palette, icons))  # restyles every widget, open or not
        self.changed.emit(scheme)
