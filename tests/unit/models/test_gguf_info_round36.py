"""Round 36 of issue 15 against files named .gguf that are something else.

A failed download saved as the file (a web page), a repository cloned
without Git LFS (a pointer of a few lines), a ZIP, a safetensors model, an
old GGML file: each was told as 'it does not start with the GGUF magic',
and 'download the model again', which for a safetensors model or an LFS
pointer leads back to the same file.  Each is now named for what it is,
with the way to the model.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import pytest

from models.errors import ModelFileInvalid
from models.gguf_info import read_gguf_info


def _zip() -> bytes:
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("model.gguf", b"GGUF" + bytes(100))
    return packed.getvalue()


def _safetensors() -> bytes:
    header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    return struct.pack("<Q", len(header)) + header + bytes(8)


CASES = {
    "a web page": (
        b"\n<!DOCTYPE html><html><head><title>404</title></head></html>",
        "it is a web page",
    ),
    "an LFS pointer": (
        b"version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n",
        "git lfs pull",
    ),
    "a ZIP": (_zip(), "it is a ZIP archive"),
    "a safetensors model": (_safetensors(), "convert_hf_to_gguf.py"),
    "an old GGML file": (b"tjgg" + bytes(100), "an old GGML file"),
}


@pytest.mark.parametrize(("content", "named"), CASES.values(), ids=CASES.keys())
def test_a_file_that_is_no_gguf_is_named_for_what_it_is(
    tmp_path: Path, content: bytes, named: str
) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(content)

    with pytest.raises(ModelFileInvalid) as caught:
        read_gguf_info(path)

    said = str(caught.value)
    assert "model.gguf is not a usable GGUF model file" in said
    assert named in said  # was: 'it does not start with the GGUF magic'
