"""A value that looks like a secret, near a word that names one, for ``redaction``.

``credential_phrases`` reads the phrasings of English closely; this module
reads any language loosely.  It finds a word naming a credential (password,
PIN, passcode, "mot de passe", "Passwort", "пароль", "密码", a typo of
"password", a "door code", a padlock...) and takes the value beside it:

- after it: the value right after the word, after a sign (``: :: = => | / ;
  ~ -- → <b></b>``, a note in brackets) or after a linking word in any
  language ("is", "ist", "est", "è", "är", "to", "c'est", "是", "は"), with at
  most five words between the credential word and that sign or link ("the
  password for the shared drive in Oslo is X"); a value that follows it
  through "and", "or", "to" or a comma goes too ("passwords: X and Y",
  "changed from X to Y");
- before it: the value, a sign or linking word, a few words, then the
  credential word ending its clause ("X ist mein Passwort", "X: password
  for the router", "X is what I use to log in").

Such loose reading is safe only for a value that looks like one: three
characters or more, a digit or a sign in it, and not a time, a date, an
amount, a percentage, an ordinal or a number with its unit ("7:30",
"3/14", "$20", "2nd", "90 days", "8+ characters").  A plain word beside
"password" ("my password is sunshine") is ``credential_phrases``' call.

Text is read folded (``text_fold``): full-width letters, look-alike
letters of other scripts, accents and invisible characters do not hide a
word.  The words below are written as people type them and folded here.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from functools import cache

from desktop.core.base import text_scan
from desktop.core.base.text_fold import folded
from desktop.core.privacy import known_words

# Words naming a credential, as typed; folded when compiled.
_NAMES = str.split(
    """
    password passwords passwd pwd pw pws passcode passcodes passphrase passphrases
    passcod pincode pinnumber pin pins puk otp pswd psswd passwrd passwrds
    pword pswrd passw0rd p@ssword p@ssw0rd pass_word p/w requirepass rpcpassword psk bindpw
    wpa_passphrase
    padlock keybox lockbox mdp mdps alarm mot-de-passe digicode digicodes
    passwort passworte kennwort losungswort zugangscode zugangsdaten geheimzahl
    wlan-schlüssel wlan-key wlan-passwort wifi-passwort
    contraseña contrasena clave codigo código senha palavra-passe
    wachtwoord toegangscode pincode wagwoord
    parola codice contrasenya lozinka lozinku geslo kodeord kodeordet slaptažodis
    hasło haslo hasla hasła
    lösenord lösenordet losenord adgangskode adgangskoden passord passordet
    salasana salasanani tunnussana
    jelszó jelszo jelszavam heslo hesla šifra sifra şifre şifrem şifresi şifren sifre sifrem
    sifresi parolă parolam
    пароль пароля паролем пин-код
    κωδικός
    סיסמה סיסמא הסיסמה
    कूटशब्द पासवर्ड
    mật_khẩu kata_sandi kata_laluan kata_laluannya kata_kunci_saya katakunci_saya kata_kunciku
    kata_kunci_e-mel kata_kunci_emel kata_kunci_akaun kata_kunci_wifi kata_kunci_bank
    katalaluannya kata_laluanku kata_sandinya kata_sandiku
    лозинка лозинку parool parooli pasahitza pasahitz lykilorð lykilorðið lykilorðinu
    cyfrinair nghyfrinair gyfrinair nenosiri fjalëkalim fjalëkalimi
    পাসওয়ার্ড கடவுச்சொல் پاس_ورڈ رمز_عبور گذرواژه
    pinn pincod pinkod pinkoden pinkoder pwrd psw p.w.
    codeword safeword safe_word code_word masterauth
    apikey apikeys api_key api_keys api-key api-keys
    პაროლი პაროლის գաղտնաբառ գաղտնաբառը parol parolim parolum şifrə şifrəm
    нууц_\u04af\u0433 құпия_сөз құпия_сөзім የይለፍ_ቃል የይለፍ_ቃሉ ਪਾਸਵਰਡ પાસવર્ડ పాస్‌వర్డ్ පාස්වර්ඩ්
    මුරපදය ọrọ_igbaniwọle kalmar_sirri iphasiwedi pasfhocal phasfhocal pasvorto
    contrasinal passwuert wachtwurd modpas hasełko パスコード sandi
    kalimat_al_sir kalimat_al_murur kalimat_sir kalimat_murur kalimet_el_ser
    kodikos kodikou kodiko sisma sisma'ot hasisma rahat_phan rahatphan mat_khau matkhau
    bimilbeonho bimilbunho bibeon katasandi
    loyniorð loyniorðið پټنوم borînpeyv borînpeyva وشەی_نهێنی کلمه_عبور کلمه‌عبور
    kalmar_sirrina kalmar_sirrinka kalmar_wucewa lambar_sirri okwuntughe erayga_sirta
    ereyga_sirta ereygayga_sirta eraygayga_sirta parolym parolyňyz tenimiafina tenimiafiko
    tenimiafinao
    furaha_sirta neno_la_siri teny_miafina ger-tremen
    facal-faire fhacal-faire kupuhipa ijambo_ry'ibanga phasewete pasiwedhi salasõna salasõnad
    പാസ്‌വേഡ് ಪಾಸ್‌ವರ್ಡ್ ପାସୱାର୍ଡ פּאַראָל פאראל açar_sözi açar_sözüm
    پاسورډ پاسورد ọ̀rọ̀_aṣínà ọrọ_aṣina oro_asina
    """
)
_INFLECTED_STEMS = str.split(
    "salasan tunnuslu tunnusluv jelsza jelszó şifre şifrə hasł hasl парол пин-код pin-kód pin-kod "
    "pin-koodi сырсөз серсүз መሕለፊ_ቃል"
)
"""Stems of the words for a password or a PIN in languages that inflect
them, read with up to six letters of ending: Finnish "salasanaksi"
("to the password"), Hungarian "jelszavam" ("my password"), "PIN-kódom",
Turkish "şifremi", Polish "hasłem", Russian "паролем" (round 25), Kyrgyz
"сырсөзүм" (round 30)."""
_NAMES_WITHOUT_SPACES = str.split(
    "パスワード 暗証番号 密码 密碼 口令 비밀번호 비번 암호 รหัสผ่าน كلمة_المرور كلمة_السر "
    "ពាក្យសម្ងាត់ ລະຫັດຜ່ານ ລະຫັດລັບ စကားဝှက်"
    # A key or a lock drawn as the label of a note: "🔑 X", "🔒 Netflix → X".
    " \U0001f511 \U0001f510 \U0001f512 \U0001f5dd"
)
"""Written without spaces around them, so no word boundary is asked for."""
_PHRASES = (
    r"pin[ -](?:code|number|nummer)|pass[ _-](?:phrase|code|word)|mot\s+de\s+passe|"
    # A SIM's first and second PIN and PUK ("PUK1: X", round 27); "PIN1" is a
    # chip's leg too ("pin1 = 3.3V"), so only before its digits.
    r"puk[12]|pin[12](?=[ \t]*(?:[:=]|is\b)?[ \t]*\d{4,8}(?![\w.]))|"
    r"code\s+(?:d['\u2019]acc[eè]s|secret|pin|porte)|parola\s+d['\u2019]ordine|"
    r"c[oó]digo\s+de\s+acceso|codice\s+(?:di\s+accesso|segreto)|код\s+доступа|"
    r"unlock\s+(?:pattern|pin)|(?:lock|locker|safe|vault|padlock)\s+combination|"
    r"(?:alarm|door|gate|entry|garage|opener|keypad|lock|locker|safe|unlock|access|"
    r"security|verification|recovery|backup|login|sign-in|one-time|2fa|mfa|sms|auth|"
    r"authenticator|sim|phone|vault|building|apartment|wifi|wi-fi|alarm\s+system)\s+codes?|"
    r"(?:wifi|wi-fi|wlan|wpa2?|wpa3|network|security)\s+key|"
    r"(?:seed|recovery|mnemonic|backup)\s+(?:phrase|words)|bike\s+lock|"
    r"(?:totp|otp|2fa|mfa|authenticator)\s+(?:seed|secret|key)|"
    r"(?:admin|root|user|router|wifi|email|db|auth|sudo|redis|mysql|postgres|pg|mongo|smtp|imap"
    r"|ftp|sftp|ssh|vpn|nas|ldap|sql|rdp|vnc|proxy|staging|prod|server)[ _-]pass|"
    r"(?:refresh|access|acess|acces|bot|bearer|auth|api|personal\s+access|client|webhook|app|"
    r"signing|jwt|session|slack|discord|telegram|github|gitlab)\s+(?:tokens?|tokn|tokken|secrets?)"
    r"|api[\s-]+k(?:ye|ee)|tokn|tokken|toekn|secert|secrte|sercet"
)
NOT_A_PASS = (
    r"(?<!boarding )(?<!bus )(?<!train )(?<!season )(?<!ski )(?<!day )(?<!hall )(?<!press )"
)
"""Before "pass", words that make it a ticket, not a password: "boarding pass: seat 12A"."""
_VAULT_NAMES = (
    r"filevault|luks|veracrypt|truecrypt|bitlocker|cryptomator"
    r"|keepass(?:xc)?(?:\s+(?:database|db))?"
)
"""A disk's or a vault's own name, which stands for its passphrase:
"FileVault: X", "KeePass database - X" (round 29)."""
_VAULTS = re.compile(_VAULT_NAMES, re.IGNORECASE)
_WEAK_NAMES = (
    rf"{NOT_A_PASS}pass|token|secret|combination|combo|secret\s+phrase|mnemonic|"
    r"(?:mother['\u2019]?s\s+)?maiden\s+name|magic\s+word|wi-?fi|door|keypad|hotspot|"
    rf"parole|رمز|nip|losen|mima|vpn|{_VAULT_NAMES}"
)
_WEAK_WORDS = ["пасс", "пин"]
"""Weak words in scripts whose letters fold to Latin look-alikes."""
"""Words that name a credential only with a sign or a linking word before its
value ("token: X", "my pass is X", "wifi: X"), never alone ("bus pass 12A")."""
_LOGINS = r"log[ -]?in|log\s+into|sign[ -]?in|sign\s+into"
"""Said after the value only: "X is what I use to log in"."""

_CJK = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
_REACH = 200
"""How far from a credential word its value is looked for, in characters."""
_IBAN = r"[A-Z]{2}\d{2}(?:[ \t][A-Z0-9]{4}){2,7}(?:[ \t]\d{1,3})?(?![\w-])"
"""An account's IBAN in its groups ("DE89 3704 0044 0532 0130 00"): one
word, not seven ("the PIN for the DE89 ... account is X", round 27)."""
_CHUNK = re.compile(rf"\n|[{_CJK}]|{_IBAN}[^\s{_CJK}]*|[^\s{_CJK}]+")
_CJK_CHAR = re.compile(rf"[{_CJK}]")
"""A word with what sticks to it, one CJK character, an IBAN, or a line break."""
_GLUED = re.compile(
    r"[^\W\d_]+[,;]*(?:=>|->|--|\.{2,}|/(?!/)|[:=;|~\u2192])+(?:(?=[^\s/\"'])|(?<!=)(?=[\"']))"
)
"""A word glued to a sign and what follows: "forget:X", "bob:X", "cabin:\"X\""
(not an attribute: ``maxlength="2025"``)."""


def _words(words: str) -> frozenset[str]:
    """*words* as they are compared: folded, in one case, one apostrophe."""
    return frozenset(_word(word) for word in words.split())


def _word(text: str) -> str:
    return _lower(folded(text)[0])


def _lower(text: str) -> str:
    return text.casefold().replace("\u2019", "'")


_LINKS = _words(
    """
    is was are were be been 's it's its that's thats now
    from to ist war sind lautet lauten heißt heisst est c'est était etait es era
    é è e sono är er on je jest jsou это este είναι adalah là ay yra هي هو היא הוא
    は が 是 为 為 는 은 이 가 で
    ir yw ialah ni është eshte คือ است being isn't wasn't shi
    hi hu einai ine khue yaitu
    არის ce ngu ná ass se 係 គឺ ແມ່ນ က
    er dia waa bụ eo ko ke ne estas estis
    """
)
"""Words that link a credential word and its value ("is", "ist", "c'est", "は")."""
_JOINS = _words("and or to but , / & und oder et ou y o e i и или og eller och en of")
"""Words between two values of one credential ("X and Y", "from X to Y")."""
_ARTICLES = _words(
    """
        my the our your his her their a an mein meine meines meiner dein das der die
        mon ma mes le la les l' mi mis el los las il lo mia mio i gli het de mijn
        minha meu o os as moje mój mój mitt min mina minun mein
        мой моя мои 我 的 私 の 僕 俺 내 제
        моја мој моје mans mana mano minu langu yangu saya من میرا আমার என் fy мій моя
        mening миний менің mo mäi myn mwen yami ჩემი իմ నా මගේ ਮੇਰਾ મારો 我嘅
        mítt mín mitt زما من ман минем ny taku m' ನನ್ನ എന്റെ ମୋ ya tiegħi tieghi
        """
)
"""Articles and possessives, which a value may have before its credential word."""
PAIR_NAMED = re.compile(r"\b(?:log[ -]?in|user(?:name)?|u)\s*/\s*\Z", re.IGNORECASE)
"""A credential word named after a user: "login/pass: bob/X"."""
_QUALIFIERS = _words(
    "old new current previous temporary alt alternate backup either maybe prob probably "
    "perhaps possibly like"
)
"""Words before a value that leave it linked: "passwords: old X, new Y"."""
_FOLLOWS = _words(
    """
        for at on in to of from and but so now too again here there which because when
        until since with für fur von vom zum zur des du de del della dello da di pour
        para per voor van för till na do для от к で す だ 。 、
        """
)
"""What may follow a credential word a value came before ("X: password for
the router"); a noun would make it something else ("X is my password manager")."""
_COMPOUNDS = _words(
    """
        manager managers reset resets policy policies rule rules requirement requirements
        strength generator generators field fields prompt prompts protected protection
        change changes changed expiry expiration length history recovery vault app
        pad keeper book list sheet file spreadsheet screen dialog page form box
        attempt attempts entry timeout reminder letter breach breaches count limit limits
        bar header headers pin pins param parameter budget
        """
)
"""Nouns that make "password X" something else ("password manager 1Password")."""

_QUOTES = "\"'`\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb"
_TAG = re.compile(r"</?[a-z][^<>\n]{0,40}>", re.IGNORECASE)
_ATTRIBUTE_END = re.compile(r"[\"'](?:/?>|\s*[,:;}\]])|[\u2014\u2013]")
_VALUE_ENDS = re.compile(rf"{_TAG.pattern}|&\w+=|{_ATTRIBUTE_END.pattern}", re.IGNORECASE)
"""Where a value glued to what follows it ends: a tag, a query's next key,
an attribute's or a JSON string's closing quote (``for="password">``,
``"X","user":``), a dash ("X—no wait")."""
_END_TAG = re.compile(rf"{_TAG.pattern}\Z", re.IGNORECASE)
_NOTE = re.compile(r"\s*\([^()\n]{0,40}\)")
"""A note in brackets: "password (case-sensitive): X"."""
_LEAD = re.compile(rf"(?:{_TAG.pattern}|<!\[CDATA\[|[^\w\s]|_)*", re.IGNORECASE)
"""Signs, tags and quotes before a chunk's core: any of "• ≔ ➡ 👉 ► \\"."""
_TRAIL_SIGNS = _QUOTES + ".,;:!?)]}>*_|~-\u00bb\u203a\u300d\u300f\u301e\u301f"
_LINKING_SIGN = re.compile(
    r"[:=|/;~>^\\\[\]?\u2190-\u21ff\u27f6\u2794-\u27bf\u25b6\u25ba\u2022\u2254\u00b7\u2219\u22c5\u2261"
    r"\U0001f300-\U0001faff"
    r"\u2014\u2013\u2026\u00bb\u2190\U0001f449-]|\.\."
)
"""A sign that links a word and its value ("•", "≔", "➡", "👉", "->"), not
one that quotes, emphasises, opens a note or ends a clause ("pw, x(12)")."""
MARKER = re.compile(r"\[redacted [a-z ]+\]")
"""What ``redaction`` writes in place of a value: ``[redacted <kind>]``."""
_ATTRIBUTE = re.compile(r"[\w-]+=[\"']")
"""An attribute of markup, not a value: ``type=password value="X"``."""
_SENTENCE_END = re.compile(r"[.!?](?![.])")

_NOT_SECRETS = (
    r"\d{1,2}(?:[:.h]\d{2})?(?:[:.]\d{2})?\s*(?:am|pm|h|uhr)?"  # 7:30, 10.15, 9pm, 18h
    # 3/14, 14.03.2025, 2025-03-14, a phone's 555-0199; not a texted code
    # in two halves of three, "834-841" (round 27).
    r"|(?!\d{3}-\d{3}\Z)\d{1,4}(?:[/.-]\d{1,4}){1,2}"
    r"|[$€£¥]\s*[\d.,]+[km]?|[\d.,]+\s*[$€£¥%‰]|[\d.,]+(?:k|m|bn|usd|eur|gbp)"  # amounts
    r"|\d+(?:st|nd|rd|th|er|e|ème|º|ª)"  # ordinals
    r"|-?[\d.,]+\+?(?:\s*|-)(?:s|sec|secs|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|"
    r"weeks?|mo|months?|y|yrs?|years?|x|times|chars?|characters|digits?|letters|words|symbols|ms|"
    r"bits?|bytes?|kb|mb|gb|tb|km|kg|g|m|cm|mm|mi|lbs?|°c?|°f|px|pt|"
    # A frequency, a rate, a signal, a battery: "5GHz" answers "whats the wifi" (round 28).
    r"[kmgt]?hz|[kmg](?:bps|bit/s|b/s)|dbm?|mah|[km]?wh?|fps|rpm|dpi)"  # a number and its unit
    r"|802\.11[a-z]{0,2}"  # a Wi-Fi standard: 802.11ac
    # A standard or an algorithm by its number: ERC-20, AES-256, SHA256, ISO 8601.
    r"|(?:aes|sha|rsa|erc|eip|bep|iso|rfc|utf|ieee|ecma|ansi|iec|hs|rs|es|ps|md|crc|des|tls|"
    r"ssl|ipv|ecdsa|ed|curve|secp|argon|pbkdf)[- ]?\d+(?:[-/]\d+)?(?:[a-z]\d*|id)?"
    # A column's type and size in a schema: string(64), varchar(255).
    r"|(?:n?varchar|char|string|str|text|int|integer|bool|boolean|bytes?|blob|binary|"
    r"varbinary|decimal|numeric|float|double)\(\d+(?:,\s*\d+)?\)?"
    r"|\d+\+|v?\d+(?:\.\d+)+|v\d+|\d+(?:,\d{3})+"  # 8+, v1.2.3, v12, 10,000
    r"|2fa|mfa|[2345]g|wpa[23]?|wi-fi|e-mail|mp[34]|ps[45]|covid-19|24/7|n/a|e\.g|i\.e|etc|a\.m|p\.m"
    r"|[a-z]+(?:['\u2019-][a-z]+)+"  # don't, case-sensitive
    r"|https?://\S+|www\.\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # an address is no secret
    # nor a host's name: "VPN: nl-free-12.protonvpn.net" (round 29)
    r"|(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|cloud|local|lan|internal|home|arpa)"
    r"|\S*(?:\]\(|://)\S*|//\S*"  # nor a link: "reset](https://..."
    r"|[a-z_][\w.]*\((?:[a-z_][\w.]*)?[,)]?.*|[a-z_][\w.]*\(\d+,"  # code: "next(tokens,", "Pin(25,"
    r"|[a-z_][\w.]*(?:::\w+)?\(\$.*"  # PHP's: "bcrypt($request->password", "Hash::make($data"
    r"|f[\"'][^\"']*\{[\w.]+\}[^\"']*[\"']?"  # an f-string: f'user:{uid}:120'
    r"|x-[a-z]+(?:-[a-z]+)*"  # a header's name: X-Api-Key
    r"|--[a-z][\w-]*"  # a command's option: "passwd --stdin"
    # A file by its kind: "backup.7z (it asks for the password)", round 28.
    r"|[\w-]+\.(?:7z|zip|rar|tar|gz|tgz|pdf|docx?|xlsx?|odt|txt|csv|gpg|enc|kdbx|sql|iso|dmg|img)"
)
_NOT_SECRET = re.compile(rf"(?:{_NOT_SECRETS})", re.IGNORECASE)


def _marks() -> str:
    """A character class's ranges of the marks that write a word's vowels and
    accents apart from its letters (Unicode's M categories), and the joiners."""
    ranges: list[str] = ["\u200c\u200d"]
    start = None
    for code in range(0x30001):
        mark = code < 0x30000 and unicodedata.category(chr(code))[0] == "M"
        if mark and start is None:
            start = code
        elif not mark and start is not None:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}")
            start = None
    return "".join(ranges)


