"""What llama.cpp's tokenizers need of a vocabulary so that no text aborts
the process, checked on a GGUF's token texts.

``models.gguf_info`` reads the texts as llama.cpp keys its vocabulary (each
up to its first NUL, an empty one as ``[EMPTY_<index>]``) and asks
``vocabulary_problem`` before llama.cpp ever sees the file.

SentencePiece (``tokenizer.ggml.model`` "llama", llama-vocab.cpp) writes text
its vocabulary has no token for as byte tokens: ``byte_to_token`` looks up
``<0xNN>``, then the byte itself, with ``unordered_map::at``, trusting the
vocabulary to have them.  A vocabulary with neither (a BPE vocabulary
labelled SentencePiece) throws ``std::out_of_range`` through the C API, and
the process aborts at the first such character, which the load's own check
("Hello.") already holds.  So every byte UTF-8 text can hold must be a token
of its own, as ``<0xNN>`` or as the byte.  Real SentencePiece vocabularies
hold all 256 (Llama 2's ``<0x00>``-``<0xFF>``); the texts Reverie tokenizes
are UTF-8, so the bytes UTF-8 never uses (0xC0, 0xC1, 0xF5-0xFF) are not
asked for.
"""

from __future__ import annotations

from collections.abc import Set

UTF8_BYTES = tuple(b for b in range(256) if b not in (0xC0, 0xC1) and b < 0xF5)
"""Every byte value valid UTF-8 text can hold."""
_SHOWN_MISSING = 4
_TOKENS_KEY = "tokenizer.ggml.tokens"
_SPM_BYTE = "<0x%02X>"  # as llama.cpp's byte_to_token writes it


def vocabulary_problem(model: object, texts: Set[bytes]) -> str | None:
    """What makes the vocabulary of tokenizer *model* (``tokenizer.ggml.model``)
    with token *texts* one llama.cpp aborts on ("has a ... ") or None."""
    if model == "llama":
        missing = [b for b in UTF8_BYTES if not _has_byte_token(texts, b)]
        if missing:
            return (
                "has a SentencePiece vocabulary (tokenizer.ggml.model is 'llama') without the "
                f"byte tokens llama.cpp falls back on in {_TOKENS_KEY} "
                f"({_listed(missing, _SPM_BYTE)}): it would abort on the first character "
                "it has no token for"
            )
    return None


def _has_byte_token(texts: Set[bytes], byte: int) -> bool:
    return (_SPM_BYTE % byte).encode() in texts or bytes([byte]) in texts


def _listed(missing: list[int], form: str) -> str:
    """The first few of *missing*, each written as *form* shows a byte, and how many."""
    shown = ", ".join(form % b for b in missing[:_SHOWN_MISSING])
    more = len(missing) - _SHOWN_MISSING
    if more > 0:
        shown += f" and {more} more of the {len(UTF8_BYTES)} bytes UTF-8 uses"
    return shown
