"""Tests of opening GGUF files: every bad file is a ``ModelFileInvalid`` naming it."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from models.errors import ModelFileInvalid, ModelUnavailable
from models.gguf_file import check_gguf_file, default_threads, open_llama

MEGABYTE = 1 << 20


def _random_bytes(size: int) -> bytes:
    return random.Random(1234).randbytes(size)


@pytest.fixture(scope="module")
def truncated_gguf(smollm2_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first megabyte of the real model: a valid header, then nothing."""
    path = tmp_path_factory.mktemp("gguf") / "truncated.gguf"
    with smollm2_path.open("rb") as source:
        path.write_bytes(source.read(MEGABYTE))
    return path


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.gguf", b""),
        ("random.gguf", _random_bytes(4096)),
        ("short.gguf", b"GGUF\x03\x00"),
        ("text.gguf", b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\n"),
    ],
)
def test_a_file_that_is_not_gguf_is_refused_before_llama_cpp(
    tmp_path: Path, name: str, content: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(content)

    with pytest.raises(ModelFileInvalid) as caught:
        check_gguf_file(path)

    assert name in str(caught.value)
    assert caught.value.hint  # the user is told what to do
    assert isinstance(caught.value, ModelUnavailable)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "absent.gguf"

    with pytest.raises(ModelFileInvalid, match=r"absent\.gguf"):
        open_llama(path, n_ctx=256)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "folder.gguf"
    folder.mkdir()

    with pytest.raises(ModelFileInvalid, match=r"folder\.gguf"):
        open_llama(folder, n_ctx=256)


@pytest.mark.parametrize(
    ("name", "content"),
    [("empty.gguf", b""), ("random.gguf", _random_bytes(4096))],
)
def test_open_llama_refuses_non_gguf_files(tmp_path: Path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)

    with pytest.raises(ModelFileInvalid, match=name):
        open_llama(path, n_ctx=256)


@pytest.mark.model
def test_a_truncated_model_passes_the_header_check_but_fails_to_load(truncated_gguf: Path) -> None:
    check_gguf_file(truncated_gguf)  # the header alone looks fine

    with pytest.raises(ModelFileInvalid) as caught:
        open_llama(truncated_gguf, n_ctx=256)

    assert "truncated.gguf" in str(caught.value)
    assert caught.value.hint


@pytest.mark.model
def test_gguf_magic_followed_by_garbage_fails_to_load(tmp_path: Path) -> None:
    path = tmp_path / "garbage.gguf"
    path.write_bytes(b"GGUF" + _random_bytes(MEGABYTE))

    with pytest.raises(ModelFileInvalid, match=r"garbage\.gguf"):
        open_llama(path, n_ctx=256)


@pytest.mark.model
def test_the_real_model_opens(smollm2_path: Path) -> None:
    check_gguf_file(smollm2_path)

    llm = open_llama(smollm2_path, n_ctx=256)
    try:
        assert llm.n_ctx() == 256
        assert llm.n_vocab() > 1000
    finally:
        llm.close()


def test_default_threads_uses_every_usable_core() -> None:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    assert default_threads() == max(1, usable or 1)
