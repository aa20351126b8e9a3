"""Round 34: a model file whose weights are damaged (the header whole, some
weights not numbers) is refused with a message naming the file, never the
cause of a dead process or of vectors nothing can be found with.

llama.cpp reads no checksum, so such a file loads; its numbers are NaN.
The chat model then sampled a token its answer's grammar refuses, and
llama.cpp threw from ``llama_sampler_accept``: the process aborted (every
dream pass and harvest asks under a grammar).  The chat model runs in a
child process: a failure here is a dead process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from models.errors import ModelFileInvalid
from models.llama_embedder import LlamaEmbedder

_ROOT = Path(__file__).parents[3]
_NAN_HALVES = b"\xff\xff"
"""A half-precision NaN: each block's scale in Q4_1, each weight in F16."""


def _with_nan_weights(source: Path, path: Path) -> Path:
    """A copy of *source* at *path* whose last weights are NaN over 100 kB,
    as a bad sector or a broken download leaves them."""
    shutil.copyfile(source, path)
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.seek(size - 200_000)
        file.write(_NAN_HALVES * 50_000)
    return path


_LOAD = """
    import sys
    from pathlib import Path
    from models.errors import ModelFileInvalid
    from models.llama_chat import LlamaChatModel

    try:
        LlamaChatModel(Path(sys.argv[1]), context_length=256)
    except ModelFileInvalid as error:
        print("refused:", error)
"""


def test_a_chat_model_with_nan_weights_is_refused_at_load_not_the_death_of_the_process(
    smollm2_path: Path, tmp_path: Path
) -> None:
    """Refused when loaded, so a role switched to it keeps the model it had
    (before: it loaded, and its first answer under a schema aborted)."""
    path = _with_nan_weights(smollm2_path, tmp_path / "damaged.gguf")
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_LOAD), str(path)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=_ROOT,
        env={**os.environ, "GGML_NO_BACKTRACE": "1"},  # an abort would otherwise try gdb
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("refused: damaged.gguf is damaged: ")
    assert "Download the model again or choose another .gguf file." in done.stdout


def test_an_embedding_model_with_nan_weights_is_refused_at_load(
    minilm_path: Path, tmp_path: Path
) -> None:
    """Refused when loaded, so a role switched to it keeps the model it had."""
    path = _with_nan_weights(minilm_path, tmp_path / "damaged.gguf")

    with pytest.raises(ModelFileInvalid) as refused:
        LlamaEmbedder(path)

    assert str(refused.value).startswith("damaged.gguf ")
    assert refused.value.hint == "Download the model again or choose another .gguf file."
