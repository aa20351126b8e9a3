"""Round 9 tests of the GGUF header check: metadata llama.cpp asserts on
(which aborts the whole process) is refused before llama.cpp sees the file,
sizes llama-cpp-python reads as C ``int`` are bounded, a header's work is
bounded over all its arrays together, and the file's own texts come out with
their escapes made visible."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gguf import GGUFValueType, GGUFWriter

from models.errors import ModelFileInvalid
from models.gguf_info import read_gguf_info
from models.llama_chat import LlamaChatModel
from models.model_file import shown_path, shown_text

FAST_S = 10
_Edit = Callable[[GGUFWriter], None]
# A SentencePiece vocabulary needs a token for each byte (models.gguf_vocab).
_BYTE_TOKENS = [f"<0x{byte:02X}>" for byte in range(256)]
_VOCAB = 100 + len(_BYTE_TOKENS)


def _write(
    path: Path,
    edit: _Edit = lambda writer: None,
    *,
    tokens: list[str] | None = None,
    context_length: int = 2048,
) -> Path:
    """A small llama GGUF with an SPM vocabulary (*tokens*, then the byte
    tokens); *edit* adds or changes keys."""
    writer = GGUFWriter(path, "llama")
    writer.add_block_count(4)
    writer.add_uint32("llama.context_length", context_length)
    writer.add_embedding_length(64)
    writer.add_head_count(4)
    writer.add_tokenizer_model("llama")
    listed = tokens if tokens is not None else [f"t{i}" for i in range(100)]
    writer.add_token_list(listed + _BYTE_TOKENS)
    edit(writer)
    writer.add_tensor("token_embd.weight", np.zeros((len(listed) + 256, 64), np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _tokens_with(index: int, text: str) -> list[str]:
    tokens = [f"t{i}" for i in range(100)]
    tokens[index] = text
    return tokens


def _experts(count: int, used: int | list[int], groups: int = 0, groups_used: int = 0) -> _Edit:
    def edit(writer: GGUFWriter) -> None:
        writer.add_uint32("llama.expert_count", count)
        if isinstance(used, list):
            writer.add_array("llama.expert_used_count", used)
        else:
            writer.add_uint32("llama.expert_used_count", used)
        if groups:
            writer.add_uint32("llama.expert_group_count", groups)
            writer.add_uint32("llama.expert_group_used_count", groups_used)

    return edit


def _key(key: str, value: Any, value_type: GGUFValueType) -> _Edit:
    return lambda writer: writer.add_key_value(key, value, value_type)


# Each breaks one GGML_ASSERT of llama.cpp (llama-vocab.cpp, load_hparams in
# llama-model.cpp, ggml's norm ops): the value named must appear in the message.
ABORTING: dict[str, tuple[dict[str, Any], str]] = {
    "two tokens alike": ({"tokens": _tokens_with(50, "t51")}, "'t51' twice"),
    # llama.cpp reads a token up to its first NUL: "t51\0x" is "t51" to it.
    "a token alike up to a NUL": ({"tokens": _tokens_with(50, "t51\0x")}, "'t51' twice"),
    "an empty token alike its placeholder": (
        {"tokens": [*_tokens_with(50, ""), "[EMPTY_50]"]},
        "EMPTY_50",
    ),
    "no vocabulary": (
        {"edit": _key("tokenizer.ggml.model", "none", GGUFValueType.STRING)},
        "tokenizer.ggml.model is 'none'",
    ),
    "no_vocab": (
        {"edit": _key("tokenizer.ggml.model", "no_vocab", GGUFValueType.STRING)},
        "'no_vocab'",
    ),
    "scores shorter than the tokens": (
        {"edit": lambda w: w.add_token_scores([0.0] * 10)},
        f"10 entries in tokenizer.ggml.scores for {_VOCAB} tokens",
    ),
    "token types shorter than the tokens": (
        {"edit": lambda w: w.add_token_types([1] * (_VOCAB - 1))},
        "tokenizer.ggml.token_type",
    ),
    "an unknown RoPE scaling": (
        {"edit": _key("llama.rope.scaling.type", "bogus", GGUFValueType.STRING)},
        "llama.rope.scaling.type is 'bogus'",
    ),
    "more experts than llama.cpp holds": (
        {"edit": _experts(10**6, 10**6)},
        "1000000 experts (llama.expert_count)",
    ),
    "1025 experts": ({"edit": _experts(1025, 2)}, "1025 experts"),
    "more experts used than there are": (
        {"edit": _experts(2, 4)},
        "uses 4 experts (llama.expert_used_count) of 2",
    ),
    "more experts used in one layer": ({"edit": _experts(2, [1, 1, 3, 1])}, "uses 3 experts"),
    "experts, none used": ({"edit": _experts(8, 0)}, "uses none"),
    "experts used, none there": ({"edit": _experts(0, 2)}, "uses 2 experts"),
    "as many expert groups as experts": (
        {"edit": _experts(8, 2, groups=8, groups_used=1)},
        "llama.expert_group_count",
    ),
    "expert groups that do not divide the experts": (
        {"edit": _experts(8, 2, groups=3, groups_used=1)},
        "8 experts in 3 groups",
    ),
    "expert groups, none used": (
        {"edit": _experts(8, 2, groups=4, groups_used=0)},
        "llama.expert_group_used_count",
    ),
    "a NaN RMS epsilon": (
        {"edit": lambda w: w.add_layer_norm_rms_eps(float("nan"))},
        "llama.attention.layer_norm_rms_epsilon (nan)",
    ),
    "a negative RMS epsilon": (
        {"edit": lambda w: w.add_layer_norm_rms_eps(-1e-5)},
        "layer_norm_rms_epsilon (-1e-05)",
    ),
    "a negative norm epsilon": (
        {"edit": lambda w: w.add_layer_norm_eps(-1.0)},
        "llama.attention.layer_norm_epsilon",
    ),
    # llama-cpp-python reads n_ctx_train as a C int: these come back negative.
    "a context of 2**31": ({"context_length": 2**31}, "llama.context_length"),
    "a context of 2**32 - 1": ({"context_length": 2**32 - 1}, "llama.context_length"),
    # each tokenize allocates a buffer of the whole context: 4 GB for 2**30
    "a context of 2**30": ({"context_length": 2**30}, "llama.context_length"),
    "a context of 2**24 + 1": ({"context_length": 2**24 + 1}, "llama.context_length"),
}


@pytest.mark.timeout(FAST_S)
@pytest.mark.parametrize("case", ABORTING, ids=ABORTING.keys())
def test_metadata_llama_cpp_asserts_on_is_refused_naming_the_file_and_the_value(
    tmp_path: Path, case: str
) -> None:
    arguments, named = ABORTING[case]
    path = _write(tmp_path / "odd.gguf", **arguments)

    with pytest.raises(ModelFileInvalid) as raised:
        read_gguf_info(path)

    assert "odd.gguf" in str(raised.value)
    assert named in str(raised.value)
    assert raised.value.hint


ACCEPTED: dict[str, dict[str, Any]] = {
    # llama.cpp names each empty token by its index, so two are not alike.
    "two empty tokens": {"tokens": [*_tokens_with(50, ""), ""]},
    "as many scores as tokens": {"edit": lambda w: w.add_token_scores([0.0] * _VOCAB)},
    "yarn": {"edit": _key("llama.rope.scaling.type", "yarn", GGUFValueType.STRING)},
    "1024 experts, 8 used": {"edit": _experts(1024, 8)},
    "experts used per layer": {"edit": _experts(8, [2, 2, 0, 2])},
    "grouped experts": {"edit": _experts(8, 2, groups=4, groups_used=2)},
    "an epsilon of 0": {"edit": lambda w: w.add_layer_norm_rms_eps(0.0)},
    "a context of 10M (Llama 4 Scout)": {"context_length": 10_485_760},
    "a context of 2**24": {"context_length": 2**24},
}


@pytest.mark.timeout(FAST_S)
@pytest.mark.parametrize("case", ACCEPTED, ids=ACCEPTED.keys())
def test_values_llama_cpp_loads_are_still_accepted(tmp_path: Path, case: str) -> None:
    info = read_gguf_info(_write(tmp_path / "fine.gguf", **ACCEPTED[case]))

    assert info.architecture == "llama"


_OPEN_IN_A_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from models.errors import ModelFileInvalid
    from models.gguf_file import open_llama
    try:
        open_llama(Path(sys.argv[1]), n_ctx=64)
    except ModelFileInvalid as error:
        print("refused:", error)
    """
)


