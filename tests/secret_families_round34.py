"""Round 34's held-out families of secrets, back in a chat with the
companion rather than in pasted files: what a person types in passing
("fyi the code for the gate is 4821 btw", the value first or last, filler
between); asking the companion to remember one ("remember my gym locker
combo: 12-34-56"); a correction naming both values ("no wait, it's X not
Y"); several in one message ("netflix: X, spotify: Y"); the past tense and
negation ("I changed my pw from X to Y", "it isn't X anymore"); a value
sent alone after the message that announced it; typos and slang
("pasword", "pwd", "passwd", "pw", "passcode", "pin no.", a security
answer, a mother's maiden name: each one a secret, since each opens an
account); a value quoted, in backticks or in bold; emoji around it; a
value with spaces (a passphrase, a PIN said in words); the everyday word
for password in eight languages no round tried (Slovak, Belarusian,
Macedonian, Marathi, Telugu, Nepali, Uzbek, Maltese); and one among dates,
times, prices, flight and order numbers that are no secret.

Like rounds 22 to 33, a family is a list of templates, the even ones the
half rules may be written on ("in"), the odd ones held out ("out"); a
trial fills one with drawn values.  ``NEGATIVES`` are everyday chat of
the same look that holds none and must stay as typed: a password policy,
"the key is to keep going", "I forgot my password again", a question
answered with no secret, a flight, an order number or a price the user
wants remembered (such numbers are the user's plans, not a way into an
account).  Counted by ``python -m tests.bench.secret_families --round 34``.
"""

# Belarusian and Macedonian are written as people type them.
# ruff: noqa: RUF001

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import _answer, _password, _pin, drawn_trials, halved, replied

_SPLIT = "\u241e"
"""Between the message before and the message of a split template."""

_WORDS = str.split(
    "sunflower tigerlily marigold pancake walrus cobalt juniper hazelnut lighthouse "
    "pepper meadow otter bluebell cricket saffron"
)
_PHRASE_WORDS = str.split(
    "purple monkey dishwasher rainy tuesday garden kettle orange bicycle window "
    "cloud paper river stone lemon violin"
)
_DIGIT_WORDS = str.split("zero one two three four five six seven eight nine")


def _word(rng: random.Random) -> str:
    """A word and a number, as most people choose ("sunflower42")."""
    word = rng.choice(_WORDS)
    return rng.choice([word, word.capitalize()]) + str(rng.randint(2, 999))


def _phrase(rng: random.Random) -> str:
    """Three or four everyday words, spaced ("purple monkey dishwasher")."""
    return " ".join(rng.sample(_PHRASE_WORDS, rng.choice([3, 4])))


def _spoken(rng: random.Random) -> str:
    """A PIN said in words ("four eight two one")."""
    return rng.choice([" ", "-"]).join(_DIGIT_WORDS[int(d)] for d in _pin(rng)[:4])


def _combo(rng: random.Random) -> str:
    return rng.choice(["-", "-", " "]).join(f"{rng.randint(1, 59):02d}" for _ in range(3))


_SLOTS = {
    "pw": _password,
    "pw2": _password,
    "word": _word,
    "word2": _word,
    "pin": _pin,
    "pin2": _pin,
    "combo": _combo,
    "phrase": _phrase,
    "spoken": _spoken,
    "answer": _answer,
}
_ENDINGS = ["", "", ".", "!", " btw", " 🙂", " thanks!", " - don't tell anyone", " lol"]

CASUAL = [
    "fyi the code for the gate is {pin} btw",
    "oh and the wifi password at the cabin is {word}",
    "{word} is the password for the kids' ipad, just so you know",
    "the garage keypad? it's {pin}",
    "btw our netflix pw is {pw} if you ever need it",
    "{pin} opens the side door at mum's",
    "so the alarm code at the office is still {pin} i think",
    "the new router password, which the guy set up yesterday, is {pw}",
]

REMEMBER = [
    "remember my gym locker combo: {combo}",
    "can you remember the wifi password for me? it's {word}",
    "please keep this safe: bank app pin {pin}",
    "note to self - laptop password is {pw}",
    "save this for later, my apple id password = {pw}",
    "don't let me forget: the storage unit code is {pin}",
    "remember that my work login is {user} / {pw}",
    "store this: the padlock on the shed is {combo}",
]

