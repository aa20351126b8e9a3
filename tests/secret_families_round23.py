"""Round 23's held-out families of secrets, none of them a template of the
earlier generators: credentials written in Polish, Swedish, Turkish,
Russian, Japanese, Chinese, Arabic or Hindi (native script or romanised);
in code (Python, JavaScript, Go, shell, SQL, a command line); in a file
pasted whole (docker-compose, a Kubernetes Secret, terraform, ``.pgpass``,
``.npmrc``, ``pip.conf``, a Wi-Fi QR string, a password manager's CSV
export); as an API key of a shape no rule names; split over two lines;
behind a label in leet or misspelt; dictated to a phone ("capital H hunter
two"); in chat shorthand ("pw hunter2 thx").

Like round 22's, a family is a list of templates, the even ones the half
rules may be written on ("in"), the odd ones held out ("out"); a trial
fills one with drawn values.  ``NEGATIVES`` are everyday sentences of the
same look that hold none.  Counted by ``python -m tests.bench.secret_families``.
"""

# Turkish, Japanese and Chinese are written as people type them: a dotless
# i and a full-width colon are their letters, not look-alikes.
# ruff: noqa: RUF001

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable, Iterator, Sequence

from tests.secret_families import Trial
from tests.secret_families_round22 import (
    _ALNUM,
    _DIGIT_WORDS,
    _drawn,
    _github,
    _gitlab,
    _hex,
    _npm,
    _password,
    _pin,
    _plain_password,
    drawn_trials,
    halved,
)

_HEX = "0123456789abcdef"
_WORDS = str.split("hunter kettle falcon mango pebble otter walrus lantern cactus")


def _b64_password(rng: random.Random) -> str:
    """A password as a Kubernetes Secret's ``data`` holds it: base64."""
    return base64.b64encode(_plain_password(rng).encode()).decode()


def _spoken(rng: random.Random) -> str:
    """A password dictated to a phone: a word, its capital said, digits said."""
    word = rng.choice(_WORDS)
    digits = " ".join(_DIGIT_WORDS[int(d)] for d in str(rng.randint(2, 99)))
    return rng.choice(
        [
            f"capital {word[0].upper()} {word} {digits}",
            f"{word} {digits} all lowercase",
            f"{word} with a capital {word[0].upper()} then {digits}",
            f"{word} {digits} exclamation mark",
            f"{word} then the number {digits}",
        ]
    )


_NEW_SHAPES: tuple[Callable[[random.Random], str], ...] = (
    lambda rng: "gsk_" + _drawn(rng, _ALNUM, 52),  # Groq
    lambda rng: "r8_" + _drawn(rng, _ALNUM, 37),  # Replicate
    lambda rng: "lin_api_" + _drawn(rng, _ALNUM, 40),  # Linear
    lambda rng: "ntn_" + _drawn(rng, string.digits, 11) + _drawn(rng, _ALNUM, 35),  # Notion
    lambda rng: f"PMAK-{_drawn(rng, _HEX, 24)}-{_drawn(rng, _HEX, 34)}",  # Postman
    lambda rng: f"xkeysib-{_drawn(rng, _HEX, 64)}-{_drawn(rng, _ALNUM, 16)}",  # Brevo
    lambda rng: f"pat{_drawn(rng, _ALNUM, 14)}.{_drawn(rng, _HEX, 64)}",  # Airtable
    lambda rng: f"tskey-auth-{_drawn(rng, _ALNUM, 17)}-{_drawn(rng, _ALNUM, 33)}",  # Tailscale
    lambda rng: "glsa_" + _drawn(rng, _ALNUM, 32) + "_" + _drawn(rng, _HEX, 8),  # Grafana
    lambda rng: "figd_" + _drawn(rng, _ALNUM + "-_", 40),  # Figma
    lambda rng: "pcsk_" + _drawn(rng, _ALNUM, 5) + "_" + _drawn(rng, _ALNUM, 64),  # Pinecone
    lambda rng: f"lsv2_pt_{_drawn(rng, _HEX, 32)}_{_drawn(rng, _HEX, 10)}",  # LangSmith
    lambda rng: "pplx-" + _drawn(rng, _ALNUM, 48),  # Perplexity
    lambda rng: "nfp_" + _drawn(rng, _ALNUM, 36),  # Netlify
    lambda rng: (
        "dp.st." + _drawn(rng, "abcdefghijklmnopqrstuvwxyz", 8) + "." + _drawn(rng, _ALNUM, 40)
    ),
    lambda rng: "sntrys_eyJ" + _drawn(rng, _ALNUM, 60),  # Sentry
)


