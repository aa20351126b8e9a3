"""Secrets stated by situation, without a word naming a credential, built
from parts: the situation (what the value gets into, a service and a sign,
a "same as always", a list of backup codes, a lock and its combination, a
question about getting in answered), the value's shape (a name and a year,
a season and a year, a keyboard walk, a word with digits and signs, a PIN,
a combination) and the wording around them.  ``build(family, rng)`` draws
one phrasing; ``NEGATIVES`` are everyday sentences of the same look that
hold no secret.  Used by the property tests of ``redaction`` and by
``python -m tests.bench.secret_situations``, which counts leaks.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Trial:
    text: str
    values: tuple[str, ...]
    after: tuple[str, ...] = ()


NAMES = str.split("maya noah lena ollie zoe finn ruby arlo mila jonas ella theo ivy leon nora")
SEASONS = str.split("Spring Summer Autumn Fall Winter Easter Christmas")
MONTHS = str.split("January March April June July August September October November December")
WALKS = str.split("qwerty qwertz asdfgh zxcvbn poiuyt lkjhgf mnbvcx 1qaz2wsx qazwsx asdf1234")
WORDS = str.split("tiger pepper falcon monkey dragon cookie muffin rocket banana coffee")
SIGNS = "!$#*@?"


def _year(rng: random.Random) -> str:
    return str(rng.choice([rng.randint(1950, 2029), rng.randint(10, 99), rng.randint(100, 9999)]))


def password(rng: random.Random) -> str:
    """A password people choose: a name or a season and a year, a walk
    along the keyboard, a word with digits and signs, a word in leet."""
    shape = rng.randrange(6)
    sign = rng.choice(["", "", rng.choice(SIGNS), rng.choice(SIGNS) * 2])
    if shape == 0:
        name = rng.choice(NAMES)
        return rng.choice([name, name.capitalize()]) + _year(rng) + sign
    if shape == 1:
        return rng.choice(SEASONS + MONTHS) + _year(rng) + sign
    if shape == 2:
        return rng.choice(WALKS) + rng.choice(["", "", "123", "!", "99"])
    if shape == 3:
        word = rng.choice(WORDS)
        return rng.choice([word, word.capitalize()]) + rng.choice(SIGNS) + str(rng.randint(1, 99))
    if shape == 4:
        word = rng.choice(WORDS)
        leet = word.translate(str.maketrans("aeio", "@310"))
        return leet + rng.choice(["", "!", str(rng.randint(1, 99))])
    name = rng.choice(NAMES)
    return name.capitalize() + rng.choice(SIGNS) + _year(rng)


MADE_UP = str.split("Tolzanwensho vixfrolup joryarbek Quenzatil brimvoxel")
DASHED = str.split("kettle-moon-lamp purple-tiger-sofa river-stone-42 blue-cactus-otter")
RUN_TOGETHER = str.split("correcthorsebattery bluecactusotter lanternriverstone pepperdragonfly")


def loose_value(rng: random.Random) -> str:
    """What only a slot for a value says is one: a made-up word, dashed words."""
    return rng.choice(MADE_UP + DASHED + RUN_TOGETHER)


def joined(rng: random.Random) -> str:
    """Words joined by dashes or run together ("kettle-moon-lamp")."""
    return rng.choice(DASHED + RUN_TOGETHER)


def pin(rng: random.Random) -> str:
    return "".join(rng.choice("0123456789") for _ in range(rng.choice([4, 4, 5, 6])))


def combination(rng: random.Random) -> str:
    parts = [str(rng.randint(0, 39)) for _ in range(rng.choice([3, 3, 4]))]
    return rng.choice(["-", " ", "-", "/"]).join(parts)


THINGS = [
    "laptop",
    "old laptop",
    "shared drive",
    "NAS",
    "family iPad",
    "work VPN",
    "router admin page",
    "dad's computer",
    "Plex server",
    "the desktop in the study",
    "the kiosk",
    "my Mac",
]
DEVICES = ["phone", "iPhone", "tablet", "iPad", "Android", "Kindle", "old Samsung", "laptop"]
WHOSE = ["my", "grandma's", "mum's", "the kids'", "Tom's", "the spare", "my work", "dad's"]
SERVICES = [
    "netflix",
    "Netflix",
    "hbo",
    "HBO Max",
    "spotify",
    "Spotify",
    "Airbnb",
    "amazon",
    "ebay",
    "PayPal",
    "steam",
    "Twitch",
    "gmail",
    "Outlook",
    "dropbox",
    "Hulu",
    "disney+",
    "Uber",
    "instagram",
    "Duolingo",
]
PEOPLE = ["my brother", "mum", "Sam", "my landlord", "the babysitter", "Oma", "my flatmate"]
NETWORKS = ["FRITZ!Box 7530", "Vodafone-4F2A", "TP-Link_5G", "HomeNet", "Pixel_8841", "Casa Rosa"]
LOCKS = ["bike lock", "padlock", "suitcase lock", "gym locker", "locker", "shed lock", "safe"]


def _get_in(rng: random.Random) -> Trial:
    value = rng.choice([password(rng), password(rng), pin(rng), loose_value(rng)])
    thing = rng.choice(THINGS)
    the = "" if thing.startswith(("the ", "my ", "dad")) else "the "
    template = rng.choice(
        [
            "{the}{thing} opens with {v}",
            "{The}{thing} unlocks with {v}",
            "you get into {the}{thing} with {v}",
            "{v} gets you into {the}{thing}",
            "to log into {the}{thing} use {v}",
            "to get into {the}{thing}, type {v}",
            "{the}{thing} lets you in with {v}",
            "sign in to {the}{thing} using {v}",
            "{v} unlocks {the}{thing}",
            "to unlock {the}{thing} it's {v}",
            "{The}{thing} logs in with {v} btw",
            "getting into {the}{thing}: {v}",
            "I get in with {v}",
            "you need {v} to get in",
            "type {v} and you're in",
            "enter {v} to log in",
            "access {the}{thing} with {v}",
            "we log on to {the}{thing} using {v}",
        ]
    )
    text = template.format(the=the, The=the.capitalize(), thing=thing, v=value)
    return Trial(_dressed(rng, text), (value,))


def _dressed(rng: random.Random, text: str) -> str:
    """*text* as a chat line: maybe a lead, a capital, an ending (the value
    is kept as it is)."""
    lead = rng.choice(["", "", "oh and ", "FYI ", "ok so ", "note: "])
    end = rng.choice(["", ".", "!", " :)", ", don't forget", ". thanks!"])
    text = lead + text + end
    return text[0].upper() + text[1:] if rng.random() < 0.5 and text[0].isalpha() and lead else text


def _service_sign(rng: random.Random) -> Trial:
    count = rng.choice([1, 1, 2, 3])
    services = rng.sample(SERVICES, count)
    values = [rng.choice([password(rng), password(rng), joined(rng)]) for _ in services]
    sign = rng.choice([": ", " = ", " - ", " -> ", ":\n", " => ", ":  "])
    joiner = rng.choice(["\n", "\n", ", ", "; "])
    lines = joiner.join(f"{s}{sign}{v}" for s, v in zip(services, values, strict=True))
    lead = rng.choice(["", "", "for the list:\n", "my accounts\n", "note to self\n"])
    return Trial(lead + lines, tuple(values))


def _same_as(rng: random.Random) -> Trial:
    value = rng.choice([password(rng), password(rng), joined(rng), _no_year(rng)])
    template = rng.choice(
        [
            "it's the usual one, {v}",
            "same as always: {v}",
            "everything's {v} except the work stuff",
            "I use {v} for everything",
            "it's my usual {v}",
            "same one as the {s}, {v}",
            "the one I use everywhere, {v}",
            "{v} like all the others",
            "{v}, same as everywhere else",
            "everything is {v} apart from the bank",
            "all my accounts are {v}",
            "it's {v} like always",
            "I reuse {v} everywhere",
            "{v} is my go-to for everything",
            "same old {v}",
        ]
    )
    text = template.format(v=value, s=rng.choice(SERVICES))
    return Trial(_dressed(rng, text), (value,))


def _no_year(rng: random.Random) -> str:
    value = pin(rng)
    return value if not value.startswith(("19", "20")) or len(value) != 4 else "4" + value[1:]


def _message_to_other(rng: random.Random) -> Trial:
    inner = rng.choice([_get_in, _same_as, _phone_unlock, _lock_combination])(rng)
    wrapper = rng.choice(
        [
            "draft a whatsapp to {p}: ",
            "text {p} that ",
            "write {p} a message saying ",
            "tell {p}: ",
            "send {p} this: ",
            "email {p} that ",
        ]
    )
    text = wrapper.format(p=rng.choice(PEOPLE)) + inner.text
    return Trial(text, inner.values)


def _answer(rng: random.Random) -> Trial:
    value = rng.choice([password(rng), password(rng), pin(rng), loose_value(rng)])
    thing = rng.choice(THINGS)
    the = "" if thing.startswith(("the ", "my ", "dad")) else "the "
    question = rng.choice(
        [
            "How do I get into {the}{thing}?",
            "how do I log in to {the}{thing}?",
            "What do I type to unlock {the}{thing}?",
            "How do I sign into {the}{thing} again?",
            "what gets me into {the}{thing}?",
            "How do I access {the}{thing}?",
            "What do you use to log in to {the}{thing}?",
            "Which one gets you into {the}{thing}?",
            "and for {the}{thing}, what do I enter?",
        ]
    ).format(the=the, thing=thing)
    answer = rng.choice(
        [
            "use {v}?",
            "try {v}",
            "it's {v}",
            "{v}",
            "should be {v}",
            "type {v} when it asks",
            "{v} I think",
            "hmm, {v}",
            "oh it's {v}",
            "probably {v}",
        ]
    ).format(v=value)
    if rng.random() < 0.2:  # later in the line: a password or a PIN, no made-up word
        value = rng.choice([password(rng), _no_year(rng)])  # a year there is a year
        template = rng.choice(["hmm, I think it's still {v}", "not sure, maybe {v} or so"])
        answer = template.format(v=value)
    return Trial(answer, (value,), (question,))


def _backup_codes(rng: random.Random) -> Trial:
    def code() -> str:
        shape = rng.randrange(3)
        if shape == 0:
            return f"{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"
        if shape == 1:
            return str(rng.randint(10_000_000, 99_999_999))
        letters = "abcdefghjkmnpqrstuvwxyz23456789"
        return (
            "".join(rng.choice(letters) for _ in range(5))
            + "-"
            + "".join(rng.choice(letters) for _ in range(5))
        )

    codes = [code() for _ in range(rng.randint(2, 8))]
    heading = rng.choice(
        [
            "recovery codes",
            "backup codes",
            "Google backup codes:",
            "2FA recovery codes",
            "one-time codes for github",
            "my scratch codes",
            "Here are the backup codes",
        ]
    )
    joiner = rng.choice(["\n", "\n", " ", ", ", "\n- "])
    text = (
        heading
        + ("\n- " if joiner == "\n- " else rng.choice(["\n", ": ", "\n"]))
        + joiner.join(codes)
    )
    return Trial(text, tuple(codes))


def _network(rng: random.Random) -> Trial:
    value = password(rng)
    net = rng.choice(NETWORKS)
    template = rng.choice(
        [
            "SSID {n}, then {v}",
            "network {n}, {v}",
            "wifi {n} / {v}",
            "the wifi is called {n}, and {v}",
            "join {n} with {v}",
            "the network's called {n}, it takes {v}",
            "hotspot {n} - {v}",
            "connect to {n} using {v}",
            "guest wifi {n}, {v}",
        ]
    )
    return Trial(_dressed(rng, template.format(n=net, v=value)), (value,))


def _lock_combination(rng: random.Random) -> Trial:
    lock = rng.choice(LOCKS)
    # A locker's number is no secret ("my locker is 114"): its code is said
    # as a combination or set, not as a number alone.
    value = rng.choice([combination(rng), combination(rng), pin(rng)])
    template = rng.choice(
        [
            "my {l} is {v}",
            "gym locker {n}, combo {v}",
            "the {l}'s {v}",
            "{l}: {v}",
            "the {l} opens with {v}",
            "combination for the {l} is {v}",
            "locker {n} - combo {v}",
            "the {l} is set to {v}",
        ]
    )
    if "locker" in lock and not any(w in template for w in ("combo", "set", "opens")):
        value = combination(rng)
    text = template.format(l=lock, v=value, n=rng.randint(10, 400))
    return Trial(_dressed(rng, text), (value,))


def _phone_unlock(rng: random.Random) -> Trial:
    value = rng.choice([pin(rng), pin(rng), password(rng)])
    device = f"{rng.choice(WHOSE)} {rng.choice(DEVICES)}"
    template = rng.choice(
        [
            "to open {d} it's {v}",
            "{d} unlocks with {v}",
            "{D} opens with {v}",
            "to unlock {d}, {v}",
            "{d}: {v}",
            "you get into {d} with {v}",
            "{v} opens {d}",
            "to get into {d} type {v}",
            "{d} takes {v}",
        ]
    )
    text = template.format(d=device, D=device[0].upper() + device[1:], v=value)
    return Trial(_dressed(rng, text), (value,))


def _note_to_self(rng: random.Random) -> Trial:
    value = password(rng)
    thing = rng.choice(THINGS + SERVICES)
    template = rng.choice(
        [
            "note to self: {v} for the {t}",
            "remember this: {v} ({t})",
            "for the record, {t} is {v} now",
            "don't forget, {v} is the {t} one",
            "write this down: {t} {v}",
        ]
    )
    return Trial(template.format(v=value, t=thing), (value,))


def _named_after(rng: random.Random) -> Trial:
    value = password(rng)
    service = rng.choice(SERVICES)
    template = rng.choice(
        [
            "{v}. that's what I set as the {s} password yesterday",
            "{v} - that's the one I use for my {s} login",
            "{v}. that's what I went with for the {s} password",
            "{v}. it's what I put as the {s} password",
            "{v} is what I chose as my {s} password",
        ]
    )
    return Trial(template.format(v=value, s=service), (value,))


FAMILIES: dict[str, Callable[[random.Random], Trial]] = {
    "get_in": _get_in,
    "service_sign": _service_sign,
    "same_as": _same_as,
    "message_to_other": _message_to_other,
    "answer": _answer,
    "backup_codes": _backup_codes,
    "network": _network,
    "lock_combination": _lock_combination,
    "phone_unlock": _phone_unlock,
    "note_to_self": _note_to_self,
    "named_after": _named_after,
}


def build(family: str, rng: random.Random) -> Trial:
    return FAMILIES[family](rng)


NEGATIVES = [
    "I use Python3.12 at work",
    "my flight is LH2023",
    "meet at 10:30",
    "order #4821 arrived",
    "I'm in room 114",
    "flight: LH2023",
    "Python: 3.12",
    "gate: B22, seat 14C",
    "version = 2.4.1",
    "score: 21-14",
    "the meeting is at 10:30, room 114",
    "my locker is number 114",
    "the gym locker is next to the showers",
    "I got a new phone, the Pixel 8",
    "I unlocked my phone at 7:45 this morning",
    "my phone opens with face ID",
    "the laptop opens with a click",
    "the shop opens with a sale on Friday",
    "the door opens with a creak",
    "the season opens with a home game on 12/08",
    "the app unlocks with your fingerprint",
    "How do I get into the shared drive?",
    "use the blue cable",
    "try restarting it",
    "Netflix: 3 episodes left",
    "Spotify: 12 songs in the playlist",
    "Tickets: 2 adults, 1 child",
    "Airbnb: check-in at 15:00",
    "zip: 10115",
    "tel: +49 30 1234567",
    "same as always, thanks!",
    "it's the usual one, the blue mug",
    "everything's fine except the work stuff",
    "I use Firefox for everything",
    "it's my usual Saturday",
    "all my accounts are on one laptop now",
    "text mum that I'm running late",
    "draft a whatsapp to my brother: dinner is at 19:00",
    "SSID FRITZ!Box 7530 keeps dropping",
    "the wifi is slow again",
    "my bike lock is broken",
    "the padlock is rusty",
    "gym locker 114, next to the sauna",
    "the safe is in the closet",
    "combo meal 3 with a coke",
    "the score was 3-2-1 in the end",
    "My kids are 4, 7 and 9",
    "recovery codes are useful if you lose your phone",
    "where do I find the backup codes?",
    "backup codes: I printed them and put them in the drawer",
    "to open the jar, twist it",
    "Windows 11 unlocks with a PIN",
    "my account: maya.k@example.com",
    "I was born in 1980 and Maya in 1983",
    "see you in October 2023",
    "Autumn 2026 is when we move",
    "I can't log into Duolingo since the update",
    "note to self: buy milk",
    "remember this: call Anna at 18:00",
    "don't forget the 2024 tax return",
    "the wifi at the Hotel Adlon was great",
    "I got into Oxford in 2019",
    "the router is a FRITZ!Box 7530",
    "log in as maya1980 and check the settings",
    "my username is maya1980",
    "I got into the habit of running",
    "the access road closes at 22:00",
    "I unlocked level 12 yesterday",
    "the VPN drops every 30 minutes",
    "How do I get into the city centre? take the U2",
    "the door opens with ease",
    "the file opens with Excel",
    "you log in with your Google account",
    "sign in with Apple",
    "the app unlocks with Face ID",
    "my Netflix: 3 profiles, one for each kid",
    "Team: Arsenal, score 2-1",
    "for the record, I was right",
    "write this down: 2 eggs, 200g flour",
    "the recovery codes are in my drawer",
    "backup codes\nI lost them",
    "the locker room is on floor 2",
    "the combination of salt and lemon works",
    "the safe bet is 2-1",
    "Netflix: Bridgerton",
    "hulu: Shogun, netflix: Bridgerton",
    "same as always: 1984",
    "I use 2024 for everything",
    "same as last year, 2019 was great",
    "I eat the usual 1500 kcal a day",
    "Status: work-in-progress",
    "the all-you-can-eat buffet opens with a speech",
    "Breakfast: up-to-date menu",
    "the usual umask (0o022, which makes new files 0644)",
    "user ID is 20451, password is the usual",
]


def everyday(rng: random.Random) -> str:
    """A sentence of a situation's look that holds no secret: what opens
    with a click, a service and a count, a flight, a room, a version."""
    template = rng.choice(
        [
            "the {thing} opens with {how}",
            "{service}: {count}",
            "{lock} {room}, next to the showers",
            "I use {tool} for everything",
            "same as always, see you at {time}",
            "meet at {time} in room {room}",
            "my flight is {flight}",
            "order #{order} came today",
            "everything's fine except the {thing}",
            "text {person} that dinner is at {time}",
            "the wifi at the hotel was slow, we left at {time}",
            "{thing} unlocks with {how}",
            "to get into the {thing} you need {how}",
        ]
    )
    return template.format(
        thing=rng.choice(THINGS),
        how=rng.choice(["a click", "ease", "Face ID", "your fingerprint", "Excel", "a creak"]),
        service=rng.choice(SERVICES),
        count=rng.choice(["3 episodes left", "12 songs", "2 profiles", "v2.4.1", "9.99/month"]),
        lock=rng.choice(["gym locker", "my locker", "locker"]),
        room=rng.randint(10, 450),
        tool=rng.choice(["Python3.12", "Firefox", "Notion", "Excel", "my iPad", "Python 3.12"]),
        time=rng.choice(["10:30", "7pm", "18:45", "noon"]),
        flight=rng.choice(["LH2023", "BA2490", "U2 1234", "FR 8841"]),
        order=rng.randint(1000, 99999),
        person=rng.choice(PEOPLE),
    )
