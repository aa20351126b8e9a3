"""Credentials as people say them in a chat, found for ``redaction``.

Source-code scanners look for ``password = "..."``; people write "the wifi
password at the cabin is hunter2", "hunter2 is my password", "PIN 4821" and
"my netflix login is bob / hunter2".  The phrasings here are a family: a
word naming the credential (password, passcode, PIN, passphrase, login, a
"wifi key", a "door code"...), whose or where it is, a verb or a sign, the
value before or after, quoted or not, in any case.  ``secret_spans`` says
where each value is; the words around it stay.

Where a phrase is ambiguous, the choice is written beside the pattern: a
value with no verb or sign before it counts only when it looks like one (a
digit or a sign in it), "key" and "code" alone count only before such a
value (see below), and a login said alone ("my login is X") goes whole
because it may be the password.

Weaker signs count only for a value that looks like one (a digit or a sign
in it, as "hunter2", "4412" and "p@ss!" have, and "four digits long" has
not): the words of other languages ("Mein Passwort ist X", "la clave es X"),
"combination", "combo", "token", "secret" and a "code" that is not a zip or
dress code; "password's X", "password? X"; the value before a comma, a dash,
"=" or a bracket ("X, my password", "X (the router password)"); pairs
without a keyword ("bob@example.com / X", "wifi Home / X") and logging in
with a value ("log in with X", "the door opens with X").  Config lines
(``DB_PASSWORD=X``, ``{"pass": "X"}``), markup (``**password**: X``, a table
row, ``<password>X</password>``), URLs with a password and the password
options of ``sshpass`` and ``mysql`` count as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.core.base import text_scan
from desktop.core.base.text_fold import folded, folded_text
from desktop.core.privacy import known_words
from desktop.core.privacy.credential_nearby import (
    NOT_A_PASS,
    PAIR_NAMED,
    PLACEHOLDER,
    THANKS,
    about_hardware,
    ends_a_csv_heading,
    looks_like_a_value,
    names_a_credential,
    names_an_amount,
    plainly_no_secret,
    the_working_directory,
)

_QUOTES = (
    "\"'`\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb\u2039\u203a\u300c\u300d\u300e\u300f"
    "\u301d\u301e\u301f"
)
_OPENING = "\"'`\u201c\u201e\u2018\u201a\u00ab\u2039\u300c\u300e\u301d"
_CLOSING = "\"'`\u201d\u201c\u2019\u2018\u00bb\u203a\u300d\u300f\u301e\u301f"

# The words that name a credential.  "key" and "code" alone are everyday
# words ("the key is to stay calm", "the code is on GitHub"), so they count
# only with a word that makes them a credential ("wifi key", "door code"),
# or as ``_WEAK`` words before a value that looks like one.
_KEYWORD = (
    r"(?:pass(?:words?|wd|codes?|phrases?|keys?)|pass[ -](?:word|phrase|code)|pw|pwd|"
    # Typos people make in a hurry; a transcript's or a scan's spaces
    # ("Passw ord", "P a s s w o r d", round 25).
    r"pass?w(?:or|ro)ds?|pssword|passowrd|passord|pas ?s ?w ?o ?r ?ds?|p a s s w o r d|"
    r"pins?(?:[ -](?:code|number)|[ \t]+no\.?(?=[ \t]*\d))?|(?:secret|security) answer|"
    r"(?:lock|locker|padlock|safe|suitcase) (?:combination|combo)|"
    r"(?:alarm|door|access|security|lock|safe|gate|entry|garage|unlock|wifi|wi-fi|keypad|"
    r"verification|recovery|backup|puk|sim|phone|laptop|bike lock|locker|padlock) code|"
    r"(?:wifi|wi-fi|wpa2?|network|api|licen[cs]e|product|activation|recovery|encryption|"
    r"decryption|secret|private|access|ssh|gpg|pgp|bitlocker|backup|registration|serial)"
    r" key)"
)
_LOGIN = r"(?:log[ -]?in|sign[ -]?in|credentials?|creds)"
"""A login names a user and a password; only the password is taken out."""
_PASS = rf"(?:{_KEYWORD}|{NOT_A_PASS}pass(?=[\"'*_]*\s*[:=]))"
"""Every keyword, and "pass:" (a mountain pass has no colon after it)."""
_WEAK = (
    r"(?:combination|combo|key|secret|token|security question|(?:password|pw) hint|"
    # Other languages: their words for "too short" are not known here.
    r"passwort|kennwort|geheimzahl|mot de passe|contrase[ñn]a|clave|wachtwoord|senha|code pin|"
    # A zip, dress or error code is no secret.
    r"(?<!zip )(?<!post )(?<!postal )(?<!area )(?<!dress )(?<!country )(?<!source )"
    r"(?<!error )(?<!status )(?<!promo )(?<!discount )(?<!tax )(?<!qr )(?<!morse )code)"
)
"""Words that name a credential only when a value that looks like one follows."""
_SECURITY_QUESTION = (
    r"(?:(?:(?:mother|mom|mum)['\u2019]?s\s+)?maiden\s+name|"
    r"(?:name\s+of\s+(?:my\s+|your\s+|the\s+)?)?(?:first|childhood)\s+"
    r"(?:pet|school|car|teacher|boss|job|street|crush|best\s+friend)(?:['\u2019]?s\s+name)?|"
    r"memorable\s+(?:word|name|place)|(?:security|secret)\s+(?:question\s+)?answer|"
    r"(?:city|town|street|hospital)\s+(?:you\s+were|i\s+was)\s+born\s+in|"
    r"favou?rite\s+(?:teacher|childhood\s+\w+))"
)
"""The questions a bank or a site asks to let someone back in; their answers
open an account as a password does."""
_NOT_A_LIFE_FACT = (
    r"(?!(?<=\bmy\s)(?:first|childhood|favou?rite)\s)"
    r"(?!(?<=\bour\s)(?:first|childhood|favou?rite)\s)"
)
"""Not "my first pet was", "my favourite teacher was": a memory told, not an answer given."""
_NOT_A_FAILURE = r"(?!(?:bad|wrong|invalid|incorrect|failed|expired|missing|empty|no)\s)"
"""Not a log's note of a failed sign-in: "user=ana (bad password)" names no value."""
_ANSWER_SIGN = r"\s*\??\s*(?:[:=]|->|\u2192|=>|[\u2014\u2013])"
"""A sign between a security question and its answer: "first pet: X"."""
_KEYPAD_CODE = (
    r"(?P<bare>[#*]?\d{4,8}[#*]?)"
    r"(?=[ \t]*(?:$|[\n.,;:!?)]|(?:on|then|and|or|to|at|when|if|into|for|before|after)\b))"
)
"""What is typed on a door's, a gate's or an alarm's keypad ("4821",
"#1520"), ending what is said ("2019 renovation" is a year)."""
_LOCKED_PLACE = (
    r"(?:door|gate|garage|alarm|panel|keypad|lock|lockbox|padlock|locker|safe|entrance|lobby|"
    r"shed|storage|bike\s+room|building|beep(?:ing|s)?|siren)"
)
"""What a keypad's code opens or stops."""
_ON_A_KEYPAD = (
    r"(?:open(?:s|ed)?|unlock(?:s|ed)?|disarm(?:s|ed)?|(?:turn(?:s|ed)?|switch(?:es|ed)?)\s+off)"
    r"(?:\s+(?:it|the\s+[\w-]+))?\s+with|"
    r"(?:enter|entering|tap|tapping|punch(?:\s+in)?|key\s+in|type|press|dial)"
)
"""Words for putting a code in: "opens with", "disarm with", "tap", "punch in"."""
_FOREIGN = r"(?:passwort|kennwort|mot de passe|contrase[ñn]a|senha|wachtwoord)"
"""Other languages' words for a password that mean nothing else: after them
a single word is the password, as after "my password is", unless it is one
of the words below or among the most used of a language ("muy", "trop")."""
_FOREIGN_DESCRIBING = frozenset(
    folded_text(word)
    for word in str.split(
        # Spanish, French, German, Portuguese, Dutch, Italian: how a password is.
        "corta corto larga largo segura seguro insegura débil fuerte incorrecta incorrecto "
        "correcta correcto errónea equivocada olvidada caducada vencida bloqueada nueva nuevo "
        "vieja viejo antigua igual misma mismo difícil fácil complicada simple secreta privada "
        "temporal válida inválida obligatoria "
        "court courte longue sûr sûre sécurisé sécurisée faible fort forte incorrect "
        "incorrecte correct correcte erroné erronée oublié oubliée expiré expirée bloqué "
        "bloquée nouveau nouvelle ancien ancienne pareil même difficile facile compliqué "
        "secret secrète privé temporaire valide invalide obligatoire "
        "kurz lang sicher unsicher schwach stark falsch richtig vergessen abgelaufen gesperrt "
        "neu neue neues alt alte gleich dasselbe derselbe schwer schwierig einfach kompliziert "
        "geheim privat temporär gültig ungültig "
        "curta longa fraca errada correta esquecida expirada bloqueada nova velha "
        "kort veilig onveilig zwak sterk fout verkeerd juist vergeten verlopen geblokkeerd "
        "nieuw oud hetzelfde moeilijk makkelijk "
        "nuovo nuova vecchio vecchia sbagliata sbagliato corretta breve lunga sicura debole "
        "dimenticata difficile facile stessa uguale"
    )
)
_START = r"(?<![^\W_])"
"""A word's start, or after "_" as in ``DB_PASSWORD``."""
_MARKUP = r"""(?:\*{1,2}|_{1,2}|\)|["'])?"""
"""Around the word: ``**password**:``, ``"pass":``, "(security question) is"."""
_EMPHASIS = r"(?:\*{1,2}|_{1,2})?"
"""After the sign: ``**Password:** X``."""

