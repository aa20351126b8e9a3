"""Credentials as protocols and programs take them, for ``redaction``.

A transcript of a mail, file or cache server's session holds its login in
the protocol's own words, no "password" near: IMAP's ``a001 LOGIN ana X``,
FTP's and POP3's ``PASS X``, Redis' ``AUTH X``, SMTP's and IMAP's
``AUTH PLAIN`` with the user and password in base64 (on its line or the
next), SMTP's ``AUTH LOGIN`` answering the server's base64 "Password:"
(``334 UGFzc3dvcmQ6``), XMPP's ``<auth mechanism='PLAIN'>``, IRC's
``NickServ IDENTIFY X`` (``/ns identify X``), ftp's ``user ana X``, SNMP's
community (``snmpwalk -c X``), a game's or a chat's ``/login X`` and
``/changepassword old new``, an MQTT client's ``-P X`` and an RCON client's
``-p X``, a device's topic naming its password (``cmnd/tasmota/Password1
X``), and what a command printing a secret printed (``... | base64 -d``
and the line after it, ``pass show``).  Tools that join a Wi-Fi network
take its name and then its password (``networksetup -setairportnetwork en0
Casa_Sol X``, ``wpa_passphrase Casa_Sol X``, ``adb shell cmd wifi
connect-network Casa_Sol wpa2 X``, nmcli's ``wifi-sec.psk X``); a bridge's
or a hub's API takes its key as the path's first part
(``http://192.168.1.2/api/<key>/lights``).  A command's mechanism
("AUTH PLAIN", "AUTH CRAM-MD5"), a test runner's "PASS src/app.test.js"
and a slash command's words ("/login with your account") are no value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.privacy import known_words
from desktop.core.privacy.credential_nearby import looks_like_a_value

_ARGUMENT = r"(?:\"[^\"\n]{1,100}\"|'[^'\n]{1,100}'|[^\s\"']\S{0,99})"
"""A command's argument: quoted, or a run of what is not a space."""
_BASE64 = r"[A-Za-z0-9+/]{8,400}={0,2}"
_CHANGE = r"(?:changepassword|changepass|changepw|changepwd|passwd|cp)"
"""A slash command changing a password, the old and the new after it."""
_TAKEN = (
    # IMAP: "a001 LOGIN ana X" (a tag first); Redis 6: "AUTH ana X"; FTP, POP3: "PASS X".
    rf"(?m)^[ \t]*(?:[A-Za-z]{{0,2}}\d{{1,6}}[ \t]+)?(?-i:LOGIN)[ \t]+{_ARGUMENT}[ \t]+"
    rf"(?P<value>{_ARGUMENT})",
    rf"(?m)^[ \t]*(?-i:PASS)[ \t]+(?P<value>{_ARGUMENT})",
    rf"(?<![\w-])(?-i:AUTH)[ \t]+(?!(?-i:[A-Z0-9-]+)\b)"
    rf"(?:{_ARGUMENT}[ \t]+(?={_ARGUMENT}[ \t]*(?:\n|\Z)))?(?P<value>{_ARGUMENT})",
    rf"\b(?-i:AUTH(?:ENTICATE)?)[ \t]+PLAIN[ \t]*(?:\n[ \t]*\+[ \t]*)?\n?[ \t]*(?P<b64>{_BASE64})",
    rf"\b334[ \t]+UGFzc3dvcmQ6[ \t]*\n[ \t]*(?P<b64>{_BASE64})",
    # XMPP's SASL: "<auth mechanism='PLAIN'>base64</auth>".
    rf"mechanism=[\"']PLAIN[\"'][^>\n]{{0,60}}>[ \t]*(?P<b64>{_BASE64})",
    rf"(?:\bnickserv|(?<!\S)/ns|\bPRIVMSG[ \t]+NickServ[ \t]+:)[ \t]*identify[ \t]+"
    rf"(?:{_ARGUMENT}[ \t]+(?={_ARGUMENT}))?(?P<value>{_ARGUMENT})",
    # ftp's "user" command with the password after the name; SNMP's community.
    rf"\bftp>[ \t]*user[ \t]+{_ARGUMENT}[ \t]+(?P<value>{_ARGUMENT})",
    rf"\bsnmp(?:walk|bulkwalk|get|getnext|bulkget|set|table|trap|netstat|check)\b[^\n|;&]*?"
    rf"[ \t](?-i:-c)[ \t]*(?P<value>{_ARGUMENT})",
    rf"(?m)^[ \t]*/(?:login|log|l|register|reg|auth)[ \t]+(?P<value>{_ARGUMENT})",
    # A game's or a chat's change of password: "/changepassword old new", both.
    rf"(?m)^[ \t]*/{_CHANGE}[ \t]+(?P<value>{_ARGUMENT})",
    rf"(?m)^[ \t]*/{_CHANGE}[ \t]+{_ARGUMENT}[ \t]+(?P<value>{_ARGUMENT})",
    # An MQTT client's and an RCON client's password option (-p and -P are
    # the port in the other): "mosquitto_pub -u ha -P X", "mcrcon -P 25575 -p X".
    rf"\bmosquitto_(?:pub|sub|rr)\b[^\n|;&]*?[ \t](?:(?-i:-P)|--pw)[ \t]+(?P<value>{_ARGUMENT})",
    # A device's command topic naming a password, its payload after it:
    # Tasmota's "cmnd/tasmota/Password1 X", "mosquitto_pub -t .../MqttPassword -m X".
    rf"(?<![\w/])[\w.+-]+(?:/[\w.+-]+)*/\w*(?:pass(?:word|wd)|pwd)\d?"
    rf"(?:[ \t](?:[^\n|;&]*?[ \t])?-m[ \t]+|[ \t]+)(?P<value>{_ARGUMENT})",
    rf"\bmcrcon\b[^\n|;&]*?[ \t](?:(?-i:-p)|--password)[ \t]+(?P<value>{_ARGUMENT})",
    # What a command printing a secret printed, on the next line or after an
    # arrow: "... | base64 -d" (a Kubernetes secret's), "pass show email",
    # "security find-generic-password -w", "op read", "vault kv get -field=".
    # (Each command written with one space, so a text holding none is not read.)
    rf"(?m)(?:\|[ \t]*base64 (?:-d|-D|--decode)\b|\bpass show \S+"
    rf"|\bsecurity find-(?:generic|internet)-password\b[^\n]*?[ \t]-w\b"
    rf"|\bop read \S+|\bvault kv get -field=\S+[ \t]+\S+|\bbw get password \S+)"
    rf"[^\n]{{0,200}}?(?:[ \t]*(?:->|=>|\u2192)|\n(?:[ \t]*\$[ \t]*)?)"
    rf"[ \t]*(?P<value>{_ARGUMENT})[ \t]*$",
    # Joining a Wi-Fi network: its name, then its password.
    rf"\b(?:networksetup[ \t]+-setairportnetwork[ \t]+\S+|wpa_passphrase|do_wifi_ssid_passphrase)"
    rf"[ \t]+{_ARGUMENT}[ \t]+(?P<value>{_ARGUMENT})",
    rf"\bconnect-network[ \t]+{_ARGUMENT}[ \t]+(?:wpa[23]?|wep|sae)[ \t]+(?P<value>{_ARGUMENT})",
    # nmcli's properties holding a secret: "wifi-sec.psk X", "802-1x.password X".
    rf"\b(?:wifi-sec\.(?:psk|wep-key\d|leap-password)|802-1x\.(?:password|private-key-password))"
    rf"[ \t]+(?P<value>{_ARGUMENT})",
)
_PATTERNS = tuple(re.compile(pattern, re.IGNORECASE) for pattern in _TAKEN)
_API_KEY_IN_PATH = re.compile(r"(?<=/api/)(?P<key>[A-Za-z0-9_-]{30,80})(?=[/?#\s\"']|$)")
"""A key as an API's path's first part: a Hue bridge's, a hub's."""
_A_FILE = re.compile(r"[/\\]|\.[A-Za-z]{1,4}$")
"""A path or a file ("PASS src/App.test.js"): a test run, not a password."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each value a protocol or a program was given in *text* is."""
    for pattern in _PATTERNS:
        for found in text_scan.matches(pattern, text):
            if "b64" in pattern.groupindex:
                yield found.span("b64")
            elif (span := _value(found)) is not None:
                yield span
    for found in text_scan.matches(_API_KEY_IN_PATH, text):
        key = found["key"]
        if known_words.random_characters(key) or known_words.random_letters(key):
            yield found.span("key")


def _value(found: re.Match[str]) -> tuple[int, int] | None:
    """Where the argument *found* took is, its quotes left out, unless it
    is no value (a word, a file, a mechanism's name)."""
    start, stop = found.span("value")
    value = found["value"]
    if value[0] in "\"'":
        start, stop, value = start + 1, stop - 1, value[1:-1]
    value = value.rstrip(".,;:)")
    if _A_FILE.search(value) or not looks_like_a_value(value):
        return None
    return start, start + len(value)
