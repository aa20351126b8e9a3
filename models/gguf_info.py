"""What a GGUF model file is, read from its header alone.

``read_gguf_info`` parses the GGUF header (metadata and tensor table) from a
memory map and never touches the weights, so a multi-GB file is read in
milliseconds.  It does not use ``gguf.GGUFReader``: that reader builds a numpy
array for every tokenizer entry (2 s for SmolLM2's 49k-token vocabulary
against 45 ms here, far more for 150k-token ones) and, given an array that
claims billions of entries, loops over them even past the end of the
file.  Here every count is checked against the bytes left before anything
is looped over, and the whole header's work is bounded (``_MAX_HEADER_ITEMS``),
so every bad file fails at once with ``ModelFileInvalid``.  So does metadata
llama.cpp would abort the whole process on (``_check_llama_asserts``), and a
vocabulary its tokenizer would abort or loop forever on (``models.gguf_vocab``):
every load goes through here first (``models.gguf_file.open_llama``).  The file's
own texts (name, size label, architecture) come out with control characters
made visible, as messages and the command line show them.
The ``gguf`` package still supplies the format's constants (value types,
tensor types and their sizes, file-type names).

What a model needs in memory is ``models.memory_estimate``'s, from the
``ModelShape`` read here.
"""

from __future__ import annotations

import math
import mmap
import os
import struct
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from gguf import GGML_QUANT_SIZES, GGMLQuantizationType, GGUFValueType, LlamaFileType

from models.errors import ModelFileInvalid
from models.gguf_vocab import vocabulary_problem
from models.model_file import shown_path, shown_text, stat_model_file, unreadable_model_file

GGUF_MAGIC = b"GGUF"
_SUPPORTED_VERSIONS = (2, 3)  # what llama.cpp reads; version 1 had 32-bit counts
_MAX_DIMS = 4  # GGML_MAX_DIMS
_MAX_LAYERS = 512  # LLAMA_MAX_LAYERS: llama.cpp refuses more
_DEFAULT_ALIGNMENT = 32
_MAX_NAME = 65535  # the longest key GGUF allows; tensor names are far shorter
_MAX_DECODED_STRING = 1 << 20
"""Longer metadata strings (a whole tokenizer.json, in some old files) are
skipped, never copied into memory."""
_MAX_DECODED_ARRAY = 4096
"""Numeric arrays up to this length are decoded (per-layer values); longer
ones (token scores, token types) are only counted."""
_MAX_ARRAY_ENTRIES = 1 << 22
"""No real array comes close (the largest vocabularies have ~260k tokens and
~500k merges); a larger claim over a sparse hole would otherwise be walked
string by string for minutes."""
_MAX_HEADER_ITEMS = 1 << 21
"""Strings in arrays, metadata entries and tensors walked in one header, all
arrays together: real models need under a million (tokens plus merges), and
this many are walked in about half a second.  Each array alone within
``_MAX_ARRAY_ENTRIES`` is not enough: a sparse file holds as many arrays of
empty strings as its apparent size allows, at no cost on disk."""
_INT32_MAX = 2**31 - 1
"""llama-cpp-python reads the model's sizes (``n_ctx_train``, ``n_embd``,
``n_vocab``) as C ``int``: a larger value comes back negative."""
_MAX_CONTEXT = 1 << 24
"""The longest training context a model may claim (16M tokens; the longest
real ones claim 10M): llama-cpp-python allocates a buffer that long at each
``tokenize``, 4 GB a call for a claim of 2**30."""
_TOKENS_KEY = "tokenizer.ggml.tokens"
_MAX_TOKENS = 1 << 20
"""Four times the largest vocabulary (262k): each token's text is hashed to
find repeats (about 1.5 µs a token), so a claim of millions would take seconds."""

_HINT = "Download the model again or choose another .gguf file."

# Architectures whose llama.cpp graph keeps no KV cache (llama_model::create_memory
# returns none for them): encoders and diffusion models.
_CACHELESS_ARCHITECTURES = frozenset(
    [
        "bert",
        "jina-bert-v2",
        "jina-bert-v3",
        "nomic-bert",
        "nomic-bert-moe",
        "neo-bert",
        "modern-bert",
        "gemma-embedding",
        "wavtokenizer-dec",
        "dream",
        "llada",
        "llada-moe",
        "rnd1",
    ]
)
# Architectures that only ever embed (gguf's MODEL_ARCH_NAMES for encoders and embedders).
_EMBEDDING_ARCHITECTURES = frozenset(
    [
        "bert",
        "modern-bert",
        "nomic-bert",
        "nomic-bert-moe",
        "neo-bert",
        "jina-bert-v2",
        "jina-bert-v3",
        "eurobert",
        "gemma-embedding",
        "t5encoder",
        "llama-embed",
    ]
)
_POOLING_NONE = 0