_PLACE = (
    r"(?:\s+(?:for|of|to|at|on|in|from|with|into|für|fur|von|vom|meiner|meines|de|du|des|"
    r"para|pour|zum|zur|"
    r"del|da|do|di|della|van|voor)"
    r"(?:\s+(?!(?:and|but|or|so|because|is|was|are)\b)[\w.'\u2019&-]+){1,4}?)?"
)
"""Whose or where, between the word and the verb: "the password at the cabin is"."""
_VERB = (
    r"(?:(?:\s*(?:[=-]{1,3}>|::?=|::|={2,3}|\u2192|(?<!\d)[:=]|[\u2014\u2013])|\s+-(?=\s)|\s*,\s*which\s+(?:is|was)\b"
    r"|\s*,(?=\s*it(?:['\u2019]s|\s+is)\s)"
    r"|\s+(?:(?:is|['\u2019]s)\s+(?:going\s+to|gonna)\s+be|will(?:\s+now)?\s+be"
    r"|has\s+been\s+(?:changed|set)\s+to|is|was|are|were|became|changed to|set to)\b"
    r"(?:(?:\.{2,3}|\u2026)(?!\s*(?:um+|uh+|erm?|hmm+|well|nope|no|ok(?:ay)?|wait|actually|like|so)\b))?"
    r"(?:\s+(?:now|still|just|actually|currently|always|literally|simply|set to|changed to)\b)?"
    r"(?:\s*:)?)"
    r"(?:\s*it(?:['\u2019]s|\s+is)(?=\s))?(?:,?\s+(?:uh+|um+|erm?|uhm)\b,?(?=\s))?)"
)
"""Between the word and its value: "is", "was", "is now", "changed to", ":",
"will be", "is going to be", "has been changed to",
"=", a dash, ", which is", an adverb ("is literally"), and "it's" after any
of them ("password - it's X"), then maybe a transcript's "uh" ("the pass code is, uh, hunter 14");
an ellipsis holds the value back a moment ("the password is... X"), unless
a word of hesitation follows ("is... um, I forgot")."""
_WEAK_VERB = (
    r"(?:\s*\?|['\u2019]s\b|\s*\(\s*it(?:['\u2019]s|\s+is)(?=\s)"
    r"|\s+(?:iz|ist|lautet|est|es|è|é|era|war|(?:should|shall|must|would)\s+be)\b(?:\s*:)?)"
)
"""Signs that need a value that looks like one: "password? X", "password's X",
"(it's X)", "should be X" (or a rule: "should be memorable"), and the verbs
of other languages ("ist" is also "is" in a typo)."""
_FOREIGN_VERB = r"(?:\s+(?:ist|lautet|est|es|è|é|era|war)\b(?:\s*:)?)"
"""The verbs of other languages between their word for a password and its value."""

_TOKEN = (
    rf"(?:[^\s{_QUOTES}<\u2014\u2013]|(?<=\w)['\u2019](?=\w)){{0,99}}"
    rf"[^\s{_QUOTES}<.,;:!?)\u2014\u2013]"
)
"""One word of a value, 100 characters at most (so a long run costs linear
time); a full stop or comma after it ends the sentence, not the value, and
a tag ends it too (``hunter2</p>``)."""
_END = rf"(?=[.,;:!?)]*(?:\s|$|[{_CLOSING}\u2014\u2013]))"
_QUOTED = rf"(?P<quote>[{_OPENING}])(?P<quoted>[^{_QUOTES}\n]{{1,100}})[{_CLOSING}]"
_LONG = rf"(?=[^\s{_QUOTES}]{{3}})"
"""A value of three characters or more (shorter ones are words: "is", "it", "a")."""
_LONG_OR_AFTER_SIGN = rf"(?:(?<=[:=>])|(?<=[:=>][ \t])|{_LONG})"
"""... or any length after ":" or "=" ("pw: x")."""
_GOES_ON = (
    r"(?:for|at|on|in|to|into|and|or|but|so|which|that|because|since|when|while|with|from|"
    r"of|if|as|is|was|by|i|we|you|he|she|they|it|now|then|too|also|please|thanks|here|"
    r"there|again|don't|do|dont|remember|keep|just|ok|okay|after|before|during|within|until|"
    r"thx|lol|haha|k|pls|plz|btw|lmao|xd|"
    r"via|per|about|around|like|every|each|yesterday|today|tonight|tomorrow|fyi|back|ago|"
    r"earlier|lately|recently|already|anyway|anymore|though|not|instead|rather|cmd|"
    r"stp|svp|merci|bitte|danke|porfa|gracias|obrigad[oa])"
)
"""Words that go on with the sentence after a value, so are not part of it."""
_VALUE = (
    rf"\s*(?:{_QUOTED}"
    rf"|(?P<value>{_LONG_OR_AFTER_SIGN}{_TOKEN}"
    rf"(?:[ \t]+(?!{_GOES_ON}\b|[-(#&/|*~@_]|\S*://)(?=\S*[^\W_]){_TOKEN}){{0,5}})"
    rf"{_END})"
)
"""The value after "password is": a quoted phrase whole; unquoted, its first
word and the words after it (a passphrase: "purple monkey dishwasher") up
to punctuation or a word that goes on with the sentence ("... for the bank"),
an option, an address, a note, a tag or a sign (``--password=X https://...``,
"hunter2 (5GHz)", "hunter2 #wifi", "hunter2 / bank pw: ..."); after "=" one
word only when glued to it (``PASSWORD=X docker compose up``).
Better a word too many than a word of it kept."""
_AFTER_WORD = (
    rf"(?=\s*(?:$|[.,;:!?(){_CLOSING}]|(?:for|at|on|in|to|of|from|and|but|so|now|too|"
    r"again|here|there|which|because|when|until|since|please|pls|plz|btw|haha)\b"
    rf"|(?:{THANKS})(?!\w)))"
)
"""What may follow "X is my password": the sentence ends or goes on, as in
"... my password for the bank", or is thanked or noted ("... as my bank
password lol", "... danke", "... (don't share)"); a noun would make it
something else ("Bitwarden is my password manager")."""
_PAIR = r"(?:[/:|,]|\band\b)"
_NOT_ABOUT_LOGGING_IN = (
    r"(?!(?:attempts?|page|screen|form|button|issues?|problems?|errors?|history|times?|details"
    r"|info|failures?|count|limit|names?|ssid)\b)"
)
"""Not a word about logging in where a user would stand: "Login attempts: 2025";
nor a network's name: "wifi name: Casa_Sol" (round 29)."""
_USER = rf"[^\s/:,|\\<>{_QUOTES}]"

_LOOKS_LIKE = rf"(?P<bare>(?![(@])(?![\w-]+=[\"']){_LONG}{_TOKEN}){_END}"
"""A value that must look like one; a "!" after it ends the sentence; not
an attribute's name (``type=password value="X"``)."""
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_NOT_EMAIL = r"(?![\w.+-]+@(?:[\w-]+\.[\w-]|[^\W\d_]{3,}(?:\s|$)))"
"""Not an address (a user, not a password), even cut short: "alice@example"
(a host of three letters or more), unlike "aaa@aaa0" or "Aaa0@x"."""
_ENCODED = (
    r"(?:base-?64|b64|rot-?13|hex(?:-encoded)?|(?:url-?)?encoded|reversed|backwards|obfuscated"
    r"|scrambled)"
)
"""How a value is given so it does not read as itself: "in base64", "reversed"."""
_NO_VALUE_OF_ITS_OWN = r"(?![ \t]*[:=][ \t]*[^\s:=])"
"""A credential's word with no value of its own after a sign: in "wifi name:
Casa_Sol, password: X" the password is X, and the name before it no password."""
_NOT_A_NAMED_CODE = r"(?!(?:[A-Za-z]{1,2}|(?-i:[A-Z]{3}))-?\d{1,3}(?![\w@#$%&*]))"
"""Not a short code of a letter or two (three capitals) and a few digits,
which names a thing (a vitamin, a road, a gate, a seat: "remember B12",
"remember b12", "remember M25"), not a password ("abc123" is one)."""
_NOT_ADDRESS = rf"(?!{_EMAIL}(?![\w@]))"
"""Not a whole address: after "bob@example.com / " a cut-short one ("Aaa0@x")
is the password, as a second user would be a whole address."""
_BEFORE = rf"(?:{_QUOTED}|(?<![^\s(])(?!\()(?P<before>{_LONG}{_TOKEN}[!?]*))"
_OWNER = r"(?:(?:my|the|our|your|his|her|their|its|a|an)\s+)?"
_WAY_IN = (
    r"(?:log|sign)(?:s|ged|ging|ing|ed)?[ -]?(?:in|into|on|onto)|get(?:ting)?\s+in(?:to)?|"
    r"connect(?:s|ed|ing)?\s+to|unlock(?:s|ed|ing)?|"
    r"(?:ssh|rdp|vnc|telnet)(?:ed|ing|'d)?\s+(?:in|into|onto|to)|remote\s+(?:in|into)"
)
"""Words for getting in: "log in", "signing into", "get into", "connect to",
"unlock", "ssh into" (round 25: "ssh into the pi as pi with X")."""
_USING = (
    r"use[sd]?|using|set|chose|choose|picked|pick|made|make|have|had|keep|kept|took|take|"
    r"save[sd]?|saving|store[sd]?|storing|remember|note|put"
)
"""Verbs that put a value before "as": "I use X as my password", "save X as
my PIN"."""
_WORDS_BEFORE = rf"(?:{_QUOTED}|(?<![^\s(])(?P<before>{_LONG}{_TOKEN}(?:[ \t]+{_TOKEN}){{0,4}}))"
"""A value of one word or a passphrase of up to five, between a verb that
puts it somewhere and where it goes ("save violet anchor spoon as my PIN")."""
_PICKED = r"(?:picked|chose|chosen|set|use[ds]?|typed?|entered|made|saved|put)"
"""Verbs for making a value the password: "X is what I picked as the passcode"."""
_JUDGED = r"(?:good|bad|strong|weak|safe|secure|decent|ok|okay|fine|reasonable|solid)"
"""How a question weighs a password: "is X a good password?"."""
_STRONG, _SIGNED, _MIXED = "", "a digit or sign", "a letter and a digit or sign"
_UNCOMMON = "a digit or sign, or a single word that describes nothing"
_ANSWER = "a name or a word or two that describe nothing"
_NAMED_ANSWER = "a capital, a digit, a sign or a made-up word, in a word or two"
_DRAWN = "letters drawn at random"
_PASSPHRASE_WORDS = "three words or more, none a language's most used"
_SIGNED_EVEN_QUOTED = "a digit or sign, quoted or not"
"""After a weak word a quoted value must look like one too ("the code is
'secret sauce'"); after any other, quotes make a value."""
_LINE_PASSPHRASE = (
    rf"(?:(?!-)[^\s{_QUOTES}]+[ \t]+){{1,5}}(?!-)[^\s{_QUOTES}]*\d[^\s{_QUOTES}]*"
    r"(?=[ \t]*(?:\n|\Z))"
)
"""Words ending the line, the last with a digit and none an option: a
passphrase, not a command after the value."""
_SAME_COMMAND = r"[^\n|;&]*?"
"""What stands between a command and its option: anything but the next command."""
_FED = r"(?P<cmd>(?!\$)[^\s|\"']+?)(?:\\n)?"
"""A value echoed into a program, without the line break printf ends it with."""
_ARGUMENT = r"(?P<cmd>\"[^\"\n]+\"|[^\s\"/-]\S*)"
"""A command's argument, in double quotes or bare."""
_PASSWORD_WORD = r"(?:pass(?:word|wd)?|pwd|pw\b)"
"""A field's or a setting's name for a password."""
_PASSWORD_NAMED = rf"[\w.-]*{_PASSWORD_WORD}[\w.-]*"
"""A setting named for a password: DefaultPassword, db_pass."""
_SECRET_NAMED = r"[\w.-]*(?:pass(?:word|wd)?|pwd|secret|token|api_?key)[\w.-]*"
"""A variable named for a secret: DB_PASS, apiToken."""
_READS_A_PASSWORD = (
    r"(?:(?:sudo\s+(?:-\S+\s+)*)?(?:passwd|smbpasswd|kinit|cryptsetup)\b"
    rf"|sudo\b{_SAME_COMMAND}\s(?:(?-i:-\w*S)|--stdin)\b"
    rf"|[\w.-]+\b{_SAME_COMMAND}\s--(?:stdin|password-stdin|passphrase-fd[ =]0)\b"
    r"|secret-tool[ \t]+store\b|circleci[ \t]+context[ \t]+store-secret\b)"
)
"""A program reading a password from its input: passwd, "sudo -S",
"docker login --password-stdin", "gpg --passphrase-fd 0", GNOME's
"secret-tool store"."""

