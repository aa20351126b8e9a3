"""Round 35: ``reverie models add`` took a chat model whose own chat
template cannot format a conversation ("Added"), which every load then
refused.  Add checks it as the load does, on the vocabulary alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import load_settings
from tests.unit.models.tiny_gguf import tokenizer_metadata, write_tiny_gguf

BROKEN = {
    "a syntax error": ("{% for message in messages %}{{ message.content }}", "syntax error"),
    "a raise": ("{{ raise_exception('no system role') }}", "refuses to format"),
    "no conversation": ("{{ bos_token }}hello", "leaves the conversation out"),
}


@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_chat_template_that_cannot_format_a_conversation_is_refused_at_add(
    user_dirs: AppPaths,
    smollm2_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kind: str,
) -> None:
    template, reason = BROKEN[kind]
    broken = write_tiny_gguf(
        tmp_path / "broken.gguf",
        tokenizer_metadata(smollm2_path),
        tokenizer_chat_template=template,
    )

    assert main(["models", "add", str(broken)]) == 1
    said = capsys.readouterr().err
    assert "chat template in broken.gguf" in said and reason in said, said
    settings, _ = load_settings(user_dirs.settings_file)
    assert settings.models.added == ()


def test_a_chat_model_with_a_sound_template_is_still_added(
    user_dirs: AppPaths, smollm2_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sound = write_tiny_gguf(tmp_path / "sound.gguf", tokenizer_metadata(smollm2_path))

    assert main(["models", "add", str(sound)]) == 0
    assert "Added" in capsys.readouterr().out
