"""Tests of structured output: generated under a schema, validated, or refused."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest
from pydantic import BaseModel, Field

from models.errors import ModelError, StructuredOutputError
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel
from models.structured import generate_structured, parse_structured, structured_options


class Fact(BaseModel):
    subject: str
    confidence: float = Field(ge=0.0, le=1.0)


class ScriptedGenerate:
    """A ``Generate`` that answers with a fixed text and records what it was asked."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.calls: list[tuple[list[ChatMessage], GenerationOptions]] = []

    def __call__(self, messages: Sequence[ChatMessage], options: GenerationOptions) -> str:
        self.calls.append((list(messages), options))
        return self.answer


MESSAGES = [ChatMessage("user", "What do you know about me?")]


def test_valid_output_becomes_the_model_instance() -> None:
    fact = parse_structured(Fact, '{"subject": "climbing", "confidence": 0.9}')

    assert fact == Fact(subject="climbing", confidence=0.9)


@pytest.mark.parametrize(
    "raw_text",
    [
        "",
        "not json at all",
        '{"subject": "climbing", "confidence": 0.9',  # cut short by the token budget
        '{"subject": "climbing", "confidence": "very"}',  # wrong type
        '{"subject": "climbing", "confidence": 7}',  # a constraint the grammar cannot express
        '{"subject": "climbing"}',  # a missing field
        '["climbing", 0.9]',
    ],
)
def test_invalid_output_raises_with_the_raw_text(raw_text: str) -> None:
    with pytest.raises(StructuredOutputError) as caught:
        parse_structured(Fact, raw_text)

    assert caught.value.raw_text == raw_text
    assert "Fact" in str(caught.value)
    assert isinstance(caught.value, ModelError)


def test_structured_options_attach_the_schema_and_keep_the_rest() -> None:
    base = GenerationOptions(temperature=0.3, max_tokens=99, stop=("\n\n",))

    options = structured_options(Fact, base)

    assert options.json_schema == Fact.model_json_schema()
    assert (options.temperature, options.max_tokens, options.stop) == (0.3, 99, ("\n\n",))
    assert base.json_schema is None  # the base is left alone


def test_generate_structured_asks_under_the_schema_and_validates() -> None:
    generate = ScriptedGenerate('{"subject": "tea", "confidence": 0.5}')

    fact = generate_structured(generate, MESSAGES, Fact)

    assert fact == Fact(subject="tea", confidence=0.5)
    [(messages, options)] = generate.calls
    assert messages == MESSAGES
    assert options.json_schema == Fact.model_json_schema()
    assert options.temperature == 0.0  # greedy unless told otherwise


def test_generate_structured_uses_the_given_options() -> None:
    generate = ScriptedGenerate('{"subject": "tea", "confidence": 0.5}')

    generate_structured(generate, MESSAGES, Fact, GenerationOptions(temperature=0.8, seed=7))

    [(_, options)] = generate.calls
    assert (options.temperature, options.seed) == (0.8, 7)
    assert options.json_schema == Fact.model_json_schema()


def test_generate_structured_raises_on_invalid_output() -> None:
    generate = ScriptedGenerate('{"subject": "tea", "confidence": 2.5}')

    with pytest.raises(StructuredOutputError) as caught:
        generate_structured(generate, MESSAGES, Fact)

    assert caught.value.raw_text == '{"subject": "tea", "confidence": 2.5}'


@pytest.mark.model
def test_generate_structured_with_the_real_model(smollm2: LlamaChatModel) -> None:
    class Person(BaseModel):
        name: str = Field(max_length=20)
        age: int

    def generate(messages: Sequence[ChatMessage], options: GenerationOptions) -> str:
        return "".join(chunk.text for chunk in smollm2.stream(messages, options))

    person = generate_structured(
        generate,
        [ChatMessage("user", "Describe a fictional person as JSON with a name and an age.")],
        Person,
        GenerationOptions(temperature=0.0, max_tokens=64),
    )

    assert isinstance(person, Person)
    assert person.name


@pytest.mark.parametrize(
    "raw_text",
    [
        '{"subject": "my bank password is hunter2", "confidence": 7}',  # valid JSON, bad value
        '{"subject": "my bank password is hunter2", "confidence": 0.9',  # cut short
        "my bank password is hunter2",  # not JSON
        '{"subject": "x", "confidence": 0.5, "my bank password is hunter2": 1}',  # a stray key
    ],
)
def test_an_unusable_answer_is_logged_without_a_word_of_it(
    raw_text: str, caplog: pytest.LogCaptureFixture
) -> None:
    class StrictFact(Fact, extra="forbid"):
        pass

    caplog.set_level(logging.DEBUG, logger="models.structured")

    with pytest.raises(StructuredOutputError):
        parse_structured(StrictFact, raw_text)

    [record] = caplog.records
    assert record.levelno == logging.WARNING
    logged = record.getMessage()
    assert "StrictFact" in logged  # which schema
    assert f"{len(raw_text)} characters" in logged  # how much, not what
    assert "hunter2" not in logged
    assert "password" not in logged


def test_the_log_names_where_in_the_schema_the_problem_is(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Facts(BaseModel):
        facts: list[Fact]

    with pytest.raises(StructuredOutputError):
        parse_structured(Facts, '{"facts": [{"subject": "tea", "confidence": 0.5}, {}]}')

    assert "first missing at facts.1.subject" in caplog.text
