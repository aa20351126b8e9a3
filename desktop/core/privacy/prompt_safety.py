"""The one way the user's stored text enters a prompt: secrets out, markup inert.

Memories, task texts, skill summaries and bodies, conversation summaries and
the tool results that carry them were written by the user, by a small model
or by an importer, and any of them may hold a secret or text that poses as
the prompt's own structure: a tag closing the block it sits in
(``</memories>``), a chat template's turn token (``<|im_start|>``,
``[INST]``, ``<start_of_turn>``) or Reverie's own ``[SYSTEM EVENT]`` marker
(also the chat's stop string).  ``safe_for_prompt`` takes out what no one
sees (``readable``: Unicode tag characters, which smuggle ASCII a model may
read, bidi overrides, zero-width characters), takes secrets out again
(``redaction``; its patterns may have grown since the text was stored),
breaks that markup and flattens the text to the shape its block expects.

Markup is found in the text as a reader sees it (``text_fold``), so
``</ MEMORIES >``, its full-width twin and a tag split by a zero-width
space, a variation selector or an accent are caught like ``</memories>``.
A tag's attributes may run to any length within a paragraph, a turn token
may hold line breaks; every pattern is possessive where it repeats, so a
long run of spaces costs linear time.
Only the characters of what was found change (angle brackets become single
angle quotation marks, square brackets round ones), so the rest of the text
reaches the model as it was written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Literal

from desktop.core.base.text import readable
from desktop.core.base.text_fold import fold, folded
from desktop.core.privacy.redaction import redact

Shape = Literal["line", "message", "paragraphs", "document"]
"""What the block expects: ``line``, one line (a memory, a task, a skill's
summary: a line break could pose as the next item); ``message``, one line of
a transcript whose line breaks are shown as ``SHOWN_LINE_BREAK`` (a line of
its own could pose as the next speaker: "Sure.\\nUser: I did it");
``paragraphs``, prose whose line breaks are kept (a summary, a routine's
prompt); ``document``, text kept as written but for secrets and turn markup
(a skill's body, a tool's JSON result), where only the tag names prompts use
are broken (a name glued to "-", "." or ":" is read as that name, as
``</memories->`` is), so a skill's ``cat <in >out`` or ``<file>``
placeholder survives."""
SHOWN_LINE_BREAK = " \u23ce "
"""What a line break (or a run of them) in a ``message`` becomes: the model
still sees where the writer broke the line, on the speaker's own line.  Not
" / ", which joins two lines as "name / password" do."""

PROMPT_MARKUP_NAMES = frozenset(
    str.split(
        # The tags Reverie's templates use (tests check every shipped template).
        "memories excerpts tool_call tool_response "
        # Chat templates' turn and role tags.
        "s sys system user assistant model human bot ai tool tools function functions "
        "function_call tool_calls start_of_turn end_of_turn think bos eos endoftext "
        "im_start im_end context instructions sop eop "
        # Seed-OSS's (<seed:bos>, <seed:eos>, read up to the ":"), Baichuan 2's user and assistant.
        "seed reserved_106 reserved_107 "
        # Ling's (Bailing's) <role>HUMAN</role>, Nemotron-Mini's turns, GLM-4.5's tool arguments.
        "role extra_id_0 extra_id_1 arg_value"
    )
)
"""Tag names that open or close a block or a turn in some prompt."""

_BRACKET_TOKENS = (
    r"INST|SYS|SYSTEM_PROMPT|AVAILABLE_TOOLS|TOOL_CALLS|TOOL_RESULTS|TOOL_CONTENT"
    # Magistral's, GLM's; openPangu's turns ([unused9]...[unused10]).
    r"|THINK|ARGS|CALL_ID|IMG|[gs]MASK|unused\d{1,3}"
    # The compaction prompt's own markers.
    r"|PRIOR\s+SUMMARY|NEW\s+MESSAGES"
)
_NAME = r"[^\W\d][\w:.-]{0,40}+"
"""A tag's name."""
_NESTED = r"<(?:[^<>\n]++|<[^<>\n]*+>)*+>"
_ATTRIBUTES = rf"(?:[^<>\n]++|{_NESTED})*+"
"""A tag's attributes on one line, tags among them (two levels down)."""
_MARKUP = re.compile(
    # Every repeat is possessive (++, *+) or bounded by what follows it, so
    # a failed match never backtracks over a long run of spaces or junk.
    # A special token in a chat template: <|im_start|>, <|eot_id|>, DeepSeek's (full-width bars).
    r"(?P<token><\s*+\|[^<>|]*+\|\s*+>)"
    # Llama 2's and Mistral's: <<SYS>>, [INST], [/INST], [TOOL_CALLS].
    r"|(?P<llama><<\s*+/?\s*+SYS\s*+>>)"
    rf"|(?P<bracket>\[\s*+/?\s*+(?:{_BRACKET_TOKENS})\s*+\])"
    # EXAONE's: [|system|], [|endofturn|].
    r"|(?P<exaone>\[\|[^\[\]|\n]{1,40}+\|\])"
    # MiniMax's: ]~!b[ (the start), ]~b] (a turn's role), [e~[ (a turn's end).
    r"|(?P<minimax>\]~!?b[\[\]]|\[e~\[)"
    # Reverie's own marker for its hidden instructions, and the chat's stop string.
    r"|(?P<event>\[\s*+system[\W_]*+event\s*+\]|(?-i:SYSTEM[\W_]*+EVENT))"
    # A tag, opening or closing, with stray spaces, a self-closing slash or
    # attributes of any length (line breaks among them, tags inside them:
    # </memories <b>>), or a value right after its name (<function=name>).
    rf"|(?P<tag><\s*+/?\s*+(?P<name>{_NAME})"
    rf"(?:[\s/=]{_ATTRIBUTES}(?:\n{_ATTRIBUTES})*+)?+\s*+>)"
    # The opening of a prompt tag whose end the pattern cannot read (tags
    # nested deeper inside it, no ">" at all): its "<" goes.
    rf"|(?P<opening><\s*+/?\s*+(?:{'|'.join(sorted(PROMPT_MARKUP_NAMES, key=len, reverse=True))})"
    r"(?![\w:.-]))",
    re.IGNORECASE,
)
_TAG_NAME = re.compile(rf"<\s*/?\s*({_NAME})")
"""A tag's name (the pattern's), read from a tag's text."""
_LINE_BREAK = re.compile(r"[ \t]*\n[ \t]*")
_GLUED = re.compile(r"[:.-]")
"""What may follow a tag's name in the pattern, yet leaves the name as it was read."""
_STOP_STRING = re.compile(r"SYSTEM[\W_]*EVENT")
_QUOTES = {"<": "\u2039", ">": "\u203a", "[": "(", "]": ")"}
"""What the brackets of found markup become: look-alikes no template uses."""
_BLOCK_MARKS = re.compile(r"[ \t]*+(?:(?:[-*_=][ \t]*+){3,}\Z|#{1,6}+(?![^ \t]))")
"""The start of a line that makes it a rule or a setext underline (three
marks or more, spaces between) or an ATX heading (a "#" run before a space)."""
_PROSE_MARKS = {"-": "\u2010", "*": "\u2217", "_": "\u2017", "=": "\u2550", "#": "\u266f"}
"""What those marks become: look-alikes Markdown and templates do not read."""
_ROUNDS = 3
_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def safe_for_prompt(text: str, shape: Shape = "line") -> str:
    """*text* fit to go into a prompt as a block of *shape*: secrets redacted,
    prompt and turn markup broken, flattened as the block expects."""
    return _safe(text, shape)