_WEB_SECRET_NAME = (
    r"(?:[\w.-]*[_.-])?(?:sig|signature|auth|auth_?token|token|secret|api_?key|access_?key)"
    r"|[\w.]*(?:sess(?:ion)?(?:_?id)?|(?<![sS])sid)|jwt|code|otp"
)
"""A query's or a cookie's name for a secret: a signature, a token, a session."""
_OPAQUE = (
    r"(?!(?-i:[a-z]+(?:-[a-z0-9]+)*)(?:[/&#;,\s\"'<>)]|\.?$))"
    r"[A-Za-z0-9%._~+/=-]{15,199}[A-Za-z0-9%_~+/=-]"
)
"""A value no one reads: 16 URL characters or more, not a slug of small
letters ("reset-your-password", "how-to-reset-it-2024"), a full stop after
it the sentence's."""

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), needs)
    for pattern, needs in (
        # "my password is X", "the PIN for the card: X", "passphrase = 'X'",
        # "DB_PASSWORD=X", "**password**: X", "password - it's X".
        (rf"{_START}{_PASS}{_MARKUP}{_PLACE}{_MARKUP}{_VERB}{_EMPHASIS}{_VALUE}", _STRONG),
        # "Mein Passwort ist X", "the combination is X", "token: X", "password's X".
        (
            rf"{_START}{_WEAK}{_MARKUP}{_PLACE}{_MARKUP}(?:{_VERB}|{_WEAK_VERB}){_VALUE}",
            _SIGNED_EVEN_QUOTED,
        ),
        (rf"{_START}{_PASS}{_MARKUP}{_PLACE}{_MARKUP}{_WEAK_VERB}{_VERB}?{_VALUE}", _SIGNED),
        # "the side door opens with 5550", "the beeping stops when you enter
        # 9888", "alarm panel: #6938": a keypad's code, a lock or alarm named
        # in the same sentence.
        (
            rf"\b{_LOCKED_PLACE}\b[^\n.!?]{{0,60}}?\b(?:{_ON_A_KEYPAD})\s+{_KEYPAD_CODE}",
            _STRONG,
        ),
        (rf"\b(?:{_ON_A_KEYPAD})\s+{_KEYPAD_CODE}[^\n.!?]{{0,30}}?\b{_LOCKED_PLACE}\b", _STRONG),
        (rf"\b{_LOCKED_PLACE}(?:\s+[\w-]+)?\s*:\s*{_KEYPAD_CODE}", _STRONG),
        (rf"\bdisarm(?:s|ed|ing)?(?:\s+(?:it|the\s+[\w-]+))?\s+with\s+{_KEYPAD_CODE}", _STRONG),
        # "first pet: Mochi", "mother's maiden name → smith": the answer
        # after a sign, whatever its shape; after "is" one that looks like a
        # name ("the memorable word is Lindqvist", not "is a secret"); not one's
        # own past told ("my favourite teacher was Mrs Pemberton", round 22).
        (rf"\b{_SECURITY_QUESTION}(?:\s*\([^()\n]{{1,30}}\))?{_ANSWER_SIGN}{_VALUE}", _ANSWER),
        (rf"\b{_NOT_A_LIFE_FACT}{_SECURITY_QUESTION}\s+(?:is|was){_VALUE}", _NAMED_ANSWER),
        # "mi contraseña es Autumn", "mot de passe : Ryme": a plain word too,
        # but not after "?" ("¿Cómo cambio mi contraseña? tbh").
        (
            rf"{_START}{_FOREIGN}{_MARKUP}{_PLACE}{_MARKUP}(?:{_VERB}|{_FOREIGN_VERB}){_VALUE}",
            _UNCOMMON,
        ),
        # "password X for the drive", "PIN 4821": no verb, so only a value
        # with a digit or a sign counts ("password sunshine" may be a noun).
        (rf"\b{_KEYWORD}\s+(?!(?:code|number)\b)(?:{_QUOTED}|{_LOOKS_LIKE})", _SIGNED),
        # "recovery token yOfptXLRmmyrCWkeV", "pairing code TXGHQLRX": after a
        # weak word and no verb, only letters no one types as words (round 25).
        (rf"\b{_WEAK}\s+{_LOOKS_LIKE}", _DRAWN),
        # "X is my password", "'X' is the wifi password at the cabin".
        (
            rf"{_BEFORE}\s+(?:is|was)\s+{_OWNER}"
            rf"(?:[\w'\u2019-]+\s+){{0,3}}?(?:{_KEYWORD}|{_LOGIN}){_AFTER_WORD}",
            _STRONG,
        ),
        # "I use X as my PIN"; without "use" (or the like) the word before
        # "as" may be a verb ("why doesn't it work as my password?"), so
        # only a value with a digit or sign.
        (
            rf"\b(?:{_USING})\s+{_WORDS_BEFORE}\s+as\s+{_OWNER}"
            rf"(?:[\w'\u2019-]+\s+){{0,3}}?(?:{_KEYWORD}|{_LOGIN}|{_SECURITY_QUESTION})"
            rf"{_AFTER_WORD}",
            _STRONG,
        ),
        (
            rf"{_BEFORE}\s+as\s+{_OWNER}"
            rf"(?:[\w'\u2019-]+\s+){{0,3}}?(?:{_KEYWORD}|{_LOGIN}){_AFTER_WORD}",
            _SIGNED,
        ),
        # "X is what I picked as the passcode", "X was the key I typed for
        # the portal": what someone made their password, named after it.
        (
            rf"{_BEFORE}\s+(?:is|was)\s+(?:what\s+(?:i|we)\s+{_PICKED}\s+(?:as|for)\s+{_OWNER}"
            rf"(?:[\w'\u2019-]+\s+){{0,3}}?(?:{_KEYWORD}|key|code){_AFTER_WORD}"
            rf"|{_OWNER}(?:{_KEYWORD}|key|code)\s+(?:i|we)\s+{_PICKED}\b)",
            _STRONG,
        ),
        # "is X a good password for my bank?": a question about the value.
        (
            rf"\bis\s+{_WORDS_BEFORE}\s+(?:a|an)\s+(?:{_JUDGED}\s+)?{_KEYWORD}{_AFTER_WORD}",
            _STRONG,
        ),
        # "X, my password", "X - my password", "X = wifi password",
        # "X (the router password)", "X is the code".
        (
            rf"{_BEFORE}(?:\s*,\s*|\s+[-\u2014\u2013]\s+|\s*=\s*|\s+\(\s*{_NOT_A_FAILURE}|\s+(?:is|was|as)\s+)"
            rf"{_OWNER}(?:[\w'\u2019-]+\s+){{0,3}}?(?:{_KEYWORD}|{_WEAK}){_NO_VALUE_OF_ITS_OWN}"
            rf"{_AFTER_WORD}",
            _SIGNED,
        ),
        # "I changed my password to X": X must look like one, or be quoted
        # ("I changed my password to something stronger").
        (
            r"\b(?:chang|set|reset|updat|switch)\w*\s+(?:(?:my|the|our|your|his|her|their)\s+)?"
            rf"(?:[\w'\u2019-]+\s+){{0,2}}?{_KEYWORD}\s+to\s+(?:{_QUOTED}|{_LOOKS_LIKE})",
            _SIGNED,
        ),
        # "I changed the password from X to Y", "password updated: X -> Y": the
        # new one (the old one is a value of the phrases above).
        (
            rf"\b{_KEYWORD}\s+(?:from\s+\S{{1,100}}\s+to|[^\n.?!]{{0,20}}?\S{{1,100}}\s*"
            rf"(?:->|\u2192|=>))\s+(?:{_QUOTED}|{_LOOKS_LIKE})",
            _SIGNED,
        ),
        # "my netflix login is bob / X", "login: bob password: X", "sign-in is bob, X".
        (
            rf"\b{_LOGIN}{_PLACE}{_VERB}\s*{_USER}+\s*{_PAIR}\s*"
            rf"(?:(?:the\s+|my\s+)?{_PASS}{_VERB}?\s*)?"
            rf"(?:{_QUOTED}|(?P<paired>{_LONG}{_TOKEN}){_END})",
            _STRONG,
        ),
        # "login bob:X", "netflix login bob / X", "wifi Home / X": no verb, so X must look like one.
        (
            rf"\b(?:{_LOGIN}|wi-?fi|wlan|ssid)\s*:?\s+{_NOT_ABOUT_LOGGING_IN}{_USER}+\s*[/:|]\s*"
            rf"{_LOOKS_LIKE}",
            _SIGNED,
        ),
        # "credentials for the vpn: bob X", "creds are bob X": a user and a
        # password after a sign or a verb, a space or a comma between (round 35).
        (
            rf"\b{_LOGIN}(?:\s+(?:details|info))?{_PLACE}{_VERB}\s*{_NOT_ABOUT_LOGGING_IN}"
            rf"{_USER}+,?[ \t]+{_LOOKS_LIKE}",
            _SIGNED,
        ),
        # "I'll send you the vpn login" ending a line (or a message, read
        # with the next), then "bob X" (round 25); "You wanted the Netflix
        # login earlier?" then "bob and X" (round 35).
        # A year is no password: "ana 2024 was the last time I used it" (round 26);
        # a server's reply code is no user: "AUTH LOGIN\n334 VXNlcm5hbWU6" (round 30).
        (
            rf"\b{_LOGIN}(?:[ \t]+[^\W\d_]+){{0,3}}[ \t]*[:?]?[ \t]*\n[ \t]*(?!\d{{3}}[ \t-])"
            rf"{_USER}+(?:,|[ \t]+and)?[ \t]+(?!(?:19|20)\d\d\b){_LOOKS_LIKE}",
            _SIGNED,
        ),
        # "user: bob" on a line, the password alone on the next (round 23).
        (
            r"(?m)^[ \t]*(?:user(?:name)?|login|e-?mail|u|benutzer(?:name)?|usuario|utilisateur)"
            rf"[ \t]*[:=][ \t]*[^\s]+[ \t]*\n[ \t]*{_LOOKS_LIKE}(?=[!?.]*[ \t]*(?:\n|\Z))",
            _SIGNED,
        ),
        # "user bob pass X", "login bob@example.com pass X", "SSID Home, key X".
        (
            rf"\b(?:{_LOGIN}|user(?:name)?|e-?mail|account|acct|wi-?fi|wlan|ssid|network)\s*:?\s+"
            rf"{_USER}+\s*,?\s+(?:pass|{_KEYWORD}|key)\s*:?\s*{_LOOKS_LIKE}",
            _SIGNED,
        ),
        # "bob@example.com / X", "bob@example.com:X" (no space after the
        # colon: "write to bob@example.com: I reply fast" is a sentence).
        (
            rf"(?<![^\s(<]){_EMAIL}(?:\s*(?:/{{1,2}}|\|{{1,2}}|::)\s*|:(?=[^\s/]))"
            rf"{_NOT_ADDRESS}{_LOOKS_LIKE}",
            _SIGNED,
        ),
        # "Netflix: bob / X", "Steam: bob // X": a label and a pair, X with a
        # letter and a digit or sign.
        (rf"(?<![^\s(])[\w-]+::?\s*{_USER}+\s*/{{1,2}}\s*{_LOOKS_LIKE}", _MIXED),
        # "bob / X for netflix", "Hulu bob@mail.com X": a pair with a service named.
        (
            rf"(?<![^\s(])(?=[\w.+-]*?[^\W\d_])[\w.+-]++\s+/\s+{_LOOKS_LIKE}"
            r"(?=\s+(?:for|on|at)\b|\s*\(|\s*$)",
            _SIGNED,
        ),
        # "sign in with the staging admin (bob / X)": a pair in brackets (round 26).
        (
            rf"\(\s*(?=[\w.+-]*?[^\W\d_])[\w.+-]++\s+/\s+(?!(?:19|20)\d\d\b){_LOOKS_LIKE}(?=\s*\))",
            _SIGNED,
        ),
        (rf"(?<![^\s(<]){_EMAIL}\s+{_NOT_ADDRESS}{_LOOKS_LIKE}", _SIGNED),
        # "my icloud is bob@example.com, pass X": "pass" after an address names
        # its password (round 27).
        (rf"(?<![^\s(<]){_EMAIL}\s*,?\s+pass\s*:?\s+{_LOOKS_LIKE}", _SIGNED),
        # "my login is X" (or 'X'), unless X is the user of a pair ("login:
        # bob password: Y").
        (
            rf"\b{_LOGIN}{_PLACE}{_VERB}\s*(?P<login_quote>[{_OPENING}])?(?![\w.+-]+@[\w-]+\.)"
            rf"(?P<single>(?>{_USER}{{2,}}[^\s/:,|{_QUOTES}.;!?)]))(?(login_quote)[{_CLOSING}])"
            rf"(?![^\s.,;!?)]|\s*(?:{_PAIR}|(?:the\s+|my\s+)?{_PASS}\b))",
            _STRONG,
        ),
        # "log in with X", "sign in as bob@example.com using X", "tried logging
        # into my Xbox with X", "to get into gmail type X", "connect to the
        # wifi with X": a way in, then what it takes.
        (
            rf"\b(?:{_WAY_IN})\b(?:[^\n.?!]|\.(?=\S)){{0,50}}?"
            rf"\b(?:with|using|type|typing|enter|entering)\s+{_NOT_EMAIL}{_LOOKS_LIKE}",
            _SIGNED,
        ),
        # "I entered X three times and now I'm locked out", "enter X when it
        # asks for the password", "it says wrong password when I type X".
        (
            rf"\b(?:enter(?:ed)?|typed?|tried|put in)\s+{_NOT_EMAIL}{_LOOKS_LIKE}"
            rf"[^\n.?!]{{0,50}}?\b(?:locked out|{_WAY_IN}|{_KEYWORD}|{_LOGIN})\b",
            _SIGNED,
        ),
        (
            rf"\b(?:{_KEYWORD}|{_LOGIN})\b[^\n.?!]{{0,40}}?\b(?:when|if|whenever)\s+"
            rf"(?:i|you|we)\s+(?:type|enter|use|put in)\s+{_NOT_EMAIL}{_LOOKS_LIKE}",
            _SIGNED,
        ),
        # "Is X strong enough as my password?", "a better password than X".
        (
            rf"\b(?:is|isn't|are|was)\s+{_BEFORE}\s+(?:\w+\s+)?(?:strong|secure|safe|good|long)"
            rf"\s+enough\b[^\n.?!]{{0,40}}?\b(?:{_KEYWORD}|{_LOGIN})",
            _SIGNED,
        ),
        (rf"\b{_KEYWORD}\s+than\s+{_LOOKS_LIKE}", _SIGNED),
        # "the db password in base64 so it's not plain: X", "password
        # reversed so bots don't read it: X": a value given encoded (round 30).
        (
            rf"\b{_KEYWORD}\b[^\n.!?:]{{0,60}}?\b{_ENCODED}\b[^\n:]{{0,40}}?:[ \t]*{_LOOKS_LIKE}",
            _UNCOMMON,
        ),
        # "how long would it take to crack X", "help me remember X, it's the
        # new work one": a value shown to be cracked, guessed or learnt, ending
        # its clause (round 29).
        (
            r"\b(?:crack|brute[ -]?force|guess|memori[sz]e|remember)\s+"
            rf"{_NOT_EMAIL}{_NOT_A_NAMED_CODE}{_LOOKS_LIKE}"
            rf"(?=[.,;!?)]*(?:[ \t]*(?:\n|$|\(|(?:{THANKS})(?!\w))|,))",
            _MIXED,
        ),
        (rf"\buse\s+{_NOT_EMAIL}{_BEFORE}\s+to\s+(?:log|sign)[ -]?in\b", _SIGNED),
        (rf"\b(?:door|gate|lock|safe|locker)\s+opens\s+with\s+{_LOOKS_LIKE}", _SIGNED),
        # "X is how I unlock the door", "to get in the door type X".
        (
            rf"{_BEFORE}\s+is\s+how\s+(?:i|we|you)\s+"
            r"(?:unlock|open|get in|get into|log in|log into|sign in|sign into)\b",
            _SIGNED,
        ),
        (
            r"\b(?:door|gate|keypad|lock|safe|alarm)\b[^.\n]{0,30}?\b(?:type|enter|punch in|dial)"
            rf"\s+{_LOOKS_LIKE}",
            _SIGNED,
        ),
        # "https://bob:X@example.com", "sshpass -p X", "mysql -u root -pX", "--password X".
        # (A scheme is short: unbounded, a long run with no "://" took quadratic time.)
        # (A password may hold "@": the host follows the last one; and "/"
        # inside, unencoded as people paste it: "redis://:X/y@localhost".)
        (
            r"\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@]{0,100}:"
            r"(?P<cmd>[^\s/]{1,100}(?:/[^\s/]{1,100}){0,3})@(?=[^\s@/]+(?:[/:?#\s]|$))",
            _STRONG,
        ),
        (r"\bsshpass\s+-p\s*(?P<cmd>\S+)", _STRONG),
        # A value a script types: expect's 'send "X\r"', pexpect's sendline,
        # AppleScript's keystroke, xdotool's type, AutoHotkey's "Send, X{Enter}" (round 29).
        (
            r"\b(?:send\b(?:[ \t]+--)?|sendline\b|keystroke\b|[xy]dotool[ \t]+type\b|wtype\b)"
            r"[ \t]*\(?[ \t]*[\"']"
            r"(?P<bare>[^\s\"'\\]{3,100})(?:\\[rn])?[\"']",
            _SIGNED,
        ),
        (r"\bSend(?:Input|Raw)?,?[ \t]+(?P<bare>[^\s{}]{3,100})\{(?:Enter|Tab)\}", _SIGNED),
        # ... or writes into a file named for a password: "echo 'X' > ~/.vault_pass".
        (
            r"\b(?:echo|printf)[ \t]+(?:-n[ \t]+)?(?P<q>[\"']?)(?P<bare>[^\s\"']{3,100})(?P=q)"
            r"[ \t]*>>?[ \t]*\S*(?:pass|pwd|secret|token|cred|key)\S*",
            _SIGNED,
        ),
        (rf"\bmysql\w*\b{_SAME_COMMAND}\s-p(?P<cmd>[^\s'\"-]\S*)", _STRONG),
        # (--cipassword: Proxmox's cloud-init user's, round 33.)
        (
            r"(?<!\S)--(?:[a-z]+-)?(?:[a-z]{1,6}(?=pass(?:word|phrase)))?pass(?:word|phrase)?[= ]"
            r"(?P<cmd>[^\s-]\S*)",
            _STRONG,
        ),
        # The password options of archivers, openssl, registries' logins,
        # curl, smbclient, redis-cli, ldap tools, keytool and Windows' net use.
        (
            rf"\b(?:zip|unzip|7z|7za|7zr|rar|unrar){_SAME_COMMAND}\s-[pP]\s*"
            r"(?P<cmd>[^\s-]\S*)",
            _STRONG,
        ),
        (
            rf"\bopenssl\b{_SAME_COMMAND}\s-(?:k|pass(?:in|out)?)\s+(?:pass:)?(?P<cmd>\S+)",
            _STRONG,
        ),
        (
            rf"\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oc|az)\b{_SAME_COMMAND}\blogin\b"
            rf"{_SAME_COMMAND}\s-p\s*(?P<cmd>[^\s-]\S*)",
            _STRONG,
        ),
        (rf"\b(?:mongo|mongosh|sqlcmd|bcp)\b{_SAME_COMMAND}\s-[pP]\s+(?P<cmd>[^\s-]\S*)", _STRONG),
        # mysql -p'a passphrase', wpa_passphrase SSID X, chpasswd, PowerShell's SecureString.
        (r"\bmysql\w*\b[^\n|;&]*?\s-p'(?P<cmd>[^'\n]+)'", _STRONG),
        (r"\bwpa_passphrase\s+\S+\s+[\"']?(?P<cmd>[^\s\"']+)", _STRONG),
        (
            r"\becho\s+[\"']?[^\s:\"']+:(?P<cmd>[^\s|\"']+)[\"']?\s*\|\s*(?:sudo\s+)?chpasswd",
            _STRONG,
        ),
        (r"\bConvertTo-SecureString\s+[\"'](?P<cmd>[^\"'\n]+)[\"']", _STRONG),
        # A .pgpass line (host:port:database:user:password), an npm token.
        (r"(?m)^[\w.*-]+:(?:\d+|\*):[\w*-]+:[\w*.@-]+:(?P<cmd>\S+)(?=[ \t]|$)", _STRONG),
        # A user and password before a host with no scheme: Go's DSN
        # "bob:X@tcp(db:3306)/app", "bob:X@db.local:5432/app".
        (
            r"(?<![^\s\"'`(=,])(?=[A-Za-z_])[\w.-]{1,64}:(?P<cmd>[^\s@/:\"'(]{1,100})@"
            r"(?=(?:tcp|unix|udp)\(|[\w-]+(?:\.[\w-]+)*(?::\d+)?/)",
            _STRONG,
        ),
        # A user and password handed to an HTTP client: requests' auth=("bob", "X"),
        # HTTPBasicAuth("bob", "X"), aiohttp's BasicAuth("bob", "X").
        (
            r"\b(?:auth|\w*(?:Basic|Digest)Auth)\s*[=(]\s*[(\[]?\s*[\"'][^\"'\n]{1,100}[\"']\s*,\s*"
            r"[\"'](?P<cmd>[^\"'\n]{1,100})[\"']",
            _STRONG,
        ),
        # A call setting a key that names a credential: os.Setenv("DB_PASS", "X"),
        # props.put("mail.smtp.password", "X"), config.set("api_token", "X").
        (
            r"\(\s*[\"'][\w.-]*(?:pass(?:word|wd)?|pwd|secret|token|api_?key)[\w.-]*[\"']\s*,\s*"
            r"[\"'](?P<cmd>[^\"'\n]{1,100})[\"']",
            _STRONG,
        ),
        # Terraform's variable named for a password, with its default.
        (
            r"\bvariable\s+\"[\w-]*(?:pass(?:word|wd)?|pwd|secret|token|api_?key)[\w-]*\"\s*\{"
            r"[^{}]{0,200}?\bdefault\s*=\s*\"(?P<cmd>[^\"\n]{1,100})\"",
            _STRONG,
        ),
        # A password manager's export row: a site's address, the user, the password.
        (
            r"(?m)(?:^|,)[\"']?https?://[^\s,]+,(?=[^,\n]*[^\W\d_])[^,\n]{1,100},"
            r"(?P<cell>[^\s,]{1,100})(?=,|[ \t]|$)",
            _SIGNED,
        ),
        (r"_authToken\s*=\s*(?P<cmd>\S+)", _STRONG),
        # What a device's label says its key is: "the sticker says key X" (round 31).
        (
            r"\bsays\s+(?:wifi\s+|wi-fi\s+|wireless\s+|network\s+|wpa2?\s+)?key\s*:?\s+"
            r"(?P<bare>[^\s,;]{3,100}?)(?=[.,;!?)]*(?:\s|$))",
            _SIGNED,
        ),
        # A password in a launch line's "?"-joined options: ARK's
        # "TheIsland?listen?ServerPassword=X?ServerAdminPassword=Y" (round 31).
        (
            r"(?<=\?)[\w.-]*(?:password|passwd|pwd)=(?=[^\s?&;#]{0,99}\d)(?=[^\s?&;#]{0,99}[a-z])"
            r"(?P<cmd>[^\s?&;#\"'<>]{3,100})"
            r"(?=[?&;#\s\"'<>]|$)",
            _SIGNED,
        ),
        # A URL's query or a cookie holding a token, a signature or a session
        # ("?X-Amz-Signature=X", "&sig=X", "?auth=X", "Cookie: PHPSESSID=X",
        # round 24), opaque: not a slug ("?token=reset-your-password").
        (
            rf"(?:(?<=[?&;])|(?<=[;:][ \t])|(?<![^\s\"']))(?:{_WEB_SECRET_NAME})="
            rf"(?P<cmd>{_OPAQUE})(?=[&#;,\s\"'<>)]|\.?(?:\s|$))",
            _STRONG,
        ),
        # A link's token as a path's part: ".../verify/X", ".../reset-password/X",
        # ".../magic/X" (round 24), with a digit, not a page's name.
        (
            r"/(?:verify|verification|confirm|activate|activation|reset|reset-password|"
            r"password-reset|magic|magic-link|invite|invitation|join|login|signin|sign-in|auth|"
            rf"token|access)/(?=[^/?#\s]*\d)(?P<cmd>{_OPAQUE})(?=[/?#&;,\s\"'<>)]|\.?(?:\s|$))",
            _STRONG,
        ),
        # An Azure connection string's key: SharedAccessKey=X, AccountKey=X.
        (r"(?-i:\b(?:SharedAccessKey|AccountKey|SharedSecret))=(?P<cmd>[^\s;\"']+)", _STRONG),
        # Oracle's user/password@database: "jdbc:oracle:thin:bob/X@db:1521:ORCL",
        # "sqlplus bob/X@orcl", "conn bob/X@orcl", "expdp bob/X@db" (round 24).
        (
            r"(?:\bjdbc:oracle:\w+:|\b(?:sqlplus|rman\s+target|expdp|impdp|exp|imp|sqlldr)"
            r"(?:\s+-\w+)*\s+|\bconn(?:ect)?\s+|\buserid=)[\w.$#]{1,64}/"
            r"(?P<cmd>[^\s@/\"']{1,100})@",
            _STRONG,
        ),
        # A token as a URL's user: https://TOKEN@github.com.
        (r"\b[a-z][a-z0-9+.-]{0,30}://(?P<cmd>[A-Za-z0-9_-]{20,100})@", _STRONG),
        # <add key="Password" value="X"/>, <password value="X"/>.
        (
            r"<(?:(?:add|property|entry|param|setting|parameter)\b[^<>]*?\b(?:key|name)\s*=\s*"
            r"[\"']?[\w.-]*(?:pass(?:word)?|pwd|secret|token)[\w.-]*[\"']?"
            r"|(?:pass(?:word)?|pwd|secret|token)\b)[^<>]*?\bvalue\s*=\s*[\"'](?P<cmd>[^\"'<>]+)",
            _STRONG,
        ),
        # "X unlocks my phone", "X opens the gate".
        (
            rf"{_BEFORE}\s+(?:unlocks|opens)\s+(?:the|my|our|your)\s+"
            r"(?:phone|laptop|door|gate|safe|locker|lock|padlock|garage|front door|computer|pc)\b",
            _SIGNED,
        ),
        (rf"\b(?:curl|wget)\b{_SAME_COMMAND}\s(?:-u|--user)[ =]?[^\s:]*:(?P<cmd>\S+)", _STRONG),
        (rf"\bsmbclient\b{_SAME_COMMAND}\s-U\s*[^\s%]+%(?P<cmd>\S+)", _STRONG),
        (rf"\bredis-cli\b{_SAME_COMMAND}\s-a\s+(?P<cmd>\S+)", _STRONG),
        (rf"\bldap\w+\b{_SAME_COMMAND}\s-w\s*(?P<cmd>[^\s-]\S*)", _STRONG),
        # Network gear's plain (0) or reversible (7) secret: Cisco's "enable
        # secret 0 X", "username admin password 0 X" (round 32); 5, 8 and 9 are hashes.
        (r"(?<![\w-])(?:secret|password|key-string|key)[ \t]+[07][ \t]+(?P<cmd>\S+)", _STRONG),
        # ... or with no type before it, and the keys a router shares with its
        # servers and peers: "enable secret X", "tacacs-server key X", "crypto
        # isakmp key X address ...", an SNMP community (round 33).  A hash's
        # type (5, 8, 9) is not a value, nor a word of a sentence about it
        # ("enable secret is set"); "public" and "private" are every
        # device's factory communities, printed in every manual, no secret.
        (
            r"(?<![\w-])(?:enable[ \t]+(?:secret|password)(?:[ \t]+level[ \t]+\d+)?"
            r"|(?:tacacs|radius)-server[ \t]+(?:host[ \t]+\S+[ \t]+)?key"
            r"|crypto[ \t]+isakmp[ \t]+key|key-string|authentication-key|pre-shared-key"
            r"|(?:snmp-server|set[ \t]+snmp)[ \t]+community)"
            r"[ \t]+(?!\d[ \t])(?!(?:public|private|string|is|was|has|not|set|for)\b)"
            r"(?P<cmd>[^\s\"'-]\S*)",
            _STRONG,
        ),
        # A service's user added with its password: RabbitMQ's, MinIO's (round 32).
        (
            r"\b(?:rabbitmqctl[ \t]+(?:add_user|change_password)|mc[ \t]+admin[ \t]+user[ \t]+add"
            r"[ \t]+\S+)[ \t]+\S+[ \t]+(?P<cmd>[^\s-]\S*)",
            _STRONG,
        ),
        # macOS's keychain: a password stored or a keychain unlocked with one,
        # and what find-generic-password -w prints on the next line (round 32).
        (
            r"\bsecurity[ \t]+(?:add-(?:generic|internet)-password|unlock-keychain|create-keychain"
            rf"|set-keychain-password)\b{_SAME_COMMAND}\s-[wp][ \t]+(?P<cmd>[^\s-]\S*)",
            _STRONG,
        ),
        # ... a certificate's passphrase on import, a keychain's in a partition
        # list, Apple's upload tools' app password ("@keychain:AC" names one).
        (
            r"\bsecurity[ \t]+(?:import|set-(?:generic|internet)-password-partition-list)\b"
            rf"{_SAME_COMMAND}\s-[Pk][ \t]+(?P<cmd>[^\s-]\S*)",
            _STRONG,
        ),
        (rf"\b(?:altool|notarytool)\b{_SAME_COMMAND}\s-p[ \t]+(?P<cmd>[^\s@-]\S*)", _STRONG),
        # What a password store's lookup prints on the next line: macOS's
        # keychain, GNOME's secret-tool (round 33).
        (
            r"\b(?:security[ \t]+find-(?:generic|internet)-password\b[^\n]*?\s-w\b"
            r"|secret-tool[ \t]+lookup\b)[^\n]*\n(?P<cmd>\S+)",
            _STRONG,
        ),
        # A password given to a service or a sign-in on Windows: sc.exe's
        # "password= X", NSSM's ObjectName, the registry's DefaultPassword
        # by reg add, PowerShell or a .reg file, Sysinternals' Autologon (round 33).
        (
            rf"\bsc(?:\.exe)?[ \t]+(?:config|create)\b{_SAME_COMMAND}\bpassword=[ \t]*{_ARGUMENT}",
            _STRONG,
        ),
        (rf"\bnssm(?:\.exe)?[ \t]+set[ \t]+\S+[ \t]+ObjectName[ \t]+\S+[ \t]+{_ARGUMENT}", _STRONG),
        (
            rf"\breg(?:\.exe)?[ \t]+add\b{_SAME_COMMAND}[ \t]/v[ \t]+\"?{_PASSWORD_NAMED}\"?"
            rf"{_SAME_COMMAND}[ \t]/d[ \t]+{_ARGUMENT}",
            _STRONG,
        ),
        (
            rf"-Name[ \t]+[\"']?{_PASSWORD_NAMED}[\"']?{_SAME_COMMAND}[ \t]-Value[ \t]+{_ARGUMENT}",
            _STRONG,
        ),
        (rf"(?m)^\"{_PASSWORD_NAMED}\"=\"(?P<cmd>[^\"\n]+)\"", _STRONG),
        (r"\bautologon(?:64)?(?:\.exe)?[ \t]+\S+[ \t]+\S+[ \t]+(?P<cmd>[^\s/-]\S*)", _STRONG),
        # A name naming a password and its value, as JSON pairs them: AWS
        # SSM's parameter, a task definition's environment (round 33).
        (
            rf"\"name\"[ \t]*:[ \t]*\"[^\"\n]*{_PASSWORD_WORD}[^\"\n]*\"[ \t]*,"
            r"(?:[ \t]*\"\w+\"[ \t]*:[ \t]*\"[^\"\n]*\"[ \t]*,){0,3}"
            r"[ \t]*\"value\"[ \t]*:[ \t]*\"(?P<cmd>[^\"\n]+)\"",
            _STRONG,
        ),
        # A browser test typing into a password field: Cypress'
        # cy.get('#password').type('X'), Selenium's send_keys, Playwright's
        # fill, its locator's or page.fill('#password', 'X') (round 33).
        (
            rf"[(\[][^()\n]{{0,80}}{_PASSWORD_WORD}[^()\n]{{0,80}}\)[ \t]*\.[ \t]*"
            r"(?:type|fill|send_keys|sendKeys|setValue|press_?[sS]equentially)"
            r"\([ \t]*(?P<q>[\"'`])(?P<cmd>[^\"'`\n]+)(?P=q)",
            _STRONG,
        ),
        (
            rf"\.(?:type|fill)\([ \t]*(?P<q1>[\"'`])[^\"'`\n]{{0,60}}{_PASSWORD_WORD}"
            r"[^\"'`\n]{0,60}(?P=q1)[ \t]*,[ \t]*(?P<q>[\"'`])(?P<cmd>[^\"'`\n]+)(?P=q)",
            _STRONG,
        ),
        # PPP's secrets files: client, server, then the secret (round 33).
        (
            r"\b(?:pap|chap)-secrets\b[^\n]*\n(?:[ \t]*#[^\n]*\n)*[ \t]*\"?[^\s\"#]+\"?[ \t]+"
            r"(?:\*|\"?[^\s\"]+\"?)[ \t]+\"?(?P<cmd>[^\s\"]+)",
            _STRONG,
        ),
        # GitHub Actions' mask: what a step hides from the log is a secret.
        (r"::add-mask::(?P<cmd>[^\s\"'$][^\s\"']*)", _STRONG),
        # A password hashed in seed data or a test: bcrypt('X'),
        # Hash::make('X'), make_password('X'), password_hash('X', ...).
        (
            r"\b(?:bcrypt(?:js)?(?:\.hash(?:Sync)?)?|hashpw|Hash::make|make_password"
            r"|generate_password_hash|password_hash|hash_?password|Password\.create"
            r"|argon2\.hash|\w*_context\.hash|(?:password)?encoder\.encode)"
            r"\([ \t]*b?(?P<q>[\"'`])(?P<cmd>[^\"'`\n]+)(?P=q)",
            _STRONG,
        ),
        # A CI's variable named for a secret set with its value: "glab
        # variable set DB_PASS --value X", "az pipelines variable create
        # --name dbPass --value X" (round 33).
        (
            r"(?:\b(?:variables?|secrets?|vars?)[ \t]+(?:set|create|add|update)[ \t]+|--name[ =])"
            rf"[\"']?{_SECRET_NAMED}[\"']?{_SAME_COMMAND}[ \t]--value[ =]{_ARGUMENT}",
            _STRONG,
        ),
        # PHP's var_dump of a field named for a password; a JMX password file.
        (
            rf"\[\"[^\"\n]*{_PASSWORD_WORD}[^\"\n]*\"\]=>\s*string\(\d+\)[ \t]*"
            r"\"(?P<cmd>[^\"\n]+)\"",
            _STRONG,
        ),
        (
            r"\bjmxremote\.password\b[^\n]*\n(?:[ \t]*#[^\n]*\n)*[ \t]*\w+[ \t]+(?P<cmd>\S+)",
            _STRONG,
        ),
        # Redis' ACL: ">X" adds a password to the user (round 33).
        (r"\bACL[ \t]+SETUSER[ \t]+\S+(?:[ \t]+(?!>)\S+)*?[ \t]+>(?P<cmd>\S+)", _STRONG),
        # A Windows answer file's password element, however named
        # (AdministratorPassword, DomainAdminPassword), its value in <Value>;
        # Kickstart's root password in plain text, not --iscrypted's hash;
        # ipsec.secrets' XAUTH and EAP passwords (round 33).
        (
            r"<(?:\w+:)?\w*Password>\s*<(?:\w+:)?Value>(?P<cell>[^<\n]{1,100})</",
            _STRONG,
        ),
        (
            r"\brootpw\b(?![^\n]*--iscrypted)(?:[ \t]+--[\w-]+)*[ \t]+"
            r"(?P<cmd>[^\s-]\S*)",
            _STRONG,
        ),
        (r"(?<!\S)[ \t]*:[ \t]*(?-i:XAUTH|EAP|NTLM)[ \t]+\"(?P<cmd>[^\"\n]+)\"", _STRONG),
        # A SIP account's registration, its password after the user:
        # "register => 6001:X@pbx", "sip:6001:X@pbx" (round 33).
        (
            r"(?:\bregister[ \t]*=>[ \t]*|\bsips?:)[^\s:@/;]+:(?P<cmd>[^\s:@/;]+)(?::[^\s@/]+)?@",
            _STRONG,
        ),
        # A network's passphrase said word for word: "the wifi is literally
        # purple monkey dishwasher" (round 34); "literally the worst" is a
        # complaint, "literally down again" two words before one that goes on.
        (
            rf"\b(?:wi-?fi|wlan|hotspot|network){_PLACE}(?:\s+(?:is|was)|['\u2019]s)\s+literally"
            rf"{_VALUE}",
            _PASSPHRASE_WORDS,
        ),
        # A Grandstream phone's config by its P-values: P2 the admin's
        # password, P196 the user's, P34 (P406, P506, P606) a SIP account's
        # (round 34); a probability "P2 = 0.35" is none.
        (
            r"(?m)^[ \t]*P(?:2|34|196|406|506|606)[ \t]*=[ \t]*(?!\d*\.\d+[ \t]*$)"
            r"(?P<cmd>\S+)[ \t]*$",
            _STRONG,
        ),
        # OpenVPN's auth-user-pass file pasted under its name: two lines, the
        # user, then the password (round 34); a config naming the file has
        # directives after it, of several words.
        (
            r"(?:\bauth(?:[-_]user[-_]pass)?\.txt\b|\bauth-user-pass\b)[^\n]*\n(?:[ \t]*\n)?"
            r"[ \t]*[^\s]+[ \t]*\n[ \t]*(?P<cmd>[^\s]+)[ \t]*(?=\n[ \t]*\n|\n?\Z)",
            _UNCOMMON,
        ),
        # MinIO's client given a host's access key and its secret key.
        (
            r"\bmc[ \t]+(?:alias[ \t]+set|config[ \t]+host[ \t]+add)[ \t]+\S+[ \t]+\S+[ \t]+\S+"
            r"[ \t]+(?P<cmd>[^\s-]\S*)",
            _STRONG,
        ),
        # A spreadsheet's formula comparing a cell with a password, a macro
        # unprotecting a sheet with one (round 32).
        (
            r"(?m)^[ \t]*=[^\n]*?\b[A-Z]{1,3}\$?\d{1,7}[ \t]*=[ \t]*\"(?P<cmd>[^\"\n]{3,100})\""
            r"(?=[^\n]*\b(?:password|passwort|pw|pin|passcode)\b)",
            _STRONG,
        ),
        (r"\.Unprotect[ \t]+(?:Password:=[ \t]*)?\"(?P<cmd>[^\"\n]+)\"", _STRONG),
        # ... or joining a password's label and its value: =CONCATENATE("pw: ","X").
        (
            r"(?m)^[ \t]*=[^\n]*?\"[^\"\n]{0,20}\b(?:password|passwort|pw|pwd|pin|passcode)"
            r"[ \t]*[:=]?[ \t]*\"[ \t]*[,;&][ \t]*\"(?P<cmd>[^\"\n]{3,100})\"",
            _STRONG,
        ),
        # cloud-init's chpasswd list: "user:password" lines (round 32).
        (
            r"\bchpasswd:[^\n]*\n(?:[ \t]+[^\n]*\n){0,2}?[ \t]+list:[ \t]*[|>]-?[ \t]*\n"
            r"[ \t]+[\w.-]+:(?P<cmd>[^\s:]+)",
            _STRONG,
        ),
        (r"(?<!\S)-(?:store|key|src|dest)pass\s+(?:pass:)?(?P<cmd>\S+)", _STRONG),
        (r"(?<!\S)/p(?:assword)?:(?P<cmd>\S+)", _STRONG),
        (rf"\bnet\s+use\b{_SAME_COMMAND}\s/user:[^\s;]+\s+(?P<cmd>[^\s/]\S*)", _STRONG),
        # htpasswd -b FILE USER X, htpasswd -nb USER X.
        (r"\bhtpasswd\s+-\w*n\w*b\w*\s+\S+\s+(?P<cmd>\S+)", _STRONG),
        (r"\bhtpasswd\s+-(?!\w*n)\w*b\w*\s+\S+\s+\S+\s+(?P<cmd>\S+)", _STRONG),
        # net user bob X /add, echo X | passwd --stdin bob, aws's secret key, lftp -u bob,X,
        # Authorization: Basic bob:X, keyStorePassword=X (a camelCase name).
        (r"\bnet\s+user\s+\S+\s+(?P<cmd>[^\s/*]\S*)", _STRONG),
        (r"\baws_(?:secret_access_key|session_token)\s*[= ]\s*(?P<cmd>[^\s\"']+)", _STRONG),
        (rf"\blftp\b{_SAME_COMMAND}\s-u\s+[^\s,]+,(?P<cmd>[^\s,]+)", _STRONG),
        (r"\bBasic\s+[^\s:]+:(?P<cmd>\S+)", _STRONG),
        (
            r"(?-i:\b[a-z][A-Za-z0-9.]*(?:Password|Passwd|Pwd|Passphrase|Secret|Token|ApiKey|"
            r"SecretKey|AccessKey))\s*[=:]\s*[\"']?(?P<cmd>[^\s\"'&;,]+)",
            _STRONG,
        ),
        # ... or in PascalCase, set with "=": sysprep's AdminPassword=X,
        # IPSecSecret=X, WireGuard's PresharedKey = X (round 33).
        (
            r"(?-i:\b(?:[A-Z][A-Za-z0-9]*(?:Password|Passwd|Pwd|Passphrase|Secret)|PresharedKey))"
            r"[ \t]*=[ \t]*[\"']?(?P<cmd>[^\s\"'&;,]+)",
            _STRONG,
        ),
        # "I've made X my password".
        (
            rf"\b(?:made|make|makes|making|chose|picked)\s+{_BEFORE}\s+(?:my|the|our|your)\s+"
            rf"(?:new\s+)?{_KEYWORD}\b",
            _SIGNED,
        ),
        # <entry key="db.password">X</entry>: an element's text, named by its key.
        (
            r"<(?:entry|add|property|setting|param)\b[^<>]*?\b(?:key|name)\s*=\s*[\"'][\w.-]*"
            r"(?:pass(?:word)?|pwd|secret|token)[\w.-]*[\"'][^<>]*>(?P<cell>[^<\n]{1,100})</",
            _STRONG,
        ),
        # SQL, an Authorization header, gh, ssh-keygen, net use with the user after.
        # (The quote that closes the value is the last before ";" or the line's end: 'Ab3'x9z'.)
        (
            r"(?m)\bIDENTIFIED\s+BY\s+(?:PASSWORD\s+)?['\"](?P<cmd>[^\n]{1,100}?)['\"]\s*(?:;|$)",
            _STRONG,
        ),
        (
            r"(?m)\bSET\s+PASSWORD\b[^=\n]{0,80}=\s*(?:PASSWORD\s*\(\s*)?['\"]"
            r"(?P<cmd>[^\n]{1,100}?)['\"]\s*\)?\s*(?:;|$)",
            _STRONG,
        ),
        (r"\bAuthorization:\s*Token\s+(?P<cmd>\S+)", _STRONG),
        (rf"\bgh\s+secret\s+set\b{_SAME_COMMAND}\s(?:-b|--body)[ =](?P<cmd>\S+)", _STRONG),
        # A tool's setting of a secret by its name: "pulumi config set --secret
        # dbPassword X", "dotnet user-secrets set Db:Password X" (round 28).
        (
            r"\b(?:config|user-secrets|secrets?)\s+set\b(?:\s+--?[\w-]+)*\s+[\"']?[\w.:/-]*"
            r"(?:pass(?:word)?|pwd|secret|token|api_?key)[\w.:/-]*[\"']?\s+[\"']?(?P<cmd>[^\s\"']+)",
            _STRONG,
        ),
        (rf"\bssh-keygen\b{_SAME_COMMAND}\s-[NP]\s+(?P<cmd>[^\s-]\S*)", _STRONG),
        (r"\bnet\s+use\s+\S+\s+\\\\\S+\s+(?P<cmd>[^\s/*]\S*)", _STRONG),
        (r"\bu\s*/\s*p\s*[:=]\s*[^\s/]+\s*/\s*(?P<cmd>\S+)", _STRONG),
        # A password fed to a program that reads one from its input: "echo X
        # | passwd --stdin bob", "printf '%s\n' X | sudo -S ...", "sudo -S cmd
        # <<< X", "echo X | docker login --password-stdin" (round 27).
        (
            rf"\b(?:echo|printf|yes)(?:\s+-[neE]+)*\s+(?:([\"'])%s(?:\\n)?\1\s+)?"
            rf"[\"']?{_FED}[\"']?\s*\|\s*{_READS_A_PASSWORD}",
            _STRONG,
        ),
        (rf"{_READS_A_PASSWORD}[^\n|;&<]*<<<\s*[\"']?{_FED}[\"']?(?=\s|$)", _STRONG),
        # PGPASSWORD=X, REDIS_PASS=X: a variable naming a password, in capitals,
        # perhaps with the place or version it is for (SECRET_KEY_BASE, DB_PASSWORD_PROD).
        (
            r"(?-i:\b(?:[A-Z0-9]+_)*(?:PG)?(?:PASSWORD|PASSWD|PASS|PWD|PASSPHRASE|SECRET|TOKEN|PAT"
            r"|API_?KEY|ACCESS_KEY|SECRET_KEY)"
            r"(?:_(?:BASE|PROD|PRODUCTION|DEV|STAGING|STAGE|LIVE|TEST|LOCAL|V?\d{1,2}))?)"
            rf"\s*=\s*[{_OPENING}]?(?P<cmd>{_LINE_PASSPHRASE}|[^\s{_QUOTES}]+)",
            _STRONG,
        ),
        # "u: bob p: X", "user=bob pass=X".
        (
            r"\bu(?:ser(?:name)?)?\s*[:=]\s*\S+[\s,;]+p(?:w|wd|ass)?\s*[:=]\s*"
            rf"[{_OPENING}]?(?P<cmd>[^\s{_QUOTES}]+)",
            _STRONG,
        ),
        # "| password | X |", "<password>X</password>", '<Pass encoding="base64">X</Pass>'.
        # (A heading row, with "|---|" under it, names its columns instead.)
        (
            rf"\|\s*[*_]*{_PASS}[*_]*\s*\|\s*(?P<cell>[^|\n]*[^|\s])\s*\|"
            r"(?![^\n]*\n[ \t]*\|?[ \t]*:?-{3,})",
            _STRONG,
        ),
        (
            r"<input\b[^<>]*?\btype\s*=\s*[\"']?password\b[^<>]*?\bvalue\s*=\s*[\"']?"
            r"(?P<cmd>[^\"'\s<>]+)",
            _STRONG,
        ),
        (
            r"<input\b[^<>]*?\bvalue\s*=\s*[\"']?(?P<cmd>[^\"'\s<>]+)[^<>]*?"
            r"\btype\s*=\s*[\"']?password\b",
            _STRONG,
        ),
        (
            r"<(\w{0,20}?(?:pass(?:word|wd|code|phrase)?|pwd|pin|secret|token|api_?key))"
            r"(?:\s[^<>\n]{0,80})?>"
            r"\s*(?P<cell>[^<\n]{1,100}?)\s*</\1>",
            _STRONG,
        ),
    )
)
_VALUE_GROUPS = ("quoted", "value", "bare", "before", "paired", "single", "cmd", "cell")

