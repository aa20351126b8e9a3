"""Round 31 of the attacks on ``reverie models``: a model of an architecture
llama.cpp does not know (a model newer than Reverie's llama.cpp).

Its header reads as any GGUF's, so ``add`` said it fits and how to use it,
and ``use`` chose it; it failed only when the role loaded it.  Both now say
at once that llama.cpp cannot load it, and why (``estimate`` still sizes
it: it chooses nothing).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import ModelSettings, load_settings
from tests.unit.models.tiny_gguf import tokenizer_metadata, write_tiny_gguf


@pytest.fixture
def unknown(smollm2_path: Path, tmp_path: Path) -> Path:
    """A tiny model of llama's shape whose architecture is called 'frobnicator'."""
    metadata = tokenizer_metadata(smollm2_path)
    return write_tiny_gguf(tmp_path / "frob.gguf", metadata, architecture="frobnicator")


@pytest.mark.parametrize(
    "action",
    [["add"], ["use"], ["use", "--role", "background"]],
    ids=["add", "use", "use for background work"],
)
def test_a_model_of_an_architecture_llama_cpp_does_not_know_is_refused_at_once(
    user_dirs: AppPaths, unknown: Path, capsys: pytest.CaptureFixture[str], action: list[str]
) -> None:
    exit_code = main(["models", *action, str(unknown)])

    said = capsys.readouterr()
    assert exit_code == 1  # was 0: 'Added frob.gguf (chat model) ... Use it with'
    assert "its architecture, 'frobnicator', is not one this llama.cpp knows" in said.err
    assert "Use it with" not in said.out
    settings, _ = load_settings(user_dirs.settings_file)
    assert settings.models.added == ()
    assert settings.models.chat == ModelSettings().chat  # nothing chosen
