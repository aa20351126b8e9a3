"""What the word tests before each pattern save redaction: CPU time with
``text_scan.may_match`` as it is against with every pattern searched,
side by side in one process, rounds alternating which goes first.

    python -m tests.bench.redaction_speed [--rounds 5]

Three inputs, each redacted as the chat stores it (a ``Redactor``, each
message read after the two before it):

- **chat**: generated everyday messages of one to three sentences (the
  history import's, ``tests.bench.transfer``), 400 of them;
- **secrets**: messages that name credentials, drawn from rounds 22 and 23's
  generators (every family, both halves): the word tests pass for most;
- **paste**: one 150 KB paste of the chat messages.

Prints each side's CPU seconds per round and the median of the round-by-round
ratios (tested / searched).  Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from desktop.core.base import text_scan
from desktop.core.privacy import known_words
from desktop.core.privacy.redaction import Redactor
from tests import secret_families_round22, secret_families_round23
from tests.bench.transfer import _messages


def _inputs() -> dict[str, list[str]]:
    chat = [text for conversation in _messages(40, 10, seed=3) for text in conversation]
    secrets = [
        trial.text
        for module in (secret_families_round22, secret_families_round23)
        for family in module.FAMILIES
        for trial in module.trials(family, 4, seed=9)
    ]
    pick = random.Random(1)
    paste = [" ".join(pick.choice(chat) for _ in range(600))]
    return {"chat": chat, "secrets": secrets, "paste": paste}


def _seconds(texts: list[str]) -> float:
    redactor = Redactor()
    start = time.process_time()
    for index, text in enumerate(texts):
        redactor(text, after=texts[max(0, index - 2) : index][::-1])
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    known_words.load()
    inputs = _inputs()
    tested = text_scan.may_match
    sides: dict[str, Callable[..., bool]] = {"tested": tested, "searched": lambda *_: True}
    _seconds(inputs["chat"][:20])  # every pattern compiled, every cache filled
    for name, texts in inputs.items():
        ratios = []
        for number in range(args.rounds):
            order = list(sides) if number % 2 == 0 else list(reversed(sides))
            seconds = {}
            for side in order:
                text_scan.may_match = sides[side]
                seconds[side] = _seconds(texts)
            text_scan.may_match = tested
            ratios.append(seconds["tested"] / seconds["searched"])
            print(
                f"{name} round {number + 1}: tested {seconds['tested']:.2f} s, "
                f"searched {seconds['searched']:.2f} s ({len(texts)} texts, "
                f"{sum(map(len, texts)) // 1000} K characters)",
                flush=True,
            )
        median = statistics.median(ratios)
        print(f"{name}: tested / searched, median of {args.rounds}: {median:.3f}")


if __name__ == "__main__":
    main()
