"""Round 8 tests of reading a model file's path: every way a path can fail
to be looked at becomes ``ModelFileInvalid`` naming it, never a bare error."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from models.errors import ModelFileInvalid
from models.gguf_file import check_gguf_file
from models.gguf_info import read_gguf_info
from models.model_file import resolved_model_file, unreadable_model_file

READERS: dict[str, Callable[[Path], object]] = {
    "read_gguf_info": read_gguf_info,
    "check_gguf_file": check_gguf_file,
}


def _name_too_long(tmp_path: Path) -> Path:
    return tmp_path / ("a" * 300 + ".gguf")


def _path_too_long(tmp_path: Path) -> Path:
    return tmp_path.joinpath(*["b" * 200] * 30, "m.gguf")


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
@pytest.mark.parametrize("make", [_name_too_long, _path_too_long], ids=["name", "path"])
def test_a_path_too_long_for_the_file_system_is_named_as_too_long(
    tmp_path: Path, reader: Callable[[Path], object], make: Callable[[Path], Path]
) -> None:
    path = make(tmp_path)

    with pytest.raises(ModelFileInvalid) as raised:
        reader(path)

    message = str(raised.value)
    assert "too long for the file system" in message
    assert path.name[:20] in message and "…" in message  # named, but shortened
    assert len(message) < 400


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_loop_of_links_is_named_as_one(tmp_path: Path, reader: Callable[[Path], object]) -> None:
    (tmp_path / "a.gguf").symlink_to(tmp_path / "b.gguf")
    (tmp_path / "b.gguf").symlink_to(tmp_path / "a.gguf")

    with pytest.raises(ModelFileInvalid, match="loop of symbolic links") as raised:
        reader(tmp_path / "a.gguf")

    assert str(tmp_path / "a.gguf") in str(raised.value)


def test_resolving_a_loop_of_links_is_a_typed_error(tmp_path: Path) -> None:
    (tmp_path / "a.gguf").symlink_to(tmp_path / "a.gguf")

    with pytest.raises(ModelFileInvalid, match="loop of symbolic links"):
        resolved_model_file(tmp_path / "a.gguf")


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_nul_in_the_path_is_a_typed_error(
    tmp_path: Path, reader: Callable[[Path], object]
) -> None:
    with pytest.raises(ModelFileInvalid, match=r"not a file name this system can use") as raised:
        reader(tmp_path / "a\0b.gguf")

    assert "a\\0b.gguf" in str(raised.value)


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_fifo_is_refused_without_being_opened(
    tmp_path: Path, reader: Callable[[Path], object]
) -> None:
    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever

    with pytest.raises(ModelFileInvalid, match="is not a regular file"):
        reader(fifo)


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_file_standing_in_for_a_folder_means_not_found(
    tmp_path: Path, reader: Callable[[Path], object]
) -> None:
    (tmp_path / "file").write_bytes(b"x")

    with pytest.raises(ModelFileInvalid, match="Model file not found"):
        reader(tmp_path / "file" / "model.gguf")


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (errno.EACCES, "may not read the model file"),
        (errno.EPERM, "may not read the model file"),
        (errno.ENAMETOOLONG, "too long for the file system"),
        (errno.ELOOP, "loop of symbolic links"),
        (errno.EIO, "Cannot read model file"),
    ],
)
def test_every_reason_a_path_cannot_be_read_names_the_path(code: int, said: str) -> None:
    # Run as root, the tests cannot meet a closed folder for real.
    path = Path("/models/m.gguf")

    error = unreadable_model_file(path, OSError(code, os.strerror(code)))

    assert isinstance(error, ModelFileInvalid)
    assert said in str(error) and str(path) in str(error)