@dataclass(frozen=True)
class ModelShape:
    """The numbers llama.cpp's KV cache and compute buffers depend on.

    ``layers`` counts the layers that attend (all of them, except in hybrid
    models whose per-layer KV head counts are zero for recurrent layers);
    ``kv_heads`` is 0 for architectures that keep no KV cache (BERT-style
    encoders).  ``heads`` (query heads) is 0 when unknown and is then taken
    as ``embedding_length // key_length``, true of most models but not all
    (Gemma, Qwen3's small models).
    """

    layers: int
    kv_heads: int
    key_length: int
    value_length: int
    embedding_length: int
    vocab_size: int
    heads: int = 0

    def kv_bytes_per_token(self, bytes_per_value: int = 2) -> int:
        """KV cache bytes one token of context costs (``2`` bytes: llama.cpp's f16 cache)."""
        return self.layers * self.kv_heads * (self.key_length + self.value_length) * bytes_per_value

    @property
    def attention_heads(self) -> int:
        if self.heads:
            return self.heads
        return self.embedding_length // self.key_length if self.key_length else 0


@dataclass(frozen=True)
class GgufInfo:
    """What the header of a GGUF file says about the model in it."""

    path: Path
    architecture: str
    name: str
    """``general.name``, or the file's stem."""
    parameters: int
    """Counted from the tensor table."""
    size_label: str
    """``general.size_label`` (e.g. "135M"), or the parameter count rounded."""
    quantization: str
    """The file type ("Q4_K_M"), or the tensor type holding most bytes ("Q4_K")."""
    context_length: int
    """The context the model was trained for."""
    is_embedding: bool
    has_chat_template: bool
    shape: ModelShape
    tensor_bytes: int
    file_size: int


# -- reading the header ----------------------------------------------------------
class _Malformed(Exception):
    """The header breaks the GGUF format; the message says where."""


@dataclass(frozen=True)
class _Array:
    count: int
    values: tuple[int | float | bool, ...] | None
    """Decoded for short numeric arrays only."""
    item_type: int = -1
    texts: AbstractSet[bytes] = frozenset()
    """For the token list: the token texts as llama.cpp keys them (``token_texts``)."""
    repeated: bytes | None = None
    """For the token list: a text two tokens share (``token_texts``)."""


@dataclass(frozen=True)
class _LongString:
    length: int


_Value = int | float | bool | str | _Array | _LongString


@dataclass(frozen=True)
class _Tensor:
    name: str
    type: GGMLQuantizationType
    elements: int
    nbytes: int
    offset: int


_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_SCALARS: dict[int, struct.Struct] = {
    GGUFValueType.UINT8: struct.Struct("<B"),
    GGUFValueType.INT8: struct.Struct("<b"),
    GGUFValueType.UINT16: struct.Struct("<H"),
    GGUFValueType.INT16: struct.Struct("<h"),
    GGUFValueType.UINT32: _U32,
    GGUFValueType.INT32: struct.Struct("<i"),
    GGUFValueType.FLOAT32: struct.Struct("<f"),
    GGUFValueType.BOOL: struct.Struct("<?"),
    GGUFValueType.UINT64: _U64,
    GGUFValueType.INT64: struct.Struct("<q"),
    GGUFValueType.FLOAT64: struct.Struct("<d"),
}
_STRING = int(GGUFValueType.STRING)
_ARRAY = int(GGUFValueType.ARRAY)
_FLOAT32 = int(GGUFValueType.FLOAT32)
_INT32 = int(GGUFValueType.INT32)
_MIN_KV_BYTES = 8 + 4 + 1  # key length, value type, the smallest value
_MIN_TENSOR_INFO_BYTES = 8 + 4 + 4 + 8  # name length, dims count, type, offset