_SIGN = re.compile(rf"[\d_]|[^\w\s{_marks()}]")
"""A digit or a sign; a vowel sign is a letter's part, not one ("మర్చిపోయాను",
"forgot" in Telugu, is a word, round 34)."""
_ALNUM = re.compile(r"[^\W_]")
_LENGTH_WORDS = _words(
    "digits characters chars letters numbers symbols words long bits bytes times tries ms "
    "attempts days hours minutes seconds weeks months years people users accounts sites "
    "million millions billion billions thousand thousands hundred hundreds"
)


def secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each value beside a credential word in *text* is (start, end);
    a word inside a marker redaction wrote ("[redacted password]") names
    nothing."""
    markers = Markers(text)
    seen, origins = folded(text)
    for match in credential_words(seen):
        start, stop = origins[match.start()], origins[match.end() - 1] + 1
        inside = _IN_PLACEHOLDER.search(
            seen, max(0, match.start() - 30), match.start()
        ) or _IN_COMMAND.search(seen, max(0, match.start() - _REACH), match.start())
        if in_a_links_path(seen, match.start()):
            continue  # ".../change-your-wifi-password-2024": a page's name
        if _KEY_MANAGEMENT.search(seen, max(0, match.start() - 5), match.start()):
            continue  # "key_mgmt=WPA-PSK": how a network checks its key, round 28
        if _HOST_GOES_ON.match(seen, match.end()) or _PROPERTY_GOES_ON.match(seen, match.end()):
            continue  # "openconnect vpn.acme.com --user=ana": a host's name, round 29;
            # "nmcli con modify Home wifi-sec.psk X": a property's name (round 30)
        if _A_TOOL.match(seen, match.end()):
            continue  # "secret-tool store --label=nas": GNOME's program (round 33)
        if _A_PROGRAM.match(seen, max(0, match.start() - 4)) or _A_TEST_RUN.match(
            seen, match.start()
        ):
            continue  # "wpa_passphrase Casa_Sol X" (``typed_logins``), "PASS src/App.test.js"
        if not inside and not markers.within(start, stop):
            for first, last in _spans(seen, match):
                yield origins[first], origins[last - 1] + 1


_KEY_MANAGEMENT = re.compile(r"wpa[23]?-\Z", re.IGNORECASE)
_HOST_GOES_ON = re.compile(r"\.[a-z0-9-]+\.[a-z]", re.IGNORECASE)
_PROPERTY_GOES_ON = re.compile(r"-[a-z0-9]+\.[a-z]", re.IGNORECASE)
_A_TOOL = re.compile(r"-tool\b", re.IGNORECASE)
_A_PROGRAM = re.compile(r"wpa_passphrase[ \t]", re.IGNORECASE)
"""The program that writes a network's config, run with its name and password
(read by ``typed_logins``); ``wpa_passphrase=X`` in hostapd.conf is a key."""
_A_TEST_RUN = re.compile(r"(?-i:PASS|FAIL)[ \t]+[\w.\\/-]*(?:[/\\]|\.\w{1,4}(?=\s|$))")
"""A test runner's verdict on a file: "PASS  src/App.test.js" (Jest's)."""


def in_a_links_path(text: str, position: int) -> bool:
    """Is *position* in the path of a link ("https://blog.example.com/2024/
    change-your-wifi-password-2024"), which names a page, not in its user,
    password or query?"""
    word_start = max(text.rfind(space, 0, position) for space in " \t\n") + 1
    return _LINK_PATH.fullmatch(text, word_start, position) is not None


_LINK_PATH = re.compile(
    r"[\"'(<]*(?:[a-z][a-z0-9+.-]{0,30}://[^/\s@?#]+|www\.[^/\s?#]+)/[^?#\s]*", re.I
)


class Markers:
    """The markers redaction wrote in a text, found by where they are."""

    def __init__(self, text: str) -> None:
        self.spans = [marker.span() for marker in MARKER.finditer(text)]
        self._ends = [end for _, end in self.spans]

    def within(self, start: int, stop: int) -> list[tuple[int, int]]:
        """The markers ``text[start:stop]`` touches, in order (by bisection:
        a text of thousands of markers costs no more per span than one)."""
        first = last = bisect.bisect_right(self._ends, start)
        while last < len(self.spans) and self.spans[last][0] < stop:
            last += 1
        return self.spans[first:last]


def credential_words(text: str) -> Iterator[re.Match[str]]:
    """The words naming a credential in *text*, in order; a word that only
    looked like a typo of one is read again from its next character
    ("pass4wifi" holds "wifi")."""
    names = _names()
    if not text_scan.may_match(names, text):
        return
    position = 0
    while (match := next(text_scan.scanned(names, text, position), None)) is not None:
        if match["typo"] is not None and not _a_typo(match["typo"].casefold()):
            position = match.start() + 1
            continue
        yield match
        position = match.end()


def looks_like_a_value(value: str) -> bool:
    """Three characters or more, a digit or a sign in it, a letter or digit
    ("==>" is a sign), and no time, date, amount, ordinal, number with its
    unit, address or product ("1Password"); or a made-up word
    ("Tolzanwensho", not "passphrases"), or letters drawn at random
    ("qwXyzAbcdEf", "TXGHQLRX")."""
    return (
        (
            len(value) >= 3
            and _SIGN.search(value) is not None
            and _ALNUM.search(value) is not None
            and not plainly_no_secret(value)
            and value.casefold() not in known_words.PRODUCT_NAMES  # "see 1Password"
        )
        or made_up(value)
        or known_words.random_letters(value)
        or random_words_joined(value)
    )


def random_words_joined(value: str) -> bool:
    """Four to eight words joined by one dash or underscore, all but one
    rarely said and none naming a credential: a passphrase of random words
    ("walnut-wombat-comet-saddle", round 29), not "state-of-the-art" nor a
    name in code ("get_user_name_from_db")."""
    if _JOINED_WORDS.fullmatch(value) is None:
        return False
    words = re.split(r"[-_]", value)
    return sum(map(known_words.frequent, words)) <= 1 and not any(map(a_credential_word, words))


_JOINED_WORDS = re.compile(r"[a-z]{3,9}(?P<sign>[-_])[a-z]{3,9}(?:(?P=sign)[a-z]{3,9}){2,6}", re.I)


def made_up(word: str) -> bool:
    """Is *word* no word of any language, nor one naming a credential
    ("passphrases"), nor a "my" or an "is" of a language wordfreq has no
    list for (Maltese "il-password tiegħi hi X", round 34)?"""
    return known_words.made_up(word) and not a_credential_word(word) and not a_small_word(word)


def a_small_word(word: str) -> bool:
    """Is *word* an article, a "my" or an "is" of some language ("the",
    Tajik "ман", Maltese "tiegħi", "ist"), which no value is?"""
    folded_word = _lower(word)
    return folded_word in _ARTICLES or folded_word in _LINKS


def a_credential_word(word: str) -> bool:
    """Is *word* a word naming a credential ("passphrases", "p4ssword"), not
    one only shaped as a typo of "password" ("poiuyt")?"""
    named = _names().fullmatch(word)
    return named is not None and (named["typo"] is None or _a_typo(named["typo"].casefold()))


_NETWORKS = re.compile(r"wi-?fi|hotspot|vpn", re.IGNORECASE)
_PART_LABELLED = re.compile(
    r"[ \t]*(?:[,;|/]|\n|[ \t]-|[ \t](?=[^\W\d_]))[ \t]*"
    r"(?P<label>[^\s:=,;|/][^:=\n,;|]{0,23}?)[ \t]*(?:[:=]|\u2192|->|\bis\b)"
)
_NETWORK_KEY = re.compile(r"(?:wpa2?[ _-]?|security[ _-]?|network[ _-]?)?(?:key|psk)", re.I)
"""A network's password by another name: "key", "PSK", "WPA key"."""


def its_password_next(text: str, end: int) -> bool:
    """Is the network's value ending at *end* followed by its password,
    labelled in any way ("wifi: Casa_Sol, pw: X", "hotspot: Pixel_7; key =
    X", "SSID Casa_Sol / PSK: X")?  Then the value is the network's name;
    another network's label names another value ("the wifi is X, the guest
    wifi is Y": both passwords)."""
    part = _PART_LABELLED.match(text, end)
    if part is None:
        return False
    label = _NETWORKS.sub(" ", part["label"]).strip()
    return names_a_credential(label) or _NETWORK_KEY.fullmatch(label) is not None


def _spans(text: str, match: re.Match[str]) -> Iterator[tuple[int, int]]:
    """The values beside the credential word *match* found in *text*."""
    # "wifi's X": the 's links a weak word to its value.
    weak = match["weak"] is not None and not match.group().endswith(("'s", "\u2019s"))
    if about_hardware(text, match.start(), match.end()):
        return
    if the_working_directory(text, match.start()):
        return
    plural = _lower(match.group()).endswith(("tokens", "secrets", "keys", "combinations", "combos"))
    if (
        weak
        and (plural or _NUMBERED.match(text, match.end()))
        and _a_count_follows(text, match.end())
    ):
        return  # "max tokens = 3048", "Ticket PASS-312": how many, or which, not a secret
    if weak and _lower(match["weak"]) in _ALSO_ADJECTIVES and _a_noun_follows(text, match.end()):
        return  # "the secret ingredient is 100 cloves", "token ring"
    if ends_a_csv_heading(text, match.start()):
        return  # "site,user,password\ngmail,bob,X": the rows' cells, read by column
    if (listed := _listed(text, match)) is not None:
        yield from listed  # "Passwords:\n- bank: X\n- email: Y", "(both passwords)"
        return
    pin = _PIN_NAME.match(_lower(match.group())) is not None
    # Random words alone are a value only after a word naming nothing else:
    # "FileVault: saddle tuba otter falcon", not "wifi: fibre broadband router upstairs".
    words = not weak or _VAULTS.fullmatch(match["weak"]) is not None
    after = [] if match["login"] is not None else list(_after(text, match.end(), weak, pin, words))
    if weak and _NETWORKS.fullmatch(match["weak"]):
        after = [(start, stop) for start, stop in after if not its_password_next(text, stop)]
    if PAIR_NAMED.search(text, max(0, match.start() - 16), match.start()):
        # "login/pass: bob/X": bob is the user
        after = [(text.rfind("/", start, stop) + 1 or start, stop) for start, stop in after]
    yield from after
    # A word with its value after it names no value before it ("line 399:
    # the password for the router is X"); nor does a way in that failed
    # ("Ticket #4821 - customer can't log in", round 27).
    failed = match["login"] is not None and _FAILED.search(
        text, max(0, match.start() - 24), match.start()
    )
    if not after and not weak and not failed and _ends_clause(text, match.end()):
        gaelic = _lower(match.group()) in _GAELIC_NAMES
        yield from _before(text, match.start(), _GAELIC_PREPOSITIONS if gaelic else frozenset())


_NUMBERED = re.compile(r"-\d")
_ENCODINGS = _words("b64 base64 base-64 b32 base32 base-32 hex rot13 rot-13 utf-8 utf8 ascii")
"""An encoding's name, which a note after a credential word may give: the
value follows ("pw (b64) X", round 31)."""
_FAILED = re.compile(
    r"\b(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not|unable\s+to|fails?\s+to|failed\s+to"
    r"|won'?t|doesn'?t|didn'?t|not\s+able\s+to)\s+\Z",
    re.IGNORECASE,
)
"""Words before a way in saying it failed: "can't log in", "unable to sign in"."""
_ALSO_ADJECTIVES = _words("secret token combination combo pass mnemonic")
"""Weak words that also go before a noun they describe: "secret ingredient"."""
_NOT_NOUNS = (
    _LINKS
    | _ARTICLES
    | _FOLLOWS
    | _words("value key string phrase word words number code answer question itself")
    | _words("you i we they he she it")
)


def _listed(text: str, match: re.Match[str]) -> list[tuple[int, int]] | None:
    """The values of a list the credential word *match* heads ("Passwords:",
    "### Logins", "PINs" on a line of their own, then "- bank: X" lines) or
    sums up after it ("(all passwords)" on the next line, "Netflix: X, Hulu:
    Y (both passwords)"); None if it does neither."""
    # A heading's or a summing note's line is short: looked for near the word
    # only (a long text without line breaks costs no more per word).
    reach, limit = max(0, match.start() - _LINE_REACH), match.end() + _LINE_REACH
    line_start = text.rfind("\n", reach, match.start()) + 1
    line_end = text.find("\n", match.end(), limit)
    if (line_start == 0 < reach) or (line_end < 0 and limit < len(text)):
        return None  # a line too long for a heading or a note
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start : match.start()], text[match.end() : line_end]
    heading = _HEADING_BEFORE.fullmatch(before) and _HEADING_AFTER.fullmatch(after)
    plural = _lower(match.group()).endswith("s")
    if heading and (plural or "#" in before):
        listed = list(_list_values(text, _lines_from(text, line_end + 1)))
        if listed or plural:
            return listed
        return None  # "### Wifi\n`X`": one value under it, read as the word's
    if plural and _SUM_BEFORE.search(before) and after.lstrip().startswith(")"):
        lines = _lines_before(text, line_start)
        opening = line_start + before.rindex("(")
        if text[line_start:opening].strip():  # "Netflix: X, Hulu: Y (both passwords)"
            lines = [*lines, *_segments(text, line_start, opening)]
        return list(_list_values(text, lines[::-1]))  # from the bottom up to its heading
    return None


