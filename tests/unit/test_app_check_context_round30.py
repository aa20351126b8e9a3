"""Round 30 of issue 15: a local chat model given more context than it was
trained for.

``models.context_length`` past the chat model's own training context (16,384
for SmolLM2, trained for 8,192; the default 4,096 for an older model trained
for 2,048) was given to llama.cpp as it was: replies in long conversations
come out garbled past the trained length, and only llama.cpp's line in the
log said why.  ``reverie --check`` (and the Models page's word on the role)
now names the model's trained context and the setting to lower.
"""

from __future__ import annotations

import json

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths


def test_check_names_a_context_longer_than_the_chat_model_was_trained_for(
    user_dirs: AppPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    user_dirs.settings_file.parent.mkdir(parents=True, exist_ok=True)
    user_dirs.settings_file.write_text(
        json.dumps({"models": {"context_length": 16384}}), encoding="utf-8"
    )

    assert main(["--check", "--prompt", "Hi."]) == 1

    problems = [line for line in capsys.readouterr().err.splitlines() if "problem:" in line]
    [overrun] = [line for line in problems if "trained for" in line]
    assert "trained for 8,192 tokens of context" in overrun
    assert "16,384" in overrun and "models.context_length" in overrun