_WHERE = frozenset(str.split("under underneath behind inside near above below beside beneath next"))
"""Words saying where a password is kept ("taped under the desk lamp")."""
_DONE_TO = re.compile(r"[ \t]+(?:it|them)\b", re.IGNORECASE)
"""What an instruction does something to ("turn it on", "print them out")."""
_DESCRIBING_WORDS = _WHERE | frozenset(
    str.split(
        "used stored saved written kept managed required needed expired wrong correct "
        "changed reset updated same different also still very really too easy hard weak "
        "strong long short secure safe simple complicated something nothing private due "
        "secret not the a an in on at my your his her their our its under over inside "
        "broken down slow failing working locked blocked disabled invalid incorrect "
        "optional mandatory fine good bad ok okay only just case-sensitive missing "
        "lost gone forgot forgotten unknown empty blank hidden visible shown printed "
        "somewhere here there what which this that it mine yours ours theirs hers "
        "who where whatever one another no none is was are "
        "all both each every many several mostly usually see ask check call "
        "shared sent given told emailed texted mailed posted leaked hacked stolen "
        "compromised generated chosen picked typed entered accepted rejected "
        "two three four five six seven eight nine ten eleven twelve "
        "unchanged free new old temporary default random unique identical similar valid "
        "active inactive pending available unavailable taped stuck pinned glued scribbled "
        "noted jotted attached engraved labelled labeled marked listed use via through "
        "probably about around roughly approximately hashed encrypted salted encoded open "
        "face touch fingerprint biometric biometrics case much more less better worse "
        "stronger weaker longer shorter harder easier safer going gonna supposed meant "
        "scaduta scaduto abgelaufen expiré expirée caducada caducado vencida vencido"
    )
)
"""Words beside "password is" that describe it or point at it rather than
being it: "the password is too short", "This is my password"."""
_DOING = re.compile(
    r"[a-z]{3,}(?:ing|ed)|super|ultra|very|kinda|pretty|basically|totally|fairly|quite"
    r"|extremely|incredibly|insanely|way"
)
"""A first word that describes what follows rather than being a password."""
_VERB_ENDING = re.compile(r"(?:ing|ed)\Z")
"""A verb's ending: "expiring", "locked"."""
_ABOUT_LENGTH = frozenset(
    str.split("digits characters chars letters numbers symbols words bits bytes long")
)
"""A value with one of these says how long the password is: "four digits long"."""
_DESCRIBING_SUFFIX = re.compile(r"\w+-(?:themed|based|like|ish|related|style|free|length)")
"""A made-up adjective: "hunter-themed", "song-based"."""
_GOES_ON_WORD = re.compile(_GOES_ON)
_LETTER = re.compile(r"[^\W\d_]")


