"""Round 36 of issue 15 against chat templates that take no system message.

Gemma 2's template raises on a system message; some templates leave it out
of the prompt; Mistral's raises unless user and assistant alternate.  A
model with such a template was added and loaded (the check formats one
user message), and then every reply failed ('refuses to format this
conversation') or, worse, the system prompt, with the memories and the
instructions in it, vanished from every prompt without a word.  The
system message now goes at the start of the first user message for such a
template, and turns of one role in a row are joined for one that wants
them to alternate.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from models.chat_template import ChatTemplate
from models.interfaces import ChatMessage, GenerationOptions
from models.llama_chat import LlamaChatModel

TURN = "<start_of_turn>{{ m['role'] }}\n{{ m['content'] }}<end_of_turn>\n"
GEMMA2 = (
    "{% if messages[0]['role'] == 'system' %}"
    "{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for m in messages %}" + TURN + "{% endfor %}<start_of_turn>model\n"
)
DROPS_SYSTEM = (
    "{% for m in messages %}{% if m['role'] != 'system' %}" + TURN + "{% endif %}"
    "{% endfor %}<start_of_turn>model\n"
)
ALTERNATING = (
    "{% for m in messages %}{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant') }}"
    "{% endif %}[INST]{{ m['content'] }}[/INST]{% endfor %}"
)
SYSTEM = "## Memories\n- The user's cat is called Miso."
MESSAGES = [
    ChatMessage("system", SYSTEM),
    ChatMessage("user", "Hi"),
    ChatMessage("assistant", "Hello!"),
    ChatMessage("user", "It's raining."),
    ChatMessage("user", "What is my cat called?"),  # an event, then the message
]
CONVERSATION = [{"role": m.role, "content": m.content} for m in MESSAGES]


@pytest.mark.parametrize(
    "source", [GEMMA2, DROPS_SYSTEM, ALTERNATING], ids=["raises", "drops", "alternating"]
)
def test_a_template_taking_no_system_message_is_given_it_in_the_first_user_message(
    source: str,
) -> None:
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")

    prompt = template.render(CONVERSATION)  # raised, or left the memories out

    assert SYSTEM in prompt
    assert "What is my cat called?" in prompt
    assert prompt.index(SYSTEM) < prompt.index("Hello!")


def test_a_template_keeping_the_system_message_gets_the_conversation_as_it_is() -> None:
    source = "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{% endfor %}"
    template = ChatTemplate(source, file_name="m.gguf", eos_token="", bos_token="")

    assert template.render(CONVERSATION[:3]) == f"<|system|>{SYSTEM}<|user|>Hi<|assistant|>Hello!"


def test_a_gemma2_like_model_loads_and_replies_to_a_conversation_with_a_system_prompt(
    tiny_gguf: Callable[..., Path],
) -> None:
    model = LlamaChatModel(tiny_gguf(tokenizer_chat_template=GEMMA2), context_length=512)
    try:
        chunks = list(model.stream(MESSAGES, GenerationOptions(max_tokens=4)))
    finally:
        model.close()

    assert chunks[-1].finish_reason == "length"  # was ChatTemplateFailed at every reply


def test_a_template_found_to_take_conversations_reshaped_is_not_refused_at_every_turn(
    caplog: pytest.LogCaptureFixture,
) -> None:
    template = ChatTemplate(ALTERNATING, file_name="m.gguf", eos_token="", bos_token="")

    prompts = [template.render(CONVERSATION) for _ in range(3)]

    assert len(set(prompts)) == 1
    assert SYSTEM in prompts[0]
    refusals = [r for r in caplog.records if "refused the conversation" in r.getMessage()]
    assert len(refusals) <= 2  # the first turn's tries; none after (a warning a turn)