_LINE_REACH = 120
"""How far from the word its line's ends are looked for."""
_HEADING_BEFORE = re.compile(r"[\s#*_>\-\u2022]*(?:[^\W\d_]+[ \t]+){0,3}")
"""A heading's start: markup and a few words ("### ", "my ", "**Family wifi ")."""
_HEADING_AFTER = re.compile(r"[\s*_#:]*(?:\([^()\n]{0,30}\))?[\s*_:]*")
"""A heading's end: markup, a colon, a note ("PINs (cards):")."""
_SUM_BEFORE = re.compile(r"\([ \t]*(?:(?:all|both|these|those|the|above|are|were)[ \t]+){0,3}\Z")
_LIST_LINE = re.compile(
    r"[ \t]*(?:[-*+\u2022]|\d{1,2}[.)]|- \[[ x]\])?[ \t]*"
    r"[^\s:=\u2014\u2013][^\n:=\u2014\u2013]{0,40}?"
    r"(?:[ \t]*[:=\u2014\u2013\u2192][ \t]*|[ \t]{2,}|\t)(?P<value>\S+)[ \t]*"
)
"""A line of a list of credentials: a label, a sign or a wide gap, one value."""
_LIST_LINES = 20
"""The most lines a heading's list is read to."""


def _lines_from(text: str, start: int) -> list[tuple[int, int]]:
    """The lines from *start* up to a blank one (at most ``_LIST_LINES``)."""
    lines: list[tuple[int, int]] = []
    while start < len(text) and len(lines) < _LIST_LINES:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if not text[start:end].strip():
            break
        lines.append((start, end))
        start = end + 1
    return lines


