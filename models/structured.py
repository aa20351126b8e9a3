"""Machine-read model output: generated under a JSON schema, then validated.

The schema becomes a llama.cpp grammar, so even a small model produces
well-formed JSON; the result is still validated with pydantic, because a
grammar cannot express every constraint (and llama-cpp-python's own helpers
silently fall back to free-form JSON when a schema does not compile).  An
invalid output raises ``StructuredOutputError`` carrying the raw text, and
nothing is applied.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from models.errors import StructuredOutputError
from models.interfaces import ChatMessage, GenerationOptions

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

Generate = Callable[[Sequence[ChatMessage], GenerationOptions], str]
"""Runs one generation and returns its full text (e.g. through the broker)."""


def structured_options(schema_type: type[BaseModel], base: GenerationOptions) -> GenerationOptions:
    """*base* with the JSON schema of *schema_type* attached."""
    return replace(base, json_schema=schema_type.model_json_schema())


def parse_structured(schema_type: type[T], raw_text: str) -> T:
    """Validate *raw_text* as *schema_type*, or raise ``StructuredOutputError``."""
    try:
        return schema_type.model_validate_json(raw_text)
    except ValidationError as error:
        log.warning("invalid structured output for %s: %r", schema_type.__name__, raw_text)
        raise StructuredOutputError(
            f"The model's answer is not a valid {schema_type.__name__}: "
            f"{error.error_count()} problem(s), first: {error.errors()[0]['msg']}",
            raw_text,
        ) from error


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
