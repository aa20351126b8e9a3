"""Round 35's held-out families of secrets, typed in a chat with the
companion in ways round 34 did not write: a secret in the middle of a
longer story ("...the teller asked for my PIN, 4821, and then..."); a
value several sentences after what announced it, in one message; a secret
handed on to someone else ("tell Sam the alarm code is 1942"); voice typing
with no punctuation and the digits said ("my pin is four oh two one
okay"); a reply to the companion's question ("you asked for the wifi: it's
X"), in the same message or after it; the words "creds", "login details",
"access code", "unlock code", "door code", "safe combination" and a
security question's answer; a wallet's recovery phrase (twelve BIP-39
words) typed into the chat; a list of 2FA backup codes; an API key of a
known shape said in passing; the word for password in eight languages no
round tried (Tajik, Turkmen, Pashto, Kurdish, Yoruba, Tatar, Odia,
Kinyarwanda); and a value or its label in full-width digits, look-alike
letters or with a zero-width space.

Like rounds 22 to 34, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday chat of
the same look that holds none and must stay as typed: a story about a
password with no value, prices, years, room and flight numbers, "the code
review", "the door code changes monthly", advice about seed words.
Counted by ``python -m tests.bench.secret_families --round 35``.
"""

# Cyrillic look-alikes and full-width forms are the point of a family here.
# ruff: noqa: RUF001

from __future__ import annotations

import hashlib
import random
import string
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.secret_families import Trial
from tests.secret_families_round22 import _answer, _password, _pin, drawn_trials, halved, replied

_SPLIT = "\u241e"
"""Between the companion's message before and the user's message."""

_WORDS = str.split(
    "pebble walnut harbour cinnamon falcon marble thistle comet biscuit lantern "
    "raspberry willow granite puffin"
)
_DIGIT_WORDS = str.split("zero one two three four five six seven eight nine")
_SEED_WORDS = (
    (Path(__file__).parents[1] / "data" / "wordlists" / "bip39_english.txt")
    .read_text(encoding="utf-8")
    .split()
)
_LOOK_ALIKE = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "S": "Ѕ", "i": "і"}
_ALNUM = string.ascii_letters + string.digits


