"""The folders a download makes: private whatever the umask, and what is in
their way named."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from models.download_files import make_folder
from models.errors import DownloadFailed


@pytest.fixture
def no_umask() -> Iterator[None]:
    """Nothing taken off the modes of what the test makes (umask 0)."""
    previous = os.umask(0)
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_download_folder_and_those_above_it_are_made_private_whatever_the_umask(
    tmp_path: Path, no_umask: None
) -> None:
    tmp_path.chmod(0o755)  # there already: as it was
    folder = tmp_path / "models" / "from-the-hub" / "tiny"

    make_folder(folder)

    made = [tmp_path / "models", tmp_path / "models" / "from-the-hub", folder]
    assert {p.name: _mode(p) for p in made} == {p.name: 0o700 for p in made}
    assert _mode(tmp_path) == 0o755


def test_a_file_where_the_download_folder_goes_is_named(tmp_path: Path) -> None:
    (tmp_path / "models").write_text("not a folder")

    for folder in (tmp_path / "models", tmp_path / "models" / "tiny"):
        with pytest.raises(DownloadFailed, match="a file is in the way"):
            make_folder(folder)
