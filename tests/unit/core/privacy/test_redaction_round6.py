"""What a sixth attack found in redaction: values taken with the text
around them (a second secret's name, the sentence's sign, a CSV row),
ordinary lines taken for secrets, and phrasings that named their
credential yet kept the value.  The attack's own words; the generated
families are in ``test_redaction_phrasings``."""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact


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
        '<entry key="db.password">Xr9!tq2z</entry>',
        "Here's the token you need: Xr9!tq2z",
        "Steam password changed -> Xr9!tq2z",
    ],
)
def test_round_6s_phrasings_lose_their_value(text: str) -> None:
    redacted = redact(text).text
    for piece in ("ab9x", "Xr9!", "tq2z", "battery", "007391"):
        assert piece not in redacted


def test_a_list_of_passwords_after_notes_reads_the_same_twice() -> None:
    once = redact("passwords: x7 (home), Zz8#yy (work)").text
    assert redact(once).text == once


@pytest.mark.parametrize(
    "key",
    [
        "sbp_c7d9944c7357ee6be6a73b82f926dcdef5ca4bb6",
        "sk_331335e05f3ce897f47ddfb2c3b9e208f28eaf82da96657f",
        "hvs.dqIMjIn23qgZWtKI7GaKfFId",
        "pul-1b67d52eb066244fb11efe6a19c68ccab044c981",
        "npg_hGiyol3LgI4S",
        "na1QtkcQGcpnVPcMSFY4sY9u.9odues.h_Q6s4tZdWDPx7AWrzLU1gFbc6M",
        "AGE-SECRET-KEY-1VKD82LZUEZH8XQDRUDJUFV4RVPAXT84J9Z38CVHKPZM30E66HJ946WFT5S",
    ],
)
def test_more_providers_keys_go_without_a_word(key: str) -> None:
    assert key[-10:] not in redact(f"here: {key} ok").text


def test_a_webhook_keeps_its_address_and_loses_its_token() -> None:
    token = "M6TWOrdDwj8L16z3Z0zJe7BnhBKPVF22dJM90mZn8W5ImXNE5np5xnUZRe" + "x" * 10
    redacted = redact(f"https://discord.com/api/webhooks/363896227567817032/{token}").text
    assert redacted == "https://discord.com/api/webhooks/[redacted api key]"


def test_the_next_credentials_name_is_no_value_of_the_one_before() -> None:
    redacted = redact("(blue-fox-19) = router pw and DB_PASS=p4$$-W0rd").text
    assert redacted == "([redacted password]) = router pw and DB_PASS=[redacted password]"


def test_a_command_after_net_use_is_read_the_same_twice() -> None:
    once = redact(
        r"net use Z: \\nas\share last&first3 /user:bob; Mom's iPad passcode = p4$$-W0rd"
    ).text
    assert "Mom's" in once
    assert redact(once).text == once