def _lines_before(text: str, end: int) -> list[tuple[int, int]]:
    """The lines before the one starting at *end*, back to a blank one."""
    lines: list[tuple[int, int]] = []
    while end > 0 and len(lines) < _LIST_LINES:
        start = text.rfind("\n", 0, end - 1) + 1
        if not text[start : end - 1].strip():
            break
        lines.insert(0, (start, end - 1))
        end = start
    return lines


def _segments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``text[start:end]`` cut at its commas and semicolons: "Netflix: X, Hulu: Y"."""
    cuts = [start, *(start + m.end() for m in _SEGMENT_END.finditer(text[start:end])), end]
    return list(itertools.pairwise(cuts))


_SEGMENT_END = re.compile(r"[,;]\s")


def _list_values(text: str, lines: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The value of each list line in *lines* that has one; a line of some
    other shape ends the list."""
    for start, end in lines:
        line = _LIST_LINE.fullmatch(text, start, end)
        if line is None:
            return
        value = _value(text, *line.span("value"))
        if value is not None and value[1] - value[0] >= _LIST_VALUE_CHARS:
            yield value


_LIST_VALUE_CHARS = 4


def ends_a_csv_heading(text: str, start: int) -> bool:
    """Is the word at *start* the last cell of a comma-separated heading
    ("site,user,password")?"""
    line_start = text.rfind("\n", 0, start) + 1
    return (
        text[line_start:start].rstrip().endswith(",") and _LAST_WORD.match(text, start) is not None
    )