class _Cursor:
    """Reads little-endian values from *data*, never past its end."""

    def __init__(self, data: mmap.mmap) -> None:
        self._data = data
        self.offset = 0
        self._items_left = _MAX_HEADER_ITEMS

    def spend(self, items: int, what: str) -> None:
        """Count *items* against the header's bound on work (``_MAX_HEADER_ITEMS``)."""
        self._items_left -= items
        if self._items_left < 0:
            raise _Malformed(f"{what} takes the header past {_MAX_HEADER_ITEMS} entries")

    @property
    def remaining(self) -> int:
        return len(self._data) - self.offset

    def skip(self, size: int, what: str) -> None:
        if size > self.remaining:
            raise _Malformed(f"{what} runs past the end of the file")
        self.offset += size

    def scalar(self, fmt: struct.Struct, what: str) -> int | float | bool:
        start = self.offset
        self.skip(fmt.size, what)
        value: int | float | bool = fmt.unpack_from(self._data, start)[0]
        return value

    def count(self, what: str) -> int:
        return int(self.scalar(_U64, what))

    def text(self, what: str) -> str:
        start, length = self._string_bounds(what)
        if length > _MAX_NAME:
            raise _Malformed(f"{what} of {length} bytes is longer than GGUF allows")
        return self._data[start : start + length].decode("utf-8", errors="replace")

    def string_value(self, what: str) -> str | _LongString:
        start, length = self._string_bounds(what)
        if length > _MAX_DECODED_STRING:
            return _LongString(length)
        return self._data[start : start + length].decode("utf-8", errors="replace")

    def _string_bounds(self, what: str) -> tuple[int, int]:
        length = self.count(what)
        start = self.offset
        self.skip(length, what)
        return start, length

    def skip_strings(self, count: int, what: str) -> None:
        """Step over *count* strings (a tight loop: an array may hold 500k)."""
        data, offset, end, unpack = self._data, self.offset, len(self._data), _U64.unpack_from
        for _ in range(count):
            if offset + 8 > end:
                raise _Malformed(f"{what} runs past the end of the file")
            offset += 8 + unpack(data, offset)[0]
        if offset > end:
            raise _Malformed(f"{what} runs past the end of the file")
        self.offset = offset

    def token_texts(self, count: int, what: str) -> tuple[set[bytes], bytes | None]:
        """Step over *count* token texts: the texts as llama.cpp keys them, and
        the first it would see twice (or None).  llama.cpp reads each as a C
        string (up to its first NUL) and names an empty one ``[EMPTY_<index>]``
        (llama-vocab.cpp), then asserts that no two are equal: a repeat
        aborts the process."""
        data, offset, end, unpack = self._data, self.offset, len(self._data), _U64.unpack_from
        seen: set[bytes] = set()
        repeated: bytes | None = None
        for index in range(count):
            if offset + 8 > end:
                raise _Malformed(f"{what} runs past the end of the file")
            start = offset + 8
            offset = start + unpack(data, offset)[0]
            if offset > end:
                raise _Malformed(f"{what} runs past the end of the file")
            text = data[start:offset].partition(b"\0")[0] or b"[EMPTY_%d]" % index
            if repeated is None and text in seen:
                repeated = text
            seen.add(text)
        self.offset = offset
        return seen, repeated


def _read_value(cursor: _Cursor, value_type: int, key: str) -> _Value:
    if value_type == _STRING:
        return cursor.string_value(key)
    if value_type == _ARRAY:
        return _read_array(cursor, key)
    fmt = _SCALARS.get(value_type)
    if fmt is None:
        raise _Malformed(f"{key} has unknown value type {value_type}")
    return cursor.scalar(fmt, key)


def _read_array(cursor: _Cursor, key: str) -> _Array:
    item_type = int(cursor.scalar(_U32, key))
    count = cursor.count(key)
    if item_type == _STRING:
        _check_count(count, 8, cursor, key)
        cursor.spend(count, key)
        if key == _TOKENS_KEY:
            if count > _MAX_TOKENS:
                raise _Malformed(f"{key} claims {count} tokens, more than any model has")
            texts, repeated = cursor.token_texts(count, key)
            return _Array(count, None, item_type, texts, repeated)
        cursor.skip_strings(count, key)
        return _Array(count, None, item_type)
    fmt = _SCALARS.get(item_type)
    if fmt is None:  # llama.cpp reads no nested arrays either
        raise _Malformed(f"{key} is an array of unsupported type {item_type}")
    _check_count(count, fmt.size, cursor, key)
    if count > _MAX_DECODED_ARRAY:
        cursor.skip(count * fmt.size, key)
        return _Array(count, None, item_type)
    return _Array(count, tuple(cursor.scalar(fmt, key) for _ in range(count)), item_type)


