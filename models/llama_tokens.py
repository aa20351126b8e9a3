"""Turning text into a llama.cpp model's tokens: the one way every count,
prompt and embedding in the model layer tokenizes.

llama.cpp splits text for a BPE vocabulary with the model's pre-tokenizer
regex, and many of those (gpt-4o, tekken, deepseek-v3, llama4, bloom,
falcon...) it runs through libstdc++'s ``std::regex``, which recurses once
per character of a match: a few hundred bytes of stack a character, so a
run of some 25,000 spaces, "=", emoji or unpunctuated CJK in a paste
overflowed an 8 MB stack and the process died (SIGSEGV); on a 512 KB stack
(macOS's default for threads Python does not make) 2,000 did.  So a long
text for a BPE vocabulary is tokenized in pieces of at most
``MAX_PIECE_CHARS`` (``text_pieces``): no match can be longer than a piece.
The other kinds of vocabulary (SentencePiece, WordPiece, Unigram, RWKV)
split text without a regex and get it whole.

Pieces are cut where the common pre-tokenizers split anyway, so the tokens
are the same as of the whole text: before a space between two non-spaces
(the space opens the next word's pre-token) or after a line break between
two non-spaces, and, when special tokens are read, around each special
token's text (llama.cpp tokenizes the text between them apart anyway).  A
stretch without such a place (the runs above) is cut at ``MAX_PIECE_CHARS``,
where the tokens may differ from the whole text's by a merge at the cut.
Pre-tokenizers that join words across spaces (exaone-moe's) may differ at
every cut.  Measured on the README, this package's code and CJK prose with
llama.cpp's 14 BPE test vocabularies and SmolLM2's under 13 more
pre-tokenizers, every token was the same but 2 of 46,729 with
deepseek-coder's, which leaves a space before a symbol ("=") unsplit.

The cost stays linear: each piece is looked at once, and each call to
llama.cpp gets a buffer the size of its piece.  llama.cpp compiles a
``std::regex`` at every call, about a millisecond: a 1 MB paste takes 3 s
instead of 1.4 s with gpt-4o's pre-tokenizer (SmolLM2's, written by hand in
llama.cpp, takes 1.1 s either way).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import llama_cpp

MAX_PIECE_CHARS = 1000
"""The longest text a BPE vocabulary's pre-tokenizer is given at once.  On a
512 KB stack, runs of 1,500 spaces, "=", "中", emoji or letters held under
each of seven ``std::regex`` pre-tokenizers (gpt-4o, tekken, deepseek-v3,
deepseek-llm, falcon, bloom, exaone-moe); 2,000 spaces overflowed it under gpt-4o's."""
_SEAM = re.compile(r"(?<=\S)(?= \S)|(?<=\S\n)(?=\S)")
"""Where a piece may end: before a space, or after a line break, between two non-spaces."""
_BPE = llama_cpp.LLAMA_VOCAB_TYPE_BPE


def tokenize(
    vocab: Any,
    text: str,
    *,
    add_special: bool,
    parse_special: bool,
    specials: re.Pattern[str] | None = None,
) -> list[int]:
    """The tokens of *text* in *vocab* (a ``llama_vocab`` pointer), as ``llama_tokenize``
    makes them (the BOS and EOS the model asks for if *add_special*; the
    texts of special tokens read as those tokens if *parse_special*), in
    pieces where its pre-tokenizer could overflow the stack.

    *specials* matches the texts llama.cpp reads as special tokens: a piece
    never ends inside one.  A lone surrogate (from a JSON "\\ud83d" escape)
    cannot be encoded; it becomes "?" rather than failing every later turn.
    """
    if len(text) <= MAX_PIECE_CHARS or llama_cpp.llama_vocab_type(vocab) != _BPE:
        return _tokenize(vocab, text, add_special, parse_special)
    tokens: list[int] = []
    # As llama.cpp's BPE session adds them around the whole text.
    if add_special and llama_cpp.llama_vocab_get_add_bos(vocab):
        tokens.append(llama_cpp.llama_vocab_bos(vocab))
    for piece in text_pieces(text, specials if parse_special else None):
        tokens += _tokenize(vocab, piece, False, parse_special)
    if add_special and llama_cpp.llama_vocab_get_add_eos(vocab):
        tokens.append(llama_cpp.llama_vocab_eos(vocab))
    return tokens


def text_pieces(
    text: str, specials: re.Pattern[str] | None = None, limit: int = MAX_PIECE_CHARS
) -> Iterator[str]:
    """*text* in consecutive pieces of at most *limit* characters (a special
    token's text longer than that stays whole), each a special token's text
    (matched by *specials*) or cut where ``_SEAM`` allows, else at *limit*."""
    start = 0
    for match in specials.finditer(text) if specials is not None else ():
        yield from _plain_pieces(text, start, match.start(), limit)
        yield match.group()
        start = match.end()
    yield from _plain_pieces(text, start, len(text), limit)


def _plain_pieces(text: str, start: int, end: int, limit: int) -> Iterator[str]:
    while end - start > limit:
        cut = _cut(text, start, end, limit)
        yield text[start:cut]
        start = cut
    if end > start:
        yield text[start:end]


def _cut(text: str, start: int, end: int, limit: int) -> int:
    """Where the piece of ``text[start:end]`` from *start* ends: at the last
    seam in the second half of its *limit* (so a text takes at most twice as
    many pieces as it must), else at *limit*."""
    hard = start + limit
    cut = hard
    # endpos: the seam's lookahead at *hard* needs the two characters after it.
    for seam in _SEAM.finditer(text, start + limit // 2, min(hard + 2, end)):
        if seam.start() > hard:
            break
        cut = seam.start()
    return cut


def _tokenize(vocab: Any, text: str, add_special: bool, parse_special: bool) -> list[int]:
    data = text.encode("utf-8", errors="replace")
    # A token covers at least a byte; the BOS and EOS are the only others.
    room = len(data) + 2
    buffer = (llama_cpp.llama_token * room)()
    count = llama_cpp.llama_tokenize(
        vocab, data, len(data), buffer, room, add_special, parse_special
    )
    if count < 0:  # never for the vocabularies llama.cpp has, but it says how many it needs
        room = -count
        buffer = (llama_cpp.llama_token * room)()
        count = llama_cpp.llama_tokenize(
            vocab, data, len(data), buffer, room, add_special, parse_special
        )
    return list(buffer[:count])