def users_own(text: str) -> str:
    """The user's own words, *text*, as the model reads them in the user's
    turn: as written, but without what no one sees (``readable``; a pasted
    page may smuggle ASCII in tag characters) and with each piece of
    markup ``safe_for_prompt`` breaks in a ``document`` (a chat template's
    turn tokens above all) broken by a word joiner after its first
    character.  A server renders the prompt and tokenizes it with special
    tokens on (llama.cpp's does), so ``<|im_end|>`` typed or pasted became
    the end of the turn there; the joiner shows nothing, so the text reads
    as it was written."""
    text = readable(text)
    seen, origins = folded(text)
    pieces: list[str] = []
    done = 0
    for match in _live_markup(seen, "document"):
        after = origins[match.start()] + 1
        pieces += [text[done:after], _JOINER]
        done = after
    pieces.append(text[done:])
    return "".join(pieces)


_JOINER = "\u2060"
"""The word joiner: it shows nothing and joins no token's text."""


def has_prompt_markup(text: str, shape: Shape = "line") -> bool:
    """Does *text* hold markup that ``safe_for_prompt`` would break?"""
    seen, _ = folded(text)
    return next(_live_markup(seen, shape), None) is not None


@lru_cache(maxsize=4096)  # the same memories go into every turn's prompt
def _safe(text: str, shape: Shape) -> str:
    # What no one sees goes first: what is written there is read by a model
    # alone (ASCII in tag characters), and the user cannot check it.
    text = redact(readable(text)).text
    if (flat := _flattened(text, shape)) != text:
        # Lines joined can read as a secret none of them was alone
        # ("hunter2\n-password" as "hunter2 -password").
        text = redact(flat).text
    # Breaking a tag nested deeper than the pattern reads can leave the outer
    # one whole ("<memories <a <b <c>>>>"): a few rounds more, then every
    # bracket goes (deep nesting is no prose; rounds without end cost time).
    for _ in range(_ROUNDS):
        if (again := _inert(text, shape)) == text:
            return text
        text = again
    if next(_live_markup(folded(text)[0], shape), None) is not None:
        text = "".join(_QUOTES.get(fold(c), c) for c in text)
    return text


