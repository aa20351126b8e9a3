"""Showing and hiding a widget that may not be in a window yet.

A widget with no parent is a window: shown then, even for the moment before
a layout takes it, it opens on screen as a window of its own, and Qt drops
the quit it had planned when the last window was closed (any window shown
cancels it).  A model load ending just after the user closed the chat
window rebuilt the Models page's cards that way, and Reverie went on
running with no window (without a tray: with no way back but a new launch).
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget


def set_shown(widget: QWidget, shown: bool) -> None:
    """Show or hide *widget*; one with no parent yet is only ever hidden:
    never hidden before, it shows with the window whose layout takes it."""
    if shown and widget.parent() is None:
        return
    widget.setVisible(shown)
