"""Round 9 tests of loading a model with llama.cpp: the weights are read into
memory, so a file overwritten in place while loaded no longer kills the
process (SIGBUS), and every model opened on one unchanged file shares one
copy of the weights (a chat model's fork costs a context, not the weights
again).  Each runs in a child process: a failure here is a dead process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_ROOT = Path(__file__).parents[3]


def _run(script: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *arguments],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=_ROOT,
        env={**os.environ, "GGML_NO_BACKTRACE": "1"},  # an abort would otherwise try gdb
    )


_OVERWRITTEN = """
    import os, shutil, sys
    from pathlib import Path
    from models.interfaces import ChatMessage, GenerationOptions
    from models.llama_chat import LlamaChatModel

    path = Path(sys.argv[2])
    shutil.copyfile(sys.argv[1], path)
    model = LlamaChatModel(path, context_length=256)
    fork = model.fork()
    def reply(m):
        chunks = m.stream([ChatMessage("user", "hi")], GenerationOptions(max_tokens=4))
        return "".join(c.text for c in chunks)
    reply(model)
    with path.open("r+b") as file:  # what cp, curl -o and wget -O do: truncate, then write
        file.truncate(0)
        file.write(b"GGUF" + bytes(1000))
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    print("replies after the overwrite:", bool(reply(model)), bool(reply(fork)))
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_model_file_overwritten_in_place_while_loaded_does_not_kill_the_process(
    smollm2_path: Path, tmp_path: Path
) -> None:
    # Before: the weights were mapped from the file; the next reply died by SIGBUS.
    child = _run(_OVERWRITTEN, str(smollm2_path), str(tmp_path / "chat.gguf"))

    assert child.returncode == 0, f"the child died (exit {child.returncode})"
    assert "replies after the overwrite: True True" in child.stdout


_SHARED = """
    import shutil, sys
    from pathlib import Path
    from models.gguf_file import open_llama
    from models.llama_chat import LlamaChatModel

    path = Path(sys.argv[2])
    shutil.copyfile(sys.argv[1], path)
    chat = LlamaChatModel(path, context_length=256)
    fork = chat.fork()
    print("fork shares:", fork._llm.model is chat._llm.model)
    chat.close()  # the fork keeps the weights it shares
    print("fork after the chat closed:", len(fork.prompt_tokens([])) >= 0, fork.count_tokens("hi"))
    other = open_llama(path, n_ctx=64)
    print("a third shares:", other.model is fork._llm.model)
    shutil.copyfile(sys.argv[1], str(path) + ".new")
    Path(str(path) + ".new").replace(path)  # a new file at the same path
    fresh = open_llama(path, n_ctx=64)
    print("a changed file is loaded anew:", fresh.model is not fork._llm.model)
    for model in (fork, other, fresh):
        model.close()
    print("closed")
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_models_opened_on_one_file_share_one_copy_of_the_weights(
    smollm2_path: Path, tmp_path: Path
) -> None:
    # Before: each open mapped the file again (the pages shared by the system);
    # read into memory, they must be shared by Reverie instead.
    child = _run(_SHARED, str(smollm2_path), str(tmp_path / "chat.gguf"))

    assert child.returncode == 0, f"the child died (exit {child.returncode}): {child.stderr[-500:]}"
    assert "fork shares: True" in child.stdout
    assert "fork after the chat closed: True 1" in child.stdout
    assert "a third shares: True" in child.stdout
    assert "a changed file is loaded anew: True" in child.stdout
    assert "closed" in child.stdout
