"""A model's answer is read as JSON says it: no bool, float or numeric string
taken for a number, no number or string for a flag, and a number naming
something it was shown named once; the schema the grammar is built from
stays what it was."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from models.errors import StructuredOutputError
from models.sampling import grammar_for_schema
from models.structured import Numbers, parse_structured


class Loose(BaseModel):
    """An answer model that declares nothing strict itself (as an agenda
    action does): ``parse_structured`` is strict for it all the same."""

    model_config = ConfigDict(extra="forbid")

    task: int = Field(ge=1)
    done: bool
    messages: Numbers = Field(min_length=1, max_length=3)


@pytest.mark.parametrize(
    "raw",
    [
        '{"task": true, "done": true, "messages": [1]}',
        '{"task": 1.0, "done": true, "messages": [1]}',
        '{"task": "1", "done": true, "messages": [1]}',
        '{"task": 1, "done": 1, "messages": [1]}',
        '{"task": 1, "done": "true", "messages": [1]}',
        '{"task": 1, "done": "yes", "messages": [1]}',
        '{"task": 1, "done": true, "messages": [true]}',
        '{"task": 1, "done": true, "messages": [1e0]}',
        '{"task": 1, "done": true, "messages": ["2"]}',
        '{"task": 1, "done": true, "messages": [2, 2]}',
        '{"task": 1, "done": true, "messages": [1, 1.0]}',
    ],
)
def test_a_number_or_flag_written_as_something_else_or_a_number_named_twice_is_refused(
    raw: str,
) -> None:
    with pytest.raises(StructuredOutputError):
        parse_structured(Loose, raw)


def test_an_answer_written_as_the_schema_says_is_read() -> None:
    answer = parse_structured(Loose, '{"task": 2, "done": false, "messages": [3, 1]}')

    assert answer == Loose(task=2, done=False, messages=[3, 1])


def test_numbers_are_a_plain_array_of_integers_to_the_grammar() -> None:
    schema = TypeAdapter(Numbers).json_schema()

    assert schema == {"type": "array", "items": {"type": "integer"}}
    assert grammar_for_schema(Loose.model_json_schema())  # llama.cpp compiles it


@pytest.mark.parametrize(
    "raw",
    [
        '{"task": 2, "task": 3, "done": false, "messages": [1]}',
        '{"task": 2, "done": true, "done": false, "messages": [1]}',
        '{"task": 2, "done": false, "messages": [1], "messages": []}',
    ],
)
def test_a_key_named_twice_is_refused_not_read_as_its_last(raw: str) -> None:
    with pytest.raises(StructuredOutputError, match="named twice"):
        parse_structured(Loose, raw)