def _drawn(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _word(rng: random.Random) -> str:
    """A word and a number ("walnut27"), sometimes a sign ("Comet#9")."""
    word = rng.choice(_WORDS)
    sign = rng.choice(["", "", "!", "#", "_"])
    return rng.choice([word, word.capitalize()]) + sign + str(rng.randint(1, 999))


def _spoken(rng: random.Random) -> str:
    """A PIN said to a phone: digits in words, a zero as "oh" at times."""
    zero = rng.choice(["zero", "oh"])
    return " ".join(zero if d == "0" else _DIGIT_WORDS[int(d)] for d in _pin(rng))


def _spoken_word(rng: random.Random) -> str:
    """A password said to a phone ("walnut four seven")."""
    digits = str(rng.randint(10, 999))
    return rng.choice(_WORDS) + " " + " ".join(_DIGIT_WORDS[int(d)] for d in digits)


def _combo(rng: random.Random) -> str:
    return rng.choice(["-", "-", " ", "/"]).join(str(rng.randint(1, 59)) for _ in range(3))


def _seed(rng: random.Random) -> str:
    """Twelve words as a wallet shows them: 128 random bits and the first 4
    bits of their SHA-256 as the checksum (BIP-39), so every phrase is one
    a wallet could have made."""
    entropy = rng.getrandbits(128).to_bytes(16, "big")
    bits = int.from_bytes(entropy, "big") << 4 | hashlib.sha256(entropy).digest()[0] >> 4
    return " ".join(_SEED_WORDS[bits >> (11 * (11 - i)) & 2047] for i in range(12))


def _numbered_seed(rng: random.Random) -> str:
    return " ".join(f"{n}. {word}" for n, word in enumerate(_seed(rng).split(), 1))


def _codes(rng: random.Random) -> str:
    """Eight-digit backup codes, in one line or as Google shows them."""
    codes = [_drawn(rng, string.digits, 8) for _ in range(rng.choice([4, 5, 8]))]
    if rng.random() < 0.3:
        codes = [f"{c[:4]} {c[4:]}" for c in codes]
    return rng.choice([" ", ", ", "  "]).join(codes)


def _code_lines(rng: random.Random) -> str:
    return "\n".join(_drawn(rng, string.digits, 8) for _ in range(rng.choice([4, 6, 10])))


def _full_width(value: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in value)


def _full_pin(rng: random.Random) -> str:
    return _full_width(_pin(rng))


def _bold_pin(rng: random.Random) -> str:
    """A PIN in mathematical bold digits, as a fancy-text keyboard types it."""
    return "".join(chr(0x1D7CE + int(d)) for d in _pin(rng))


def _full_password(rng: random.Random) -> str:
    return _full_width(_word(rng))


def _look_alike(rng: random.Random) -> str:
    """A password with some letters swapped for Cyrillic look-alikes."""
    value = _word(rng)
    return "".join(_LOOK_ALIKE[c] if c in _LOOK_ALIKE and rng.random() < 0.6 else c for c in value)


def _openai(rng: random.Random) -> str:
    return "sk-proj-" + _drawn(rng, _ALNUM + "_-", 56)


def _stripe(rng: random.Random) -> str:
    return rng.choice(["sk_live_", "rk_live_"]) + _drawn(rng, _ALNUM, 24)


def _github(rng: random.Random) -> str:
    return rng.choice(["ghp_", "github_pat_11"]) + _drawn(rng, _ALNUM, 36)


def _aws(rng: random.Random) -> str:
    return "AKIA" + _drawn(rng, string.ascii_uppercase + "234567", 16)


def _slack(rng: random.Random) -> str:
    parts = [_drawn(rng, string.digits, 12), _drawn(rng, string.digits, 13)]
    return "xoxb-" + "-".join(parts) + "-" + _drawn(rng, _ALNUM, 24)


def _gitlab(rng: random.Random) -> str:
    return "glpat-" + _drawn(rng, _ALNUM + "_-", 20)


def _anthropic(rng: random.Random) -> str:
    return "sk-ant-api03-" + _drawn(rng, _ALNUM + "_-", 93) + "AA"


def _sendgrid(rng: random.Random) -> str:
    return "SG." + _drawn(rng, _ALNUM + "_-", 22) + "." + _drawn(rng, _ALNUM + "_-", 43)


_SLOTS = {
    "pw": _password,
    "word": _word,
    "pin": _pin,
    "combo": _combo,
    "spoken": _spoken,
    "spoken_word": _spoken_word,
    "answer": _answer,
    "seed": _seed,
    "numbered_seed": _numbered_seed,
    "codes": _codes,
    "code_lines": _code_lines,
    "full_pin": _full_pin,
    "bold_pin": _bold_pin,
    "full_pw": _full_password,
    "look_alike": _look_alike,
    "openai": _openai,
    "stripe": _stripe,
    "github": _github,
    "aws": _aws,
    "slack": _slack,
    "gitlab": _gitlab,
    "anthropic": _anthropic,
    "sendgrid": _sendgrid,
}
_ENDINGS = ["", "", ".", " haha", " 😬", " anyway", " thx", " x"]

STORY = [
    "so I was at the bank today and the teller asked me to type my PIN, {pin}, "
    "and then the machine just ate my card, can you believe it",
    "long story short the plumber needed to get in while we were away so I texted "
    "him the lockbox code ({pin}) and he never even showed up",
    "ugh what a day. my laptop died, I had to borrow Jen's and log into my email "
    "with {pw} on her machine, now I'm paranoid she saw it",
    "we finally got the new router set up last night, took forever, the network is "
    "called Casa_Lopez and the password ended up being {word}, kids are happy",
    "my mum called in a panic because she forgot her facebook password again so I "
    "reset it to {pw} and wrote it on a sticky note for her",
    "at the hotel the front desk gave us a little card with the wifi on it - {word} - "
    "but it only worked in the lobby",
    "remember the storage unit? turns out the gate code is {pin} and not the one on "
    "the contract, I spent 20 min standing outside",
    "anyway Dave finally shared his netflix after months of asking, it's his email "
    "and {pw}, so we can watch the show tonight",
]

BETWEEN = [
    "ok so here's the wifi password for the cabin. it's a bit of a weird one. Dad "
    "set it up years ago and never changed it. {word}",
    "The alarm code. Don't laugh. It's the same as at our old house. {pin}",
    "I need you to remember my bank pin. I keep forgetting it and the bank charges "
    "me every time I reset it. It's {pin}.",
    "my work password - I just changed it this morning because IT made us. Anyway it's {pw} now.",
    "The gym locker combination. I wrote it on my hand but it washed off. Luckily "
    "I still remember it: {combo}",
    "Here's my email password so you have a backup. Please never share it, even "
    "if someone asks nicely. {pw}",
    "So about the garage code. The landlord texted it this morning. He said not to "
    "give it out. {pin}",
    "can you keep the safe combination for me? it's an old safe, dad's. the dial is stiff. {combo}",
]

RELAY = [
    "tell Sam the alarm code is {pin} when he gets there",
    "can you remind Priya that the wifi password is {word}?",
    "if the babysitter asks, the front door code is {pin}",
    "when mum calls, give her the netflix password: {pw}",
    "let the plumber know the lockbox code is {pin}, he's coming at 10",
    "text Jake that the new router password is {pw} please",
    "if anyone from IT asks, my login is {user} and the password is {pw}",
    "pass this on to the cleaner: the key safe is {pin}",
]

VOICE = [
    "hey reverie remember my pin is {spoken} okay",
    "note my gym locker code its {spoken} thanks",
    "the alarm code at work is {spoken} dont forget",
    "my bank pin is {spoken} remember that for me",
    "remember the wifi password is {spoken_word} all lowercase",
    "the garage door code is {spoken} ok thanks",
    "save my laptop password its {spoken_word} no spaces",
    "my voicemail pin is {spoken} by the way",
]

REPLIES = [
    "you asked for the wifi: it's {word}",
    "to answer your question, the door code is {pin}",
    "What's your router password, so I can help troubleshoot?" + _SPLIT + "sure it's {pw}",
    "Which PIN did you set on the new phone?" + _SPLIT + "I went with {pin}",
    "re: your question about the alarm - {pin}",
    "You wanted the Netflix login earlier?" + _SPLIT + "{user} and {pw}",
    "Do you have the code for the gate?" + _SPLIT + "yep, {pin}",
    "the answer to what you asked before: {pw}, that's the laptop one",
]

CREDENTIAL_WORDS = [
    "my creds for the portal are {user} / {pw}",
    "login details for the school app: {user}, {pw}",
    "the access code for the building is {pin}",
    "unlock code for my phone is {pin}",
    "credentials for the vpn: {user} {pw}",
    "the safe combination is {combo}",
    "door code {pin} for the airbnb",
    "security question answer is {answer}",
]

SEED_PHRASES = [
    "my recovery phrase is {seed}",
    "seed words for the ledger: {seed}",
    "here are my 12 words in case I lose the paper: {seed}",
    "{seed} <- that's my wallet backup phrase, keep it safe",
    "wallet seed\n{seed}",
    "the metamask secret recovery phrase, in order: {seed}",
    "can you store my mnemonic? {seed}",
    "backup phrase: {numbered_seed}",
]

BACKUP_CODES = [
    "my 2fa backup codes: {codes}",
    "google backup codes (keep these!)\n{code_lines}",
    "here are the recovery codes for github {codes}",
    "backup codes for my bank app, each works once: {codes}",
    "save these 2FA codes for me {codes}",
    "emergency codes if I lose my phone: {codes}",
    "2fa backup codes\n{code_lines}",
    "my one-time backup codes are {codes}",
]

API_KEYS = [
    "oh my openai key is {openai} btw",
    "can you hold onto my stripe key {stripe}",
    "here's the github token I made {github}",
    "this is my aws key {aws} don't let me lose it",
    "the slack bot token is {slack}",
    "my gitlab token, just in case: {gitlab}",
    "anthropic key -> {anthropic}",
    "sendgrid api key {sendgrid} for the newsletter",
]

LANGUAGES = [
    "пароли ман {pw} аст",
    "meniň parolym {pw}",
    "زما پاسورډ {pw} دی",
    "şîfreya min {pw} e",
    "ọ̀rọ̀ aṣínà mi ni {pw}",
    "минем серсүзем {pw}",
    "ମୋର ପାସୱାର୍ଡ {pw}",
    "ijambo ry'ibanga ni {pw}",
]

LOOK_ALIKES = [
    "my pin is {full_pin}",
    "the door code is {full_pin}",
    "my pаsswоrd is {pw}",
    "ＰＩＮ: {pin}",
    "the wifi password is {look_alike}",
    "my password is {full_pw}",
    "the pin is {bold_pin}",
    "the p\u200bassword is {pw}",
]


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: a value said in words every two words
    side by side, a seed phrase every run of three words, each backup code,
    any other value whole."""
    if slot in ("spoken", "spoken_word"):
        words = value.split()
        return tuple(" ".join(words[i : i + 2]) for i in range(len(words) - 1))
    if slot in ("seed", "numbered_seed"):
        words = value.split()
        step = 6 if slot == "numbered_seed" else 3
        return tuple(" ".join(words[i : i + step]) for i in range(0, len(words), step))
    if slot == "codes":
        parts = value.replace(",", " ").split()
        if all(len(p) == 4 for p in parts):
            parts = [f"{a} {b}" for a, b in zip(parts[::2], parts[1::2], strict=True)]
        return tuple(parts)
    if slot == "code_lines":
        return tuple(value.split())
    return (value,)


FAMILIES: dict[str, Sequence[str]] = {
    "story": STORY,
    "between": BETWEEN,
    "relay": RELAY,
    "voice": VOICE,
    "reply": REPLIES,
    "credwords": CREDENTIAL_WORDS,
    "seed": SEED_PHRASES,
    "backup": BACKUP_CODES,
    "apikey": API_KEYS,
    "language": LANGUAGES,
    "lookalike": LOOK_ALIKES,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "story": [
        "so I was at the bank today and the teller asked for my PIN but the machine was broken",
        "long story short the plumber came at 10:15 and charged $180 for 40 minutes",
        "ugh my laptop died and I had to reset my email password on Jen's machine",
        "we stayed in room 2114 and the wifi only worked in the lobby",
        "my mum's facebook got hacked so we changed her password together, took an hour",
        "flight BA2490 was 3 hours late and we got home at 11:45",
        "the storage unit costs $89 a month and the gate closes at 9",
        "Dave finally paid me back the 45 euros from 2019",
    ],
    "between": [
        "ok so here's the thing about the cabin. Dad built it in 1987. It still has the old stove.",
        "The alarm went off at 6. Don't laugh. I slept through it anyway.",
        "I need to change my bank pin. The bank charges me every time. It's a rip-off.",
        "my work password expired this morning. IT made us change it. Anyway it's done now.",
        "The gym is open late. I went at 9. Locker 114 was free.",
        "Here's my plan for the week. Dentist on Tuesday. Then the 14:20 train.",
    ],
    "relay": [
        "tell Sam the meeting moved to 3pm",
        "can you remind Priya that the wifi is down until Monday?",
        "if the babysitter asks, bedtime is 8:30",
        "when mum calls, tell her flight UA 1524 lands at 18:40",
        "let the plumber know the door code changes monthly, he should call me",
        "text Jake that the password reset link expired",
        "pass this on to the cleaner: the key is under the mat",
        "tell Sam the code review is at 2 in room 204",
    ],
    "voice": [
        "hey reverie remember my dentist is at four thirty okay",
        "the alarm at work goes off at seven dont forget",
        "my bank called about the pin dont worry about it",
        "set a reminder for room two oh four at three",
        "remember the wifi password is on the fridge",
        "the garage door is stuck again ok thanks",
    ],
    "reply": [
        "you asked about the wifi: it's been slow all week",
        "to answer your question, the door code changes monthly",
        "What's your router password?" + _SPLIT + "no idea, it's on a sticker somewhere",
        "Which PIN did you set?" + _SPLIT + "I haven't set one yet",
        "re: your question about the alarm - it's fixed now",
        "Do you have the code for the gate?" + _SPLIT + "nope, ask the landlord",
    ],
    "credwords": [
        "my creds expired, I need to ask IT",
        "login details will be emailed to you on Monday",
        "the access code is on the back of the card",
        "the code review is at 2pm",
        "door code changes monthly",
        "the safe combination is written down at home",
        "the security question answer is something only I know",
        "the unlock code is in the drawer",
    ],
    "seed": [
        "I wrote my recovery phrase on paper and put it in the safe",
        "never type your seed words into a website",
        "12 words is the usual length for a seed phrase",
        "the wallet asked me to confirm word 7 of the phrase",
        "my backup phrase is stored offline, not on this laptop",
        "the mnemonic device for the planets is my very easy method",
    ],
    "backup": [
        "I printed my 2fa backup codes and lost them",
        "backup codes are in the password manager",
        "order 40318822 arrives on the 14th",
        "the recovery codes for github are in the safe",
        "invoice 20261130 covers 8 items at $12.50",
        "my one-time backup codes ran out, need new ones",
    ],
    "apikey": [
        "my openai key expired, I need a new one",
        "the github token needs the repo scope",
        "the api key is in the .env file, not here",
        "the stripe dashboard shows 14 payments today",
        "this is my aws bill for March: $23.40",
        "the slack bot token goes in the settings page",
    ],
    "language": [
        "пароли ман кӯҳна шуд",
        "men parolymy ýatdan çykardym",
        "زه خپل پاسورډ هېر کړی دی",
        "min şîfreya xwe ji bîr kir",
        "mo gbàgbé ọ̀rọ̀ aṣínà mi",
        "мин серсүземне оныттым",
        "ମୁଁ ମୋର ପାସୱାର୍ଡ ଭୁଲିଗଲି",
        "nibagiwe ijambo ry'ibanga",
    ],
    "lookalike": [
        "we are in room ２０４",
        "flight ＢＡ２４９０ leaves at ０９:１５",
        "my pаsswоrd expired again",
        "ＰＩＮ required for every payment",
        "the price was ４５ euros",
        "the house was built in １９８７",
    ],
}

_REPLIES = [""]
"""The companion's question is the message before: nothing between."""


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the companion's message before it)."""
    drawn = drawn_trials(
        "round35", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round35-replies"))


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Everyday texts of *family*'s look, each with its half and the message it follows."""
    return halved(NEGATIVES[family], _SPLIT)
