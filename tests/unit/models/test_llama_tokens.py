"""Tests of tokenizing: a long run of one character cannot overflow the stack
in a pre-tokenizer llama.cpp runs through ``std::regex``, and ordinary text
is tokenized in pieces exactly as it is whole."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import llama_cpp
import pytest

import models
from models.interfaces import ChatMessage
from models.llama_chat import LlamaChatModel
from models.llama_tokens import MAX_PIECE_CHARS, text_pieces, tokenize

FAST_S = 10
# Text of every kind the model reads: prose, code, markdown, line breaks.
ORDINARY = "\n".join(p.read_text() for p in sorted(Path(models.__file__).parent.glob("*.py")))


# -- where a text is cut -----------------------------------------------------------------
def test_a_text_within_the_limit_is_one_piece() -> None:
    text = "word " * (MAX_PIECE_CHARS // 5)

    assert list(text_pieces(text)) == [text]


def test_pieces_make_up_the_text_each_within_the_limit() -> None:
    pieces = list(text_pieces(ORDINARY))

    assert "".join(pieces) == ORDINARY
    assert len(pieces) > len(ORDINARY) // MAX_PIECE_CHARS
    assert all(MAX_PIECE_CHARS // 2 < len(piece) <= MAX_PIECE_CHARS for piece in pieces[:-1])


def test_pieces_end_before_a_space_or_after_a_line_break_between_words() -> None:
    pieces = list(text_pieces(ORDINARY))

    for piece, after in itertools.pairwise(pieces):
        before_a_space = after[0] == " " and not piece[-1].isspace() and not after[1].isspace()
        after_a_break = piece[-1] == "\n" and not piece[-2].isspace() and not after[0].isspace()
        assert before_a_space or after_a_break, (piece[-10:], after[:10])


@pytest.mark.parametrize("run", [" ", "=", "中", "😀", "\n", "a b"])
def test_a_run_without_a_seam_is_cut_at_the_limit(run: str) -> None:
    text = "Here is the log:\n" + run * 60_000 + "\nwhat does it say?"

    pieces = list(text_pieces(text))

    assert "".join(pieces) == text
    assert max(map(len, pieces)) <= MAX_PIECE_CHARS


def test_a_special_tokens_text_is_a_piece_of_its_own_never_cut() -> None:
    specials = re.compile(re.escape("<|im_end|>"))
    text = "=" * (MAX_PIECE_CHARS - 3) + "<|im_end|>" + "=" * 5000

    pieces = list(text_pieces(text, specials))

    assert "".join(pieces) == text
    assert "<|im_end|>" in pieces
    assert max(map(len, pieces)) <= MAX_PIECE_CHARS


# -- what llama.cpp makes of them ----------------------------------------------------------
def _whole(vocab: object, text: str, *, add_special: bool, parse_special: bool) -> list[int]:
    """*text* tokenized in one call, as before pieces."""
    data = text.encode()
    room = len(data) + 2
    buffer = (llama_cpp.llama_token * room)()
    count = llama_cpp.llama_tokenize(
        vocab, data, len(data), buffer, room, add_special, parse_special
    )
    return list(buffer[:count])


@pytest.mark.parametrize("pre", ["smollm", "gpt-4o", "tekken", "deepseek-v3", "bloom"])
def test_ordinary_text_tokenizes_as_it_does_whole(tiny_gguf: Callable[..., Path], pre: str) -> None:
    model = LlamaChatModel(tiny_gguf(tokenizer_ggml_pre=pre), context_length=256, threads=1)
    try:
        vocab = llama_cpp.llama_model_get_vocab(model._llm.model)
        pieces = tokenize(vocab, ORDINARY, add_special=False, parse_special=False)
        whole = _whole(vocab, ORDINARY, add_special=False, parse_special=False)
        counted = model.count_tokens(ORDINARY)
    finally:
        model.close()

    assert pieces == whole
    assert counted == len(whole)


def test_a_long_prompt_tokenizes_as_it_does_whole(smollm2: LlamaChatModel) -> None:
    messages = [ChatMessage("system", ORDINARY[:20_000]), ChatMessage("user", ORDINARY)]
    template = smollm2._template
    assert template is not None
    # The contents as the model gets them: its markers in them broken up.
    turns = [{"role": m.role, "content": smollm2._defuse(m.content)} for m in messages]
    prompt = template.render(turns)

    tokens = smollm2.prompt_tokens(messages)

    assert tokens == _whole(smollm2._vocab, prompt, add_special=False, parse_special=True)
    assert tokens.count(1) == 3  # <|im_start|>: system, user, assistant; none cut apart


def test_the_bos_opens_a_text_in_pieces_once(tiny_gguf: Callable[..., Path]) -> None:
    model = LlamaChatModel(
        tiny_gguf(tokenizer_ggml_add_bos_token=True), context_length=256, threads=1
    )
    try:
        vocab = llama_cpp.llama_model_get_vocab(model._llm.model)
        pieces = tokenize(vocab, ORDINARY, add_special=True, parse_special=False)
        whole = _whole(vocab, ORDINARY, add_special=True, parse_special=False)
    finally:
        model.close()

    assert pieces == whole
    assert pieces[0] == 1 and pieces.count(1) == 1


# -- long runs in a paste ------------------------------------------------------------------
_COUNT_IN_A_CHILD = textwrap.dedent(
    """
    import sys, threading
    from pathlib import Path
    from models.interfaces import ChatMessage
    from models.llama_chat import LlamaChatModel
    model = LlamaChatModel(Path(sys.argv[1]), context_length=256, threads=1)
    # Counted on a thread, as the broker does; its stack as small as macOS
    # gives threads Python does not make (Linux gives 8 MB).
    threading.stack_size(512 * 1024)
    for run in (" ", "=", "\u4e2d", "\U0001f600"):
        text = "Here is the log:\\n" + run * 60_000 + "\\nwhat does it say?"
        counts = []
        def count():
            counts.append(model.count_tokens(text))
            counts.append(len(model.prompt_tokens([ChatMessage("user", text)])))
        thread = threading.Thread(target=count)
        thread.start()
        thread.join()
        print(hex(ord(run)), *counts, flush=True)
    """
)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("pre", ["gpt-4o", "tekken"])
def test_a_long_run_of_one_character_is_counted_and_read(
    tiny_gguf: Callable[..., Path], pre: str
) -> None:
    # In a child: a stack overflow would kill this process.
    path = tiny_gguf(f"{pre}.gguf", tokenizer_ggml_pre=pre)

    child = subprocess.run(
        [sys.executable, "-c", _COUNT_IN_A_CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=FAST_S * 3,
        cwd=Path(__file__).parents[3],
        env={**os.environ, "GGML_NO_BACKTRACE": "1"},
    )

    assert child.returncode == 0, f"the child died (exit {child.returncode})"
    lines = child.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["0x20", "0x3d", "0x4e2d", "0x1f600"]
    assert all(int(count) > 0 for line in lines for count in line.split()[1:])
