"""Is a word one that some language uses, or made up, as a password is?

People choose passwords that are words with a digit ("tiger7"), and those
that are no word at all: "Tolzanwensho", "vixfro", "joryar".  A value with
no digit or sign has always been hard to tell from the word that stands
where a value would ("my password is expired", "das Passwort ist
abgelaufen").  Whether it is a word of any language tells them apart.

The words are wordfreq's (Robyn Speer; data CC BY-SA 4.0), in the 27
languages written in Latin letters that it has: each word seen at least
once in 3 million words (once in a million where wordfreq keeps no longer
list), about a million words in all.  They are kept as a sorted array of
their hashes (9 MB, not a set of strings: 150 MB), read once, on first
use or when the application starts (a few seconds).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import re
import threading
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
import wordfreq

from desktop.core.base.text_fold import folded_text

_LANGUAGES = (
    *("en", "de", "fr", "es", "it", "pt", "nl", "sv", "nb", "da", "fi", "is", "pl", "cs"),
    *("sk", "sl", "sh", "hu", "ro", "tr", "ca", "id", "ms", "lt", "lv", "fil", "vi"),
)
"""wordfreq's languages written in Latin letters: passwords are typed in them."""
_MADE_UP = re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]{5,24}")
"""Latin letters only, five or more: shorter ones are too often a word's
piece, an abbreviation or a name ("Zan", "wifi"); the lists are of the
languages written in them."""
_ENDINGS = re.compile(
    r"(?:e?s|e?d|ing|er|ly|ness|ze|em|ach|ami|nya"
    # Hungarian's and Finnish's places: "a routeren" ("on the router"), "reitittimessä".
    r"|en|on|ön|ban|ben|ra|re|nak|nek|ssa|ssä|sta|stä|lla|llä|ksi)\Z"
)
"""Endings that make a rarer word of a listed one ("greyed", "passwording"),
the case endings of Polish nouns ("na routerze", "z kluczem") and the
Indonesian "-nya" ("wifinya", its wifi), round 24."""
_RARE = 2.5
"""The rarest words kept, in zipf (log10 of the times per billion words): once
in 3 million words.  Rarer ones are mostly names, typos and pieces of
text that is not prose, where a made-up password lands too."""
_TIERS = (_RARE, 4.5, 5.5)
"""The words kept (``_RARE``), the frequent (thirty times per million words
and more, in zipf) and the most used (three hundred times: mostly the
words that join the others)."""
_lock = threading.Lock()

PRODUCT_NAMES = frozenset(
    str.split(
        """
        iphone ipad imac ipod itunes icloud imessage ios ipados macos macbook airpods airdrop
        airtag faceid touchid facetime applepay appleid appletv homekit homepod filevault
        paypal lastpass keepass keepassxc bitwarden dashlane nordpass onepassword 1password roboform
        protonmail protonvpn nordvpn expressvpn surfshark tunnelbear mullvad openvpn wireguard
        openconnect strongswan tailscale zerotier
        github gitlab bitbucket youtube whatsapp linkedin tiktok wechat snapchat facebook
        playstation xbox nintendo doordash ubereats grubhub airbnb ebay aliexpress alipay
        dropbox onedrive sharepoint onenote powerpoint outlook skype teams webex gotomeeting
        googlepay samsungpass smartthings bitlocker chatgpt openai deepseek
        webauthn oauth openid passkey yubikey authy duckduckgo soundcloud deviantart
        wordpress javascript typescript mysql postgresql sqlite mongodb nodejs
        fritzbox netgear truenas unifi freenas openwrt pfsense synology quickbooks turbotax
        """
    )
)
"""Names of products and services, many written with a capital inside
("PayPal", "iCloud", "LastPass"), none in the lists: said beside a way in
("sign in with iCloud", "I use Bitwarden"), they name how, not the password."""