CORRECTIONS = [
    "no wait, the password is actually {pw} not {pw2}",
    "sorry, I typed it wrong - it's {pw2}, not {pw}",
    "correction: the door code is {pin2}, I said {pin} before",
    "scratch that, wifi is {word} (not {word2})",
    "oops I meant {pw2} - the password isn't {pw}",
    "the pin is {pin}... no, {pin2}, sorry",
    "actually the netflix password changed to {pw2}, the old {pw} won't work",
    "hmm not {word}, the guest wifi is {word2}",
]

LISTS = [
    "netflix: {pw}, spotify: {pw2}",
    "passwords for the kids: minecraft {word}, roblox {word2}",
    "gate {pin} / garage {pin2} / wifi {word}",
    "here are my logins - amazon {pw}; ebay {pw2}",
    "- email: {pw}\n- bank: {pw2}\n- phone pin: {pin}",
    "1) wifi = {word} 2) alarm = {pin}",
    "Spotify -> {pw}, Disney+ -> {pw2}",
    "wifi {word}, alarm {pin}, safe {combo}",
]

CHANGED = [
    "I changed my pw from {pw} to {pw2}",
    "the old password was {pw}, now it's {pw2}",
    "I reset the pin from {pin} to {pin2} yesterday",
    "it used to be {word} but I switched it to {word2}",
    "my password isn't {pw} anymore, it's {pw2}",
    "updated the wifi from {word} to {word2} last night",
    "I used to use {pw} as my password for everything, terrible I know",
    "the code was {pin} until they changed it to {pin2}",
]

ANNOUNCED = [
    "what's the wifi?" + _SPLIT + "{word}",
    "I need to give you the wifi password" + _SPLIT + "{word}",
    "ok, the pin for my card:" + _SPLIT + "{pin}",
    "wanna know my netflix password?" + _SPLIT + "{pw}",
    "remember the alarm code, I'll send it now" + _SPLIT + "{pin}",
    "the password for my laptop is..." + _SPLIT + "{pw}",
    "the gate code, so you have it" + _SPLIT + "{pin}",
    "here's the locker combo" + _SPLIT + "{combo}",
]

SLANG = [
    "my pasword is {pw}",
    "pwd for the nas: {pw}",
    "passwd {pw}",
    "pw is {word} for the guest network",
    "the passcode's {pin}",
    "pin no. {pin} for the debit card",
    "security answer: {answer}",
    "mother's maiden name is {answer}",
]

QUOTED = [
    "the wifi password is `{word}`",
    'my password is "{pw}"',
    "the password is **{pw}**",
    "password: \u2018{word}\u2019",
    "the code is \u00ab{pin}\u00bb",
    "pin = '{pin}'",
    "wifi: \u201e{word}\u201c",
    "the password is ```{pw}```",
]

EMOJI = [
    "🔑 {pw}",
    "wifi 📶 {word}",
    "the password is {pw} 🤫",
    "🔐 netflix: {pw} 🍿",
    "door code 🚪 {pin}",
    "alarm code is {pin} 😅",
    "🤫 pw = {word}",
    "my pin is 👉 {pin} 👈",
]

SPACED = [
    "the wifi password is {phrase}",
    "my passphrase is {phrase}",
    "the gate code is {spoken}",
    "the password is {phrase}, all lowercase with spaces",
    "master password: {phrase}",
    "pin is {spoken}",
    "the wifi is literally {phrase}",
    'the password is "{phrase}"',
]

LANGUAGES = [
    "moje heslo na wifi je {word}",
    "мой пароль ад пошты {pw}",
    "лозинката за wifi е {word}",
    "माझा पासवर्ड {pw} आहे",
    "నా పాస్‌వర్డ్ {pw}",
    "मेरो पासवर्ड {pw} हो",
    "wifi paroli: {word}",
    "il-password tiegħi hi {pw}",
]