_LAST_WORD = re.compile(r"\S+(?:\r?\n|\Z)")


def names_a_credential(text: str) -> bool:
    """Does *text* hold a word naming a credential ("$env:DB_PASSWORD", "login")?"""
    return next(credential_words(folded(text)[0]), None) is not None


def about_hardware(text: str, start: int, end: int) -> bool:
    """Is the word "pin" at *start*..*end* a pin of a chip or a board
    ("connect the LED to pin 13", "GPIO pin 4")?"""
    return bool(re.match(r"pins?\b", text[start:end], re.IGNORECASE)) and (
        _HARDWARE.search(text, max(0, start - 25), min(len(text), end + 15)) is not None
    )


def the_working_directory(text: str, start: int) -> bool:
    """Is the word "pwd" at *start* the shell's command, with what it prints
    or does after it ("pwd: /home/ana", "pwd → print working directory",
    round 24), or "passwd" the file of that name ("passwd: /etc/passwd",
    round 25), not a password?"""
    word = _LEADING_WORD.match(text, start)
    if word is None:
        return False
    after = {"pwd": _A_DIRECTORY, "passwd": _PASSWORD_FILE}.get(word.group().casefold())
    return after is not None and after.match(text, word.end()) is not None


_LEADING_WORD = re.compile(r"\w+")
_PASSWORD_FILE = re.compile(r"[\s:=>\u2192-]*[~/][\w./-]*/\.?(?:passwd|shadow|htpasswd)\b")


_A_DIRECTORY = re.compile(
    r"[\s:=>\u2192-]*(?:[~/]|[A-Za-z]:\\|[^\n.]*\b(?:directory|folder|dir|path|cwd)\b)",
    re.IGNORECASE,
)
_HARDWARE = re.compile(
    r"\b(?:gpio|led|leds|header|chip|board|arduino|raspberry|esp32|breadboard|solder\w*|wire|"
    r"wired|jumper|gnd|vcc|3v3|5v|voltage|resistor|pull-?up|pull-?down|analog|digital|pwm|"
    r"sensor|motor|servo|connector|socket|mcu|microcontroller|connect(?:ed)? the|(?-i:Pin)\()\b",
    re.IGNORECASE,
)


def _then_to(text: str, end: int) -> bool:
    """Is the next word after *end* "to", or a sign ("changed -> X")?"""
    return any(
        _lower(chunk.group()) == "to" or not _ALNUM.search(chunk.group())
        for chunk in _chunks(text, end, limit=1)
    )


def _a_count_follows(text: str, end: int) -> bool:
    """Is the first word with a digit after *end* (within a few) a plain number?"""
    for chunk in _chunks(text, end, limit=4):
        core = _parts(chunk.group())[1]
        if any(c.isdigit() for c in core):
            return core.replace(",", "").replace(".", "").isdigit()
    return False


def _a_noun_follows(text: str, end: int) -> bool:
    """Is the word right after *end* a plain word the credential word
    describes ("secret ingredient"), not a sign, a link or a value?"""
    for chunk in _chunks(text, end, limit=1):
        lead, core, trail = _parts(chunk.group())
        plain = not lead and core.isalpha() and not (trail and _LINKING_SIGN.search(trail))
        return plain and _lower(core) not in _NOT_NOUNS
    return False


