"""Round 24 of the attacks on ``reverie models``: an empty model to estimate.

``reverie models estimate ""`` (a variable that was not set) answered
"reverie: . is a folder, not a .gguf model file": the empty path was read
as the current folder, a folder the user never named.  It is now refused
as ``models add ""`` is, saying what to give.
"""

from __future__ import annotations

import pytest

from desktop.app import main
from desktop.core.base.paths import AppPaths


@pytest.mark.parametrize("given", ["", "   "])
def test_an_empty_model_to_estimate_is_refused_saying_what_to_give(
    user_dirs: AppPaths, given: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["models", "estimate", given])

    assert ended.value.code == 2  # a usage error, as for `models add ""`
    err = capsys.readouterr().err
    assert "give the path of a .gguf file, or a catalog id" in err
    assert "is a folder" not in err
