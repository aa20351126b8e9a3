"""A model's own chat template, rendered within bounds of work and size.

The template is Jinja kept in the GGUF's metadata (``tokenizer.chat_template``),
so a damaged or hostile file brings one that does not parse, raises at every
reply, loops for hours or builds gigabytes of text.  It is rendered as
llama-cpp-python renders it (jinja2's immutable sandbox, its extensions and
``tojson``), with bounds added: every loop item, call, attribute lookup,
operator and piece of output is a step against a budget of steps and a
deadline, every text made is held to a size, and the output too.  The loops
and the output are reached by rewriting the parsed template (a filter
around every loop's items and every output), since Jinja compiles them to
plain Python that no sandbox hook sees.  A call that writes one text at
each of many places of another (an indent at every line, a tab's width, a
format's widths, a JSON indent) is refused before it runs when that would
pass the size: checking its result came after the memory was taken.

``ChatTemplate.check`` renders a sample conversation when the model loads,
so a template that cannot work fails there, naming the file; a template
that fails on a later conversation fails that reply, typed, never hangs.

A template that refuses a system message (Gemma 2's raises) or leaves it
out of its prompt (the memories and instructions would vanish without a
word) is given it at the start of the first user message instead, as
llama.cpp's own templates do for such models; one that refuses two messages
of one role in a row (Mistral's) is given them joined.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import math
import re
import string
import time
from collections.abc import Callable, Iterator, Mapping, Sequence, Sized
from datetime import datetime
from itertools import compress
from typing import Any, Literal

import jinja2
from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Namespace
from jinja2.visitor import NodeTransformer
from llama_cpp.llama_chat_format import Jinja2ChatFormatter
from markupsafe import Markup

from models.errors import ModelFileInvalid

log = logging.getLogger(__name__)

MAX_STEPS = 1_000_000
"""Far above any real template's need (SmolLM2's takes ~20 steps a message)."""
MAX_SECONDS = 2.0
_MIN_TEXT = 1 << 20
"""Texts may grow to four times the conversation, and at least this."""
_MAX_INT_ARGUMENT = 1 << 20
"""No real template passes a larger number (a width, a count) to a call."""
_MAX_INT_BITS = 4096
_WIDE_FORMAT = re.compile(r"\d{6,}")
"""A format width or precision of a million or more characters."""
_FORMAT_NUMBER = re.compile(r"\d+")
"""A number in a format: each may be a width, all of them together the
text the format makes (literal digits count too, which only errs high)."""
_MAX_MARKS = 100_000
"""The most tags and entities ``striptags`` may take out of a text: it
takes each in a step of Python (some microseconds), which no budget sees
until the filter returns (a million took seconds, past the deadline)."""
_MAX_JSON_INDENT = 64
"""The widest JSON indent (templates indent by a few spaces or a tab): it is
written before every line, once per level of nesting."""
_SAMPLE = ({"role": "user", "content": "Hello."},)
_HINT = "Download the model again or choose another .gguf file."

_ITEMS = "_reverie_items"
_EMIT = "_reverie_emit"
_TEXT = "_reverie_text"


class _TooCostly(jinja2.TemplateError):
    """The template went past its budget of steps, time or size."""


class _Refused(Exception):
    """The template called ``raise_exception``."""


class _Budget:
    def __init__(self, max_chars: int) -> None:
        self.steps = MAX_STEPS
        self.deadline = time.monotonic() + MAX_SECONDS
        self.max_chars = max_chars
        self.emitted = 0

    def step(self, count: int = 1) -> None:
        self.steps -= count
        if self.steps < 0 or time.monotonic() > self.deadline:
            raise _TooCostly("too much work")

    def emit(self, text: str) -> None:
        self.emitted += len(text)
        if self.emitted > self.max_chars:
            raise _TooCostly("too much output")


class _Bounder(NodeTransformer):
    """Routes every loop's items, every output and every ``~`` through the
    budget's filters."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = _filtered(_expression(node.iter), _ITEMS)
        return node

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [_filtered(_expression(child), _EMIT) for child in node.nodes]
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return _filtered(node, _TEXT)


