"""Values tied to a credential word in ways no phrasing names (round 9 of
the attacks on redaction): taken by ``credential_sweep``; and what is no
secret beside such a word stays."""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact

VALUES_AROUND_THE_WORD = [
    # several values, the second after "and", a comma or a correction
    ("my passwords are Wallaby42! and Pepper#12", ["Wallaby42", "Pepper#12"]),
    ("PINs: 4821 and Pa55", ["4821", "Pa55"]),
    ("the PIN is 4821, sorry, it's Pixel77!", ["4821", "Pixel77"]),
    ("my passwords are Sunset Boulevard 12 and Kr4k3n!", ["Kr4k3n"]),
    # corrections and changes
    ("My old password was Xy7!ab but I changed it to Kr4k3n!", ["Xy7!ab", "Kr4k3n"]),
    ("the password isn't Pass1234 anymore, it's Xy7!ab", ["Pass1234", "Xy7!ab"]),
    ("the password I gave you is outdated, use Xy7!ab instead", ["Xy7!ab"]),
    ("the old PIN stopped working, try 4821", ["4821"]),
    ("The wifi password? Hold on. Let me check. Ok it's Xy7!ab", ["Xy7!ab"]),
    ("my old passcode was 112233, my new one is 445566", ["112233", "445566"]),
    # a clause between the word and the value
    ("I got the password wrong, it's actually 9731", ["9731"]),
    ("yes I have a password for that, 9731", ["9731"]),
    ("Here's my password if you need it Xy7!ab", ["Xy7!ab"]),
    ("would Xy7!ab work as a password?", ["Xy7!ab"]),
    ("PIN no. 4821", ["4821"]),
    ("password for work Xy7!ab / password for home Kr4k3n!", ["Xy7!ab", "Kr4k3n"]),
    ("passwords: gmail Wallaby42!, bank Kr4k3n!", ["Wallaby42", "Kr4k3n"]),
    # lists under a heading or above a footer
    ("Passwords\nGmail - Xy7!ab\nBank - Kr4k3n!", ["Xy7!ab", "Kr4k3n"]),
    ("PINs:\nvisa 4821\nmastercard 6053", ["4821", "6053"]),
    ("my pins\nvisa 4821\nmastercard 6053", ["4821", "6053"]),
    ("pins: debit 1357, credit 2468", ["1357", "2468"]),
    ("PASSWORDS TO REMEMBER\n\namazon Xy7!ab\nebay Kr4k3n!", ["Xy7!ab", "Kr4k3n"]),
    ("gmail: Xy7!ab\nfacebook: Kr4k3n!\n^ these are my passwords", ["Xy7!ab", "Kr4k3n"]),
    ("1) Amazon - Xy7!ab\n2) eBay - Kr4k3n!\n(my passwords)", ["Xy7!ab", "Kr4k3n"]),
    ("email Xy7!ab / bank Kr4k3n! (passwords)", ["Xy7!ab", "Kr4k3n"]),
    ("work laptop\nXy7!ab\nphone\nKr4k3n!\n(passcodes)", ["Xy7!ab", "Kr4k3n"]),
    # a PIN digit by digit, a date, a value set after "it's"/"went with" (round 11)
    ("sorry I meant the PIN is 7 3 1 9", ["7 3 1 9"]),
    ("card PIN 2, 5, 3, 8 don't tell anyone", ["2, 5, 3, 8"]),  # round 13
    ("the door code is 2 - 4 - 1 - 2", ["2 - 4 - 1 - 2"]),
    ("the password to the school portal is 31/08/1994", ["31/08/1994"]),
    ("we set the alarm PIN to 31.08.94 after the break-in", ["31.08.94"]),
    ("ok so about my password. I never change it. It's tiger7.", ["tiger7"]),
    ("my bank made me change my password, went with 4093", ["4093"]),
    ("ah no the garage PIN changed, it's 4093 now", ["4093"]),
    ("I think it was 4093? the password I mean", ["4093"]),
    ("passwords: Pelican!42 (home) 6152 (work)", ["Pelican!42", "6152"]),
    # a passphrase goes whole, not its first word
    ("password for the laptop is Rain on Tuesday 4ever", ["Tuesday 4ever"]),
    ("your password has been reset to purple elephant 12 dance.", ["elephant 12 dance"]),
    # tables
    ("Account\tPIN\nVisa\t4821\nAmex\t6053", ["4821", "6053"]),
    ("Device   PIN\niPad     4821\nPhone    6053", ["4821", "6053"]),
]


