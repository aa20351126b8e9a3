"""Round 35 of the attacks on ``reverie models``: a model of an architecture
llama.cpp knows whose file lacks what its vocabulary needs (no token list,
no merges).

``add`` said its architecture, 'llama', was not one llama.cpp knows, and
to choose another architecture or update Reverie: neither helps.  The
reason llama.cpp gives is said now, with the way out for a damaged file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import load_settings
from tests.unit.models.tiny_gguf import tokenizer_metadata, write_tiny_gguf

LACKING = {
    "merges": ("tokenizer.ggml.merges",),
    "vocabulary": ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"),
}


@pytest.mark.parametrize("lacks", list(LACKING))
def test_a_known_architecture_without_its_vocabulary_is_refused_for_what_it_lacks(
    user_dirs: AppPaths,
    smollm2_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lacks: str,
) -> None:
    metadata = tokenizer_metadata(smollm2_path)
    for key in LACKING[lacks]:
        del metadata[key]
    damaged = write_tiny_gguf(tmp_path / "lacking.gguf", metadata)

    exit_code = main(["models", "add", str(damaged)])

    said = capsys.readouterr().err
    assert exit_code == 1
    assert "cannot find tokenizer merges" in said
    assert "not one this llama.cpp knows" not in said  # was: 'llama' is not one it knows
    assert "Download the model again" in said
    settings, _ = load_settings(user_dirs.settings_file)
    assert settings.models.added == ()