def _check_count(count: int, item_bytes: int, cursor: _Cursor, what: str) -> None:
    if count * item_bytes > cursor.remaining:
        raise _Malformed(f"{what} claims {count} entries and runs past the end of the file")
    if count > _MAX_ARRAY_ENTRIES:
        raise _Malformed(f"{what} claims {count} entries, more than any model has")


def _read_metadata(cursor: _Cursor, count: int) -> dict[str, _Value]:
    _check_count(count, _MIN_KV_BYTES, cursor, "the metadata")
    metadata: dict[str, _Value] = {}
    for _ in range(count):
        cursor.spend(1, "the metadata")
        key = cursor.text("a metadata key")
        if key in metadata:
            raise _Malformed(f"the metadata key {key!r} appears twice")
        metadata[key] = _read_value(cursor, int(cursor.scalar(_U32, key)), key)
    return metadata


def _read_tensor_infos(cursor: _Cursor, count: int) -> list[_Tensor]:
    _check_count(count, _MIN_TENSOR_INFO_BYTES, cursor, "the tensor table")
    tensors: list[_Tensor] = []
    names: set[str] = set()
    for _ in range(count):
        cursor.spend(1, "the tensor table")
        tensor = _read_tensor_info(cursor)
        if tensor.name in names:
            raise _Malformed(f"the tensor {tensor.name!r} appears twice")
        names.add(tensor.name)
        tensors.append(tensor)
    return tensors


