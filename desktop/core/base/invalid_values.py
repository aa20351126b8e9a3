"""A pydantic validation error in the words of a settings file: which key,
and what its value must be.

Used where a user's own file is read (``desktop.core.base.settings``), so a
problem names the key to fix and never echoes the value itself (it may be a
mistyped secret).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic_core import ErrorDetails

_REASONS: dict[str, Callable[[dict[str, Any]], str]] = {
    "greater_than_equal": lambda ctx: f"must be ≥ {ctx['ge']}",
    "greater_than": lambda ctx: f"must be > {ctx['gt']}",
    "less_than_equal": lambda ctx: f"must be ≤ {ctx['le']}",
    "less_than": lambda ctx: f"must be < {ctx['lt']}",
    "too_short": lambda ctx: f"must hold at least {ctx['min_length']}",
    "too_long": lambda ctx: f"must hold at most {ctx['max_length']}",
    "literal_error": lambda ctx: f"must be {ctx['expected']}",
    # A sentence of our own validators; the caller adds "; kept the default".
    "value_error": lambda ctx: str(ctx["error"]).rstrip("."),
    "extra_forbidden": lambda ctx: "not a setting Reverie knows",
    "string_pattern_mismatch": lambda ctx: "is not in the expected form",
    "finite_number": lambda ctx: "must be a finite number",
}
_NAME_LIKE = re.compile(
    r"[A-Za-z\ufffd][a-z\ufffd]{0,19}(?:_[A-Za-z\ufffd][a-z\ufffd]{0,19}|[A-Z][a-z\ufffd]{1,19}){0,5}[0-9]?"
)
"""A key shaped like a setting's name: words of letters (``voice_speed``,
``maxTokens``, ``contxt``; a byte that is not UTF-8 read as U+FFFD), none
longer than twenty, a digit at most at the end.  A secret pasted as a key
(``sk_live_4eC39H...``, a run of random letters) is not."""
_SHOWN_CHARS = 40

_KINDS = {
    "bool": "true or false",
    "int": "a whole number",
    "float": "a number",
    "string": "text",
    "tuple": "a list",
    "list": "a list",
    "dict": "an object",
    "model": "an object",
}


def reason(detail: ErrorDetails) -> str:
    """What is wrong, e.g. ``must be ≥ 0`` (pydantic's own message for the rare rest)."""
    kind = detail["type"]
    explain = _REASONS.get(kind)
    if explain is not None:
        return explain(dict(detail.get("ctx") or {}))
    head, _, tail = kind.partition("_")
    if head in _KINDS and tail in ("type", "parsing", "from_float"):
        return f"must be {_KINDS[head]}"
    return detail["msg"][:1].lower() + detail["msg"][1:]


def dotted(prefix: str, loc: tuple[int | str, ...]) -> str:
    """``models.chat[1].url`` for *loc* ``("chat", 1, "url")`` under *prefix* ``models``."""
    return key_name(prefix) + "".join(
        f"[{part}]" if isinstance(part, int) else f".{key_name(part)}" for part in loc
    )


def key_name(key: str) -> str:
    """*key* as shown in a problem (on screen, on stderr): as it is if
    shaped like a setting's name, else only its length.  A key the file
    made up may be a secret pasted in the wrong place (no part of it is
    shown: a prefix of a key is a start at guessing it), hold a line break
    or control characters, or be a page long."""
    if len(key) <= _SHOWN_CHARS and _NAME_LIKE.fullmatch(key):
        return key if key.isascii() else ascii(key)
    return f"(a key of {len(key):,} characters, not shown: it may hold a secret)"