SECRET_HEADING = rf"{_PASS}|pass|psw|kennwort|tokens?|secrets?|api[ _-]?keys?"
"""A table's heading over a column of secrets ("Password", "PIN", "Secret",
"API key"), for ``table_columns``."""


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each credential said in *text* is (start, end), read folded
    (``text_fold``: full-width, look-alike and accented letters as plain ones)."""
    seen, origins = folded(text)
    for start, stop in _spans(seen):
        yield origins[start], origins[stop - 1] + 1


def _spans(text: str) -> Iterator[tuple[int, int]]:
    for pattern, needs in _PATTERNS:
        for match in text_scan.matches(pattern, text):
            if (span := _secret_of(match, needs)) is not None:
                yield span


_CSV_CELLS = re.compile(r"\w+(?:,\w+)+")
_WHEN = re.compile(
    r"\b(?:in|since|until|till|by|after|before|during|from|around|circa|on|at)[ \t]+\Z", re.I
)
"""A word before a value that makes it a time or a place ("In 2024, ...")."""


def _secret_of(match: re.Match[str], needs: str) -> tuple[int, int] | None:
    """Where the value of a phrase is, unless it is a word about the
    password rather than the password, or does not look like the value
    the phrase *needs*."""
    group = next(g for g in _VALUE_GROUPS if g in match.re.groupindex and match[g] is not None)
    value = match[group]
    if placeholder(value):
        return None  # "password: {{ vault_password }}", "PGPASSWORD=$(cat file)"
    if _CALL.match(value):
        return None  # "password = input('Password: ')": code asking for one
    if the_working_directory(match.string, match.start()):
        return None  # "pwd: /home/ana", "PWD=/srv/app", "passwd: /etc/passwd"
    if _NAMES_A_SECRET.search(match.string, max(0, match.start(group) - 40), match.start(group)):
        return None  # "--set auth.existingSecret=redis-pass": the secret's name
    if group == "cmd":  # a command's option, its quotes kept: -p'X'
        quoted = len(value) > 2 and value[0] == value[-1] and value[0] in "'\""
        # "DB_PASS=X; ok": the sentence's sign, not the value's
        ends = (
            len(value) - len(value.rstrip(".,;"))
            if _SENTENCE_GOES_ON.match(match.string, match.end(group))
            else 0
        )
        return match.start(group) + quoted, match.end(group) - quoted - ends
    if ends_a_csv_heading(match.string, match.start()):
        return None  # "site,user,password\ngmail,bob,X": read by column instead
    if about_hardware(match.string, match.start(), match.end()):
        return None  # "Connect the LED to pin 13"
    if value.startswith("-----BEGIN"):
        return None  # "key: -----BEGIN ...": a key block, named so by redaction
    start, stop = match.span(group)
    if group == "quoted":  # "« X »": the spaces are the quote's
        start, stop = start + len(value) - len(value.lstrip()), start + len(value.rstrip())
        if needs != _SIGNED_EVEN_QUOTED:
            return start, stop
    if group == "cell" and plainly_no_secret(value):
        return None  # "| password | string(64) |": a schema's column type
    if _NOTE_OF_WORDS.match(match.string, start):
        return None  # "password: (set via PGPASSWORD env var)": a note, round 22
    start, stop = _unwrapped(match.string, start, stop)
    value = match.string[start:stop]
    if _BARE_SITE.fullmatch(value):
        return None  # "Password for 'https://ana@github.com':", a prompt naming a site
    stamp = _CHAT_STAMP.match(match.string, match.string.rfind("\n", 0, start) + 1)
    if stamp is not None and start < stamp.end():
        return None  # "pw?\n[10:02] <ana> X": the next line's time, X is read after it
    if (
        value.replace(" ", "").isalpha()
        and _PROMPT_ENDS.search(match.string, max(0, match.start() - 3), start)
        and _LINE_GOES_ON.match(match.string, stop)
    ):
        return None  # "[sudo] password for ana:\nSorry, try again.": the program's answer
    first_end = start + len(value.split()[0]) if value.split() else stop
    if _NO_VALUE.fullmatch(value) or any(
        names_an_amount(match.string, end) for end in {first_end, stop}
    ):
        return None
    if PAIR_NAMED.search(match.string, max(0, match.start() - 24), match.start()):
        # "login/pass: bob/X", "user/pw = bob / X": bob is the user
        if "/" in value:
            start += value.rindex("/") + 1
        elif password := re.compile(r"[ \t]*/[ \t]*(\S+)").match(match.string, stop):
            start, stop = password.span(1)
        value = match.string[start:stop]
    if group == "before" and names_a_credential(value):
        return None  # "$env:DB_PASSWORD = 'X' and password ...": a label, not a value
    if group == "before" and _CSV_CELLS.fullmatch(value):
        return None  # "name,url,username,password": a heading's cells
    if group == "before" and _WHEN.search(match.string, max(0, start - 12), start):
        return None  # "In 2024, I changed my password": when, not what
    if group == "value" and _ASSIGNED.match(match.string, stop):
        return None  # "PASSWORD: Final = 'X'": a type, the value comes after "="
    if not value or (group != "quoted" and describes(value)):
        return None
    if group == "value" and _instructs(match.string, value, stop):
        return None  # "recovery key: turn it on in Settings" (round 28)
    if not (looks_like_a_value(value) if group == "quoted" else _looks_like(value, needs)):
        return None  # quoted, a passphrase with a digit anywhere: "„blue whale 7“"
    return start, stop


def _instructs(text: str, value: str, stop: int) -> bool:
    """Is *value* (ending at *stop*) a verb doing something to "it" or
    "them": what to do, not a value ("turn it on", "print them out")?"""
    following = _DONE_TO.match(text, stop)
    return following is not None and value.isalpha() and known_words.frequent(value.casefold())


def placeholder(value: str) -> bool:
    """A template's or a shell's stand-in for a value, braces and quotes aside."""
    return any(PLACEHOLDER.fullmatch(value.strip(around)) for around in (" \t\"'", " \t\"'{}"))


_NO_VALUE = re.compile(
    # Signs only, a count ("Pass: 3"), a label ("policy:**"), a placeholder.
    rf"[\W_]*|\d{{1,2}}|.*:[*_]*|(?:is|was|are|ist|est|es)[:=]+|{PLACEHOLDER.pattern}"
)
"""What stands where a value would and is none."""
_NOTE_OF_WORDS = re.compile(r"\((?:[^()\s]+[ \t]+){2,}[^()\n]*\)")
"""A note in brackets of three words or more, where the value would be."""
_CALL = re.compile(r"[A-Za-z_][\w.]*(?:::\w+)?\((?:[\"'`)$]|\Z)")
"""A function called with a string or nothing: the code that asks for a value."""
_NAMES_A_SECRET = re.compile(
    r"(?:existing|secret|password|credentials?)[_.-]?(?:secret|name|ref|key[_-]?ref)"
    r"[\"']?[ \t]*[:=][ \t]*[\"']?\Z",
    re.IGNORECASE,
)
"""A key naming where a secret is kept, not holding it: Helm's
``existingSecret=``, Kubernetes' ``secretName:``, ``secretKeyRef`` (round 31)."""
_BARE_SITE = re.compile(r"//(?:[\w.+-]+@)?[\w.-]+(?::\d+)?/?")
"""The rest of a link to a site alone, a user maybe before it: a prompt's
"Password for 'https://ana@github.com'" (a link's path or query may hold a
token: "for https://x.com/magic/X")."""
_PROMPT_ENDS = re.compile(r"(?:\bfor[ \t]+\S+|['\u2019]s[ \t]+\w+)[ \t]*:[ \t]*\n[ \t]*\Z")
"""A terminal's prompt for a password, ending its line: "[sudo] password for
ana:", "ana@host's password:"; what it was typed is not shown."""
_CHAT_STAMP = re.compile(
    r"[ \t]*[\[(]?\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[AaPp][Mm])?[\])]?(?![\w:])"
)
"""The time a chat log's line starts with ("[10:02] <ana> X", round 31)."""
_LINE_GOES_ON = re.compile(r"[,:;]?[ \t]+[^\W\d_]{2,}")
"""Words after a word on the line below a prompt: the program's answer
("Sorry, try again."), not what was typed (round 31)."""
_ASSIGNED = re.compile(r"[ \t]*=(?!=)")
_SENTENCE_GOES_ON = re.compile(r"\s|\Z")
_ENDS_LINE = re.compile(r"[`'\" ]*(?:\n|\Z)")
_YAML_PROPERTY = re.compile(r"(?:!!?[\w/.:-]+|&[\w-]+)[ \t]+(?=\S)")
"""A YAML tag or anchor before a value: ``!!str``, ``!vault``, ``&pw``."""
_WRAPPERS = {"(": ")", "[": "]", "{": "}", "<": ">", "*": "*", "_": "_", "~": "~", "|": "|"}
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}


