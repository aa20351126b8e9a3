"""What a sixth attack found in redaction: values taken with the text
around them (a second secret's name, the sentence's sign, a CSV row),
ordinary lines taken for secrets, and phrasings that named their
credential yet kept the value.  The attack's own words; the generated
families are in ``test_redaction_phrasings``."""

from __future__ import annotations

import pytest

from desktop.core.redaction import redact


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "password: Xr9!tq2z and SLACK_TOKEN=Yy5#zz",
            "password: [redacted password] and SLACK_TOKEN=[redacted password]",
        ),
        ("DB_PASS=Xr9!tq2z; ok", "DB_PASS=[redacted password]; ok"),
        ("DB_PASS=Xr9!tq2z. ok", "DB_PASS=[redacted password]. ok"),
        (
            "pwd was changed to Xr9!tq2z yesterday",
            "pwd was changed to [redacted password] yesterday",
        ),
        (
            "site,user,password\ngmail,bob,Xr9!tq2z\nbank,alice,Qq7#mm",
            "site,user,password\ngmail,bob,[redacted password]\nbank,alice,[redacted password]",
        ),
        ("name,token\nbob,Xr9!tq2z", "name,token\nbob,[redacted password]"),
        (
            "<password><![CDATA[Xr9!tq2z]]></password>",
            "<password><![CDATA[[redacted password]]]></password>",
        ),
        ('PASSWORD: Final = "Xr9!tq2z"', 'PASSWORD: Final = "[redacted password]"'),
        (
            "ConnectionStrings__Db=Server=x;Password=Xr9!tq2z;",
            "ConnectionStrings__Db=Server=x;Password=[redacted password];",
        ),
        (
            "my old Yahoo password was Sommer2025! back then",
            "my old Yahoo password was [redacted password] back then",
        ),
        (
            "docker run -e DB_PASSWORD=Hx7#kQ2m -p 5432:5432 postgres:16",
            "docker run -e DB_PASSWORD=[redacted password] -p 5432:5432 postgres:16",
        ),
        (
            "CREATE USER bob IDENTIFIED BY 'Ab3'x9z';",
            "CREATE USER bob IDENTIFIED BY '[redacted password]';",
        ),
    ],
)
def test_only_the_value_goes(text: str, expected: str) -> None:
    assert redact(text).text == expected
    assert redact(expected).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "I passed 2048 km on the bike today",
        "Time passed: 1500 ms",
        "the bill passed 312 to 120 in the house",
        "How many passwords do you reuse? I'd guess 8192",
        "tokens = tokenizer.encode(text)[:2048]",
        "cache_key = f'user:{uid}:120'",
        "pin = Pin(25, Pin.OUT)",
        "token budget: 4096, used 3100",
        "the login is bob@example.com",
        "Ticket PASS-312 tracks the password bug",
        "Pass 1: 120 ms, pass 2: 95 ms",
        "a,b,c\n1,2,3",
    ],
)
def test_ordinary_lines_stay(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "Pass for the NAS: \u6c49\u5b57ab9x",
        "mon mdp: \u6c49\u5b57ab9x",
        "password \u00bb \u6c49\u5b57ab9x",
        "acess token Xr9!tq2z",
        "access tokn Xr9!tq2z",
        "api-kee: Xr9!tq2z",
        "secert: Xr9!tq2z",
        "tokken: Xr9!tq2z",
        "export GITHUB_PAT=Xr9!tq2z",
        '<property name="password" value="Xr9!tq2z"/>',
        "CREATE USER bob IDENTIFIED BY 'Xr9!tq2z';",
        "SET PASSWORD FOR 'bob'@'localhost' = 'correct horse 7 battery';",
        "Authorization: Token Xr9!tq2z",
        "gh secret set DEPLOY_KEY --body Xr9!tq2z",
        "ssh-keygen -p -N Xr9!tq2z -f id_ed25519",
        "net use Z: \\\\nas\\share Xr9!tq2z /user:bob",
        "u/p: bob/Xr9!tq2z",
        "sandi wifi Xr9!tq2z",
        "\u043c\u0456\u0439 \u043f\u0430\u0440\u043e\u043b\u044c #Xr9!tq2z\nok",
        "password: [redacted password] / Xr9!tq2z",
        "passwords: [redacted password], Xr9!tq2z",
        "export AWS_SECRET_ACCESS_KEY=correct horse battery 9",
        "pass4wifi: Xr9!tq2z",
        "pass is 007391",
    ],
)
def test_round_6s_phrasings_lose_their_value(text: str) -> None:
    redacted = redact(text).text
    for piece in ("ab9x", "Xr9!", "tq2z", "battery", "007391"):
        assert piece not in redacted


def test_a_list_of_passwords_after_notes_reads_the_same_twice() -> None:
    once = redact("passwords: x7 (home), Zz8#yy (work)").text
    assert redact(once).text == once