def _read_tensor_info(cursor: _Cursor) -> _Tensor:
    name = cursor.text("a tensor name")
    n_dims = int(cursor.scalar(_U32, name))
    if n_dims > _MAX_DIMS:
        raise _Malformed(f"the tensor {name!r} has {n_dims} dimensions")
    dims = [cursor.count(name) for _ in range(n_dims)]
    raw_type = int(cursor.scalar(_U32, name))
    offset = cursor.count(name)
    try:
        tensor_type = GGMLQuantizationType(raw_type)
        block_size, type_size = GGML_QUANT_SIZES[tensor_type]
    except (ValueError, KeyError):
        raise _Malformed(f"the tensor {name!r} has unknown type {raw_type}") from None
    if dims and dims[0] % block_size:
        raise _Malformed(f"the tensor {name!r} does not fill whole {tensor_type.name} blocks")
    elements = math.prod(dims)
    return _Tensor(name, tensor_type, elements, elements // block_size * type_size, offset)


def _check_tensor_data(tensors: list[_Tensor], data_start: int, file_size: int, align: int) -> None:
    for tensor in tensors:
        if tensor.offset % align:
            raise _Malformed(f"the tensor {tensor.name!r} is not aligned")
        if data_start + tensor.offset + tensor.nbytes > file_size:
            raise _Malformed(f"the tensor {tensor.name!r} lies past the end of the file")


def _alignment(metadata: Mapping[str, _Value]) -> int:
    align = metadata.get("general.alignment", _DEFAULT_ALIGNMENT)
    if type(align) is not int or align <= 0 or align & (align - 1):
        raise _Malformed(f"general.alignment {align!r} is not a power of two")
    return align


_OTHER_FORMATS = (
    (b"<!doctype html", "it is a web page (a download that saved an error or sign-in page)"),
    (b"<html", "it is a web page (a download that saved an error or sign-in page)"),
    (
        b"version https://git-lfs",
        "it is a Git LFS pointer, not the model: the repository was cloned without its "
        "large files (run git lfs pull there, or download the file itself)",
    ),
    (b"PK\x03\x04", "it is a ZIP archive (a model inside must be unpacked first)"),
    (b"lmgg", "it is an old GGML file, which llama.cpp no longer reads (get its GGUF version)"),
    (b"tjgg", "it is an old GGML file, which llama.cpp no longer reads (get its GGUF version)"),
    (b"fmgg", "it is an old GGML file, which llama.cpp no longer reads (get its GGUF version)"),
)
"""What a file that is no GGUF often is instead, by how it starts."""


def _not_gguf(start: bytes) -> str:
    """Why a file starting with *start* (not the GGUF magic) is no GGUF, in words."""
    lowered = start.lstrip().lower()
    for opening, what in _OTHER_FORMATS:
        if lowered.startswith(opening.lower()):
            return what
    header = int.from_bytes(start[:8], "little")
    if len(start) > 8 and 0 < header < 100_000_000 and start[8:9] == b"{":
        return (
            "it is a safetensors file, a model for other tools (get the model's GGUF "
            "version, or convert it with llama.cpp's convert_hf_to_gguf.py)"
        )
    return "it does not start with the GGUF magic"


def _parse(data: mmap.mmap) -> tuple[dict[str, _Value], list[_Tensor]]:
    cursor = _Cursor(data)
    if data[:4] != GGUF_MAGIC:
        raise _Malformed(_not_gguf(data[:64]))
    cursor.skip(4, "the magic")
    version = int(cursor.scalar(_U32, "the version"))
    if version not in _SUPPORTED_VERSIONS:
        raise _Malformed(f"its GGUF version ({version}) is not one llama.cpp reads")
    tensor_count = cursor.count("the tensor count")
    kv_count = cursor.count("the metadata count")
    metadata = _read_metadata(cursor, kv_count)
    tensors = _read_tensor_infos(cursor, tensor_count)
    align = _alignment(metadata)
    data_start = -(-cursor.offset // align) * align
    _check_tensor_data(tensors, data_start, len(data), align)
    return metadata, tensors


# -- interpreting it ---------------------------------------------------------------
def read_gguf_info(path: Path) -> GgufInfo:
    """Read *path*'s header; ``ModelFileInvalid`` for anything llama.cpp could not load."""
    stat_model_file(path)
    try:
        with path.open("rb") as handle:
            file_size = os.fstat(handle.fileno()).st_size
            if file_size < 4:
                raise _Malformed("it is empty or too short")
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                metadata, tensors = _parse(data)
    except OSError as error:
        raise unreadable_model_file(path, error) from error
    except _Malformed as error:
        raise ModelFileInvalid(
            f"{shown_path(path.name)} is not a usable GGUF model file: {shown_text(str(error))}.",
            _HINT,
        ) from error
    return _interpret(path, file_size, metadata, tensors)


def _interpret(
    path: Path, file_size: int, metadata: Mapping[str, _Value], tensors: list[_Tensor]
) -> GgufInfo:
    architecture = metadata.get("general.architecture")
    if not isinstance(architecture, str) or not architecture:
        raise ModelFileInvalid(
            f"{shown_path(path.name)} does not say its model architecture.", _HINT
        )
    keys = _ArchKeys(path, architecture, metadata)
    _check_llama_asserts(keys, metadata)
    has_template = bool(metadata.get("tokenizer.chat_template"))
    parameters = sum(tensor.elements for tensor in tensors)
    name = metadata.get("general.name")
    label = metadata.get("general.size_label")
    # The file's own words are shown (the Models page, the command line):
    # escapes and controls in them are made visible here, once.
    return GgufInfo(
        path=path,
        architecture=shown_text(architecture),
        name=shown_text(name) if isinstance(name, str) and name else path.stem,
        parameters=parameters,
        size_label=(
            shown_text(label) if isinstance(label, str) and label else _round_count(parameters)
        ),
        quantization=_quantization(metadata, tensors),
        context_length=keys.required("context_length", _MAX_CONTEXT),
        is_embedding=_is_embedding(architecture, keys, has_template),
        has_chat_template=has_template,
        shape=_shape(architecture, keys, metadata),
        tensor_bytes=sum(tensor.nbytes for tensor in tensors),
        file_size=file_size,
    )


class _ArchKeys:
    """The ``{architecture}.*`` metadata, typed, naming the file in every error."""

    def __init__(self, path: Path, architecture: str, metadata: Mapping[str, _Value]) -> None:
        self._path = path
        self._arch = architecture
        self._metadata = metadata

    def get(self, key: str) -> _Value | None:
        return self._metadata.get(f"{self._arch}.{key}")

    def required(self, key: str, maximum: int = _INT32_MAX) -> int:
        value = self.get(key)
        if not _is_int(value) or value <= 0 or value > maximum:
            raise self.invalid(f"lacks a valid {self.name(key)}: llama.cpp cannot load it")
        return value

    def name(self, key: str) -> str:
        """The full key, as a message shows it."""
        return shown_text(f"{self._arch}.{key}")

    def invalid(self, problem: str) -> ModelFileInvalid:
        """``ModelFileInvalid`` naming the file, saying *problem*."""
        return ModelFileInvalid(f"{shown_path(self._path.name)} {problem}.", _HINT)

    def per_layer(self, key: str, default: list[int], layers: int) -> list[int]:
        value = self.get(key)
        if value is None:
            return default
        if _is_int(value) and value >= 0:
            return [value] * layers
        if isinstance(value, _Array) and value.values is not None and len(value.values) == layers:
            counts = [v for v in value.values if _is_int(v) and v >= 0]
            if len(counts) == layers:
                return counts
        raise self.invalid(f"has an invalid {self.name(key)}")

    def optional(self, key: str, default: int) -> int:
        value = self.get(key)
        return value if _is_int(value) and value > 0 else default


# -- what llama.cpp asserts on ------------------------------------------------------
# llama.cpp checks these values with GGML_ASSERT, which aborts the whole
# process instead of failing the load; each rule below is the assert's own
# condition (llama-vocab.cpp, llama-model.cpp's load_hparams, ggml's norm
# ops), checked before llama.cpp ever sees the file.  A value of the wrong
# type is left to llama.cpp, which refuses it with an error of its own.
_NO_VOCABULARY = frozenset(["none", "no_vocab"])  # LLAMA_VOCAB_TYPE_NONE: nothing to tokenize with
_ROPE_SCALING_TYPES = frozenset(["none", "linear", "yarn", "longrope"])
_MAX_EXPERTS = 1024  # LLAMA_MAX_EXPERTS: the bundled llama.cpp loads 1024 and aborts at 1025
_EPSILON_KEYS = ("attention.layer_norm_epsilon", "attention.layer_norm_rms_epsilon")
_PER_TOKEN_KEYS = {"tokenizer.ggml.scores": _FLOAT32, "tokenizer.ggml.token_type": _INT32}


def _check_llama_asserts(keys: _ArchKeys, metadata: Mapping[str, _Value]) -> None:
    """``ModelFileInvalid`` naming the file and the value for metadata that
    would make llama.cpp abort (loading it, or at the first reply)."""
    _check_vocabulary(keys, metadata)
    scaling = keys.get("rope.scaling.type")
    if isinstance(scaling, str) and scaling not in _ROPE_SCALING_TYPES:
        raise keys.invalid(
            f"names a RoPE scaling llama.cpp does not know ({keys.name('rope.scaling.type')} "
            f"is {shown_text(repr(scaling), 60)})"
        )
    _check_experts(keys)
    for key in _EPSILON_KEYS:
        epsilon = keys.get(key)
        if isinstance(epsilon, float) and not epsilon >= 0.0:  # NaN fails it too
            raise keys.invalid(
                f"has an invalid {keys.name(key)} ({epsilon:g}): it must be 0 or more"
            )


def _check_vocabulary(keys: _ArchKeys, metadata: Mapping[str, _Value]) -> None:
    model = metadata.get("tokenizer.ggml.model")
    if isinstance(model, str) and model in _NO_VOCABULARY:
        raise keys.invalid(
            f"has no vocabulary (tokenizer.ggml.model is {model!r}): it cannot read or write text"
        )
    tokens = metadata.get(_TOKENS_KEY)
    if not isinstance(tokens, _Array) or tokens.item_type != _STRING:
        return  # llama.cpp refuses a token list of another type with an error of its own
    if tokens.repeated is not None:
        shown = shown_text(tokens.repeated.decode("utf-8", errors="replace"), 60)
        raise keys.invalid(f"lists the token {shown!r} twice in {_TOKENS_KEY}")
    for key, item_type in _PER_TOKEN_KEYS.items():
        # llama.cpp reads one entry per token without looking at the length.
        values = metadata.get(key)
        if (
            isinstance(values, _Array)
            and values.item_type == item_type
            and values.count < tokens.count
        ):
            raise keys.invalid(f"has {values.count} entries in {key} for {tokens.count} tokens")
    problem = vocabulary_problem(model, tokens.texts)
    if problem:
        raise keys.invalid(problem)


def _check_experts(keys: _ArchKeys) -> None:
    experts = _int_or_zero(keys.get("expert_count"))
    used = keys.get("expert_used_count")  # one count, or one per layer
    if isinstance(used, _Array):
        used_max = max((v for v in used.values or () if _is_int(v)), default=0)
    else:
        used_max = _int_or_zero(used)
    groups = _int_or_zero(keys.get("expert_group_count"))
    groups_used = _int_or_zero(keys.get("expert_group_used_count"))
    count, used_name = keys.name("expert_count"), keys.name("expert_used_count")
    if experts > _MAX_EXPERTS:
        raise keys.invalid(
            f"has {experts} experts ({count}); llama.cpp loads at most {_MAX_EXPERTS}"
        )
    if used_max > experts:
        raise keys.invalid(f"uses {used_max} experts ({used_name}) of {experts} ({count})")
    if experts and not used_max:
        raise keys.invalid(f"has {experts} experts ({count}) but uses none ({used_name})")
    if groups and groups >= experts:  # and no groups without experts
        raise keys.invalid(
            f"has {groups} expert groups ({keys.name('expert_group_count')}) for {experts} experts"
        )
    if groups > 1 and (experts % groups or not 0 < groups_used < groups):
        raise keys.invalid(
            f"has {experts} experts in {groups} groups, {groups_used} of them used "
            f"({keys.name('expert_group_used_count')}): llama.cpp cannot load that"
        )


def _int_or_zero(value: object) -> int:
    return value if _is_int(value) else 0


def _is_int(value: object) -> TypeGuard[int]:
    # bool is an int subclass; a flag is never a count.
    return type(value) is int


def _shape(architecture: str, keys: _ArchKeys, metadata: Mapping[str, _Value]) -> ModelShape:
    layers = keys.required("block_count", maximum=_MAX_LAYERS)
    embedding = keys.required("embedding_length")
    heads = keys.per_layer("attention.head_count", [0] * layers, layers)
    kv_heads = keys.per_layer("attention.head_count_kv", heads, layers)
    first_heads = next((h for h in heads if h), 0)
    head_size = embedding // first_heads if first_heads else 0
    # Hybrid models list 0 KV heads for their recurrent layers; the cache holds
    # only the attending layers (the mean is rounded up, never under-counting).
    attending = [h for h in kv_heads if h]
    cacheless = architecture in _CACHELESS_ARCHITECTURES or not attending
    return ModelShape(
        layers=len(attending) or layers,
        kv_heads=0 if cacheless else -(-sum(attending) // len(attending)),
        key_length=keys.optional("attention.key_length", head_size),
        value_length=keys.optional("attention.value_length", head_size),
        embedding_length=embedding,
        vocab_size=_vocab_size(keys, metadata),
        heads=first_heads,
    )


def _vocab_size(keys: _ArchKeys, metadata: Mapping[str, _Value]) -> int:
    declared = keys.get("vocab_size")
    if _is_int(declared) and declared > 0:
        return declared
    tokens = metadata.get("tokenizer.ggml.tokens")
    return tokens.count if isinstance(tokens, _Array) else 0


def _is_embedding(architecture: str, keys: _ArchKeys, has_template: bool) -> bool:
    # llama.cpp pools (and so embeds) when {arch}.pooling_type says so; encoder
    # architectures embed even without it; a non-causal model without a chat
    # template is an encoder too.
    pooling = keys.get("pooling_type")
    if _is_int(pooling) and pooling != _POOLING_NONE:
        return True
    if architecture in _EMBEDDING_ARCHITECTURES:
        return True
    return keys.get("attention.causal") is False and not has_template


def _quantization(metadata: Mapping[str, _Value], tensors: list[_Tensor]) -> str:
    file_type = metadata.get("general.file_type")
    if _is_int(file_type):
        try:
            named = LlamaFileType(file_type)
        except ValueError:
            named = LlamaFileType.GUESSED
        if named is not LlamaFileType.GUESSED:
            return named.name.removeprefix("MOSTLY_").removeprefix("ALL_")
    bytes_by_type: dict[GGMLQuantizationType, int] = {}
    for tensor in tensors:
        bytes_by_type[tensor.type] = bytes_by_type.get(tensor.type, 0) + tensor.nbytes
    if not bytes_by_type:
        return "unknown"
    return max(bytes_by_type, key=lambda kind: bytes_by_type[kind]).name


def _round_count(count: int) -> str:
    if count >= 1_000_000_000:
        return f"{count / 1e9:.1f}".removesuffix(".0") + "B"
    if count >= 1_000_000:
        return f"{count / 1e6:.0f}M"
    return f"{count / 1e3:.0f}K"
