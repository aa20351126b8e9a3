"""Machine-read model output: generated under a JSON schema, then validated.

The schema becomes a llama.cpp grammar, so even a small model produces
well-formed JSON; the result is still validated with pydantic, because a
grammar cannot express every constraint (and llama-cpp-python's own helpers
silently fall back to free-form JSON when a schema does not compile).  An
invalid output raises ``StructuredOutputError`` carrying the raw text, and
nothing is applied.

The answer is read strictly, as JSON says it: ``true`` is not the number
1, ``1.0`` and ``"1"`` are not the id 1, ``1`` is not yes.  A small model
that writes a number as something else has not named what it was shown,
and pydantic's lax mode would take it as if it had.  Numbers naming what
the model was shown (``Numbers``) must name each thing once.

The log says why an answer was unusable and how long it was, never what it
said: a model echoes what it was shown (a harvest answer may repeat "my bank
password is hunter2"), and this layer cannot reach the redaction in
``desktop``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Annotated, Any, TypeVar, get_args

from pydantic import AfterValidator, BaseModel, StrictInt, ValidationError

from models.errors import StructuredOutputError
from models.interfaces import ChatMessage, GenerationOptions

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

Generate = Callable[[Sequence[ChatMessage], GenerationOptions], str]
"""Runs one generation and returns its full text (e.g. through the broker)."""


def _each_once(numbers: list[int]) -> list[int]:
    if len(set(numbers)) < len(numbers):
        raise ValueError("a number is named twice")
    return numbers


Numbers = Annotated[list[StrictInt], AfterValidator(_each_once)]
"""The numbers an answer names of the things it was shown (messages,
memories): whole JSON numbers, each once (``[1, 1]`` is not two messages).
Its JSON schema is a plain array of integers: uniqueness is checked here,
not asked of the grammar."""


def structured_options(schema_type: type[BaseModel], base: GenerationOptions) -> GenerationOptions:
    """*base* with the JSON schema of *schema_type* attached."""
    return replace(base, json_schema=schema_type.model_json_schema())


def parse_structured(schema_type: type[T], raw_text: str) -> T:
    """Validate *raw_text* as *schema_type*, strictly (no bool, float or
    string taken for a number, nor a number for a bool), or raise
    ``StructuredOutputError``.  A key named twice is refused too: JSON
    parsers keep the last, so ``{"verdict": "a", "verdict": "b"}`` would be
    read as one answer the model never settled on."""
    if _repeats_a_key(raw_text):
        log.warning(
            "unusable structured output for %s: a key is named twice; "
            "the answer (%d characters) is not logged",
            schema_type.__name__,
            len(raw_text),
        )
        raise StructuredOutputError(
            f"The model's answer is not a valid {schema_type.__name__}: a key is named twice",
            raw_text,
        )
    try:
        return schema_type.model_validate_json(raw_text, strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        # The error's type and the field's place in the schema only: its
        # message, input and a stray key's name may quote the answer.
        log.warning(
            "unusable structured output for %s: %d problem(s), first %s at %s; "
            "the answer (%d characters) is not logged",
            schema_type.__name__,
            error.error_count(),
            first["type"],
            _schema_place(schema_type, first["loc"]),
            len(raw_text),
        )
        raise StructuredOutputError(
            f"The model's answer is not a valid {schema_type.__name__}: "
            f"{error.error_count()} problem(s), first: {error.errors()[0]['msg']}",
            raw_text,
        ) from error


def _repeats_a_key(raw_text: str) -> bool:
    """Does some object in *raw_text* name a key twice?  False for text that
    is not JSON at all: validation says what is wrong with it."""
    repeated = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeated
        repeated = repeated or len({key for key, _ in items}) < len(items)
        return dict(items)

    try:
        json.loads(raw_text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return False
    return repeated


def _schema_place(schema_type: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """*loc* with every step the schema does not name (a key the model
    made up) replaced by "?"; list positions are numbers, kept."""
    fields = _field_names(schema_type)
    steps = [str(s) if isinstance(s, int) or s in fields else "?" for s in loc]
    return ".".join(steps) or "the top"


def _field_names(schema_type: type[BaseModel]) -> set[str]:
    """Every field name and alias in *schema_type* and the models nested in it."""
    names: set[str] = set()
    seen: set[type[BaseModel]] = set()
    pending: list[type[BaseModel]] = [schema_type]
    while pending:
        model = pending.pop()
        seen.add(model)
        for name, field in model.model_fields.items():
            names |= {name} | ({field.alias} if field.alias else set())
            pending += [t for t in _nested_models(field.annotation) if t not in seen]
    return names


def _nested_models(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _nested_models(arg)]


def generate_structured(
    generate: Generate,
    messages: Sequence[ChatMessage],
    schema_type: type[T],
    options: GenerationOptions | None = None,
) -> T:
    """Generate under *schema_type*'s schema and return the validated object."""
    base = options or GenerationOptions(temperature=0.0)
    raw = generate(messages, structured_options(schema_type, base))
    return parse_structured(schema_type, raw)