@pytest.mark.timeout(60)
def test_loading_refuses_the_file_before_llama_cpp_sees_it(tmp_path: Path) -> None:
    # Every load (chat and embedding models) goes through open_llama; run in a
    # child, since llama.cpp's assert would abort this process.
    path = _write(
        tmp_path / "twice.gguf",
        lambda writer: writer.add_layer_norm_rms_eps(1e-5),  # llama.cpp reads its vocabulary
        tokens=_tokens_with(50, "t51"),
    )

    child = subprocess.run(
        [sys.executable, "-c", _OPEN_IN_A_CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).parents[3],
        env={**os.environ, "GGML_NO_BACKTRACE": "1"},  # an abort would otherwise try gdb
    )

    assert child.returncode == 0, f"the child died (exit {child.returncode})"
    assert "refused: twice.gguf lists the token 't51' twice" in child.stdout


def _patched_smollm2(smollm2_path: Path, folder: Path, key: str, value: bytes) -> Path:
    """A copy of SmolLM2 with the scalar *key*'s value bytes replaced in place."""
    path = folder / "patched.gguf"
    shutil.copyfile(smollm2_path, path)
    with path.open("r+b") as file:
        head = file.read(4 << 20)
        name = struct.pack("<Q", len(key)) + key.encode()
        at = head.index(name) + len(name) + 4  # past the value's type
        file.seek(at)
        file.write(value)
    return path


