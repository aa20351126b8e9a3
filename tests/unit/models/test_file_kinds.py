"""What stands where a regular file was expected, named as what it is."""

from __future__ import annotations

import errno
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from models.file_kinds import SPECIAL_FILE, kind_of, kind_refused

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no sockets or pipes as files")


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as unix:
        unix.bind(path.name)  # relative: a socket's path is limited to about 100 bytes


def _folder(path: Path) -> None:
    path.mkdir()


def _link(path: Path) -> None:
    path.symlink_to("nowhere")


def _pipe(path: Path) -> None:
    os.mkfifo(path)


KINDS: list[tuple[Callable[[Path], None], str]] = [
    (_socket, "a socket"),
    (_pipe, "a named pipe"),
    (_folder, "a folder"),
    (_link, "a symbolic link"),
]


@pytest.mark.parametrize(("make", "said"), KINDS, ids=[said for _, said in KINDS])
def test_each_kind_is_named_as_what_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None], said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "model.gguf.part.lock"
    make(path)

    assert kind_of(path.lstat().st_mode) == said


def test_a_device_is_named_a_device() -> None:
    assert kind_of(os.stat(os.devnull).st_mode) == "a device"


@pytest.mark.parametrize(("make", "said"), KINDS, ids=[said for _, said in KINDS])
def test_what_an_open_for_a_regular_file_met_is_named_as_what_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None], said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "model.gguf.part.lock"
    make(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK

    with pytest.raises(OSError) as caught:
        os.close(os.open(path, flags, 0o600))

    # A socket and a pipe with no reader both give ENXIO: the look tells them apart.
    assert kind_refused(path, caught.value) == said


def test_an_error_about_something_else_names_no_kind(tmp_path: Path) -> None:
    missing = OSError(errno.ENOENT, "No such file or directory")
    assert kind_refused(tmp_path / "absent", missing) is None


def test_what_is_gone_since_the_open_is_named_from_the_error_alone(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    said = {
        code: kind_refused(gone, OSError(code, os.strerror(code)))
        for code in (errno.ELOOP, errno.EISDIR, errno.ENXIO)
    }
    assert said == {
        errno.ELOOP: "a symbolic link",
        errno.EISDIR: "a folder",
        errno.ENXIO: SPECIAL_FILE,
    }