def _unwrapped(text: str, start: int, stop: int) -> tuple[int, int]:
    """The span of a value without what wraps it and what follows it in the
    same word: "(hunter2)", "**hunter2**", "||hunter2||"; right after "=", its
    first word ("X docker compose up") unless the words end the line with a
    digit, as a passphrase does ("=Blue Whale Sings 7"), up to a query's next
    key ("X&user=bob")."""
    if (tag := _YAML_PROPERTY.match(text, start, stop)) is not None:
        start = tag.end()  # "password: !!str X", "password: &pw X"
    words = text[start:stop].split()
    ends_line = _ENDS_LINE.match(text, stop) is not None
    passphrase = len(words) > 1 and any(re.search(r"\d", word) for word in words[1:]) and ends_line
    if text[:start].endswith("=") and not passphrase:  # glued, as in a config line
        stop = start + len(words[0])
        if query := re.search(r"&\w+=", text[start:stop]):
            stop = start + query.start()
    while stop - start > 1 and (closing := _WRAPPERS.get(text[start])) is not None:
        inner = text[start + 1 : stop]
        if closing in inner and not inner.endswith(closing):
            break  # "(x)yz": not wrapped
        start += 1
        stop -= len(closing) if inner.endswith(closing) else 0
    while stop - start > 1 and text[stop - 1] in _CLOSERS:
        if _CLOSERS[text[stop - 1]] in text[start : stop - 1]:
            break  # "x(1)": its own
        stop -= 1  # "{password: X}": the brace is the document's
    return start, stop


