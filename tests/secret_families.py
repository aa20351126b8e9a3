"""Round 21's families of secrets redaction still missed, built from parts:
several secrets in one message, a password changed (the old value and the
new), a list or a table of accounts, a door's, gate's or lock's code or a
card's CVC said alone, and a secret split across two messages.  Each
family is a list of templates; a trial fills one with drawn values (a
password, a PIN, a combination, a CVC), a casing, a quoting and an ending.
``NEGATIVES`` are everyday sentences of each family's look that hold none.

Templates and negatives are split by their place: the even ones are the
half rules may be written on, the odd ones are held out, to measure
(``python -m tests.bench.secret_families``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from tests.secret_situations import password, pin


@dataclass(frozen=True)
class Trial:
    family: str
    half: str
    """"in" (a template rules may be written on) or "out" (held out)."""
    text: str
    values: tuple[str, ...]
    after: tuple[str, ...] = ()


_CLASSIC = str.split(
    "hunter2 tr0ub4dor s3cret! Passw0rd! letmein42 Tr0ub4dor&3 zaq12wsx b4nana!! "
    "Kettle42 Gr33nT3a# m4ple_syrup Rosebud77 blue-otter-19 Sunflower#8 p@ssw0rd1 "
    "Nimbus2021 correct-horse-42 Q7vx!m2P"
)


def _password(rng: random.Random) -> str:
    return rng.choice([password(rng), password(rng), rng.choice(_CLASSIC)])


def _pin(rng: random.Random) -> str:
    value = pin(rng)
    return value if not value.startswith(("19", "20")) else "7" + value[1:]


def _combo(rng: random.Random) -> str:
    parts = [f"{rng.randint(0, 39):02d}" if rng.random() < 0.5 else str(rng.randint(1, 39))]
    parts += [str(rng.randint(1, 39)) for _ in range(rng.choice([2, 2, 3]))]
    return rng.choice(["-", "-", " ", "/", "."]).join(parts)


def _cvc(rng: random.Random) -> str:
    return str(rng.randint(100, 999)) if rng.random() < 0.8 else str(rng.randint(1000, 9999))


def _dashed_pin(rng: random.Random) -> str:
    return rng.choice(["-", " ", "."]).join(_pin(rng)[:4])


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "pw2": _password,
    "pw3": _password,
    "pin": _pin,
    "pin2": _pin,
    "combo": _combo,
    "cvc": _cvc,
    "dpin": _dashed_pin,
}
_QUOTES = [("", ""), ("", ""), ("", ""), ('"', '"'), ("'", "'"), ("`", "`")]
_ENDINGS = ["", "", ".", "!", " :)", " thx", ", don't share it", " lol"]
SERVICES = str.split("Netflix gmail Spotify amazon eBay Steam PayPal hulu Dropbox outlook")
USERS = ["bob@x.com", "maya.k@example.com", "mayak", "tom_99", "jsmith", "anna@mail.de"]

MULTI = [
    "wifi: {pw}, alarm code {pin}, and the safe is {combo}",
    "the router is {pw} and the garage is {pin}",
    "my bank pin is {pin} and the online banking password is {pw}",
    "netflix {pw}, spotify {pw2}",
    "email password {pw}; phone pin {pin}",
    "for the house sitter: wifi password is {pw}, the alarm is {pin}, key safe {pin2}",
    "laptop: {pw} / phone: {pin}",
    "the pin for my debit card is {pin}, for the credit card it's {pin2}",
    "login is {pw} and the pin is {pin}",
    "work laptop password {pw}, personal one {pw2}",
    "gmail's password is {pw} and yahoo's is {pw2}",
    "Wi-Fi {pw} | alarm {pin}",
    "passwords: {pw} for amazon, {pw2} for ebay",
    "PIN {pin}. Password {pw}. Don't lose them",
    "the wifi is {pw}, the guest wifi is {pw2} and the router admin is {pw3}",
    "my password is {pw} and my husband's is {pw2}",
    "the alarm code is {pin} and the padlock combo {combo}",
    "pw {pw}, pin {pin}",
    "phone {pin}, laptop {pw}, ipad {pin2}",
    "bank: {pw}\nemail: {pw2}\nphone: {pin}",
]
CHANGES = [
    "changed my password from {pw} to {pw2}",
    "old pw was {pw}, new one is {pw2}",
    "I updated the router password to {pw2}",
    "the wifi password is no longer {pw}, it's {pw2} now",
    "switched my gmail password: {pw} -> {pw2}",
    "reset the netflix password, it was {pw} and now it's {pw2}",
    "new password: {pw2} (old: {pw})",
    "I changed the pin from {pin} to {pin2}",
    "my password used to be {pw} but I changed it to {pw2}",
    "password changed to {pw2}",
    "set the new wifi password to {pw2}",
    "replaced {pw} with {pw2} as my bank password",
    "the new laptop password is {pw2}, the old one {pw} no longer works",
    "from now on the password is {pw2}",
    "went from {pw} to {pw2} on the router password",
    "I've changed my Steam password to {pw2}",
    "the alarm code changed from {pin} to {pin2}",
    "updated my apple id password, {pw} is gone, {pw2} is the new one",
    "pw change: {pw} => {pw2}",
    "had to change the office wifi password to {pw2} because {pw} leaked",
]
TABLES = [
    "{s} | {u} | {pw}",
    "| site | user | password |\n|---|---|---|\n| {s} | {u} | {pw} |\n| {s2} | {u} | {pw2} |",
    "site,user,password\n{s},{u},{pw}\n{s2},{u},{pw2}",
    "- {s}: {pw}\n- {s2}: {pw2}",
    "* {s} \u2014 {pw}\n* {s2} \u2014 {pw2}",
    "1. {s}: {pw}\n2. {s2}: {pw2}",
    "service\tusername\tpassword\n{s}\t{u}\t{pw}",
    "name;login;pass\n{s};{u};{pw}",
    "account / user / pass: {s} / {u} / {pw}",
    "{s}  {u}  {pw}\n{s2}  {u}  {pw2}",
    "| Account | Password |\n| --- | --- |\n| {s} | {pw} |",
    "url,username,password\nhttps://www.{s}.com,{u},{pw}",
    "name,url,username,password\n{s},https://{s}.com,{u},{pw}",
    "my logins:\n\u2022 {s} - {u} - {pw}\n\u2022 {s2} - {u} - {pw2}",
    "{s}, {u}, {pw}",
    "Site | Login | PW\n{s} | {u} | {pw}\n{s2} | {u} | {pw2}",
    "- [ ] {s} {pw}\n- [x] {s2} {pw2}",
    "website: {s}, user: {u}, {pw}",
    "| {s} | {pw} |\n| {s2} | {pw2} |",
    "{s}:{u}:{pw}",
]
CODES = [
    "the gate code is {pin}#",
    "garage keypad {dpin}",
    "CVC {cvc}",
    "security code on the back is {cvc}",
    "door code: {pin}",
    "the front door code is {pin}*",
    "the CVV is {cvc}",
    "code for the side gate {pin}",
    "the lock code is {pin}",
    "the building's entry code is #{pin}",
    "the buzzer code is {pin}",
    "the 3 digits on the back are {cvc}",
    "cvv: {cvc}",
    "keypad code for the garage: {pin}",
    "the padlock code is {dpin}",
    "the code to the storage room is {pin}",
    "card security code {cvc}",
    "the gate opens with *{pin}#",
    "CVV2 {cvc}",
    "the door is {pin}#, then push",
    "security code {cvc}",
    "the main entrance: {pin}",
]
SPLITS = [
    ("my password is", "{pw}"),
    ("the wifi password:", "{pw}"),
    ("here's my bank pin", "{pin}"),
    ("ok the password for netflix is...", "{pw}"),
    ("the code for the gate is", "{pin}#"),
    ("my gmail password is", "{pw} lol"),
    ("and the new password is", "{pw}"),
    ("the router password, so you have it", "{pw}"),
    ("I'll tell you my pin", "it's {pin}"),
    ("the password is", "`{pw}`"),
    ("my password is", "{pw}."),
    ("the alarm code is", "{pin}"),
    ("wifi pw", "{pw}"),
    ("remember my locker combo", "{combo}"),
    ("save my netflix login: {u}", "and the password {pw}"),
    ("the garage code?", "{pin}"),
    ("my CVC is", "{cvc}"),
    ("password for the work laptop:", "{pw}\nthanks"),
]
_REPLIES = ["", "", "Go on.", "I'm listening.", "Sure, what is it?", "Okay?"]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates."""
    rng = random.Random(f"{seed}-{family}")
    for index, template in enumerate(FAMILIES[family]):
        half = "in" if index % 2 == 0 else "out"
        for _ in range(draws):
            yield _filled(family, half, template, rng)