def _after(
    text: str, end: int, weak: bool = False, pin: bool = False, words_alone: bool = False
) -> Iterator[tuple[int, int]]:
    """The value after the credential word ending at *end* (a *weak* one
    needs a sign or a linking word before it; after a *pin* one, digits
    alone are a value where a word and a digit would be; *words_alone*, a
    passphrase of random words without a digit is one)."""
    if note := _NOTE.match(text, end):
        opening = note.start() + note.group().index("(") + 1
        inside = text[opening : note.end() - 1]
        encoding = _lower(inside.strip()) in _ENCODINGS  # "password (base64): X"
        if " " not in inside.strip() and looks_like_a_value(inside.strip()) and not encoding:
            yield _value(text, opening, note.end() - 1) or (opening, note.end() - 1)
            return  # "my password (X) is weak"
        end = note.end()
    ready, words, found, joined = not weak, 0, False, False
    linked = False  # ready because of a sign or a linking word, not only nearness
    after_comma = False
    past = end  # where the last marker taken ended: its words are not values
    after_marker = False  # the last value taken was a marker (redacted once already)
    place = False  # "password for the wifi X": whose or where, and no link
    headed = False  # the word heads a line ("[Wifi]"), its value on the next
    correcting = False  # a value found, then "no wait", "sorry", "it changed"
    last = ""  # the last word read
    for chunk in _chunks(text, end, limit=16):
        if chunk.start() < past:
            continue
        if chunk.group() == "\n":
            if found and _corrects(text, chunk.end()):
                correcting = True  # "password: X\nit changed, it is now Y"
                continue
            if words or found or text[chunk.end() : chunk.end() + 1] == "\n":
                return  # a line break ends the phrase, unless the word heads a line
            headed = (
                _HEADING.fullmatch(text, text.rfind("\n", 0, end) + 1, chunk.start()) is not None
            )
            # A heading links a weak word to a value alone under it: "### Wifi\n`X`".
            alone = _ALONE_ON_ITS_LINE.match(text, chunk.end()) is not None
            ready = linked = ready or (headed and alone)
            continue
        word = _lower(chunk.group())
        if found:
            # Another value only after "and", "or", "to", "/" or a comma:
            # "passwords: X and Y", not "X (5GHz network)"; or after a
            # correction: "X — no wait, it is Y now".
            core_word = _lower(_parts(chunk.group())[1])
            if core_word in _JOINS or word in _JOINS:
                joined = True
                continue
            if core_word in _CORRECTIONS or (correcting and core_word in _CORRECTING):
                correcting = joined = True
                continue
            if not core_word:
                continue  # a dash or an arrow between a value and what follows
            if not after_marker and _NOTE.fullmatch(" " + chunk.group().rstrip(",")):
                joined = joined or chunk.group().endswith(",")
                continue  # "X (home), Y (work)"
            if joined and (word in _LINKS or core_word in _QUALIFIERS):
                continue  # "X but now it's Y", "old X, new Y"
            value = _value(text, *chunk.span()) if joined else None
            if value is None or _names().search(chunk.group()):
                return  # "X and SLACK_TOKEN=Y": the next one has its own name
            yield value
            joined = text[value[1] : chunk.end()].startswith((",", "/"))
            after_marker = False
            continue
        if word in _LINKS or word.rstrip(":=") in _LINKS:  # "is", "is="
            if last in _OTHER_SUBJECTS:
                return  # "the keypad is by the door and the name is X": the name's value
            ready = linked = True
            continue
        lead, core, trail = _parts(chunk.group())
        if _COMMAND_OPENS.search(lead):
            return  # "DB_PASSWORD=$(cat /run/secrets/pw)": a command's output, none typed
        if lead:  # "password: X" links them, "password, X" too, "pw, bcrypt(12)" not
            linked = linked or _LINKING_SIGN.search(lead) is not None
            ready = linked or (
                ready and not lead.strip("*_`\"'" + _OWN_SIGNS + ("" if weak else ","))
            )
            ready = ready and not (lead.strip() == "," and "(" in core)
        if not core:
            continue
        start = chunk.start()
        if not ready and (glued := _GLUED.match(chunk.group())):
            words, ready, linked, start = words + 1, True, True, start + glued.end()
        marker = MARKER.match(text, start + lead.rfind("[")) if "[" in lead else None
        if ready and (marker := marker or MARKER.match(text, start)):
            found = True  # taken out already: its span touches a marker, so redaction drops it
            yield marker.span()
            past = marker.end()
            joined = text[past : past + 1] in (",", "/")
            after_marker = True
            continue
        if ready and _lower(core) in _QUALIFIERS:
            if _SENTENCE_END.search(trail):
                return  # "my pin is new. room 2114": the sentence said all it had
            continue
        stop = _run_end(text, start, chunk.end()) if linked else chunk.end()
        value = _value(text, start, stop) if ready else None
        if value is None and linked:  # from its first letter: "=correct horse 7 battery"
            begin = start + len(lead) if start == chunk.start() else start
            value = _passphrase(text, begin) or (
                _random_words(text, begin) if words_alone else None
            )
        if value is None and not weak and words == 0 and _lower(core) not in _COMPOUNDS:
            value = _titled_passphrase(text, chunk.start() + len(lead))  # "PIN Ocean Breeze 44"
        if value is None and not weak and words <= 3 and _ends_sentence(text, chunk.end()):
            # "password for wifi X", "пароль от почты X": a letter and a digit, at the
            # end; "password wifi X": no place word, so a sign or both cases too
            strong = place or _SIGN_NOT_DIGIT.search(core) or core.lower() != core != core.upper()
            shaped = _MIXED.fullmatch(core) or _SIGNED_WORDS.fullmatch(core)
            # "пин-код карты 1524", "PIN card 0817": a PIN's digits alone
            a_pin = pin and _PIN_DIGITS.fullmatch(core) is not None
            value = _value(text, start, chunk.end()) if (strong and shaped) or a_pin else None
        if value is not None and _LABEL.search(text, *value):
            return  # "pw and DB_PASS=X": the next credential, with a name of its own
        if value is not None and not names_an_amount(text, value[1]):
            found = True
            yield value
            joined = text[value[1] : value[1] + 1] in (",", "/")
            continue
        if words == 0 and _lower(core) in _COMPOUNDS and not _then_to(text, chunk.end()):
            return  # "password manager X", not "password reset to X"
        if _lower(core) in _ARTICLES and not trail and not linked and words == 0:
            continue  # "رمز عبور من X", "nenosiri langu ni X": my right after the word
        place = place or (words == 0 and not weak and _lower(core) in _FOLLOWS)
        last = _lower(core)
        if last not in _LINKS and last not in _ARTICLES:
            words += 1
        labelled = bool(trail and _LINKING_SIGN.search(trail))
        if labelled and (
            after_comma
            or headed
            or "{" in lead
            or "(" in lead
            or _names().fullmatch(core)
            or last in _OTHER_SUBJECTS
        ):
            # "getToken(user, {ttl: 3600})", "pw: none, ttl: 3600", "pw: ? PIN: 12",
            # "[Wifi]\nSSID: Home-5G", "wifi name: Casa_Sol": another key's value
            return
        after_comma = trail.endswith(",")
        ready = linked = _lower(core) in _LINKS or labelled
        if words > 5 or (_SENTENCE_END.search(trail) and not ready):
            return


_OTHER_SUBJECTS = _words("name names ssid username")
"""Words a linking word after them links to a value of their own: "the wifi's
name is Casa_Sol", "the door and the name is X" (round 29)."""
_HEADING = re.compile(r"[^\w\n]*[\w-]+[^\w\n?]*")
_ALONE_ON_ITS_LINE = re.compile(r"[ \t]*\S+[ \t]*(?:\n|\Z)")
"""A line of one word in markup, a heading: "[Wifi]", "## Router:"."""
_CORRECTIONS = _words("wait actually sorry oops correction mean meant scratch no nope typo")
"""Words that take back the value said before: "X — no wait, it is Y"."""
_CHANGES = _words("changed updated")
"""Words that say a value changed, which name the new one only through a
link ("it changed, it is now Y"; not "(changed 2024)")."""
_CORRECTING = _LINKS | _CHANGES | _words("no it i that one new the to not")
"""Words between a correction and the new value: "sorry, I meant Y"."""


def _corrects(text: str, start: int) -> bool:
    """Does the line at *start* take back or change what the line before
    said ("it changed, it is now Y")?"""
    return any(
        _lower(_parts(chunk.group())[1]) in _CORRECTIONS | _CHANGES
        for chunk in _chunks(text, start, limit=3)
        if chunk.group() != "\n"
    )


_LABEL = re.compile(
    r"[A-Za-z_]*(?:PASS(?:WORD|WD)?|PWD|TOKEN|SECRET|pass(?:word|wd)?|token|secret)[=:]"
)
"""A credential's name glued to its sign inside a chunk: ``DB_PASS=``."""
_SIGN_NOT_DIGIT = re.compile(r"[^\w\s]")
_MIXED = re.compile(r"(?=\S*[^\W\d_])(?=\S*\d)\S{3,}")
"""A letter and a digit in one word: "hunter2", not "204" or "wifi"."""
_PIN_NAME = re.compile(r"pin|пин")
"""The start of a word naming a PIN ("pincode", "pinkoden", "пин-код")."""
_PIN_DIGITS = re.compile(r"(?!(?:19|20)\d\d\Z)\d{4,8}")
"""A PIN: four to eight digits, not a year."""
_SIGNED_WORDS = re.compile(r"[^\W\d_]+(?:[#!@$%&*+][^\W\d_]+)+[#!@$%&*+]?")
"""Words joined by signs, which no language writes: "Pastel#de#nata"."""


def _ends_sentence(text: str, end: int) -> bool:
    """Does a sentence or line end right after *end*, or after words that
    only sign off ("... Fall93 спасибо", "... X (don't share)")?"""
    rest = text[end : end + 2]
    if rest in ("", "\n") or (rest[0] in "\n.!?" and rest[1:] in ("", " ", "\n")):
        return True
    return rest[0] in " \t.!?" and _SIGNING_OFF.match(text, end) is not None


THANKS_WORDS = str.split(
    "thx thanks ty lol pls please cheers ok okay merci danke gracias grazie obrigado obrigada "
    "dzięki dzieki tack спасибо teşekkürler tesekkurler sağol shukran شكرا dhanyavaad "
    "धन्यवाद arigato ありがとう 谢谢 "
    # Round 24's languages: Vietnamese, Indonesian, Korean, Greek, Hebrew,
    # Thai, Czech, Finnish ("_" stands for a space).
    "cảm_ơn cam_on camon makasih terima_kasih trims 고마워 고마워요 감사합니다 감사 "
    "ευχαριστώ ευχαριστω efharisto תודה toda ขอบคุณ khob_khun díky diky děkuji dekuji "
    "kiitos kiitti "
    # Round 25's: Hungarian and Russian as chats write them.
    "köszi kösz köszönöm koszi kosz koszonom спс пасиб спасибки "
    # Round 35's sign-offs: a laugh, "anyway" (a kiss, "x", is a letter
    # too: its readers take it only at a line's end).
    "haha hahaha hehe lmao anyway anyways"
)
"""Words of thanks a chat message ends with after a value, in its languages."""


def _thanks_pattern(words: Iterable[str]) -> str:
    """*words* as alternatives, longest first, "_" standing for a space."""
    ordered = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(word).replace("_", r"[ \t]+") for word in ordered)


_EMOJI = r"(?:[\U0001f300-\U0001faff\u2600-\u27bf]\ufe0f?)+"
"""Pictographs a chat message may end with ("👍", "🙏", "✌️")."""
THANKS = f"{_thanks_pattern(THANKS_WORDS)}|{_EMOJI}"
"""``THANKS_WORDS`` or a pictograph, as a pattern, for text read as typed."""
THANKS_FOLDED = f"{_thanks_pattern(_word(word) for word in THANKS_WORDS)}|{_EMOJI}"
"""``THANKS``, for text read folded."""
_SIGNING_OFF = re.compile(
    rf"[.!?]?(?:[ \t]+(?:{THANKS_FOLDED}|[:;]\)|:d|k\?"
    r"|\([^()\n]{1,30}\)))+[ \t]*[.!?]*[ \t]*(?:\n|\Z)",
    re.IGNORECASE,
)
"""Words of thanks, a smile or a pictograph, a note in brackets or chat's
"k?", up to the line's end (matched on folded text)."""


