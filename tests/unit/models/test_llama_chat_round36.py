"""Round 36: a reply kept shorter than sampled, and fixed texts past U+FFFF.

A reply cut by its length limit inside a character (an emoji's bytes come
in several tokens) is kept without that character, so its text no longer
matched its sampled tokens and the next turn read the whole reply again
from where its text tokenizes otherwise (21 of 24 tokens once, in a
real-model chat test).  Now the next prompt takes the reply's tokens as
sampled as far as it repeats whole characters of them.

llama-cpp-python's schema converter writes an emoji of an enum value (a
worker profile's name) as a UTF-16 pair of escapes, which llama.cpp read as
two surrogates: the model wrote bytes no text has, and the name never
matched.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel

ASKED = [ChatMessage("user", "Answer in JSON.")]
WORD = "qzxvjjkw 🐱🐶"


def _forced(max_tokens: int) -> GenerationOptions:
    return GenerationOptions(
        temperature=0.0,
        max_tokens=max_tokens,
        json_schema={
            "type": "object",
            "properties": {"word": {"enum": [WORD]}},
            "required": ["word"],
            "additionalProperties": False,
        },
    )


def _reply(model: LlamaChatModel, max_tokens: int) -> tuple[str, list[bytes]]:
    """The forced reply's text, and each of its tokens' bytes as sampled."""
    text = "".join(chunk.text for chunk in model.stream(ASKED, _forced(max_tokens)))
    llm = model._llm
    sampled = llm.input_ids[len(model.prompt_tokens(ASKED)) : llm.n_tokens]
    return text, [llm.detokenize([int(token)]) for token in sampled]


def _inside_a_character(text: bytes) -> bool:
    try:
        text.decode()
    except UnicodeDecodeError:
        return True
    return False


@pytest.mark.model
def test_a_fixed_text_past_u_ffff_is_written_as_itself(
    fresh_smollm2: Callable[[], LlamaChatModel],
) -> None:
    text, _ = _reply(fresh_smollm2(), 40)

    assert json.loads(text) == {"word": WORD}


@pytest.mark.model
def test_a_reply_cut_inside_a_character_is_not_read_again(
    fresh_smollm2: Callable[[], LlamaChatModel],
) -> None:
    model = fresh_smollm2()
    _, pieces = _reply(model, 40)
    cut = next(n for n in range(len(pieces)) if _inside_a_character(b"".join(pieces[:n])))
    text, _ = _reply(model, cut)
    cached = model._llm.n_tokens
    assert text.endswith("qzxvjjkw ")  # the emoji's first bytes are no character
    again = [*ASKED, ChatMessage("assistant", text), ChatMessage("user", "Again.")]

    list(model.stream(again, GenerationOptions(temperature=0.0, max_tokens=1)))

    # Every token but the emoji's first bytes; before, the reply from its
    # letters, which its text reads back in other tokens than sampled.
    assert model.last_prompt_reuse == cached - 1
    read = model._llm.detokenize(list(model._llm.input_ids[: model._llm.n_tokens]), special=True)
    assert read.startswith(model._llm.detokenize(model.prompt_tokens(again), special=True))
