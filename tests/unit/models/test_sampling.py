"""Tests of the samplers: schema grammars, and the fast constrained sampler
checked against llama-cpp-python's own grammar-constrained sampling."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

import llama_cpp
import pytest
from llama_cpp.llama_grammar import LlamaGrammar
from pydantic import BaseModel, Field

from models.gguf_file import open_llama
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel
from models.sampling import ConstrainedSampler, GrammarCompileError, grammar_for_schema
from tests.grammar import grammar_accepts


class Person(BaseModel):
    name: str
    age: int


class Mood(BaseModel):
    mood: str
    score: float
    tags: list[str]


class Colour(StrEnum):
    RED = "red"
    GREEN = "green"


class Address(BaseModel):
    city: str
    country: str | None = None


class Contact(BaseModel):
    kind: Literal["friend", "family", "work"]
    colour: Colour
    address: Address
    others: list[Address] = []
    note: str | None = None


class Bounded(BaseModel):
    """Every field bounded, so a grammar-following output must end well within 256 tokens."""

    mood: str = Field(max_length=16)
    score: int
    tags: list[Annotated[str, Field(max_length=12)]] = Field(max_length=3)
    happy: bool


@pytest.fixture(scope="module")
def library_llama(smollm2_path: Path) -> Iterator[llama_cpp.Llama]:
    """A plain llama-cpp-python ``Llama`` on the same file, for comparisons."""
    llm = open_llama(smollm2_path, n_ctx=2048)
    yield llm
    llm.close()


def _vocab(llm: llama_cpp.Llama) -> Any:
    return llama_cpp.llama_model_get_vocab(llm.model)


def _generate(model: LlamaChatModel, prompt: str, options: GenerationOptions) -> tuple[str, str]:
    """The text and the finish reason of one generation."""
    chunks = list(model.stream([ChatMessage("user", prompt)], options))
    return "".join(chunk.text for chunk in chunks), chunks[-1].finish_reason or ""


# -- grammars from schemas (no model needed) ---------------------------------------


class Note(BaseModel):
    title: str = Field(max_length=8)
    body: str = Field(max_length=2000)


def test_long_string_limits_are_left_to_validation_and_short_ones_kept() -> None:
    # Spelled out, 2,000 characters would be 2,000 nested rules (llama.cpp
    # cannot compile that, and long nests make every token slow to check).
    rules = dict(
        line.split(" ::= ", 1) for line in grammar_for_schema(Note.model_json_schema()).splitlines()
    )

    assert rules["body-kv"].endswith("string") and rules["string"] == '"\\"" char* "\\"" space'
    assert rules["title"].count("char") == 8
    assert Note.model_json_schema()["properties"]["body"]["maxLength"] == 2000  # untouched


@pytest.mark.parametrize("schema_type", [Person, Mood, Contact, Bounded])
def test_every_char_rule_excludes_raw_control_characters(schema_type: type[BaseModel]) -> None:
    grammar = grammar_for_schema(schema_type.model_json_schema())

    char_rules = [line for line in grammar.splitlines() if line.startswith("char ::=")]
    assert char_rules == [r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})']


# -- grammars against the real vocabulary ------------------------------------------


@pytest.mark.model
def test_the_grammar_rejects_raw_control_characters_in_strings(
    library_llama: llama_cpp.Llama,
) -> None:
    grammar = grammar_for_schema(Person.model_json_schema())

    assert grammar_accepts(library_llama, grammar, '{"name": "Ann\\nLee", "age": 3}')
    assert grammar_accepts(library_llama, grammar, '{"name": "Ann')
    assert not grammar_accepts(library_llama, grammar, '{"name": "Ann\nLee')
    assert not grammar_accepts(library_llama, grammar, '{"name": "Ann\tLee')
    assert not grammar_accepts(library_llama, grammar, '{"age": 3')  # wrong key order


class Ranked(BaseModel):
    priority: int | None = Field(ge=1, le=10)
    hour: int = Field(ge=0, lt=24)
    id: int = Field(ge=1)  # too wide to spell out: left to validation


@pytest.mark.model
def test_the_grammar_keeps_an_integer_within_its_small_range(
    library_llama: llama_cpp.Llama,
) -> None:
    grammar = grammar_for_schema(Ranked.model_json_schema())

    def accepts(priority: str, hour: str = "0", id: str = "7") -> bool:
        document = f'{{"priority": {priority}, "hour": {hour}, "id": {id}}}'
        return grammar_accepts(library_llama, grammar, document)

    assert accepts("1") and accepts("10") and accepts("null") and accepts("5", "23")
    assert not accepts("0") and not accepts("11") and not accepts("-1") and not accepts("05")
    assert not accepts("5", "24")
    assert accepts("5", "3", "0")  # a wide range is the validator's to refuse


@pytest.mark.model
@pytest.mark.parametrize("schema_type", [Person, Mood, Contact, Bounded])
def test_grammars_of_common_schema_shapes_compile(
    library_llama: llama_cpp.Llama, schema_type: type[BaseModel]
) -> None:
    grammar = grammar_for_schema(schema_type.model_json_schema())

    sampler = ConstrainedSampler(
        GenerationOptions(), _vocab(library_llama), library_llama.n_vocab(), 0, grammar
    )
    sampler.close()
    sampler.close()  # closing twice is harmless


@pytest.mark.model
@pytest.mark.parametrize(
    "grammar",
    ["root ::= (", "root ::= undefined-rule", "no rules here", 'other ::= "a"', "", "  \n"],
)
def test_a_bad_grammar_raises_grammar_compile_error(
    library_llama: llama_cpp.Llama, grammar: str
) -> None:
    with pytest.raises(GrammarCompileError):
        ConstrainedSampler(
            GenerationOptions(), _vocab(library_llama), library_llama.n_vocab(), 0, grammar
        )


# -- constrained generation --------------------------------------------------------


@pytest.mark.model
@pytest.mark.parametrize(
    ("schema_type", "prompt"),
    [
        (Person, "Describe a fictional person as JSON with a name and an age."),
        (Mood, "How do you feel today? Answer as JSON."),
    ],
)
def test_constrained_greedy_output_equals_llama_cpp_python_with_the_grammar(
    fresh_smollm2: Callable[[], LlamaChatModel],
    library_llama: llama_cpp.Llama,
    schema_type: type[BaseModel],
    prompt: str,
) -> None:
    # The fast path (sample freely, check only the chosen token) must pick
    # exactly what the full grammar pass picks.  Both sides start from an
    # empty cache, so they read the prompt the same way.
    schema = schema_type.model_json_schema()
    options = GenerationOptions(
        temperature=0.0, repeat_penalty=1.1, max_tokens=32, json_schema=schema
    )
    ours, _ = _generate(fresh_smollm2(), prompt, options)
    library_llama.reset()

    theirs = library_llama.create_chat_completion(
        messages=[{"role": "user", "content": prompt}],
        grammar=LlamaGrammar.from_string(grammar_for_schema(schema), verbose=False),
        temperature=0.0,
        repeat_penalty=1.1,
        max_tokens=32,
    )

    assert isinstance(theirs, dict)  # not a stream
    assert ours.startswith("{")
    assert ours == theirs["choices"][0]["message"]["content"]


@pytest.mark.model
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sampled_constrained_output_parses_and_validates(
    smollm2: LlamaChatModel, seed: int
) -> None:
    options = GenerationOptions(
        temperature=0.9, seed=seed, max_tokens=256, json_schema=Bounded.model_json_schema()
    )

    text, finish = _generate(smollm2, "How do you feel today? Answer as JSON.", options)

    assert finish == "stop"  # the grammar ended it, not the token budget
    assert isinstance(json.loads(text), dict)  # strict JSON: no raw control characters
    Bounded.model_validate_json(text)


class Call(BaseModel):
    name: Literal["append_memory"]
    content: str = Field(max_length=40)


@pytest.mark.model
def test_a_lazy_schema_holds_only_the_text_after_its_trigger(smollm2: LlamaChatModel) -> None:
    # The reply begins "A dog is...": free prose up to "dog", then a valid
    # object and nothing more.
    options = GenerationOptions(
        temperature=0.0,
        max_tokens=120,
        json_schema=Call.model_json_schema(),
        json_schema_after="dog",
    )

    text, finish = _generate(smollm2, "Explain what a dog is.", options)

    before, _, after = text.partition("dog")
    assert before and not before.lstrip().startswith("{")
    assert finish == "stop"
    Call.model_validate_json(after)


@pytest.mark.model
def test_a_lazy_schema_ends_the_output_when_the_trigger_is_followed_by_what_cannot_fit(
    smollm2: LlamaChatModel,
) -> None:
    # The first "e" is followed by more letters inside its token, which can
    # never begin a JSON object: the output ends with that token rather than
    # break the grammar (llama.cpp would abort the process).
    options = GenerationOptions(
        temperature=0.0,
        max_tokens=120,
        json_schema=Call.model_json_schema(),
        json_schema_after="e",
    )

    text, finish = _generate(smollm2, "Explain what a dog is.", options)

    assert finish == "stop"
    assert "e" in text and " " not in text.partition("e")[2]  # the rest of one word at most


@pytest.mark.model
def test_without_its_trigger_a_lazy_schema_never_applies(smollm2: LlamaChatModel) -> None:
    options = GenerationOptions(
        temperature=0.0,
        max_tokens=24,
        json_schema=Call.model_json_schema(),
        json_schema_after="<never said>",
    )

    lazy, _ = _generate(smollm2, "Explain what a dog is.", options)
    free, _ = _generate(smollm2, "Explain what a dog is.", GenerationOptions(**_FREE))

    assert lazy == free


_FREE: dict[str, Any] = {"temperature": 0.0, "max_tokens": 24}