_CJK_RUN = re.compile(
    rf"\S{{0,100}}?(?=(?:{'|'.join(_word(w) for w in ('でした', 'です', 'だ'))}|[。、\uff0c]|\s|$))"
)
"""A value's run of CJK letters, up to what ends it (matched on folded text,
where "です" reads "てす")."""


def _run_end(text: str, start: int, end: int) -> int:
    """Where a value starting at *start* ends: its chunk's end, or for CJK
    letters the end of their run ("日本語パス2です": before "です")."""
    run = _CJK_RUN.match(text, start) if _CJK_CHAR.match(text, start) else None
    if run and not _CJK_COUNTERS.search(run.group()):  # "需要12个字符": a count
        return max(end, run.end())
    return end


_CJK_COUNTER = re.compile(r"[个個位字次天日月年分秒号號桁文回자글개번]")
_CJK_COUNTERS = re.compile(rf"\d\s*{_CJK_COUNTER.pattern}")
_PASSPHRASE = re.compile(r"(?:[^\W\d_][\w'-]{0,40}[ \t]+){2,5}\S{0,100}?\d\S{0,100}")
"""Several plain words and a last one holding a digit: "blue whale sings 7"."""


def _passphrase(text: str, start: int) -> tuple[int, int] | None:
    """A passphrase right after a sign or link, ending its clause."""
    match = _PASSPHRASE.match(text, start)
    if match is None:
        return None
    words = [_lower(w) for w in match.group().split()]
    last = words[-1].strip(".,;!?")
    if not last.isdigit() and _NOT_SECRET.fullmatch(last):
        return None  # "expired by 15%"
    ends = text[match.end() : match.end() + 1] in ("", "\n", " ", ".", ",", ";", "!", "?")
    glue = _LINKS | _JOINS | _FOLLOWS | _ARTICLES | _LENGTH_WORDS | _SPEAKING
    if not ends or any(w in glue for w in words) or names_an_amount(text, match.end()):
        return None
    if words[-2] in _DENYING:
        return None  # "blue whale not 2019": the value, and the one it is not
    end = match.end()
    # Plain words after the one with a digit, up to the end of the line: "tree house 42 blue".
    if (tail := _PASSPHRASE_TAIL.match(text, end)) and glue.isdisjoint(
        map(_lower, tail[0].split())
    ):
        end = tail.end()
    return _value(text, start, end) or (start, end)


def _random_words(text: str, start: int) -> tuple[int, int] | None:
    """Four to eight words right after a sign or link, ending their clause,
    all but one rarely said and none naming a credential: a passphrase of
    random words ("FileVault: saddle tuba otter falcon", round 29)."""
    match = _SPACED_WORDS.match(text, start)
    if match is None:
        return None
    words = match.group().split()
    if sum(map(known_words.frequent, words)) > 1 or any(map(a_credential_word, words)):
        return None
    if _lower(words[-1]) in _FOLLOWS:
        return None  # "sunshine sunshine sunshine now.": the sentence's word, not the phrase's
    return match.span()


_SPACED_WORDS = re.compile(
    r"[a-z]{3,9}(?:[ \t]+[a-z]{3,9}){3,7}"
    rf"(?=[.,;!?]*[ \t]*(?:\n|\Z|\(|(?:{THANKS_FOLDED})(?!\w)))",
    re.IGNORECASE,
)


_DENYING = _words("not instead anymore rather")
"""A correction's words before the value it denies: "blue whale not 2019"."""
_SPEAKING = _words("i i'd i'm i've i'll you we they he she guess think maybe probably")
"""Words of someone talking, which no passphrase holds: "I'd guess 8192"."""
_PASSPHRASE_TAIL = re.compile(r"(?:[ \t]+[^\W\d_][\w'-]{0,40}){1,3}(?=[.,;!?]*[ \t]*(?:\n|\Z))")


_TITLED = re.compile(r"(?:[A-Z][a-z]{2,}[ \t]+){1,4}\d{2,}(?=[.,;!?)]*(?:[ \t\n]|\Z))")
"""A passphrase as people write one: capitalised words, then a number
("Ocean Breeze 44"), said with or without a sign."""


def _titled_passphrase(text: str, start: int) -> tuple[int, int] | None:
    """A capitalised passphrase starting at *start*, if one does."""
    match = _TITLED.match(text, start)
    words = [_lower(word) for word in match.group().split()[:-1]] if match else []
    if match is None or words[0] in _NOT_NOUNS or not _CALENDAR.isdisjoint(words):
        return None  # "password Before March 15": a date
    return match.span()


def _titled_ending(text: str, chunks: list[re.Match[str]]) -> tuple[int, int] | None:
    """A capitalised passphrase ending with the last of *chunks* ("Ocean
    Breeze 44 is the new wifi password"), if one does."""
    end = chunks[-1].start() + sum(map(len, _parts(chunks[-1].group())[:2]))
    for chunk in chunks[:-1]:
        if (found := _titled_passphrase(text, chunk.start())) and found[1] == end:
            return found
    return None


_CALENDAR = _words(
    """
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday
    friday saturday sunday before after until since by due expires expired version update
    """
)


_GAELIC_NAMES = _words("pasfhocal phasfhocal facal-faire fhacal-faire")
_GAELIC_PREPOSITIONS = _words("ar le do faoi as ó de um thar roimh chuig air ri mu")
"""Before an Irish or Scottish Gaelic word for a password, prepositions,
not links: "Rinne mé dearmad ar mo phasfhocal" forgot it ("ar" folds to
the Swedish "är", "is")."""


def _before(
    text: str, start: int, not_links: frozenset[str] = frozenset()
) -> Iterator[tuple[int, int]]:
    """The value before the credential word starting at *start* (*not_links*
    are words of its language that only look like links)."""
    line_start = text.rfind("\n", max(0, start - _REACH), start) + 1
    chunks = list(_chunks(text, line_start, stop=start))[-10:]
    linked, words = False, 0
    for index in range(len(chunks) - 1, -1, -1):
        chunk = chunks[index]
        word = _lower(chunk.group())
        if (word in _LINKS or word == "as") and word not in not_links:  # "X as the password"
            linked = True
            continue
        lead, core, trail = _parts(chunk.group())
        if not core:
            linked = linked or _LINKING_SIGN.search(chunk.group()) is not None
            continue
        # An attribute's end is markup, not a sign: href="/account/password">Change
        signed = bool(trail and _LINKING_SIGN.search(trail) and not _ATTRIBUTE_END.match(trail))
        if chunk.end() == start and trail[-1:] in (";", "&", ","):
            return  # "Server=x;Password=X": the field before, not a value
        if linked or signed:
            glued = _GLUED.match(chunk.group())  # "bob:X (my login)": the password only
            value = _value(text, chunk.start() + (glued.end() if glued else 0), chunk.end())
            value = value or _titled_ending(text, chunks[max(0, index - 4) : index + 1])
            if value is not None and _a_status_code(text, *value):
                return  # "the endpoint returns 401 on a bad password"
            if value is not None:
                yield value
                yield from _joined_before(text, chunks[:index])
                return
            if signed:
                return  # a label: "Remember: password for the router"
        # A word after a linking word is one of the words between ("X is
        # what I use to log in"): the value must stand right before a link.
        if _lower(core) not in _ARTICLES:
            words += 1
            if words > 4:
                return
        # "X (my ssh login)": a note after a value names it.
        linked = bool(lead and (_LINKING_SIGN.search(lead) or "(" in lead))


def _joined_before(text: str, chunks: list[re.Match[str]]) -> Iterator[tuple[int, int]]:
    """Values joined to the one after *chunks* by "or", "and" or a comma:
    "try X or Y as the password", "X, Y and Z are my passwords"."""
    while chunks:
        # A comma glued to a value before it joins as "and" does ("In 2024,"
        # is a year, "Hi Bob," a name).
        joined = 2 if len(chunks) >= 2 and _lower(chunks[-1].group()) in _JOINS else 0
        joined = joined or (1 if _COMMA_JOINED.fullmatch(chunks[-1].group()) else 0)
        value = _value(text, *chunks[-joined].span()) if joined else None
        if value is None:
            return
        yield value
        chunks = chunks[:-joined]


_COMMA_JOINED = re.compile(rf"(?:{_MIXED.pattern}|{_SIGNED_WORDS.pattern}|{_PIN_DIGITS.pattern}),")
"""A value with a comma after it, in a list: "X, Y and Z are my passwords"."""
_IN_PLACEHOLDER = re.compile(r"(?:\$\{|\{\{\s*|%|@keychain:|@env:)[A-Za-z0-9_]*\Z")
"""Just before a word inside a placeholder: ``${DB_PASSWORD}``,
``@keychain:AC_PASSWORD``."""
_COMMAND_OPENS = re.compile(r"\$\(")
_IN_COMMAND = re.compile(r"\$\([^()\n]*\Z")
"""Just before a word inside a shell command whose output stands for a
value: ``$(cat /run/secrets/db_password)`` (not backticks: Markdown quotes
a typed password in them)."""
PLACEHOLDER = re.compile(
    r"\$\{?\w+(?::?[-=?][^}]*)?\}?|\$\(.*|%\w+%|\{\{\s*\w+\s*\}\}|<\w+>"
    r"|@(?:keychain|env):\w+"  # Apple's tools read it from the keychain or the environment
    r"|[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z]+)+"  # a name in code: vault_db_password
)
"""What stands for a value in a template, a shell line or code:
``${DB_PASSWORD}``, ``$(cat file)``, ``{{ vault_password }}``,
``@keychain:AC_PASSWORD`` (round 33)."""