def _new_shape(rng: random.Random) -> str:
    return rng.choice(_NEW_SHAPES)(rng)


def _short_key(rng: random.Random) -> str:
    """A key without a prefix: 32 hex (Datadog, Mailgun's new ones) or 32 letters and digits."""
    return _drawn(rng, _HEX, 32) if rng.random() < 0.5 else _drawn(rng, _ALNUM, 32)


_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "pw": _password,
    "ppw": _plain_password,
    "pin": _pin,
    "hex": _hex,
    "github": _github,
    "gitlab": _gitlab,
    "npm": _npm,
    "b64pw": _b64_password,
    "shape": _new_shape,
    "short": _short_key,
    "spoken": _spoken,
}
_ENDINGS = ["", "", ".", " :)", " thx", " dzięki", " tack", " спасибо", " (не говори никому)"]

LANGUAGES = [
    "moje hasło to {pw}",
    "hasło do wifi: {pw}",
    "haslo do banku {pw}",
    "PIN do karty to {pin}",
    "mitt lösenord är {pw}",
    "lösenordet till wifi är {pw}",
    "losenord: {pw}",
    "pinkoden är {pin}",
    "şifrem {pw}",
    "wifi şifresi: {pw}",
    "sifre: {pw}",
    "kartın şifresi {pin}",
    "мой пароль {pw}",
    "пароль от вайфая: {pw}",
    "parol: {pw}",
    "пин-код карты {pin}",
    "パスワードは{pw}です",
    "Wi-Fiのパスワード：{pw}",
    "暗証番号は{pin}",
    "密码是{pw}",
    "wifi密码：{pw}",
    "mima shi {pw}",
    "كلمة المرور هي {pw}",
    "كلمة السر: {pw}",
    "kalimat al sir {pw}",
    "मेरा पासवर्ड {pw} है",
    "पासवर्ड: {pw}",
    "wifi ka password {pw} hai",
    "mera pin {pin} hai",
    "lösen: {pw}",
]
CODE = [
    'conn = psycopg2.connect(host="db", user="{user}", password="{ppw}")',
    "const apiKey = '{hex}';",
    'db, err := sql.Open("mysql", "{user}:{ppw}@tcp(127.0.0.1:3306)/app")',
    "export API_TOKEN={hex}",
    "CREATE USER '{user}'@'%' IDENTIFIED BY '{ppw}';",
    "ALTER USER {user} WITH PASSWORD '{ppw}';",
    "mysql -h db.local -u {user} --password={ppw} app",
    "mysql -u{user} -p'{ppw}'",
    "psql postgresql://{user}:{ppw}@localhost:5432/app",
    "PGPASSWORD={ppw} psql -U {user} -h db.local app",
    "git remote set-url origin https://{github}@github.com/ana/app.git",
    "git clone https://oauth2:{gitlab}@gitlab.com/team/app.git",
    "requests.get(url, auth=('{user}', '{ppw}'))",
    "auth: {{ user: '{user}', pass: '{ppw}' }}",
    "docker login -u {user} -p {ppw} registry.example.com",
    'os.Setenv("DB_PASS", "{ppw}")',
    "sshpass -p '{ppw}' ssh {user}@10.0.0.7",
    'props.put("mail.smtp.password", "{ppw}");',
    "echo '{ppw}' | sudo -S apt update",
    "$env:DB_PASSWORD = '{ppw}'",
]
FILES = [
    "services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_PASSWORD={ppw}",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {b64pw}",
    'resource "aws_db_instance" "db" {{\n  username = "{user}"\n  password = "{ppw}"\n}}',
    "db.example.com:5432:app:{user}:{ppw}",
    "//registry.npmjs.org/:_authToken={npm}",
    "[global]\nindex-url = https://{user}:{ppw}@pypi.example.com/simple",
    "WIFI:T:WPA;S:HomeNet;P:{ppw};;",
    "name,url,username,password\nNetflix,https://netflix.com,{user},{ppw}",
    "stringData:\n  DB_PASSWORD: {ppw}",
    'variable "db_password" {{\n  default = "{ppw}"\n}}',
    "localhost:*:*:postgres:{ppw}",
    "//npm.pkg.github.com/:_authToken={github}",
    "extra-index-url = https://__token__:{hex}@gitlab.example.com/api/v4/simple",
    "WIFI:S:Cafe Luna;T:WPA;P:{pw};H:false;;",
    "Netflix,https://www.netflix.com,{user},{ppw},",
    "    environment:\n      REDIS_PASSWORD: {ppw}\n      REDIS_PORT: 6379",
]
API_KEYS = [
    "groq key {shape}",
    "here you go: {shape}",
    "my key is {shape}",
    "{shape} <- new key",
    "token: {shape}",
    "key={shape}",
    "datadog api key {short}",
    "the key for the weather api is {short}",
    "mistral: {short}",
    "API key {short}",
    "replicate token {shape} (rotates monthly)",
    "{shape}",
]
SPLIT = [
    "the password is\n{pw}",
    "wifi password:\n\n{pw}",
    "ok the router password\n{pw}\nthanks",
    "my new pin\n{pin}",
    "here's the login for netflix\nuser: {user}\n{pw}",
    "password for the shared drive is\n   {pw}",
    "the door code is\n{pin}",
    "password (don't share):\n{pw}",
]
LABELS = [
    "p4ssw0rd: {pw}",
    "my p4ssword is {pw}",
    "P@ssword = {pw}",
    "passw0rd {pw}",
    "pasword for the bank is {pw}",
    "pswd: {pw}",
    "passwd={pw}",
    "pword {pw}",
    "pw: {pw}",
    "Pasword: {pw}",
    "pwrd - {pw}",
    "paswd {pw}",
    "the pass is {pw}",
    "PASSWD: {pw}",
    "pw:{pw}",
    "passwrd {pw}",
]
VOICE = [
    "password is {spoken}",
    "the wifi password is {spoken}",
    "my password is {spoken}",
    "password {spoken}",
    "the password for netflix is {spoken}",
    "set the password to {spoken}",
]
SHORTHAND = [
    "pw {pw} thx",
    "wifi pw = {pw}",
    "ur pw is {pw}",
    "pass 4 netflix: {pw}",
    "nf pw {pw} lol",
    "pw for the wifi {pw} k?",
    "new pw {pw} dont tell",
    "pin 4 the card {pin}",
    "code 4 the door {pin}",
    "wifi: {pw} ty",
    "pw? {pw}",
    "psw {pw} btw",
]


