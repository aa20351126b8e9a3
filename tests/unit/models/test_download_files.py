"""The folders and files a download makes: private whatever the umask, and
what is in their way named as what it is."""

from __future__ import annotations

import os
import socket
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from models.download_files import downloading_alone, make_folder
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


@pytest.mark.skipif(sys.platform == "win32", reason="no Unix sockets as files")
def test_a_socket_at_a_downloads_lock_is_named_a_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opening a socket gives ENXIO, as a named pipe with no reader does: it
    # was called "a named pipe" (round 14).
    monkeypatch.chdir(tmp_path)
    lock = tmp_path / "model.gguf.part.lock"
    with socket.socket(socket.AF_UNIX) as unix:
        unix.bind(lock.name)  # relative: a socket's path is limited to about 100 bytes
        with pytest.raises(DownloadFailed) as caught, downloading_alone(lock, "model.gguf"):
            pytest.fail("a download took a socket for its lock")

    assert f"{lock} is a socket" in str(caught.value)
    assert "named pipe" not in str(caught.value)