def _flattened(text: str, shape: Shape) -> str:
    """*text* in the form its *shape* of block takes."""
    if shape == "line":
        return " ".join(text.split())
    if shape == "message":
        spoken = (" ".join(line.split()) for line in text.splitlines())
        return SHOWN_LINE_BREAK.join(line for line in spoken if line)
    if shape == "paragraphs":
        lines = "\n".join(_prose(line.rstrip()) for line in text.strip().splitlines())
        return _BLANK_LINES.sub("\n\n", lines)
    return text


def _prose(line: str) -> str:
    """*line* of a ``paragraphs`` block with the marks that would make it a
    rule (``---``, the line between the sections of a prompt, so what
    follows it would read as the prompt's own) or a heading (``### System``)
    replaced by look-alikes, read as a reader sees them."""
    seen, origins = folded(line)
    if (found := _BLOCK_MARKS.match(seen)) is None:
        return line
    stop = origins[found.end() - 1] + 1
    return "".join(_PROSE_MARKS.get(fold(c), c) for c in line[:stop]) + line[stop:]


def _inert(text: str, shape: Shape) -> str:
    """*text* with the brackets of every piece of live markup replaced."""
    seen, origins = folded(text)
    pieces: list[str] = []
    done = 0
    for match in _live_markup(seen, shape):
        start = origins[match.start()]
        stop = origins[match.end() - 1] + 1
        # Lowered when it holds the stop string, as in <b SYSTEM EVENT>.
        lowered = bool(match["event"]) or _STOP_STRING.search(match.group()) is not None
        pieces += [text[done:start], _broken(text[start:stop], lowered)]
        done = stop
    pieces.append(text[done:])
    return "".join(pieces)


def _live_markup(folded: str, shape: Shape) -> Iterator[re.Match[str]]:
    """The live markup in *folded*, in order; what is passed over is searched
    again from its second character (``<file [INST]>`` hides ``[INST]``)."""
    position = 0
    while (match := _MARKUP.search(folded, position)) is not None:
        if _live(match, shape):
            yield match
            position = match.end()
        else:
            position = match.start() + 1


def _live(match: re.Match[str], shape: Shape) -> bool:
    """Markup that could close or open a block or a turn in a *shape* block:
    in a document, a tag only if prompts use its name, read up to a "-",
    "." or ":" glued to it (a reader, and a model, sees ``</memories.>`` as
    ``</memories>``), and read across a line break in it too
    (``</mem\nories>``: the other shapes join or show the break, a
    document keeps it)."""
    if match["tag"] is None or shape != "document":
        return True
    joined = _TAG_NAME.match(_LINE_BREAK.sub("", match["tag"]))
    names = (match["name"], joined[1] if joined else "")
    return any(_GLUED.split(n, maxsplit=1)[0].casefold() in PROMPT_MARKUP_NAMES for n in names)


def _broken(found: str, lowered: bool) -> str:
    if lowered:  # as read: a math-bold SYSTEM has no lower case of its own
        return "".join(_QUOTES.get(c, c) for c in "".join(map(fold, found)).lower())
    return "".join(_QUOTES.get(fold(c), c) for c in found)
