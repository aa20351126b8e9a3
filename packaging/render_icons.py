"""Render Reverie's icon in the sizes desktops look for, from its SVG.

Writes ``resources/icons/hicolor/<size>x<size>/apps/reverie.png`` for each
of ``SIZES`` and copies the SVG to ``hicolor/scalable/apps/reverie.svg``:
the freedesktop icon theme layout, so the folder can be copied as it is into
``~/.local/share/icons/hicolor`` or ``/usr/share/icons/hicolor``.  Run it
again after changing ``resources/icons/reverie.svg``:

    .venv/bin/python packaging/render_icons.py
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "resources" / "icons" / "reverie.svg"
THEME = ROOT / "resources" / "icons" / "hicolor"
NAME = "reverie"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def render(renderer: QSvgRenderer, size: int) -> QImage:
    """The icon drawn on a transparent *size* x *size* square."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no display needed
    _app = QGuiApplication(sys.argv[:1])  # Qt draws only inside an application
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        print(f"{SOURCE} is not an SVG Qt can draw.", file=sys.stderr)
        return 1
    for size in SIZES:
        target = THEME / f"{size}x{size}" / "apps" / f"{NAME}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not render(renderer, size).save(str(target), "PNG"):
            print(f"Could not write {target}.", file=sys.stderr)
            return 1
    scalable = THEME / "scalable" / "apps" / f"{NAME}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, scalable)
    print(f"Rendered {len(SIZES)} sizes and the scalable icon into {THEME}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