def trials(family: str, draws: int, seed: int = 0) -> Iterator[Trial]:
    """*draws* trials of each of *family*'s templates."""
    return drawn_trials(
        "round23", family, FAMILIES[family], draws, seed, _SLOTS, _ENDINGS, _watched
    )


def _watched(slot: str, value: str) -> tuple[str, ...]:
    """What of *value* must be gone: a dictated password's word and its
    digits said, any other value whole."""
    if slot != "spoken":
        return (value,)
    words = value.split()
    said = " ".join(w for w in words if w in _DIGIT_WORDS)
    return (next(w for w in words if w in _WORDS), said)


FAMILIES: dict[str, Sequence[str]] = {
    "language": LANGUAGES,
    "code": CODE,
    "files": FILES,
    "apikey": API_KEYS,
    "split": SPLIT,
    "label": LABELS,
    "voice": VOICE,
    "short": SHORTHAND,
}

NEGATIVES: dict[str, Sequence[str]] = {
    "language": [
        "moje hasło to samo co zawsze",
        "hasło do wifi jest na routerze",
        "zapomniałam hasła do banku",
        "mitt lösenord är för kort",
        "lösenordet till wifi står på routern",
        "jag bor på Storgatan 12",
        "şifremi unuttum",
        "wifi şifresi değişti",
        "toplantı saat 14:30'da",
        "мой пароль слишком простой",
        "пароль от вайфая на роутере",
        "встреча в 15:00 в кабинете 204",
        "パスワードを忘れました",
        "会議は10時からです",
        "密码忘了",
        "我的电话号码是 138 0013 8000",
        "نسيت كلمة المرور",
        "الاجتماع الساعة 3",
        "मेरा पासवर्ड भूल गया",
        "wifi ka password kya hai?",
        "mera ghar 12 number gali mein hai",
        "haslo jest za krótkie",
        "sifre yanlış",
        "kod pocztowy 00-950",
    ],
    "code": [
        'conn = psycopg2.connect(host="db", user="app", password=os.environ["DB_PASSWORD"])',
        "const apiKey = process.env.API_KEY;",
        'db, err := sql.Open("mysql", dsn)',
        "export API_TOKEN=$(cat ~/.token)",
        "CREATE USER 'app'@'%';",
        "ALTER USER app WITH LOGIN;",
        "mysql -h db.local -u app -p app",
        "psql postgresql://localhost:5432/app",
        "git remote set-url origin https://github.com/ana/app.git",
        "git clone git@gitlab.com:team/app.git",
        "requests.get(url, timeout=10)",
        "docker login registry.example.com",
        'os.Setenv("DB_HOST", "localhost")',
        "ssh ana@10.0.0.7 -p 2222",
        'props.put("mail.smtp.port", "587");',
        "echo 'hello world' | wc -c",
        "for i in range(10): print(i)",
        "SELECT user, host FROM mysql.user;",
    ],
    "files": [
        "services:\n  db:\n    image: postgres:16\n    ports:\n      - 5432:5432",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  LOG_LEVEL: debug",
        'resource "aws_instance" "web" {\n  ami = "ami-0c55b159cbfafe1f0"\n}',
        "db.example.com:5432",
        "registry=https://registry.npmjs.org/",
        "[global]\nindex-url = https://pypi.org/simple",
        "WIFI network HomeNet is down",
        "name,url,username,password\n",
        "stringData:\n  LOG_LEVEL: debug",
        'variable "region" {\n  default = "eu-central-1"\n}',
        "12:30:45",
        "date,amount,category\n2024-03-01,12.50,food",
        "Netflix,Stranger Things,2016,Drama",
        "    environment:\n      TZ: Europe/Stockholm",
    ],
    "apikey": [
        "groq is fast",
        "here you go: the report is attached",
        "my key is in my coat pocket",
        "the commit is 3f9a2c1b7e4d5f60a1b2c3d4e5f6a7b8c9d0e1f2",
        "token ring was a network standard",
        "key=value pairs are easy to parse",
        "datadog api key rotation is on the list",
        "the key for the bike lock is lost",
        "mistral is a wind in the south of France",
        "API key management is hard",
        "uuid 550e8400-e29b-41d4-a716-446655440000",
        "md5 d41d8cd98f00b204e9800998ecf8427e of the empty file",
    ],
    "split": [
        "the password is\nin the drawer",
        "wifi password:\n\non the router",
        "ok the router password\nis the same as last year\nthanks",
        "my new pin\narrived by post",
        "here's the login for netflix\nuse the family account",
        "the door code is\nchanging on monday",
        "password (don't share):\nask me in person",
        "meeting notes\n3 items",
    ],
    "label": [
        "p4ssw0rd is a terrible password",
        "my p4ssword is too short",
        "passw0rd reset done",
        "pasword for the bank expired",
        "pswd reset link sent",
        "pword of the day",
        "pw: see 1password",
        "Pasword: forgot it",
        "the pass is closed in winter",
        "PASSWD: required",
        "passwrd field is red",
        "paswd check failed",
    ],
    "voice": [
        "password is the name of the dog",
        "the wifi password is on the fridge",
        "my password is all lowercase",
        "password two factor is on",
        "the password for netflix is shared with mum",
        "set the password to something long",
        "capital of France is Paris",
        "the score was two one",
    ],
    "short": [
        "pw reset thx",
        "wifi pw = same as before",
        "ur pw is wrong lol",
        "pass 4 netflix expired",
        "nf tonight lol",
        "pin 4 the map pls",
        "code 4 the door is on the fridge",
        "wifi: down again ty",
        "new pw tomorrow",
        "psw is due btw",
    ],
}


def negatives(family: str) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """*family*'s everyday texts: each one's half, its text and what it follows."""
    return halved(NEGATIVES[family])