@pytest.mark.parametrize(("text", "values"), VALUES_AROUND_THE_WORD)
def test_a_value_around_the_word_goes(text: str, values: list[str]) -> None:
    once = redact(text).text
    assert [value for value in values if value in once] == []
    assert redact(once).text == once  # read again, nothing more goes


@pytest.mark.parametrize(
    ("earlier", "text", "value"),
    [
        ("the router password is Xx-1111", "nvm it's Xy7!ab", "Xy7!ab"),
        ("the PIN is 1234", "wrong one, it's 4821", "4821"),
        ("What's the wifi password at the cabin?", "it's Cb7!wf", "Cb7!wf"),
        ("Could you share the password?", "sure, 9731", "9731"),
    ],
)
def test_a_value_in_the_next_message_goes(earlier: str, text: str, value: str) -> None:
    assert value not in redact(text, after=[earlier]).text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("ticket SUP-2291: password not accepted", "SUP-2291"),
        ("ticket #4411: PINs not accepted", "#4411"),
        ("2024-03-11 09:30 WARN password reset requested, id=INC-40921", "id=INC-40921"),
        ("the username is kate88, the password I'll give you later", "kate88"),
        ("user ID is 20451, password is the usual", "20451"),
        ("It asks for a PIN after 1024 failed fingerprint tries", "1024"),
        ("How many passwords do you reuse? I'd guess 8192", "8192"),
        ("My password manager has 1200 entries", "1200"),
        ("I changed my password in 2019", "2019"),
        ("Call the PIN hotline at 0800 300 400", "0800 300 400"),
        ("they gave me a 4-digit PIN and a 12-character password", "12-character"),
        ("hash the password with SHA-256? no, use argon2", "argon2"),
        ("the wifi password: see the router (5GHz network)", "5GHz"),
        ("My password manager costs $3/month.", "$3/month"),
        ("\ube44\ubc00\ubc88\ud638\ub294 10\uc790\ub9ac \uc774\uc0c1", "10\uc790\ub9ac"),
        ("docker run -e DB_PASSWORD=Hx7#kQ2m -p 5432:5432 postgres:16", "5432:5432 postgres:16"),
        # products, places and references beside the word (round 10)
        ("the PIN pad on my Pixel8 keeps freezing after the update", "Pixel8"),
        ("my password manager crashed because of the Fitbit Sense2", "Sense2"),
        ("I was typing my PIN while the Win11 update ran", "Win11"),
        ("I changed my password yesterday. My flight is BA2490 on Friday.", "BA2490"),
        ("my username is kate88 and I forgot my password", "kate88"),
        ("@mike_2000 do you know the wifi password", "@mike_2000"),
        ("the password policy is in report_2024.pdf", "report_2024.pdf"),
        ("call 1-800-275-2273 if you forget your Apple ID password", "1-800-275-2273"),
        ("password reset done for user id 88231", "88231"),
        ("the password reset took me to room B204", "B204"),
        # dates, digits and passphrase tails that are not the value (round 11)
        ("I changed my password on 31/08/2024", "31/08/2024"),
        ("password expires 01/09/2025", "01/09/2025"),
        ("call 1 2 3 4 later about the password", "1 2 3 4"),
        ("my password is Xk9!aa for the 2 accounts", "for the 2 accounts"),
        ("my password is Xk9!aa since 2019", "since 2019"),
        # a verb before "as" is no value (round 13: "work" was taken)
        ("why doesn't it work as my netflix password?", "work as"),
        ("the old one still works as the wifi password", "works as"),
    ],
)
def test_what_is_no_secret_beside_the_word_stays(text: str, kept: str) -> None:
    assert kept in redact(text).text