@pytest.mark.timeout(120)
def test_a_chat_model_whose_context_is_past_a_c_int_is_refused(
    smollm2_path: Path, tmp_path: Path
) -> None:
    # Before: a bare ValueError ("Array length must be >= 0") from tokenize.
    path = _patched_smollm2(
        smollm2_path, tmp_path, "llama.context_length", struct.pack("<I", 2**31)
    )

    with pytest.raises(ModelFileInvalid, match=r"patched\.gguf.*llama\.context_length"):
        LlamaChatModel(path, context_length=256)


@pytest.mark.timeout(120)
def test_a_chat_model_with_a_nan_epsilon_is_refused_before_it_loads(
    smollm2_path: Path, tmp_path: Path
) -> None:
    # Before: it loaded, and the first reply aborted in ggml's rms_norm.
    path = _patched_smollm2(
        smollm2_path,
        tmp_path,
        "llama.attention.layer_norm_rms_epsilon",
        struct.pack("<f", float("nan")),
    )
    child = subprocess.run(
        [sys.executable, "-c", _OPEN_IN_A_CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[3],
        env={**os.environ, "GGML_NO_BACKTRACE": "1"},
    )

    assert child.returncode == 0
    assert "refused: patched.gguf has an invalid llama.attention.layer_norm_rms_epsilon" in (
        child.stdout
    )


# -- bounded work ------------------------------------------------------------------
def _sparse_arrays(path: Path, arrays: int, count: int, key: str = "junk") -> Path:
    """A header of *arrays* arrays of *count* empty strings, over holes."""

    def text(value: str) -> bytes:
        data = value.encode()
        return struct.pack("<Q", len(data)) + data

    with path.open("wb") as file:
        file.write(b"GGUF" + struct.pack("<IQQ", 3, 0, arrays + 1))
        file.write(text("general.architecture") + struct.pack("<I", 8) + text("llama"))
        for index in range(arrays):
            name = key if arrays == 1 else f"{key}.{index}"
            file.write(text(name) + struct.pack("<IIQ", 9, 8, count))
            file.seek(count * 8, os.SEEK_CUR)
        file.write(b"\0" * 64)
    return path


@pytest.mark.timeout(FAST_S)
def test_many_arrays_each_within_bounds_are_refused_together(tmp_path: Path) -> None:
    # Eight arrays of 1M empty strings (a 64 MB sparse file): each passes the
    # per-array bound; walked one by one they took ~5 s, freezing the window.
    path = _sparse_arrays(tmp_path / "sparse.gguf", 8, 1 << 20)

    with pytest.raises(ModelFileInvalid, match=r"sparse\.gguf.*takes the header past"):
        read_gguf_info(path)


@pytest.mark.timeout(FAST_S)
def test_a_token_list_longer_than_any_vocabulary_is_refused_at_once(tmp_path: Path) -> None:
    path = _sparse_arrays(tmp_path / "vocab.gguf", 1, (1 << 20) + 1, key="tokenizer.ggml.tokens")

    with pytest.raises(ModelFileInvalid, match=r"vocab\.gguf.*tokens, more than any model"):
        read_gguf_info(path)


# -- the file's own texts ----------------------------------------------------------------
_ESCAPES = "\x1b]0;HACKED\x07\x1b[2J\x1b[31mFAKE\x1b[0m\u202e"


def test_the_files_texts_come_with_their_escapes_made_visible(tmp_path: Path) -> None:
    def edit(writer: GGUFWriter) -> None:
        writer.add_name("name" + _ESCAPES)
        writer.add_string("general.size_label", "135M" + _ESCAPES)

    info = read_gguf_info(_write(tmp_path / "loud.gguf", edit))

    for text in (info.name, info.size_label):
        assert not any(ord(c) < 0x20 or c == "\u202e" for c in text), ascii(text)
        assert "\\x1b]0;HACKED\\x07" in text and "\\u202e" in text


def test_a_file_name_with_escapes_is_shown_with_them_visible(tmp_path: Path) -> None:
    path = tmp_path / "bad\x1b[2Jname.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 30)

    with pytest.raises(ModelFileInvalid) as raised:
        read_gguf_info(path)

    assert "\x1b" not in str(raised.value)
    assert "bad\\x1b[2Jname.gguf" in str(raised.value)


def test_shown_text_makes_controls_visible_and_shortens() -> None:
    assert shown_text("a\0b\x07c\x9bd\u2066e") == "a\\0b\\x07c\\x9bd\\u2066e"
    assert shown_text("plain ünïcödé 模型") == "plain ünïcödé 模型"
    long = shown_text("x" * 500 + "\x1b", limit=100)
    assert len(long) == 100 and long.endswith("\\x1b")
    assert shown_path("a\0b.gguf") == "a\\0b.gguf"