def _filled(family: str, half: str, template: str | tuple[str, str], rng: random.Random) -> Trial:
    drawn = {slot: make(rng) for slot, make in _SLOTS.items()}
    while drawn["pw2"] == drawn["pw"]:
        drawn["pw2"] = _password(rng)
    services = rng.sample(SERVICES, 2)
    opening, closing = rng.choice(_QUOTES)
    quoted = {slot: f"{opening}{value}{closing}" for slot, value in drawn.items()}
    parts = dict(quoted, s=services[0], s2=services[1], u=rng.choice(USERS))
    before, text = template if isinstance(template, tuple) else ("", template)
    used = tuple(drawn[slot] for slot in _SLOTS if "{" + slot + "}" in before + text)
    text = _cased(rng, text.format(**parts)) + ("" if "\n" in text else rng.choice(_ENDINGS))
    after = (_cased(rng, before.format(**parts)), rng.choice(_REPLIES)) if before else ()
    return Trial(family, half, text, used, tuple(a for a in after if a))


def _cased(rng: random.Random, text: str) -> str:
    """*text* with its first letter changed (typed fast or carefully)."""
    shape = rng.randrange(3)
    if shape == 1 and text[:1].isalpha():
        return text[0].upper() + text[1:]
    if shape == 2 and text[:1].isalpha():
        return text[0].lower() + text[1:]
    return text


