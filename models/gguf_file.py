"""Opening a GGUF file with llama.cpp, with clear errors for bad files.

llama.cpp reports a missing, truncated or foreign file as a bare
``ValueError``/``RuntimeError`` (and sometimes only on stderr); this module
checks what it can first and turns every failure into ``ModelFileInvalid``
naming the file.
"""

from __future__ import annotations

import ctypes
import logging
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import llama_cpp
from llama_cpp import _internals, llama_chat_format

from models.chat_template import ChatTemplate
from models.errors import ModelFileInvalid
from models.gguf_info import read_gguf_info
from models.model_file import shown_path, shown_text, stat_model_file, unreadable_model_file

log = logging.getLogger("llama.cpp")

GGUF_MAGIC = b"GGUF"
_HEADER_BYTES = 24  # magic, version, tensor count, metadata count


def check_gguf_file(path: Path) -> None:
    """Raise ``ModelFileInvalid`` unless *path* looks like a GGUF file."""
    stat_model_file(path)
    try:
        with path.open("rb") as handle:
            header = handle.read(_HEADER_BYTES)
    except OSError as error:
        raise unreadable_model_file(path, error) from error
    if len(header) < _HEADER_BYTES or not header.startswith(GGUF_MAGIC):
        raise ModelFileInvalid(
            f"{path.name} is not a GGUF model file (or it is truncated).",
            "Download the model again or choose another .gguf file.",
        )


def check_loadable(path: Path) -> None:
    """Raise ``ModelFileInvalid`` unless llama.cpp knows the architecture of
    *path*'s model (a model newer than Reverie's llama.cpp is the usual
    case) and a chat model's own chat template can format a conversation
    (its load would refuse it: ``LlamaChatModel``), found by loading its
    vocabulary alone: a header read says nothing of it, and the weights are
    not needed (SmolLM2's: 0.13 s)."""
    info = read_gguf_info(path)
    llama_cpp.llama_log_set(_route_llama_log, ctypes.c_void_p(0))
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    errors: list[str] = []
    with _errors_said(errors):
        model = llama_cpp.llama_model_load_from_file(os.fsencode(path), params)
    if not model:
        if (reason := _why_not_loaded(errors)) is not None:
            raise ModelFileInvalid(
                f"llama.cpp cannot load {shown_path(path.name)}: {reason}.", _HINT
            )
        raise ModelFileInvalid(
            f"llama.cpp cannot load {shown_path(path.name)}: its architecture, "
            f"'{shown_text(info.architecture)}', is not one this llama.cpp knows "
            "(or its description of it is damaged).",
            "Choose a model of another architecture, or update Reverie.",
        )
    try:
        if not info.is_embedding and (template := chat_template(model, path.name)) is not None:
            template.check()
    finally:
        llama_cpp.llama_model_free(model)


def chat_template(model: Any, file_name: str) -> ChatTemplate | None:
    """The chat template of llama.cpp's *model* (loaded from *file_name*),
    or None if it has none."""
    source = llama_cpp.llama_model_chat_template(model, None)
    if not source:
        return None
    vocab = llama_cpp.llama_model_get_vocab(model)

    def text(token: int) -> str:
        if token == -1:  # the model has none
            return ""
        return str(llama_cpp.llama_vocab_get_text(vocab, token).decode(errors="replace"))

    return ChatTemplate(
        source.decode(errors="replace"),
        file_name=file_name,
        bos_token=text(llama_cpp.llama_vocab_bos(vocab)),
        eos_token=text(llama_cpp.llama_vocab_eos(vocab)),
    )


_LOAD_ERROR = re.compile(r"error loading model: (.+)")
"""llama.cpp's reason a load failed, as it logs it."""
_HINT = "Download the model again or choose another .gguf file."


def _why_not_loaded(errors: list[str]) -> str | None:
    """llama.cpp's reason, among *errors*, a file of an architecture it knows
    did not load (a vocabulary or a split part missing), shown; None if it
    gave none, or the architecture is what it does not know."""
    reason = next(filter(None, map(_LOAD_ERROR.search, errors)), None)
    if reason is None or reason[1].startswith("unknown model architecture"):
        return None
    return shown_text(reason[1])


