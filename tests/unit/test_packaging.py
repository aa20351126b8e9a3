"""The installed wheel carries data/ and resources/ and finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("reverie-*.whl")
    return built


def test_wheel_contains_shipped_folders(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "desktop/_shipped/data/BASE_PROMPT.txt" in names
    assert "desktop/_shipped/resources/icons/reverie.svg" in names
    assert "desktop/_shipped/resources/styles/reverie.qss" in names
    assert "models/broker.py" in names
    assert not any(name.startswith("tests/") for name in names)


def test_installed_wheel_finds_its_data(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = (
        "from desktop.core.base import paths; print(paths.data_dir()); print(paths.resources_dir())"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env={"PYTHONPATH": str(site), "PATH": ""},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    data_dir, resources_dir = (Path(line) for line in result.stdout.split())
    assert data_dir == site / "desktop" / "_shipped" / "data"
    assert (data_dir / "BASE_PROMPT.txt").is_file()
    assert (resources_dir / "icons" / "reverie.svg").is_file()
