"""Chat messages in Markdown, turned into the HTML subset Qt's QTextDocument renders.

``render_markdown`` is called every ~100 ms while a reply streams, so the
parsers, formatters and lexers are built once and highlighted code blocks are
cached: while a reply grows, only its last block changes.  Raw HTML in a
message is shown as text, only http, https, mailto and file links are linked,
and images become links, so a message can never make the view load anything.
All styling is inline (``style`` attributes), the only kind Qt applies to
``setHtml`` content without a document stylesheet.  No Qt is imported here.
"""

from __future__ import annotations

import functools
import html
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

# Pygments ships no type information (types-Pygments is not a dependency).
from pygments import highlight  # type: ignore[import-untyped]
from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
from pygments.lexers.special import TextLexer  # type: ignore[import-untyped]
from pygments.token import Token as PygmentsToken  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]

from desktop.core.base.text import scrub

MAX_RENDERED_CHARS = 100_000
"""Longer messages show only their start; Copy still copies all of them."""

MAX_HIGHLIGHTED_CHARS = 10_000
"""A code block is coloured up to here and plain after: Pygments takes about
a second for 100,000 characters of Python, and a streaming reply is rendered
again every 100 ms."""

LINK_SCHEMES = frozenset({"http", "https", "mailto", "file"})

MONOSPACE = "'DejaVu Sans Mono', Menlo, Consolas, 'Courier New', monospace"

# A cut that lands on a combining mark or a joiner moves back over at most
# this many characters, so an accent is not shown without its letter.
_MAX_CLUSTER_BACKOFF = 16
_JOINERS = frozenset({"\u200c", "\u200d"})


@dataclass(frozen=True)
class _Theme:
    pygments_style: str
    inline_code_background: str
    caption_color: str
    link_color: str
    table_border_color: str


_LIGHT = _Theme(
    pygments_style="default",
    inline_code_background="#eff1f3",
    caption_color="#6a737d",
    link_color="#0969da",
    table_border_color="#d0d7de",
)
_DARK = _Theme(
    pygments_style="github-dark",
    inline_code_background="#343942",
    caption_color="#8b949e",
    link_color="#58a6ff",
    table_border_color="#444c56",
)


def render_markdown(text: str, *, dark: bool = False) -> str:
    """The HTML for one chat message written in Markdown.

    Single newlines are line breaks; an unclosed code fence (a reply still
    streaming) runs to the end of the message as code.
    """
    shown, hidden = _cap(scrub(text))
    body: str = _parser(_DARK if dark else _LIGHT).render(shown)
    return _joined(body, _hidden_note(hidden))


def render_plain(text: str) -> str:
    """``text`` as HTML, escaped, with its line breaks and spaces kept."""
    shown, hidden = _cap(scrub(text))
    shown = shown.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    escaped = html.escape(shown, quote=False).replace("\n", "<br />")
    return _joined(f'<p style="white-space:pre-wrap">{escaped}</p>', _hidden_note(hidden))


def _cap(text: str) -> tuple[str, int]:
    """The part of ``text`` to show and how many characters are left out."""
    if len(text) <= MAX_RENDERED_CHARS:
        return text, 0
    cut = MAX_RENDERED_CHARS
    floor = cut - _MAX_CLUSTER_BACKOFF
    while cut > floor and _continues_cluster(text[cut]):
        cut -= 1
    return text[:cut], len(text) - cut


def _continues_cluster(char: str) -> bool:
    return char in _JOINERS or unicodedata.category(char) in {"Mn", "Mc", "Me"}


def _hidden_note(hidden: int) -> str:
    if not hidden:
        return ""
    return (
        f"<p><i>… {hidden:,} more characters are not shown here; "
        "Copy copies the whole message.</i></p>"
    )


def _joined(*parts: str) -> str:
    # Qt turns a newline after the last block into a trailing space.
    return "\n".join(part.rstrip("\n") for part in parts if part)