MIXED = [
    "flight BA2490 on 12/03 at 14:05, and the airbnb door code is {pin}",
    "order #88231 arrives tuesday; wifi there is {word}",
    "meeting at 3pm room 204, guest wifi password {word}",
    "my bday is 04/07/1991 and the pin is {pin}",
    "call 555-0142 after 6, gate code {pin}, parking spot 17",
    "rent is $1,450 due on the 1st; portal login {user} pw {pw}",
    "the code for locker 312 is {combo}",
    "on 2026-03-14 I set the router password to {pw}",
]


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: a value of words every two words side
    by side (a passphrase's half is a leak), any other value whole."""
    if slot not in ("phrase", "spoken"):
        return (value,)
    words = value.replace("-", " ").split()
    seps = "-" if "-" in value else " "
    return tuple(seps.join(words[i : i + 2]) for i in range(len(words) - 1))


FAMILIES: dict[str, Sequence[str]] = {
    "casual": CASUAL,
    "remember": REMEMBER,
    "correct": CORRECTIONS,
    "lists": LISTS,
    "changed": CHANGED,
    "announced": ANNOUNCED,
    "slang": SLANG,
    "quoted": QUOTED,
    "emoji": EMOJI,
    "spaced": SPACED,
    "language": LANGUAGES,
    "mixed": MIXED,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "casual": [
        "the password policy says 12 characters",
        "fyi the gate is open until 9 btw",
        "the key is to keep going",
        "my pin code drawer is a mess",
        "the wifi at the cabin is really slow",
        "the code for the game is on github",
    ],
    "remember": [
        "remember my gym is closed on sunday",
        "can you remember I have a dentist at 4:30?",
        "note to self - buy milk",
        "please remember my flight is LH 441 on friday",
        "remember that my order number is 114-2231234-88",
        "don't let me forget: mum's birthday is 14 March",
    ],
    "correct": [
        "no wait, the meeting is actually at 3 not 2",
        "sorry, I typed it wrong - it's Tuesday",
        "correction: the price is $45, I said $54 before",
        "the pin is in the drawer... no, the other drawer",
        "scratch that, I'll change my password tomorrow",
        "actually the password changed last week, I need to ask IT",
    ],
    "lists": [
        "netflix: 2 episodes left, spotify: new album",
        "shopping: eggs, milk, bread",
        "gate 12 / terminal 2 / seat 14C",
        "1) call mum 2) pay rent",
        "Spotify -> Premium, Disney+ -> cancelled",
        "logins: I use a password manager for all of them",
    ],
    "changed": [
        "I changed my password yesterday",
        "I forgot my password again",
        "I reset the router twice today",
        "it used to be slow but now it's fine",
        "my password isn't working anymore",
        "updated the wifi firmware last night",
    ],
    "announced": [
        "what's the wifi?" + _SPLIT + "it's on the fridge",
        "I need to give you the wifi password" + _SPLIT + "actually never mind",
        "ok, the pin for my card:" + _SPLIT + "I'll tell you later",
        "what's the weather like?" + _SPLIT + "sunny",
        "what was the garage code again?" + _SPLIT + "I can't remember",
        "here's the locker combo" + _SPLIT + "oh wait, I lost it",
    ],
    "slang": [
        "my pasword manager crashed",
        "pwd shows the current directory",
        "passwd lets you change your password",
        "the passcode screen is annoying",
        "pin no. is on the back of the letter",
        "mother's maiden name is a terrible security question",
    ],
    "quoted": [
        'the button says "Forgot password?"',
        "type `passwd` to change it",
        "the **password** field is empty",
        "the setting is under \u00abprivacy\u00bb",
        "pin = 'later'",
        "password: \u2018see the note\u2019",
    ],
    "emoji": [
        "🔑 keys are in the bowl",
        "wifi 📶 is down again",
        "the password is wrong 🤦",
        "🔐 locked out again",
        "door code 🚪 changed, ask Tom",
        "alarm went off 😅",
    ],
    "spaced": [
        "the password is too long to type",
        "my passphrase is written down somewhere",
        "the gate code is the same as before",
        "the password is case sensitive",
        "master password reset instructions are in the email",
        "pin is required for every payment",
    ],
    "language": [
        "zabudol som heslo na wifi",
        "я забыў пароль ад пошты",
        "ја заборавив лозинката",
        "मी माझा पासवर्ड विसरलो",
        "నేను పాస్‌వర్డ్ మర్చిపోయాను",
        "मैले पासवर्ड बिर्सें",
        "parolimni unutdim",
        "insejt il-password",
    ],
    "mixed": [
        "flight BA2490 on 12/03 at 14:05",
        "order #88231 arrives tuesday",
        "meeting at 3pm room 204",
        "my bday is 04/07/1991",
        "call 555-0142 after 6, parking spot 17",
        "rent is $1,450 due on the 1st",
        "the code for locker 312 is in the app",
        "on 2026-03-14 I set up the router",
    ],
}

_REPLIES = ["", "", "Sure, go ahead.", "Okay?"]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates (a split one read
    after the message before it)."""
    drawn = drawn_trials(
        "round34", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )
    return replied(drawn, _SPLIT, _REPLIES, random.Random(f"{seed}-round34-replies"))


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Everyday texts of *family*'s look, each with its half and the message it follows."""
    return halved(NEGATIVES[family], _SPLIT)
