"""Round 9: ``reverie models estimate FILE`` prints the file's own texts (its
name, architecture and size label) with their escapes made visible, never
raw to the terminal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gguf import GGUFWriter

from desktop.app import main

_ESCAPES = "\x1b]0;HACKED TITLE\x07\x1b[2J\x1b[31mFAKE: your model is fine\x1b[0m"


def _write(path: Path, *, size_label: str) -> Path:
    writer = GGUFWriter(path, "llama")
    writer.add_block_count(4)
    writer.add_context_length(2048)
    writer.add_embedding_length(64)
    writer.add_head_count(4)
    writer.add_token_list([f"t{i}" for i in range(100)])
    writer.add_string("general.size_label", size_label)
    writer.add_tensor("token_embd.weight", np.zeros((100, 64), np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_estimate_shows_the_escapes_of_the_files_metadata_and_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "chat\x1b[2J.gguf", size_label="135M" + _ESCAPES)

    assert main(["models", "estimate", str(path)]) == 0

    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out, ascii(out)
    assert "chat\\x1b[2J.gguf: a chat model (llama, 135M\\x1b]0;HACKED TITLE\\x07" in out