_said = threading.local()
"""The errors llama.cpp logs on this thread while ``_errors_said`` listens
(it logs on the thread that called it)."""


@contextmanager
def _errors_said(errors: list[str]) -> Iterator[None]:
    """Put the lines llama.cpp logs as errors on this thread meanwhile in *errors*."""
    _said.errors = errors
    try:
        yield
    finally:
        _said.errors = None


def default_threads() -> int:
    """Every usable core (llama-cpp-python's own default is half of them).

    On an idle 2-core machine two threads generate 1.7x and read prompts 2x
    faster than one.  The cost: llama.cpp's threads wait for each other at
    every step, so another process keeping a core busy slows generation
    badly; users who run heavy work beside Reverie can lower the thread count
    in the settings (``models.threads``).
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, usable or 1)


# ggml_log_level (ggml.h): DEBUG=1, INFO=2, WARN=3, ERROR=4, CONT=5 continues
# the previous line.  llama.cpp's warnings are diagnostics for developers
# (e.g. "n_ctx_seq > n_ctx_train"), never something a user acts on, so they
# go to the log file at INFO, not to the console.
_LEVELS = {1: logging.DEBUG, 2: logging.DEBUG, 3: logging.INFO, 4: logging.ERROR}
_CONTINUATION = 5
_last_level = [logging.DEBUG]
# What llama.cpp says of a decode Reverie stopped on purpose (Stop, a user
# turn cutting background work): ggml's status 1 is GGML_STATUS_ABORTED and
# llama_decode's 2 is "aborted".  An abort asked for is no error.
_ABORTED = re.compile(r"(?:failed with error 1|compute status: 1|failed to decode, ret = 2)$")


@llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]  # ctypes callback factory
def _route_llama_log(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
    # llama-cpp-python's own callback prints warnings to stderr even with
    # verbose=False (it maps ggml's levels wrongly); route them to logging.
    if level != _CONTINUATION:
        _last_level[0] = _LEVELS.get(level, logging.DEBUG)
    message = text.decode("utf-8", errors="replace").rstrip()
    if message:
        level = logging.DEBUG if _ABORTED.search(message) else _last_level[0]
        log.log(level, "%s", message)
        if level == logging.ERROR and (errors := getattr(_said, "errors", None)) is not None:
            errors.append(message)


class _CompiledWhenUsed:
    """Stands in for llama-cpp-python's Jinja2ChatFormatter while a model
    loads: the template is compiled only if ``create_chat_completion`` is
    ever called (by a comparison test or a benchmark, never by Reverie)."""

    def __init__(self, **arguments: Any) -> None:
        self._arguments = arguments

    def to_chat_handler(self) -> Any:
        def handler(*args: Any, **kwargs: Any) -> Any:
            formatter = _ORIGINAL_FORMATTER(**self._arguments)
            return formatter.to_chat_handler()(*args, **kwargs)

        return handler


_ORIGINAL_FORMATTER = llama_chat_format.Jinja2ChatFormatter
_loading_lock = threading.Lock()
_loading = [0]


@contextmanager
def _chat_templates_not_compiled() -> Iterator[None]:
    """Keep llama-cpp-python from compiling the file's chat templates.

    ``Llama()`` compiles every template in the metadata, for its
    ``create_chat_completion`` (which Reverie never calls), in a plain sandbox
    that folds constants while compiling: a hostile ``"x" * 3000000000`` in a
    branch never taken costs gigabytes at load.  Reverie renders the
    template itself, within bounds (``models.chat_template``).  While
    loading, the model itself comes from ``_shared_weights``.  Counted, so
    models loading at once on two threads restore the originals only when
    the last one is done.
    """
    with _loading_lock:
        if _loading[0] == 0:
            llama_chat_format.Jinja2ChatFormatter = _CompiledWhenUsed  # type: ignore[misc,assignment]  # a stand-in for loading only
            _internals.LlamaModel = _shared_weights  # type: ignore[misc,assignment]  # see _SharedWeights
        _loading[0] += 1
    try:
        yield
    finally:
        with _loading_lock:
            _loading[0] -= 1
            if _loading[0] == 0:
                llama_chat_format.Jinja2ChatFormatter = _ORIGINAL_FORMATTER  # type: ignore[misc]  # restored
                _internals.LlamaModel = _ORIGINAL_MODEL  # type: ignore[misc]  # restored


# -- weights read into memory, shared ------------------------------------------------
# llama.cpp maps the weights from the file by default (use_mmap): a file
# overwritten in place while loaded (``cp new.gguf chat.gguf``, ``curl -o``,
# ``wget -O`` all truncate it first) then kills the whole process with SIGBUS
# at its next reply.  Reverie reads the weights into its own memory instead
# (``use_mmap=False``), so the file may change or vanish once loaded.  Measured
# with SmolLM2 (94 MB): the same resident memory (129 MB), a load 30 ms slower.
# A mapped file was shared by the chat model and its fork (a second context
# for background work); copied weights would be held twice, so every model
# opened on the same unchanged file shares one llama.cpp model instead.
_ORIGINAL_MODEL = _internals.LlamaModel
_weights_lock = threading.Lock()
_weights: dict[tuple[object, ...], _SharedWeights] = {}


class _SharedWeights:
    """One llama.cpp model (the weights) under every ``Llama`` opened on the
    same file; freed when the last of them closes.  Stands in for
    llama-cpp-python's ``LlamaModel``, whose attributes it passes through.
    The contexts sharing it (a chat model and its fork) live on one lane,
    which runs one job at a time, so they never decode at once."""

    def __init__(self, model: Any, key: tuple[object, ...]) -> None:
        self._model = model
        self._key = key
        self.users = 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def close(self) -> None:
        with _weights_lock:
            if self.users == 0:
                return
            self.users -= 1
            if self.users:
                return
            if _weights.get(self._key) is self:
                del _weights[self._key]
        self._model.close()


def _shared_weights(*, path_model: str, params: Any, verbose: bool = True) -> _SharedWeights:
    """What ``Llama()`` gets for its model while Reverie loads one: the
    weights already loaded from this very file (same inode, size and time),
    or a new load."""
    status = os.stat(path_model)
    key = (
        path_model,
        status.st_dev,
        status.st_ino,
        status.st_size,
        status.st_mtime_ns,
        params.load_mode,
        params.n_gpu_layers,
        params.vocab_only,
    )
    with _weights_lock:
        shared = _weights.get(key)
        if shared is not None:
            shared.users += 1
            return shared
    model: Any = _ORIGINAL_MODEL(path_model=path_model, params=params, verbose=verbose)
    with _weights_lock:
        shared = _weights.get(key)
        if shared is None:  # the usual case: nobody loaded it meanwhile
            shared = _weights[key] = _SharedWeights(model, key)
            return shared
        shared.users += 1
    model.close()
    return shared


def open_llama(path: Path, *, n_ctx: int, **params: Any) -> llama_cpp.Llama:
    """Load *path* with llama.cpp; every failure becomes ``ModelFileInvalid``.

    The whole header is read first (``read_gguf_info``): metadata llama.cpp
    asserts on would abort the process, not fail the load.
    """
    llama_cpp.llama_log_set(_route_llama_log, ctypes.c_void_p(0))
    read_gguf_info(path)
    params.setdefault("n_threads", default_threads())
    params.setdefault("n_threads_batch", default_threads())
    params.setdefault("use_mmap", False)  # see _SharedWeights
    errors: list[str] = []
    try:
        with _chat_templates_not_compiled(), _errors_said(errors):
            return llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, verbose=False, **params)
    except (ValueError, RuntimeError, OSError) as error:
        if (reason := _why_not_loaded(errors)) is not None:
            raise ModelFileInvalid(
                f"llama.cpp could not load {path.name}: {reason}.", _HINT
            ) from error
        raise ModelFileInvalid(
            f"llama.cpp could not load {path.name}: {error}.",
            "The file may be corrupt or use an architecture this llama.cpp does not support.",
        ) from error