def _value(text: str, start: int, stop: int) -> tuple[int, int] | None:
    """Where the value in ``text[start:stop]`` is, if it looks like one."""
    lead, core, trail = _parts(text[start:stop])
    if not looks_like_a_value(core) or _ATTRIBUTE.match(core):
        return None
    if PLACEHOLDER.fullmatch(core) and not random_words_joined(core):
        return None
    # Signs glued to the value's start are its own ("!!Boom9") unless they
    # mirror its end (markup: "~X~") or open a quote or bracket.
    own = len(lead) - len(lead.rstrip(_OWN_SIGNS))
    if own and not trail.startswith(lead[-own:]):
        lead = lead[:-own]
        core = text[start + len(lead) : start + len(lead) + own + len(core)]
    start += len(lead)
    stop = start + len(core)
    if _MID_SENTENCE_BANG.match(text, stop):
        stop += 1  # "Sommer2025! back then": the "!" is the value's, the sentence goes on
    return start, stop


_MID_SENTENCE_BANG = re.compile(r"!+(?= [a-z])")


_OWN_SIGNS = "!#$%&+@^"
"""Signs a value may start with; quotes, brackets and emphasis wrap it instead."""


def _parts(text: str) -> tuple[str, str, str]:
    """A chunk's *text* as its leading signs, its core and its trailing punctuation."""
    lead = _LEAD.match(text)
    lead_text = lead.group() if lead else ""
    rest = text[len(lead_text) :]
    if end := _VALUE_ENDS.search(rest, 1):
        rest = rest[: end.start()]  # "hunter2</p><p>Next", "hunter2&user=bob"
    core = rest
    if len(core) > 2 and core[-1] in "#*" and core[-2] in _QUOTES:
        core = core[:-1]  # "'4821'#": a keypad's sign after the quoted code
    while (tag := _END_TAG.search(core, max(0, len(core) - 42))) or core.endswith(
        tuple(_TRAIL_SIGNS)
    ):
        core = core[: tag.start()] if tag else core[:-1]  # "hunter2</b>", "hunter2."
    return lead_text, core, text[len(lead_text) + len(core) :]


def _chunks(
    text: str, start: int, limit: int = 64, stop: int | None = None
) -> Iterator[re.Match[str]]:
    """The chunks of *text* from *start*, within ``_REACH`` characters of it
    (a long run without spaces costs no more than a short one)."""
    end = min(len(text), start + _REACH) if stop is None else stop
    for count, chunk in enumerate(_CHUNK.finditer(text, max(start, end - _REACH), end)):
        if count >= limit:
            return
        yield chunk


def _ends_clause(text: str, end: int) -> bool:
    """Does the clause end after the credential word at *end* (words that
    only sign off may follow: "... are my backup codes ty")?"""
    if _SIGNING_OFF.match(text, end):
        return True
    for chunk in _chunks(text, end, limit=1):
        glued_cjk = _CJK_CHAR.match(chunk.group()) is not None  # "暗証番号です"
        if (chunk.start() > end or glued_cjk) and chunk.group() != "\n":
            word = _lower(_parts(chunk.group())[1])
            return not word or word in _FOLLOWS
        return not text[end].isalnum() if end < len(text) else True
    return True


def names_an_amount(text: str, end: int) -> bool:
    """Is the number ending at *end* followed by what it counts ("100 times",
    "12 characters", "2048 bits"), or a status code by what it means ("200 OK")?"""
    for chunk in _chunks(text, end, limit=1):
        word = _lower(_parts(chunk.group())[1])
        status = _STATUS_CODE.search(text, max(0, end - 4), end) is not None
        # "2025文字", "2025자": a number and what it counts
        counted = text[end - 1 : end].isdigit() and _CJK_COUNTER.match(chunk.group()) is not None
        return word in _LENGTH_WORDS or counted or (status and word in _STATUS_WORDS)
    return False


def _a_status_code(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` an HTTP status said as what something answers
    ("returns 401", "HTTP 403", "got a 500")?"""
    if _STATUS_CODE.fullmatch(text, start, end) is None:
        return False
    return _ANSWERING.search(text, max(0, start - 24), start) is not None


_ANSWERING = re.compile(
    r"\b(?:returns?|returned|returning|respond(?:s|ed)?(?:\s+with)?|status|http|error|got|gets|"
    r"throws?|gives?|sends?|answers?(?:\s+with)?)(?:\s+(?:a|an|the|code))?\s+\Z",
    re.IGNORECASE,
)
"""The words before an HTTP status that say it is one."""
_STATUS_CODE = re.compile(r"(?<!\d)[1-5]\d\d\Z")
_STATUS_WORDS = _words(
    "ok created accepted found moved redirect bad unauthorized forbidden not conflict gone "
    "internal service gateway too payment method request timeout no partial continue"
)
"""The first word of what an HTTP status says: "200 OK", "404 Not Found"."""


def plainly_no_secret(value: str) -> bool:
    """Is *value* a time, date, amount, unit, standard's name, column type or address?"""
    return _NOT_SECRET.fullmatch(value) is not None


_TYPED_FOR = ("password", "passwd", "passcode", "passphrase", "pincode")
_LEET = str.maketrans("5043@$1", "soaeasi")
"""Digits and signs typed for letters: "pa55w0rd"."""
_NOT_TYPOS = frozenset(
    str.split(
        "passport passports passover passwords passed passes passing passage passages passer "
        "passers passive passion pasta pastry pastor paste pasted"
    )
)


@cache
def _a_typo(word: str) -> bool:
    """A word two slips or fewer from "password" ("paswrod", "psswd",
    "passowrd") or one from "passcode" and its kin, and no other word."""
    word = word.translate(_LEET)
    if not word.startswith("p"):
        return _slips(word, "password") <= 1  # "oassword"
    if word in _NOT_TYPOS or not word.startswith(("pa", "ps", "pi")):
        return False
    return _slips(word, "password") <= 2 or any(_slips(word, name) <= 1 for name in _TYPED_FOR)


def _slips(typed: str, meant: str) -> int:
    """Optimal string alignment distance: letters left out, added, changed
    or swapped with the next."""
    rows = [list(range(len(meant) + 1))]
    for i, char in enumerate(typed, 1):
        row = [i]
        for j, wanted in enumerate(meant, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (char != wanted)))
            if i > 1 and j > 1 and char == meant[j - 2] and typed[i - 2] == wanted:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _trie(words: set[str]) -> str:
    """*words* as one alternation sharing their beginnings ("pass(?:word|code)"):
    a word's start tries the few letters that begin one, not each word; a
    longer word first, as a list sorted by length would."""
    if not words:
        return "(?!)"
    ends = "" in words
    by_first: dict[str, set[str]] = {}
    for word in words - {""}:
        by_first.setdefault(word[0].casefold(), set()).add(word)
    branches = []
    for first in sorted(by_first):
        group = by_first[first]
        lead = min(group)[0]
        rests = {word[1:] for word in group}
        if len({word[0] for word in group}) > 1:  # letters one in case only
            branches += [re.escape(word) for word in sorted(group, key=len, reverse=True)]
            continue
        branches.append(re.escape(lead) + _trie_rest(rests))
    body = "|".join(branches)
    return f"(?:{body})?" if ends else f"(?:{body})"


def _trie_rest(rests: set[str]) -> str:
    """The rest of the words after a shared letter: nothing, or a trie."""
    if rests == {""}:
        return ""
    return _trie(rests)


@cache
def _names() -> re.Pattern[str]:
    def fold_all(words: list[str]) -> str:
        return _trie({folded(word.replace("_", " "))[0] for word in words})

    return re.compile(
        rf"(?<![^\W\d_])(?<![!#$%&+@^~/.])(?<!\w\()(?:(?P<login>{_LOGINS})|{_PHRASES}"
        rf"|(?:{fold_all(_INFLECTED_STEMS)})[^\W\d_]{{0,6}}|{fold_all(_NAMES)}"
        rf"|(?P<weak>{_WEAK_NAMES}|{fold_all(_WEAK_WORDS)})"
        r"|(?P<typo>p[a-z0-9@$]{3,9}|[a-oq-z]assw[a-z]{1,5}))"
        rf"(?:s|['\u2019]s)?(?!\w)"
        rf"|(?:{fold_all(_NAMES_WITHOUT_SPACES)})",
        re.IGNORECASE,
    )