TECH_WORDS = frozenset(
    str.split(
        """
        varchar nvarchar tinyint smallint bigint mediumtext longtext bytea jsonb
        bcrypt scrypt pbkdf argon hmac hashlib passlib openssl libsodium
        keyring keychain keystore truststore kwargs stdin stdout stderr regex
        localhost chmod chown mkdir rmdir sudoers passwd useradd usermod chpasswd
        htpasswd htaccess rsync crontab systemctl journalctl nginx apache
        postgres mariadb redis kubectl kubernetes
        dockerfile webpack pytest unittest fastapi uvicorn gunicorn django
        flask golang rustc eslint tsconfig dotenv config configs params getenv setenv
        printenv environ subprocess hashpw checkpw gensalt getpass kerberos ifdef endif repos
        """
    )
)
"""Words of programs and their tools, said beside "password" in code and
questions about it, and too rare in prose for the lists: "varchar(255)",
"bcrypt.checkpw", "htpasswd"."""


_NAMED = PRODUCT_NAMES | TECH_WORDS


def made_up(word: str) -> bool:
    """Is *word* letters only, five or more of them, not in capitals (an
    acronym: "WPA", "SSID"), and no word of any language, with its ending
    ("joryar", "Tolzanwensho"; not "expired", "abgelaufen", "Netflix's")?"""
    bare = word.removesuffix("'s").removesuffix("\u2019s")
    if _MADE_UP.fullmatch(bare) is None or not bare[1:].islower():
        return False  # in capitals, an acronym ("SSID"); a capital inside, code ("ValueError")
    if bare.casefold() in _NAMED:
        return False
    if keyboard_walk(bare):
        return True  # "poiuyt": typed on the web often enough to be listed, still no word
    stem = _ENDINGS.sub("", bare)
    return not (known(bare) or known(stem) or known(stem + "e"))


_KEYBOARD = (
    "qwertyuiop",
    "qwertzuiop",
    "asdfghjkl",
    "yxcvbnm",
    "zxcvbnm",
    "1qaz2wsx3edc4rfv5tgb6yhn7ujm",
    "qazwsxedcrfvtgbyhnujm",
    "1234567890",
)


def keyboard_walk(value: str) -> bool:
    """Letters (and digits) along a row or column of the keyboard, five or
    more ("poiuyt", "qwerty123", "1qaz2wsx"), or four and digits ("asdf1234")."""
    letters = value.lower().rstrip("0123456789")
    digits = len(value) - len(letters)
    if len(letters) < 4 or (len(letters) == 4 and digits < 2):
        return False
    return any(letters in row or letters in row[::-1] for row in _KEYBOARD)


def random_letters(value: str) -> bool:
    """Are *value*'s letters (eight or more, maybe in dashed groups) drawn
    at random, as a service makes a token or a pairing code ("qwXyzAbcdEf",
    "TXGHQLRX", "MLFH-GFCP"), not typed as words: in capitals, hardly a
    vowel, five letters or more and no word ("STRENGTHS"); in both, less than a third of them in
    parts of four letters or more that are words ("ValueError", "McDonaldsWiFi")?"""
    groups = value.split("-")
    letters = "".join(groups)
    if not (8 <= len(letters) <= 64 and letters.isascii() and letters.isalpha()) or any(
        len(group) < 3 for group in groups
    ):
        return False
    if letters.islower():
        return False  # a user's name as often ("mkrznsk")
    if letters.isupper():
        vowels = sum(letter in "AEIOUY" for letter in letters)
        return 5 * vowels <= len(letters) and len(set(letters)) >= 5 and not known(letters)
    return _parts_drawn(letters, shortest=4)


def random_characters(value: str) -> bool:
    """Are *value*'s letters and digits (eight or more, both cases and a
    digit) drawn at random, as a generated password is ("7xlNLqu9878j"),
    not words and numbers ("Python3Rocks", "iPhone15Pro")?"""
    return (
        8 <= len(value) <= 64
        and value.isascii()
        and value.isalnum()
        and not value.islower()
        and not value.isupper()
        and not value.isalpha()
        and not value.isdigit()
        and _parts_drawn(value, shortest=3)  # "MacBookPro2021"
    )


