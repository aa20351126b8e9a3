"""Opening a GGUF file with llama.cpp, with clear errors for bad files.

llama.cpp reports a missing, truncated or foreign file as a bare
``ValueError``/``RuntimeError`` (and sometimes only on stderr); this module
checks what it can first and turns every failure into ``ModelFileInvalid``
naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import llama_cpp

from models.errors import ModelFileInvalid

GGUF_MAGIC = b"GGUF"
_HEADER_BYTES = 24  # magic, version, tensor count, metadata count


def check_gguf_file(path: Path) -> None:
    """Raise ``ModelFileInvalid`` unless *path* looks like a GGUF file."""
    if not path.is_file():
        raise ModelFileInvalid(f"Model file not found: {path}.", "Choose an existing .gguf file.")
    try:
        with path.open("rb") as handle:
            header = handle.read(_HEADER_BYTES)
    except OSError as error:
        raise ModelFileInvalid(f"Cannot read model file {path}: {error.strerror}.") from error
    if len(header) < _HEADER_BYTES or not header.startswith(GGUF_MAGIC):
        raise ModelFileInvalid(
            f"{path.name} is not a GGUF model file (or it is truncated).",
            "Download the model again or choose another .gguf file.",
        )


def default_threads() -> int:
    """All usable cores but one (llama-cpp-python's own default is half of them).

    llama.cpp's threads wait for each other at every step, so a single thread
    pre-empted by another busy process stalls them all: with every core in use,
    generation ran ~50 times slower as soon as one other process was busy.
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (usable or 1) - 1)


def open_llama(path: Path, *, n_ctx: int, **params: Any) -> llama_cpp.Llama:
    """Load *path* with llama.cpp; every failure becomes ``ModelFileInvalid``."""
    check_gguf_file(path)
    params.setdefault("n_threads", default_threads())
    params.setdefault("n_threads_batch", default_threads())
    try:
        return llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, verbose=False, **params)
    except (ValueError, RuntimeError, OSError) as error:
        raise ModelFileInvalid(
            f"llama.cpp could not load {path.name}: {error}.",
            "The file may be corrupt or use an architecture this llama.cpp does not support.",
        ) from error
