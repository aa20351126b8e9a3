"""Tests of the vocabulary rules: every byte UTF-8 text can hold is a token
of its own where llama.cpp's tokenizer falls back on bytes (SentencePiece,
RWKV), so no text makes it abort or loop forever."""

from __future__ import annotations

import pytest

from models.gguf_vocab import UTF8_BYTES, unescape_rwkv, vocabulary_problem

WORDS = {b"\xe2\x96\x81the", b"\xe2\x96\x81cat", b"<s>", b"</s>", b"<unk>"}
SPM_BYTES = {b"<0x%02X>" % byte for byte in range(256)}
# RWKV's converter writes each token as Python writes its bytes: repr(b"\n")[2:-1] is "\\n".
RWKV_BYTES = {repr(bytes([byte]))[2:-1].encode() for byte in range(256)}
# GPT-2's byte-level vocabulary writes each byte as a printable character: 0xC3 as "Ã".
GPT2_BYTES = {chr(0x100 + byte).encode() if byte < 0x21 else bytes([byte]) for byte in range(0x7F)}


def test_utf8_bytes_are_every_byte_but_the_ones_utf8_never_uses() -> None:
    assert len(UTF8_BYTES) == 243
    assert {0x00, 0x0A, 0x7F, 0x80, 0xC2, 0xF4} <= set(UTF8_BYTES)
    assert not {0xC0, 0xC1, 0xF5, 0xFF} & set(UTF8_BYTES)


def test_a_sentencepiece_vocabulary_with_its_byte_tokens_is_accepted() -> None:
    assert vocabulary_problem("llama", WORDS | SPM_BYTES) is None


def test_a_sentencepiece_byte_may_be_a_token_of_the_byte_itself() -> None:
    # byte_to_token tries <0xNN> first, then the byte as a one-byte text.
    texts = WORDS | (SPM_BYTES - {b"<0x41>", b"<0x0A>"}) | {b"A", b"\n"}

    assert vocabulary_problem("llama", texts) is None


def test_a_sentencepiece_vocabulary_without_byte_tokens_is_named() -> None:
    problem = vocabulary_problem("llama", WORDS | GPT2_BYTES)

    assert problem is not None
    assert "tokenizer.ggml.model is 'llama'" in problem
    assert "in tokenizer.ggml.tokens (<0x00>, <0x01>, <0x02>, <0x03> and " in problem
    assert " more of the 243 bytes UTF-8 uses)" in problem
    assert "abort" in problem


def test_one_missing_sentencepiece_byte_is_named() -> None:
    problem = vocabulary_problem("llama", WORDS | (SPM_BYTES - {b"<0xC3>"}))

    assert problem is not None
    assert "(<0xC3>):" in problem


def test_an_rwkv_vocabulary_in_its_own_format_is_accepted() -> None:
    assert vocabulary_problem("rwkv", RWKV_BYTES | {b"the", b" cat", b"\\xc3\\xbc"}) is None


def test_an_rwkv_vocabulary_whose_bytes_are_not_tokens_of_their_own_is_named() -> None:
    problem = vocabulary_problem("rwkv", WORDS | GPT2_BYTES)

    assert problem is not None
    assert "tokenizer.ggml.model is 'rwkv'" in problem
    assert "in tokenizer.ggml.tokens (\\x00, \\x01, \\x02, \\x03 and " in problem
    assert "loop forever" in problem


def test_an_rwkv_vocabulary_lacking_a_lead_byte_that_begins_tokens_is_named() -> None:
    # The GPT-2 case: 0xC3 begins "ü" (\xc3\xbc) but is no token alone.
    problem = vocabulary_problem("rwkv", (RWKV_BYTES - {b"\\xc3"}) | {b"\\xc3\\xbc"})

    assert problem is not None
    assert "(\\xc3)" in problem


@pytest.mark.parametrize("model", ["gpt2", "bert", "t5", "plamo2", "unknown", None, 7])
def test_other_tokenizers_are_left_to_their_own_checks(model: object) -> None:
    assert vocabulary_problem(model, WORDS) is None


@pytest.mark.parametrize(
    ("text", "unescaped"),
    [
        (b"plain", b"plain"),
        (b"\\x41\\x0a", b"A\n"),
        (b"\\n\\t\\r", b"\n\t\r"),
        (b"\\\\", b"\\"),
        (b"\\'", b"'"),
        (b"a\\x4", b"a"),  # an unfinished escape at the end is dropped
        (b"\\", b""),
        (b"\\xC3", bytes([((0x43 - 0x30) * 16 + 3) & 0xFF])),  # "C" is no hex digit to it
        (b"\\x\xc3\x80", bytes([((0xC3 - 0x30) * 16 + 0x80 - 0x30) & 0xFF])),  # signed char
    ],
)
def test_rwkv_tokens_are_unescaped_as_llama_cpp_does(text: bytes, unescaped: bytes) -> None:
    assert unescape_rwkv(text) == unescaped
