"""The desktop integration in packaging/: the desktop entry, the AppStream
metainfo and the icon theme rendered from resources/icons/reverie.svg.

The freedesktop validators run where they are installed (``apt install
desktop-file-utils appstream``); CI does not install them, so there those
two tests are skipped.  The rest (icon sizes, names agreeing between the
files) always runs.
"""

from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
DESKTOP_FILE = PACKAGING / "reverie.desktop"
METAINFO = PACKAGING / "org.reverie.Reverie.metainfo.xml"
ICONS = ROOT / "resources" / "icons"
THEME = ICONS / "hicolor"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
"""The sizes packaging/render_icons.py writes."""

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header (the IHDR chunk comes first)."""
    header = path.read_bytes()[:24]
    assert header[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert header[12:16] == b"IHDR", f"{path} does not start with its header chunk"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(DESKTOP_FILE, encoding="utf-8")
    return parser["Desktop Entry"]


def metainfo() -> ElementTree.Element:
    return ElementTree.parse(METAINFO).getroot()


@pytest.mark.parametrize("size", SIZES)
def test_each_icon_size_is_rendered_at_its_folders_size(size: int) -> None:
    assert png_size(THEME / f"{size}x{size}" / "apps" / "reverie.png") == (size, size)


def test_the_icon_theme_holds_only_the_rendered_sizes() -> None:
    folders = {path.name for path in THEME.iterdir() if path.is_dir()}
    assert folders == {f"{size}x{size}" for size in SIZES} | {"scalable"}


def test_the_scalable_icon_is_the_source_svg() -> None:
    scalable = THEME / "scalable" / "apps" / "reverie.svg"
    assert scalable.read_bytes() == (ICONS / "reverie.svg").read_bytes()


def test_the_desktop_entry_and_metainfo_name_the_same_program_and_icon() -> None:
    entry = desktop_entry()
    component = metainfo()
    assert entry["Icon"] == "reverie"
    assert component.findtext("icon") == entry["Icon"]
    assert component.findtext("launchable") == DESKTOP_FILE.name
    assert entry["Exec"].split()[0] == component.findtext("provides/binary") == "reverie"
    assert component.findtext("id") == METAINFO.name.removesuffix(".metainfo.xml")


def test_the_metainfo_licence_is_the_projects() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    licence = metainfo().findtext("project_license")
    assert f'license = {{ text = "{licence}" }}' in pyproject


def _validator(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (apt install desktop-file-utils appstream)")
    return found


def test_the_desktop_entry_is_valid() -> None:
    result = subprocess.run(
        [_validator("desktop-file-validate"), str(DESKTOP_FILE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout.lower(), result.stdout


def test_the_metainfo_is_valid() -> None:
    result = subprocess.run(
        [_validator("appstreamcli"), "validate", "--no-net", str(METAINFO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
