"""Round 21: excerpts of past conversations over their size limit.

A component over its limit is condensed by the model in the background and
the rewrite used once judged faithful; excerpts have no ids to judge it by,
so a rewrite that said the user had said what Reverie said (or dropped a
conversation) passed, stood for the excerpts in later prompts, and the
chips, which name the excerpts whose lines a prompt shows, named none.
Excerpts are cut, never condensed."""

from __future__ import annotations

from datetime import UTC, datetime

from desktop.core.base.paths import AppPaths
from desktop.core.base.prompts import PromptLibrary
from desktop.core.chat.condenser import unfaithful
from desktop.core.chat.prompt import ComponentLimits, content_hash, message_context
from desktop.core.memory.lines import ExcerptLine

SENT = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)


def test_excerpts_over_their_limit_are_cut_never_condensed(user_dirs: AppPaths) -> None:
    library = PromptLibrary(user_dirs.config_dir / "prompts")
    excerpts = [
        ExcerptLine(1, "Loans", SENT, "assistant", "I lent the user my ladder last spring."),
        ExcerptLine(2, "Loans", SENT, "user", "Thanks for the ladder, I will return it soon."),
        *(
            ExcerptLine(i, "Chat", SENT, "user", f"The {word} was lovely today.")
            for i, word in enumerate(["garden", "lake", "market", "concert", "walk"], start=3)
        ),
    ]
    content = "\n".join(e.render() for e in excerpts)
    # The speakers swapped: the model would read that the user lent it the ladder.
    rewrite = content.replace(
        '("Loans", 2026-11-22, you said) I lent the user',
        '("Loans", 2026-11-22, the user said) I lent you',
    )
    assert unfaithful(content, rewrite) is None  # the condenser's own check lets it stand
    stored = {("excerpts", content_hash(content)): rewrite}

    context = message_context(
        library,
        SENT,
        [],
        ComponentLimits(excerpts=300),
        condensed=lambda name, digest: stored.get((name, digest)),
        excerpts=excerpts,
    )

    assert rewrite not in context.text
    assert excerpts[0].render() in context.text
    assert context.excerpt_ids[:2] == (1, 2)  # the lines the prompt shows, whole, named
    assert not [o for o in context.oversized if o.component == "excerpts"]  # none to condense