def describes(value: str) -> bool:
    """ "the password is too short", "my favourite pin is from Disneyland",
    "my PIN is four digits long", "my password is hunter-themed"; three
    words or more none of which describes ("correct horse battery staple")
    are a passphrase, whatever the first."""
    words = [word.casefold().strip("'\u2019.,;:!?") for word in value.split()]
    if not words:
        return True
    first = words[0]
    if _DOING.fullmatch(first) and _a_verb_form(first):
        return True  # "rotating every 30 days", "expiring", "super annoying to type"
    if len(words) > 1 and words[1] in _WHERE:
        return True  # "taped under the desk lamp", "somewhere behind the clock"
    if not _ABOUT_LENGTH.isdisjoint(words[1:]):
        return True  # "four digits long", "probably 4 digits"
    if len(words) > 1 and names_a_credential(words[-1]):
        return True  # "password: the user's password", "PIN: your usual PIN"
    if len(words) >= 3 and _DESCRIBING_WORDS.isdisjoint(words[1:]):
        return False  # a passphrase: "correct horse battery staple"
    return (
        first in _DESCRIBING_WORDS
        or _GOES_ON_WORD.fullmatch(first) is not None
        or _DESCRIBING_SUFFIX.fullmatch(first) is not None
    )


def _a_verb_form(word: str) -> bool:
    """Is *word* a verb's "-ing" or "-ed" ("expiring", "locked", "running"),
    not a noun that only ends so ("pudding", "spring", "dumpling")?  What is
    left without the ending, or with an "e" ("expir-e"), must be a word of
    four letters or more, or a frequent one ("us-e"; "run" if its last letter
    was doubled)."""
    base = _VERB_ENDING.sub("", word)
    if base == word:
        return True  # "super", "very": describing words of their own
    if len(base) >= 4 and known_words.known(base):
        return True
    if known_words.known(base + "e") and (len(base) >= 4 or known_words.frequent(base + "e")):
        return True
    return len(base) >= 4 and base[-1] == base[-2] and known_words.frequent(base[:-1])


