"""Round 35: a model file whose path holds a character that reorders or
hides text is refused, and now the message names the file and the way out.

"the model name holds an invisible or control character (U+202E)" named
neither the file nor what to do.  The path is shown with each such
character written as its code (shown as it is, it would reorder the very
path the message names), then "rename the file without it".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import Backend


def test_a_model_path_with_a_direction_override_is_named_with_the_way_out(
    user_dirs: AppPaths, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hidden = tmp_path / "tulip\u202egguf.\u202csmol.gguf"
    hidden.write_bytes(b"GGUF")

    assert main(["models", "add", str(hidden)]) == 1
    said = capsys.readouterr().err
    assert f"{tmp_path}/tulip<U+202E>gguf.<U+202C>smol.gguf" in said
    assert "rename the file without it" in said
    assert "\u202e" not in said and "\u202c" not in said


def test_a_server_model_name_is_shown_with_its_codes_too() -> None:
    with pytest.raises(ValueError, match=r"model name holds .*: qwen<U\+200B>2\.5"):
        Backend(kind="server", url="http://127.0.0.1:8080/v1", model="qwen\u200b2.5")