def _parts_drawn(value: str, *, shortest: int) -> bool:
    """Does camel case split *value* into three parts or more, less than a
    third of it in parts of *shortest* letters or more that are words?"""
    parts = _CASE_PARTS.findall(value)
    words = sum(len(part) for part in parts if len(part) >= shortest and known(part))
    return len(parts) >= 3 and 3 * words < len(value)


_CASE_PARTS = re.compile(r"[A-Z]+[a-z]*|[a-z]+|\d+")
"""A word's parts as camel case splits it: "qwXyzAbcd" reads "qw", "Xyz", "Abcd"."""


def common(word: str) -> bool:
    """Is *word* (in any case) one of the most used of a language ("the",
    "und", "avec", "which"), as a passphrase's words are not?"""
    return _found(_hashes()[2], word)


def frequent(word: str) -> bool:
    """Is *word* (in any case) as often said as a verb like "needs" or
    "debe", more than most of a passphrase's words ("kettle", "juniper")?"""
    return _found(_hashes()[1], word)


def load() -> None:
    """Read the lists now (the application does at start, on a thread of
    its own), not at the first message that names a password."""
    _hashes()


def known(word: str) -> bool:
    """Is *word* (in any case) a word of one of the languages?"""
    return _found(_hashes()[0], word)


def _found(hashes: npt.NDArray[np.int64], word: str) -> bool:
    key = hash(folded_text(word.casefold()))
    at = int(np.searchsorted(hashes, key))
    return at < len(hashes) and int(hashes[at]) == key


_Hashes = npt.NDArray[np.int64]
_loaded: list[tuple[_Hashes, ...]] = []


def _hashes() -> tuple[_Hashes, ...]:
    """The sorted hashes of the words seen at least as often as each of
    ``_TIERS``: every word kept, the frequent, the most used."""
    with _lock:  # two threads asking first read the lists once
        if not _loaded:
            tiers: list[list[_Hashes]] = [[] for _ in _TIERS]
            for language in _LANGUAGES:
                buckets = _buckets(language)
                hashes = np.fromiter(map(hash, _folded(buckets)), dtype=np.int64)
                for tier, zipf in zip(tiers, _TIERS, strict=True):
                    tier.append(hashes[: sum(map(len, buckets[: _bucket(zipf)]))])
            _loaded.append(tuple(np.unique(np.concatenate(tier)) for tier in tiers))
            del tiers, buckets, hashes
            _give_back_memory()
        return _loaded[0]


def _give_back_memory() -> None:
    """Hand the lists' freed memory back to the system: glibc keeps the pages
    of a million small strings (80 MB) for the process otherwise."""
    with contextlib.suppress(OSError, AttributeError):  # no glibc: its allocator decides
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


def _folded(buckets: list[list[str]]) -> Iterator[str]:
    """Each word as the redactor reads it, by frequency: accents dropped,
    look-alikes Latin."""
    for bucket in buckets:  # one translation a bucket: a word's at a time is ten times slower
        yield from folded_text("\n".join(bucket)).split("\n")


def _buckets(language: str) -> list[list[str]]:
    """The language's words seen at least ``_RARE`` (zipf), by frequency."""
    large = wordfreq.DATA_PATH / f"large_{language}.msgpack.gz"
    if large.exists():
        return wordfreq.read_cBpack(str(large))[: _bucket(_RARE)]
    return wordfreq.read_cBpack(str(wordfreq.DATA_PATH / f"small_{language}.msgpack.gz"))


def _bucket(zipf: float) -> int:
    """wordfreq's lists hold in bucket *i* the words of zipf 9 - i/100."""
    return round((9 - zipf) * 100) + 1