class _ChatMarkdown(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        scheme, colon, _ = url.partition(":")
        return bool(colon) and scheme.strip().lower() in LINK_SCHEMES


class _ChatRenderer(RendererHTML):
    """markdown-it's HTML renderer with Qt-friendly inline styles."""

    def __init__(self, theme: _Theme) -> None:
        super().__init__()
        self._theme = theme
        style = _formatter(theme.pygments_style).style
        self._code_background: str = style.background_color
        text_color: str | None = style.style_for_token(PygmentsToken.Text)["color"]
        self._code_color = f" color:#{text_color};" if text_color else ""

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        token = tokens[idx]
        info = token.info.strip().split(maxsplit=1)
        language = info[0] if info else ""
        return self._code_block(token.content, language)

    def code_block(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return self._code_block(tokens[idx].content, "")

    def code_inline(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        style = f"font-family:{MONOSPACE}; background-color:{self._theme.inline_code_background}"
        return f'<code style="{style}">{html.escape(tokens[idx].content, quote=False)}</code>'

    def link_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        tokens[idx].attrSet("style", f"color:{self._theme.link_color}")
        return self.renderToken(tokens, idx, options, env)

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # A link, not an <img>: the view must not load files or URLs by itself.
        token = tokens[idx]
        source = str(token.attrGet("src") or "")
        alt = self.renderInlineAsText(token.children or [], options, env) or source
        return (
            f'<a href="{html.escape(source)}" style="color:{self._theme.link_color}">'
            f"{html.escape(alt, quote=False)}</a>"
        )

    def table_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        # Qt draws no cell borders unless asked through these attributes.
        return (
            '<table border="1" cellspacing="0" cellpadding="4" style="border-collapse:collapse;'
            f' border-color:{self._theme.table_border_color}">\n'
        )

    def _code_block(self, code: str, language: str) -> str:
        caption = ""
        top_margin = 12
        if language:
            caption = (
                '<p style="margin-top:12px; margin-bottom:0px; font-size:small;'
                f' color:{self._theme.caption_color}">{html.escape(language)}</p>\n'
            )
            top_margin = 2
        style = (
            f"margin-top:{top_margin}px; margin-bottom:12px; white-space:pre-wrap;"
            f" font-family:{MONOSPACE}; background-color:{self._code_background};"
            f"{self._code_color}"
        )
        body = _highlighted(code, language, self._theme.pygments_style)
        # HTML drops the first newline inside <pre>; this one, so not the code's.
        return f'{caption}<pre style="{style}">\n{body}</pre>\n'


@functools.cache
def _parser(theme: _Theme) -> MarkdownIt:
    options = {"html": False, "linkify": False, "breaks": True}
    parser = _ChatMarkdown("commonmark", options, renderer_cls=lambda _md: _ChatRenderer(theme))
    return parser.enable(["table", "strikethrough"])


@functools.cache
def _formatter(style: str) -> Any:
    return HtmlFormatter(nowrap=True, noclasses=True, style=style)


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Any:
    # Guessing a language from the code is slow and often wrong: unknown or
    # missing names are plain text.  stripnl would drop leading blank lines.
    options = {"stripnl": False}
    if not language:
        return TextLexer(**options)
    try:
        return get_lexer_by_name(language, **options)
    except ClassNotFound:
        return TextLexer(**options)


def _highlighted(code: str, language: str, style: str) -> str:
    """``code`` as coloured HTML, without the newline that ends its last line.

    Only the first MAX_HIGHLIGHTED_CHARS (whole lines) are coloured: that
    part stops changing, and stays cached, while a long block streams in.
    """
    cut = len(code)
    if cut > MAX_HIGHLIGHTED_CHARS:
        cut = code.rfind("\n", 0, MAX_HIGHLIGHTED_CHARS) + 1
    head = _highlight(code[:cut], language, style) if cut else ""
    tail = html.escape(code[cut:], quote=False)
    return (head + tail).removesuffix("\n")


@functools.lru_cache(maxsize=128)
def _highlight(code: str, language: str, style: str) -> str:
    # The formatter ends every line, the last one too, with a newline.
    highlighted: str = highlight(code, _lexer(language), _formatter(style))
    return highlighted


COMMON_LANGUAGES = (
    "python", "javascript", "typescript", "bash", "json", "yaml", "html", "css", "sql",
    "c", "cpp", "java", "go", "rust", "markdown", "text",
)  # fmt: skip


def warm_up() -> None:
    """Load the parsers, styles and common lexers now (tens of milliseconds on
    their first use), so that the first code block of a reply does not stall
    the window.  Meant for a worker thread at start-up."""
    for dark in (False, True):
        render_markdown("**warm** `up`\n\n| a |\n|---|\n| b |", dark=dark)
    for language in COMMON_LANGUAGES:
        render_markdown(f"```{language}\nx = 1\n```")