_CASE_INSIDE = re.compile(r"[a-z][A-Z]|(?<=[A-Z]{2})[a-z]+[A-Z]")
"""A capital after a small letter, or small letters inside capitals: a
value's case ("zLhkahUM", "MonkeyGinger", "shadoW"), not prose's.  Names
have it too ("PayPal", "iCloud"), so it counts only where a phrase of
this module says a value follows (or comes before), never beside a weak
word alone ("wifi CabinNet" names the network)."""


def _cased_like_a_value(word: str) -> bool:
    """A case that changes inside the word, as a value's may and a word's does
    not, and not a product's name."""
    bare = word.strip(".,;:!?)\"'")
    return (
        len(bare) >= 3
        and _CASE_INSIDE.search(bare) is not None
        and bare.removesuffix("'s").casefold() not in known_words.PRODUCT_NAMES
    )


def _words_joined(word: str) -> bool:
    """Is *word* words joined in camel case, each a word of a language:
    code's or a brand's name ("ValueError", "GitHub"), not a value's case?"""
    parts = _CASED_PARTS.findall(word)
    return bool(parts) and all(known_words.known(part) for part in parts if len(part) > 1)


_CASED_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _looks_like(value: str, needs: str) -> bool:
    # "tomorrow!" ends a sentence; "p@ss!" has a sign of its own.
    # A passphrase after a weak sign starts with a word that looks like one:
    # "Passwort ist seit 2019 das gleiche" holds a number, not a password.
    inside = value.split()[0].rstrip("!?") if value.split() else value
    if needs in (_SIGNED, _SIGNED_EVEN_QUOTED):
        return looks_like_a_value(inside) or _cased_like_a_value(inside)
    if needs in (_ANSWER, _NAMED_ANSWER) and len(value.split()) > 2:
        return False  # "first pet: a hamster we called ...": a story, not an answer
    if needs == _NAMED_ANSWER:
        return looks_like_a_value(inside) or inside[:1].isupper() or known_words.made_up(inside)
    if needs == _UNCOMMON:
        return looks_like_a_value(inside) or (
            len(value.split()) == 1
            and _LETTER.search(inside) is not None
            and not known_words.common(inside)
            and folded_text(inside.casefold()) not in _FOREIGN_DESCRIBING
        )
    if needs == _DRAWN:  # or in a case no word has: "Kennwort wbghoGmnlity" (round 33)
        return known_words.random_letters(inside) or (
            _cased_like_a_value(inside) and not _words_joined(inside)
        )
    if needs == _MIXED:
        return looks_like_a_value(inside) and _LETTER.search(inside) is not None
    if needs == _PASSPHRASE_WORDS:
        return len(value.split()) >= 3 and not any(map(known_words.common, value.split()))
    return True
