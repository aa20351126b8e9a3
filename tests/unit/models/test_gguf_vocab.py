"""Tests of the vocabulary rules: every byte UTF-8 text can hold is a token
of its own where llama.cpp's tokenizer falls back on bytes (SentencePiece),
so no text makes it abort."""

from __future__ import annotations

import pytest

from models.gguf_vocab import UTF8_BYTES, vocabulary_problem

WORDS = {b"\xe2\x96\x81the", b"\xe2\x96\x81cat", b"<s>", b"</s>", b"<unk>"}
SPM_BYTES = {b"<0x%02X>" % byte for byte in range(256)}
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


@pytest.mark.parametrize("model", ["gpt2", "bert", "t5", "plamo2", "unknown", None, 7])
def test_other_tokenizers_are_left_to_their_own_checks(model: object) -> None:
    assert vocabulary_problem(model, WORDS) is None