def _expression(node: nodes.Node) -> nodes.Expr:
    if isinstance(node, nodes.TemplateData):
        return nodes.Const(node.data, lineno=node.lineno)
    assert isinstance(node, nodes.Expr)  # an Output holds template data and expressions only
    return node


def _filtered(node: nodes.Expr, name: str) -> nodes.Filter:
    return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)


class _BoundedEnvironment(ImmutableSandboxedEnvironment):
    """llama-cpp-python's chat-template environment, with every step counted."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self) -> None:
        super().__init__(
            loader=jinja2.BaseLoader(),
            trim_blocks=True,
            lstrip_blocks=True,
            extensions=[Jinja2ChatFormatter.IgnoreGenerationTags, jinja2.ext.loopcontrols],
        )
        self.budget: _Budget | None = None
        # lorem ipsum is no part of a prompt, and writes its paragraphs
        # (millions, for one call) where no step or size is counted.
        self.globals.pop("lipsum", None)
        self.filters["tojson"] = self._tojson  # llama-cpp-python's, within the size bound
        self.filters = {name: self._guarded(f) for name, f in self.filters.items()}
        # pass_context: never evaluated while compiling, only under a budget.
        self.filters[_ITEMS] = jinja2.pass_context(lambda _context, items: self._items(items))
        self.filters[_EMIT] = jinja2.pass_context(lambda _context, value: self._emit(value))
        self.filters[_TEXT] = jinja2.pass_context(lambda _context, value: self._text(value))

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        template = super()._parse(source, name, filename)
        _Bounder().visit(template)
        return template

    # -- the budget's filters ------------------------------------------------------
    def _items(self, iterable: Any) -> Iterator[Any]:
        for item in iterable:
            self._step()
            yield item

    def _emit(self, value: Any) -> str:
        self._step()
        self._check_size(value)  # a list holding one list twice, forty times over
        text = str(value)
        if self.budget is not None:
            self.budget.emit(text)
        return text

    def _text(self, value: Any) -> Any:
        self._check_size(value)
        return value

    # -- the sandbox's hooks --------------------------------------------------------
    # jinja2's own signature: the names keep *kwargs* free for any key.
    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        __self._step()
        __self._check_arguments(args, kwargs)
        # The sandbox wraps str.format; the bound method is kept as __wrapped__.
        method = getattr(__obj, "__wrapped__", __obj)
        name, text = getattr(method, "__name__", ""), getattr(method, "__self__", None)
        if name == "format":
            __self._check_format(text, (*args, *kwargs.values()))
        elif name == "format_map" and args:
            __self._check_format(text, args)
        elif name == "replace" and isinstance(text, str):
            __self._check_replace(text, args)
        elif name == "join" and isinstance(text, str) and args:
            args = (_listed(args[0]), *args[1:])
            __self._check_join(args[0], text)
        elif name == "expandtabs" and isinstance(text, str):
            __self._check_inserted(text.count("\t"), args[0] if args else kwargs.get("tabsize", 8))
        elif name in _CASE_METHODS and isinstance(text, str):
            __self._check_size(text, _case_mapped_size)
        elif name == "translate" and isinstance(text, str) and args and isinstance(args[0], dict):
            longest = max((v for v in args[0].values() if isinstance(v, str)), key=len, default="")
            __self._check_inserted(len(text), longest)
        result = super().call(__context, __obj, *args, **kwargs)
        __self._check_size(result)
        return result

    def getattr(self, obj: Any, attribute: str) -> Any:
        self._step()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        self._step()
        return super().getitem(obj, argument)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        self._step()
        if operator == "*":
            self._check_product(left, right)
        elif operator == "**":
            self._check_power(left, right)
        elif operator == "%":
            self._check_format(left, right if isinstance(right, tuple) else (right,))
            self._check_arguments(right if isinstance(right, tuple) else (right,), {})
        result = super().call_binop(context, operator, left, right)
        self._check_size(result)
        return result

    def _guarded(self, function: Callable[..., Any]) -> Callable[..., Any]:
        name = function.__name__
        signature = inspect.signature(function) if name in _TEXT_FILTERS else None
        microseconds = _MICROSECONDS_AN_ITEM.get(name)
        # The value comes after the context, environment or evaluation
        # context jinja2 passes first (to some filters without saying so in
        # their signature: those it gives its async variants).
        at = 0 if getattr(function, "jinja_pass_arg", None) is None else 1
        written = _WRITTEN_AS.get(name)

        @functools.wraps(function)  # keeps jinja2's pass_context marks
        def guarded(*args: Any, **kwargs: Any) -> Any:
            self._step()
            self._check_arguments(args, kwargs)
            if written is not None:
                for value in (*args, *kwargs.values()):
                    self._check_size(value, *written)
            if microseconds is not None and len(args) > at:
                self._charge_items(args[at], microseconds)
            if signature is not None:  # by name: a filter's text may come as a keyword
                given = signature.bind(*args, **kwargs)
                if name == "do_join":
                    given.arguments["value"] = _listed(given.arguments.get("value"))
                self._check_text_filter(name, given.arguments)
                args, kwargs = given.args, given.kwargs
            result = function(*args, **kwargs)
            self._check_size(result)
            return result

        return guarded

    # -- the checks -----------------------------------------------------------------
    def _step(self) -> None:
        if self.budget is not None:
            self.budget.step()

    @property
    def _max_chars(self) -> int:
        return self.budget.max_chars if self.budget is not None else _MIN_TEXT

    def _check_size(
        self, value: Any, measure: Callable[[str], int] = len, nesting: bool = False
    ) -> None:
        """Refuse *value* if it is (or, *measure*d as a filter writes each
        text in it, becomes) longer than the budget's size."""
        if _size(value, self._max_chars, measure, nesting) > self._max_chars:
            raise _TooCostly("too long a value")
        if type(value) is int and value.bit_length() > _MAX_INT_BITS:
            raise _TooCostly("too large a number")

    def _check_arguments(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        for value in (*args, *kwargs.values()):
            if type(value) is int and abs(value) > _MAX_INT_ARGUMENT:
                raise _TooCostly("too large a number passed to a call")

    def _check_product(self, left: Any, right: Any) -> None:
        if type(left) is int and type(right) is int:
            if left.bit_length() + right.bit_length() > _MAX_INT_BITS:
                raise _TooCostly("too large a number")
            return
        for sized, count in ((left, right), (right, left)):
            if (
                hasattr(sized, "__len__")
                and type(count) is int
                and _size(sized, self._max_chars) * count > self._max_chars
            ):
                raise _TooCostly("too long a repetition")

    def _check_power(self, left: Any, right: Any) -> None:
        numbers = isinstance(left, int | float) and isinstance(right, int | float)
        if numbers and abs(right) > 64 and abs(left) > 1:
            raise _TooCostly("too large a power")

    def _check_format(self, pattern: Any, values: Sequence[Any] = ()) -> None:
        """Refuse a format making more text than the budget's size: its own
        widths, and each of its fields as wide as the widest of its *values*:
        the longest as text, or the largest number (``%*d`` and ``{0:{1}}``
        take their widths from them); one value may fill every field."""
        if not isinstance(pattern, str):
            return
        widest = max(
            (abs(v) if type(v) is int else _size(v, self._max_chars) for v in values), default=0
        )
        fields = pattern.count("%") + pattern.count("{")
        if _WIDE_FORMAT.search(pattern) or (
            sum(map(int, _FORMAT_NUMBER.findall(pattern))) + fields * widest > self._max_chars
        ):
            raise _TooCostly("too wide a format")

    def _check_inserted(self, places: int, inserted: Any) -> None:
        """Refuse *inserted* (a text, or a number of spaces) written at each
        of *places* if that makes more text than the budget's size."""
        width = len(inserted) if isinstance(inserted, str) else inserted
        if type(width) is int and places * width > self._max_chars:
            raise _TooCostly("too long a text inserted over and over")

    def _check_replace(self, text: str, args: Sequence[Any]) -> None:
        if len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
            found = text.count(args[0]) if args[0] else len(text) + 1
            if found * len(args[1]) > self._max_chars:
                raise _TooCostly("too long a replacement")

    def _check_join(self, items: Any, separator: str) -> None:
        if hasattr(items, "__len__") and len(items) * len(separator) > self._max_chars:
            raise _TooCostly("too long a separator")

    def _charge_items(self, value: Any, microseconds: float) -> None:
        """Count the steps a filter going through each item of *value* (each
        character of a text), *microseconds* an item, takes before it runs:
        in one call it does work no step sees (a sort of four million
        characters took seconds, a wordwrap a minute, past the deadline)."""
        if self.budget is not None and isinstance(value, Sized):
            self.budget.step(math.ceil(len(value) * microseconds / _MICROSECONDS_A_STEP))

    def _check_text_filter(self, name: str, given: Mapping[str, Any]) -> None:
        """The checks of the filters that can make far more text than they
        are given, by their parameters' names (jinja2's filters)."""
        text = given.get("s", given.get("value"))
        if name == "do_striptags":
            if _size(text, _MAX_MARKS, _marks) > _MAX_MARKS:
                raise _TooCostly("too many tags to strip")
        elif name == "do_join":
            separator = given.get("d", "")
            if isinstance(separator, str):
                self._check_join(text, separator)
        elif not isinstance(text, str):
            return
        elif name == "do_format":
            self._check_format(text, (*given.get("args", ()), *given.get("kwargs", {}).values()))
        elif name == "do_replace":
            self._check_replace(text, (given.get("old"), given.get("new")))
        elif name == "do_indent":
            self._check_inserted(text.count("\n") + 1, given.get("width", 4))
        elif name == "do_wordwrap":
            self._check_inserted(len(text) + 1, given.get("wrapstring") or "")
        elif name == "do_urlize":
            for inserted in (given.get("target"), given.get("rel")):
                self._check_inserted(len(text) + 1, inserted or "")

    def _tojson(
        self,
        value: Any,
        ensure_ascii: bool = False,
        indent: int | str | None = None,
        separators: tuple[str, str] | None = None,
        sort_keys: bool = False,
    ) -> str:
        """llama-cpp-python's ``tojson`` (``json.dumps``), written a piece at
        a time and stopped once it is longer than the budget's size."""
        width = len(indent) if isinstance(indent, str) else indent or 0
        if width > _MAX_JSON_INDENT:
            raise _TooCostly("too wide a JSON indent")
        # A text is encoded in one piece, escaped (up to twelve characters
        # for one): its size is known before, as is a list's held twice.
        self._check_size(value, functools.partial(_json_size, ensure_ascii=ensure_ascii))
        encoder = json.JSONEncoder(
            ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
        )
        parts: list[str] = []
        size = 0
        for part in encoder.iterencode(value):
            size += len(part)
            if size > self._max_chars:
                raise _TooCostly("too long a JSON text")
            parts.append(part)
        return "".join(parts)


def _size(value: Any, most: int, measure: Callable[[str], int] = len, nesting: bool = False) -> int:
    """How long *value* is as text: a text's characters (or what *measure*
    says it becomes); the items (and keys) of a list, tuple, dict, a dict's
    view or a namespace, with what each holds, counted each time it is held
    (a list of one long text a thousand times is a thousand of them), and
    with *nesting* once more for each list it is in (``pprint`` writes a
    nested value again at each level too wide for a line); a whole number
    as its digits (a third of its bits, erring high); any other sized
    value's length.  Counting stops once past *most*."""
    if isinstance(value, str):
        return measure(value)
    if not isinstance(value, _CONTAINERS):
        return len(value) if isinstance(value, Sized) else 0
    size = 0
    # Each list (dict, namespace) waiting is walked once for all the times
    # it is held: a list of a list, twice, forty times over is forty lists.
    pending: dict[int, list[Any]] = {id(value): [value, 1]}
    while pending and size <= most:
        item, times = pending.popitem()[1]
        if isinstance(item, Namespace):  # written as its attributes' dict
            item = item._Namespace__attrs
        items: Any = item  # a list, tuple, dict or dict view: sized and iterable
        size += len(items) * times
        inner = times + 1 if nesting else times
        for held in (items.keys(), items.values()) if isinstance(items, dict) else (items,):
            # Texts measured and numbers summed at C speed (a list of a
            # million numbers is checked at every step of a loop).
            kinds = list(map(type, held))
            texts = sum(map(measure, compress(held, map(_TEXTS.__contains__, kinds))))
            raw = sum(map(len, compress(held, map(_RAW.__contains__, kinds))))
            bits = sum(map(int.bit_length, compress(held, map(_NUMBER.__contains__, kinds))))
            size += (texts + raw + bits // 3) * inner
            for container in compress(held, map(_CONTAINER.__contains__, kinds)):
                pending.setdefault(id(container), [container, 0])[1] += inner
    return size


def _escaped_size(text: str) -> int:
    """The length of *text* escaped for HTML (markupsafe): ``&``, ``"`` and
    ``'`` become five characters, ``<`` and ``>`` four."""
    five = text.count("&") + text.count('"') + text.count("'")
    return len(text) + 4 * five + 3 * (text.count("<") + text.count(">"))


def _case_mapped_size(text: str) -> int:
    """The most *text* becomes upper-, lower-, title-cased or folded: each
    character as long as its upper case and its lower case together, less
    one (``ß`` and ``ﬃ`` upper-cased are ``SS`` and ``FFI``, ``İ``
    lower-cased two characters; a title mixes both)."""
    if text.isascii():
        return len(text)
    return sum(len(p.upper()) + len(p.lower()) - len(p) for p in _pieces(text))


def _marks(text: str) -> int:
    """How many tags and entities ``striptags`` could find in *text*, at most."""
    return text.count("<") + text.count("&")


def _url_quoted_size(text: str) -> int:
    """The length of *text* quoted for a URL: each UTF-8 byte but a letter,
    a digit and ``_.-~/`` becomes three characters."""
    size = 0
    for piece in _pieces(text):
        encoded = piece.encode("utf-8", "surrogatepass")
        size += len(encoded) + 2 * len(encoded.translate(None, _URL_SAFE))
    return size


def _json_size(text: str, *, ensure_ascii: bool) -> int:
    """The length of *text* as a JSON string: two characters for a quote, a
    backslash or a control character (six for most of them) and, with
    *ensure_ascii*, six for a character past ASCII, twelve past 16 bits."""
    size = len(text) + 2 + sum(map(text.count, _JSON_SHORT_ESCAPES))
    size += 5 * sum(map(text.count, _JSON_LONG_ESCAPES))
    if ensure_ascii and not text.isascii():
        for piece in _pieces(text):
            wide = len(piece) - len(piece.encode("ascii", "ignore"))
            astral = len(piece.encode("utf-16-le", "surrogatepass")) // 2 - len(piece)
            size += 5 * wide + 6 * astral
    return size


def _pieces(text: str) -> Iterator[str]:
    """*text* in pieces small enough to encode each without taking memory."""
    for start in range(0, len(text), _PIECE):
        yield text[start : start + _PIECE]


def _listed(items: Any) -> Any:
    """*items* as a join reads them, in a list if they come one by one (a
    ``map``): a separator's cost is its length times their number."""
    return items if isinstance(items, Sized) else list(items)


_VIEWS: tuple[type, ...] = (type({}.keys()), type({}.values()), type({}.items()))
_SEQUENCES: tuple[type, ...] = (list, tuple, dict, *_VIEWS)
"""What is written as each of its items (a dict: its keys and values)."""
_CONTAINERS: tuple[type, ...] = (*_SEQUENCES, Namespace)
_CONTAINER = frozenset(_CONTAINERS)
_TEXTS = frozenset({str, Markup})
_RAW = frozenset({bytes})
_NUMBER = frozenset({int})


_PIECE = 1 << 16
_URL_SAFE = (string.ascii_letters + string.digits + "_.-~/").encode()
_JSON_SHORT_ESCAPES = '"\\\b\f\n\r\t'
_JSON_LONG_ESCAPES = [chr(c) for c in range(32) if chr(c) not in _JSON_SHORT_ESCAPES]
"""The characters JSON writes with a backslash, and those of them it writes
as ``\\u00XX``."""

_WRITTEN_AS: dict[str, tuple[Callable[[str], int], bool]] = {
    "escape": (_escaped_size, False),
    "do_forceescape": (_escaped_size, False),
    "do_xmlattr": (_escaped_size, False),
    "do_urlize": (_escaped_size, False),
    "do_urlencode": (_url_quoted_size, False),
    "do_pprint": (len, True),
    "do_upper": (_case_mapped_size, False),
    "do_lower": (_case_mapped_size, False),
    "do_title": (_case_mapped_size, False),
    "do_capitalize": (_case_mapped_size, False),
}
"""The filters that write each text they are given longer (escaped, or
case-mapped), or a
nested value again at each level: their *measure* and *nesting* for
``_size``, checked before they run."""

_TEXT_FILTERS = frozenset(
    {"do_join", "do_format", "do_replace", "do_indent", "do_wordwrap", "do_urlize", "do_striptags"}
)
_MICROSECONDS_AN_ITEM = {
    "do_unique": 1.0,
    "do_sort": 6.0,
    "do_groupby": 11.0,
    "do_batch": 3.5,
    "do_slice": 0.5,
    "do_select": 1.0,
    "do_reject": 3.0,
    "do_selectattr": 1.0,  # and a counted attribute lookup an item
    "do_rejectattr": 1.0,
    "do_min": 0.5,
    "do_max": 0.5,
    "do_sum": 0.5,
    "do_wordwrap": 8.5,
    "do_title": 0.5,
    "do_urlize": 4.5,
    "do_wordcount": 0.25,
    "do_list": 0.5,
    "do_dictsort": 14.0,
    "do_items": 1.0,
    "do_map": 1.0,
    "do_pprint": 1.0,
}
"""The filters that go through each item of their value (each character
of a text) in one call, and the time each item takes them at most
(measured on 2 cores: wordwrap's is a character broken onto its own line,
a sort's that of a hundred thousand)."""
_MICROSECONDS_A_STEP = MAX_SECONDS * 1_000_000 / MAX_STEPS
_CASE_METHODS = frozenset({"upper", "lower", "title", "capitalize", "swapcase", "casefold"})
"""A text's methods that may write it up to three times longer (``_case_mapped_size``)."""
"""The filters ``_check_text_filter`` looks at before they run."""


class ChatTemplateFailed(ModelFileInvalid):
    """A model file's chat template cannot format a conversation; ``why`` says how."""

    def __init__(self, file_name: str, why: str, hint: str = _HINT) -> None:
        super().__init__(f"The chat template in {file_name} {why}.", hint)
        self.why = why


class ChatTemplate:
    """A GGUF's chat template, compiled once and rendered within bounds."""

    def __init__(self, source: str, *, file_name: str, bos_token: str, eos_token: str) -> None:
        self.file_name = file_name
        self._bos = bos_token
        self._eos = eos_token
        self._environment = _BoundedEnvironment()
        self._reshapes: Literal["", "folded", "joined"] = ""
        """How the template took a conversation it refused as it was, once found."""
        try:
            self._template = self._environment.from_string(source)
        except jinja2.TemplateSyntaxError as error:
            raise ModelFileInvalid(
                f"The chat template in {file_name} is broken (a Jinja syntax error on its "
                f"line {error.lineno}), so Reverie cannot format a conversation for it.",
                _HINT,
            ) from error
        except (jinja2.TemplateError, RecursionError, MemoryError) as error:
            raise ModelFileInvalid(
                f"The chat template in {file_name} cannot be read.", _HINT
            ) from error

    def check(self) -> None:
        """Render a one-message conversation: ``ModelFileInvalid`` if the
        template cannot format even that."""
        try:
            prompt = self.render(list(_SAMPLE))
        except ChatTemplateFailed as error:
            raise ChatTemplateFailed(
                self.file_name, f"cannot format even a one-message conversation: it {error.why}"
            ) from error
        if _SAMPLE[0]["content"] not in prompt:
            raise ChatTemplateFailed(self.file_name, "leaves the conversation out of its prompt")

    def render(self, messages: Sequence[Mapping[str, str]]) -> str:
        """The prompt for *messages*, ending where the assistant's turn starts;
        shaped as the template takes them (a system message in the first user
        message, turns of one role joined) where it takes them no other way."""
        if self._reshapes and (reshaped := self._reshaped(messages)):
            return reshaped  # as it took the last conversation: not refused again first
        try:
            prompt = self._render(messages)
        except ChatTemplateFailed as failed:
            if isinstance(failed.__cause__, _TooCostly) or not (
                reshaped := self._reshaped(messages)
            ):
                raise
            return reshaped
        if _holds_system(messages, prompt):
            return prompt
        return self._reshaped(messages) or prompt

    def _reshaped(self, messages: Sequence[Mapping[str, str]]) -> str | None:
        """The prompt of *messages* with the system message in the first user
        message (then turns of one role joined too) if the template renders
        that with the system message in it; else None."""
        folded = _system_folded(messages)
        joined = _turns_joined(folded)
        shapes = [folded, joined] if joined != folded else [folded]
        if self._reshapes == "joined":
            shapes.reverse()
        for shaped in shapes:
            if shaped == list(messages):
                continue
            try:
                prompt = self._render(shaped)
            except ChatTemplateFailed:
                continue
            if _holds_system(messages, prompt):
                if not self._reshapes:
                    log.info(
                        "the chat template of %s is given conversations reshaped", self.file_name
                    )
                self._reshapes = "joined" if shaped is joined else "folded"
                return prompt
        return None

    def _render(self, messages: Sequence[Mapping[str, str]]) -> str:
        size = sum(len(m.get("content", "")) for m in messages)
        self._environment.budget = _Budget(max(_MIN_TEXT, 4 * size))
        try:
            return "".join(self._template.generate(self._variables(messages)))
        except _TooCostly as error:
            log.warning("chat template of %s stopped: %s", self.file_name, error)
            raise ChatTemplateFailed(
                self.file_name, "takes too long or makes too much text (it was stopped)"
            ) from error
        except _Refused as error:
            # Not its words: a template may put the conversation in them.
            log.warning("chat template of %s refused the conversation", self.file_name)
            raise ChatTemplateFailed(
                self.file_name,
                "refuses to format this conversation",
                "Choose another chat model; this one may need its conversation shaped another way.",
            ) from error
        except (
            jinja2.TemplateError,
            ArithmeticError,
            AssertionError,  # jinja2's truncate asserts its length is at least its end's
            AttributeError,
            LookupError,
            RecursionError,
            MemoryError,
            TypeError,
            ValueError,
        ) as error:
            # The template is a program from the file; whatever it fails with is its fault.
            log.warning("chat template of %s failed: %s", self.file_name, type(error).__name__)
            raise ChatTemplateFailed(
                self.file_name, "fails while formatting the conversation"
            ) from error
        finally:
            self._environment.budget = None

    def _variables(self, messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        return {
            "messages": [dict(m) for m in messages],
            "eos_token": self._eos,
            "bos_token": self._bos,
            "raise_exception": _raise_exception,
            "add_generation_prompt": True,
            "functions": None,
            "function_call": None,
            "tools": None,
            "tool_choice": None,
            "strftime_now": _strftime_now,
        }


def _holds_system(messages: Sequence[Mapping[str, str]], prompt: str) -> bool:
    """Whether *prompt* holds the text of every system message of *messages*."""
    return all(m["content"].strip() in prompt for m in messages if m["role"] == "system")


def _system_folded(messages: Sequence[Mapping[str, str]]) -> list[Mapping[str, str]]:
    """*messages* with each system message put at the start of the user
    message after it (or made a user message where none follows)."""
    folded: list[Mapping[str, str]] = []
    held: list[str] = []
    for message in messages:
        if message["role"] == "system":
            held.append(message["content"])
            continue
        if held and message["role"] == "user":
            message = {**message, "content": "\n\n".join([*held, message["content"]])}
        elif held:
            folded.append({"role": "user", "content": "\n\n".join(held)})
        held = []
        folded.append(message)
    if held:
        folded.append({"role": "user", "content": "\n\n".join(held)})
    return folded


def _turns_joined(messages: Sequence[Mapping[str, str]]) -> list[Mapping[str, str]]:
    """*messages* with the messages of one role in a row joined into one."""
    joined: list[Mapping[str, str]] = []
    for message in messages:
        if joined and joined[-1]["role"] == message["role"]:
            before = joined.pop()
            message = {**message, "content": f"{before['content']}\n\n{message['content']}"}
        joined.append(message)
    return joined


def _raise_exception(message: str) -> None:
    raise _Refused(message)


def _strftime_now(pattern: str) -> str:
    return datetime.now().strftime(pattern)