FAMILIES: dict[str, Sequence[str | tuple[str, str]]] = {
    "multi": MULTI,
    "change": CHANGES,
    "table": TABLES,
    "code": CODES,
    "split": SPLITS,
}

NEGATIVES: dict[str, Sequence[str | tuple[str, str]]] = {
    "multi": [
        "wifi is slow, the alarm went off twice, and the safe is in the attic",
        "the router is in the hall and the garage is full",
        "my bank is Barclays and the online banking app is fine",
        "netflix 12.99, spotify 10.99",
        "we need 4 chairs, 2 tables and 12 cups",
        "laptop: 1.2 kg / phone: 180 g",
        "room 114, floor 3, building B",
        "bus 42 at 8:15, then tram 7 at 8:40",
        "the kids are 4, 7 and 9, and the dog is 3",
        "flight LH2023 at 10:30, gate B22, seat 14C",
        "score: 21-14, then 3-2 in the second game",
        "milk 1.29, eggs 2.49, bread 3.10",
        "the alarm is set for 6:30 and the oven for 180 degrees",
        "order #4821 and order #4822 both arrived",
        "version 2.4.1 on the laptop, 2.3.9 on the phone",
        "phone 0171 2345678, office 030 1234567",
        "the wifi is down, the alarm is beeping and the safe won't open",
        "laptop: Dell XPS 13 / phone: Pixel 8",
        "phone 2, laptop 1, ipad 3",
        "the guest room is 12, the kitchen is 14 and the hall is 9 square metres",
        "bus 7 is 2.40, the tram is 3.10 and the train 12.90",
        "seats: 14C, 14D and 15A",
        "hall: 12 m2, kitchen: 14 m2",
        "my son is 7, my daughter 9",
    ],
    "change": [
        "I changed my mind from pizza to pasta",
        "moved the meeting from 3pm to 4pm",
        "switched from Firefox to Chrome",
        "updated the app to version 2.4.1",
        "changed my username from maya80 to maya_k",
        "the price went from 20 to 25 euros",
        "I changed the password policy to 12 characters",
        "the old one was broken, the new one works",
        "I need to change my password soon",
        "reset the router to factory settings",
        "changed the channel from 4 to 11 to fix the wifi",
        "the new password has to be 12 characters long",
        "I updated my address to 12 Baker Street",
        "my password used to be weak but now it's strong",
        "upgraded from Windows 10 to Windows 11",
        "changed the time zone from UTC to CET",
        "changed my flight from LH2023 to LH2025",
        "moved from room 114 to room 220",
        "the score went from 2-1 to 2-2",
        "updated the firmware from 1.2.3 to 1.2.4",
        "renamed the file from report2023.pdf to report2024.pdf",
        "upgraded python from 3.11 to 3.12",
        "I changed the password yesterday",
        "the new one is much better than the old one",
    ],
    "table": [
        "the table has 4 legs",
        "| name | age |\n|---|---|\n| Bob | 42 |\n| Ann | 39 |",
        "date,amount,category\n2024-01-02,42.50,food\n2024-01-03,12.00,travel",
        "- milk: 2 litres\n- eggs: 12",
        "* Monday \u2014 gym\n* Tuesday \u2014 swim",
        "1. Intro: 5 min\n2. Demo: 20 min",
        "city\tcountry\tpopulation\nBerlin\tGermany\t3645000",
        "Netflix | drama | 2019",
        "| Service | Price |\n| --- | --- |\n| Netflix | 12.99 |",
        "site,visits\nnetflix.com,1200\ngmail.com,3400",
        "- password manager: Bitwarden\n- 2FA: Aegis",
        "name,email\nBob,bob@x.com",
        "Spotify, Netflix, Hulu",
        "- [ ] buy milk\n- [x] call mum",
        "website: example.com, user count: 1200",
        "| Week | Distance |\n| 1 | 5 km |\n| 2 | 7 km |",
        "Berlin | Germany | 3645000",
        "| task | owner | due |\n|---|---|---|\n| deploy | maya | 12/03 |",
        "product,sku,price\nMug,MUG-2041,9.99",
        "user,role\nmaya,admin\ntom,editor",
        "- gmail: inbox zero\n- amazon: 2 parcels",
        "Netflix | Stranger Things | S4E7",
        "1. Spotify: 10.99\n2. Netflix: 12.99",
        "- flight: LH2023\n- hotel: Adlon",
    ],
    "code": [
        "code review at 3pm",
        "the gate was open",
        "section 1234 of the law",
        "the security code is on the back of the card",
        "our flight leaves from gate 114",
        "the door was locked at 10:30",
        "the garage is 6 metres long",
        "what is a CVC code?",
        "the zip code is 10115",
        "error code 1603",
        "the front door is painted blue",
        "area code 415",
        "Gate B22, boarding at 10:30",
        "the keypad beeps 3 times when the battery is low",
        "I lost the code for the gate",
        "the lock is 100 years old",
        "the gate code is on the fridge",
        "gate 22 closes at 10:40",
        "line 1234 of the code",
        "the code is 200 lines long",
        "the CVV field is required",
        "CVC stands for card verification code",
        "door 3, room 114",
        "the security code expired after 10 minutes",
    ],
    "split": [
        ("my password is", "too long to remember, honestly"),
        ("the meeting is at", "3pm"),
        ("the wifi password is", "on the sticker under the router"),
        ("my favourite number is", "42"),
        ("my password is", "the same as before, I'll tell you later"),
        ("how many people came?", "2000"),
        ("the code for the gate is", "written on the fridge"),
        ("what year did you set the password?", "2019"),
        ("my password is", "in the password manager"),
        ("the alarm code is", "something I'll never share"),
        ("the pin is", "the usual one"),
        ("remember my locker number", "114"),
        ("my flight number is", "LH2023"),
        ("my room number is", "114"),
        ("the wifi password is", "I don't know, ask Tom"),
        ("what time is the meeting?", "10:30"),
        ("my password is", "gone, I reset it"),
        ("my pin is", "the same as the old card's"),
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday sentences: each one's half, its text and what it follows."""
    for index, negative in enumerate(NEGATIVES[family]):
        half = "in" if index % 2 == 0 else "out"
        before, text = negative if isinstance(negative, tuple) else ("", negative)
        yield half, text, (before,) if before else ()
