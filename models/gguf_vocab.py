"""What llama.cpp's tokenizers need of a vocabulary so that no text aborts
the process or loops forever, checked on a GGUF's token texts.

``models.gguf_info`` reads the texts as llama.cpp keys its vocabulary (each
up to its first NUL, an empty one as ``[EMPTY_<index>]``) and asks
``vocabulary_problem`` before llama.cpp ever sees the file.  Two of
llama.cpp's tokenizers (llama-vocab.cpp) fall back on single bytes for text
their vocabulary has no token for, and trust the vocabulary to have them:

- SentencePiece (``tokenizer.ggml.model`` "llama") writes such text as byte
  tokens: ``byte_to_token`` looks up ``<0xNN>``, then the byte itself, with
  ``unordered_map::at``.  A vocabulary with neither (a BPE vocabulary
  labelled SentencePiece) throws ``std::out_of_range`` through the C API,
  and the process aborts at the first such character, which the load's
  own check ("Hello.") already holds.
- RWKV's tokenizer is a greedy longest match over a trie of the tokens
  (unescaped: ``\\xNN``, ``\\n``, ``\\t``, ``\\r`` and ``\\<char>``), which
  moves on only when a token ends on the path it walked.  A byte that begins
  longer tokens but is not a token itself (the 0xC3 of "ü" in a GPT-2
  vocabulary) sends it back to the start of the text, appending a token at
  every pass: an endless loop that eats memory.  A byte that begins no
  token becomes the unknown token, which RWKV vocabularies do not have, and
  llama.cpp refuses to read the -1 that stands for it.

Both rules come to one: every byte UTF-8 text can hold must be a token of
its own (for SentencePiece, as ``<0xNN>`` or as the byte).  Real vocabularies
of both kinds hold all 256 (Llama 2's ``<0x00>``-``<0xFF>``, RWKV's ids
1-256); the texts Reverie tokenizes are UTF-8, so the bytes UTF-8 never uses
(0xC0, 0xC1, 0xF5-0xFF) are not asked for.
"""

from __future__ import annotations

from collections.abc import Set

UTF8_BYTES = tuple(b for b in range(256) if b not in (0xC0, 0xC1) and b < 0xF5)
"""Every byte value valid UTF-8 text can hold."""
_SHOWN_MISSING = 4
_TOKENS_KEY = "tokenizer.ggml.tokens"
_SPM_BYTE = "<0x%02X>"  # as llama.cpp's byte_to_token writes it
_RWKV_BYTE = "\\x%02x"  # as RWKV's vocabulary escapes a byte
_ESCAPES = {ord("t"): ord("\t"), ord("n"): ord("\n"), ord("r"): ord("\r")}


def vocabulary_problem(model: object, texts: Set[bytes]) -> str | None:
    """What makes the vocabulary of tokenizer *model* (``tokenizer.ggml.model``)
    with token *texts* one llama.cpp aborts or hangs on ("has a ... ") or None."""
    if model == "llama":
        missing = [b for b in UTF8_BYTES if not _has_byte_token(texts, b)]
        if missing:
            return (
                "has a SentencePiece vocabulary (tokenizer.ggml.model is 'llama') without the "
                f"byte tokens llama.cpp falls back on in {_TOKENS_KEY} "
                f"({_listed(missing, _SPM_BYTE)}): it would abort on the first character "
                "it has no token for"
            )
    elif model == "rwkv":
        singles = {text for text in map(unescape_rwkv, texts) if len(text) == 1}
        missing = [b for b in UTF8_BYTES if bytes([b]) not in singles]
        if missing:
            return (
                "has an RWKV vocabulary (tokenizer.ggml.model is 'rwkv') without a token for "
                f"each byte alone in {_TOKENS_KEY} ({_listed(missing, _RWKV_BYTE)}): "
                "llama.cpp's RWKV tokenizer would loop forever on text holding them"
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


def unescape_rwkv(text: bytes) -> bytes:
    """*text* as llama.cpp's ``llama_unescape_rwkv_token`` reads it, quirks
    included: a hex digit that is not one becomes some other value, and an
    unfinished escape at the end is dropped."""
    if b"\\" not in text:
        return text
    out = bytearray()
    escaping = False
    hex_left = 0
    value = 0
    for char in text:
        if hex_left:
            # C compares a signed char: a byte from 0x80 up is below 'a'.
            digit = char - 0x61 + 10 if 0x61 <= char < 0x80 else char - 0x30
            value = ((value << 4) + digit) & 0xFF
            hex_left -= 1
            if not hex_left:
                out.append(value)
                value = 0
        elif escaping:
            escaping = False
            if char == 0x78:  # 'x'
                hex_left = 2
            else:
                out.append(_ESCAPES.get(char, char))
        elif char == 0x5C:  # '\\'
            escaping = True
        else:
            out.append(char)
    return bytes(out)
