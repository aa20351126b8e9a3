"""How many of round 21's secrets (several in one message, a password
changed, a list or a table, a code said alone, one split across messages)
of round 22's (other languages, pasted config, API keys, private key
blocks, recovery phrases and codes, lock codes, security answers, typos,
spelled values) and of round 23's (more languages and scripts, code and
whole files, keys of new shapes, a value on the next line, leet labels,
dictation, chat shorthand) and of round 24's (markdown and emoji labels,
forwarded e-mails and texts, URLs and connection strings, HTTP headers and
curl, eight more languages, chat logs quoting others, password managers'
notes) and of round 25's (reported speech, inflected words for password,
devices' admin logins, tokens without a digit, keys named a line earlier,
transcripts and OCR, unusual config keys, shell history, git remotes, a
value sent after its question) and of round 26's (forwarded e-mails and
quoted replies, support tickets, spreadsheets and markdown tables,
password managers' exports, backup codes, seed phrases, connection
strings, Docker and Kubernetes, CI files, devtools requests, tokens in
links, round 25's leftovers) and of round 27's (dictated and spelled
passwords, six languages said anew, SMS codes, bank cards and PINs, lock
codes, a phone's pattern and PUK, licence keys, key blocks in part, .env
exports, apps' config, shell history, meeting passcodes, chat slang) and
of round 28's (asides in parentheses or dashes, transcripts and voice
assistants, accounts' recovery keys, keys in URLs' fragments, Windows
commands, infrastructure as code, tools' dotfiles, encrypted files, other
tools' password flags, SQL, fourteen languages more, escaped exports) and
of round 29's (a password shown to the assistant, chat apps' exports,
telephone banking, devices' PINs, rentals' check-in, services' and build
tools' config, code in eight more languages, fourteen languages more,
diceware passphrases, wallets' private keys, passwords typed by scripts)
and of round 30's (log lines, protocols' transcripts, Wi-Fi tools, smart
homes' config, game servers, Jupyter notebooks, a secret inside a task for
the assistant, desktop clients' saved sites, sixteen languages more, a
value corrected after a typo, encoded passwords, accounts handed out)
and of round 31's (diffs, containers' commands, DSNs, a password set
before a command, code comments, keystores, commit messages, terminal
prompts, OAuth secrets, spreadsheet rows, chat logs, devices' labels)
and of round 32's (timestamped shell history, VPN configs, SIP accounts,
fillers in speech, spreadsheets' formulas, escaped JSON in logs, YAML's
block scalars, network gear, services' admin commands, macOS's keychain,
installers' answer files, backup tools) and of round 33's (process
lists, Windows services, debug dumps, browser tests, secret stores'
output, PPPoE, Java app servers, virtual machines, CI masks, hashing
calls in seed data, databases' admin commands) and of round 35's (a
secret inside a story, told to pass on, dictated, in a reply to the
companion, seed phrases and backup codes typed in a chat, look-alikes)
and of round 36's (markdown, quoted e-mails, screenshots' and voicemails'
text, commands asked about, misspelt words, emoji, a value named after
it, said twice or spelt out, eight languages more)
stay in what Reverie stores, family by family and half by half, how many
everyday sentences of the same look it changes, and how much CPU a 200 KB
paste of both takes to redact.

    python -m tests.bench.secret_families [--draws 20] [--seed 0] [--show 5] [--round 25]

Each trial is drawn by ``tests.secret_families.trials`` (or its round 22
to 33 sibling) and redacted as the chat stores a message (a
``Redactor``, read after the messages before it); a miss is a value still
standing whole in what is stored.  ``--show`` prints the misses of the half
rules may be written on ("in"), never the held-out half's.  Not a test: it
asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

from desktop.core.privacy.redaction import Redactor
from tests import (
    secret_families,
    secret_families_round22,
    secret_families_round23,
    secret_families_round24,
    secret_families_round25,
    secret_families_round26,
    secret_families_round27,
    secret_families_round28,
    secret_families_round29,
    secret_families_round30,
    secret_families_round31,
    secret_families_round32,
    secret_families_round33,
    secret_families_round34,
    secret_families_round35,
    secret_families_round36,
)
from tests.secret_families import Trial

_Counts = dict[str, list[int]]


_ROUNDS = (
    ("round 21", secret_families),
    ("round 22", secret_families_round22),
    ("round 23", secret_families_round23),
    ("round 24", secret_families_round24),
    ("round 25", secret_families_round25),
    ("round 26", secret_families_round26),
    ("round 27", secret_families_round27),
    ("round 28", secret_families_round28),
    ("round 29", secret_families_round29),
    ("round 30", secret_families_round30),
    ("round 31", secret_families_round31),
    ("round 32", secret_families_round32),
    ("round 33", secret_families_round33),
    ("round 34", secret_families_round34),
    ("round 35", secret_families_round35),
    ("round 36", secret_families_round36),
)


def missed(trial: Trial) -> list[str]:
    """The values of *trial* still standing whole once it is stored
    (beside a letter of another script too: "パスワードはhunter2です")."""
    stored = Redactor()(trial.text, after=list(trial.after)).text
    return [
        v
        for v in trial.values
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(v)}(?![A-Za-z0-9])", stored)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=20, help="trials per template")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=0, help="held-in misses to print per family")
    parser.add_argument("--paste-kb", type=int, default=200, help="size of the timed paste")
    parser.add_argument("--round", action="append", help="count only these rounds (e.g. 25)")
    args = parser.parse_args()
    for title, source in _ROUNDS:
        if args.round and title.split()[-1] not in args.round:
            continue
        print(f"== {title}")
        _report(source.FAMILIES, source.trials, source.negatives, args)
    seconds = min(_paste_seconds(args) for _ in range(3))
    print(f"paste of {args.paste_kb} KB redacted in {seconds:.2f} s of CPU (best of 3)")


def _report(
    families: Mapping[str, Sequence[object]],
    trials: Callable[[str, int, int], Iterator[Trial]],
    negatives: Callable[[str], Iterator[tuple[str, str, tuple[str, ...]]]],
    args: argparse.Namespace,
) -> None:
    totals: _Counts = {"in": [0, 0], "out": [0, 0]}
    flagged: _Counts = {"in": [0, 0], "out": [0, 0]}
    for family in families:
        counts: _Counts = {"in": [0, 0], "out": [0, 0]}
        shown: list[str] = []
        for trial in trials(family, args.draws, args.seed):
            lost = missed(trial)
            counts[trial.half][0] += len(lost)
            counts[trial.half][1] += len(trial.values)
            if lost and trial.half == "in" and len(shown) < args.show:
                shown.append(f"{trial.after!r} {trial.text!r} -> {lost}")
        changed: _Counts = {"in": [0, 0], "out": [0, 0]}
        for half, text, after in negatives(family):
            stored = Redactor()(text, after=list(after)).text
            if stored != text:
                changed[half][0] += 1
                if half == "in":
                    shown.append(f"NEGATIVE CHANGED ({half}) {text!r} -> {stored!r}")
            changed[half][1] += 1
        for half in ("in", "out"):
            for total, part in ((totals, counts), (flagged, changed)):
                total[half][0] += part[half][0]
                total[half][1] += part[half][1]
        print(f"{family:9} {_rates(counts)}   negatives changed {_rates(changed, False)}")
        for line in shown:
            print("    ", line)
    print(f"{'all':9} {_rates(totals)}   negatives changed {_rates(flagged, False)}")


def _paste_seconds(args: argparse.Namespace) -> float:
    """Seconds of CPU to redact one paste of every trial and negative,
    repeated to *paste_kb* kilobytes, as one message (CPU, not the clock:
    other work on the machine does not count)."""
    parts: list[str] = []
    for _, source in _ROUNDS:
        for family in source.FAMILIES:
            parts += [trial.text for trial in source.trials(family, 2, args.seed)]
            parts += [text for _, text, _ in source.negatives(family)]
    unit = "\n".join(parts) + "\n"
    paste = (unit * (args.paste_kb * 1024 // len(unit) + 1))[: args.paste_kb * 1024]
    started = time.process_time()
    Redactor()(paste)
    return time.process_time() - started


def _rates(counts: _Counts, percent: bool = True) -> str:
    parts = []
    for half in ("in", "out"):
        part, whole = counts[half]
        rate = f" ({100 * part / whole:4.1f}%)" if percent and whole else ""
        parts.append(f"{half} {part:4}/{whole:<4}{rate}")
    return "  ".join(parts)


if __name__ == "__main__":
    main()
