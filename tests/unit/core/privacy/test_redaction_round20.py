"""Round 20: secrets said without the words earlier rounds read, family by
family (a card's security code, a value spelled out, a lock or a key safe's
code, a security question's answer, a hint that gives the answer away), and
sentences of the same look that hold none."""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact


def _assert_gone(text: str, *values: str) -> None:
    redacted = redact(text).text
    for value in values:
        assert value not in redacted, redacted


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("visa 4539 1488 0343 6467, expires 03/28, cvv 731", "731"),
        ("the card for the vet: 5425233430109903 09/27 482", "482"),
        ("amex 371449635398431 exp 05/29 CID 7712", "7712"),
        ("the joint card 5555 5555 5555 4444, back code 212", "212"),
        ("card 4242-4242-4242-4242\nexpiry: 01/29\ncvc: 318", "318"),
        ("the CVC is 559 if the site asks", "559"),
        ("billing: 4111111111111111 / 07/31 / 226", "226"),
        ("cvv2: 044", "044"),
    ],
)
def test_a_cards_security_code_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("spelling it for you: t u l i p 7 1", "t u l i p 7 1"),
        ("the wifi is K. e. s. t. r. e. l. 4. 4. #", "K. e. s. t. r. e. l. 4. 4. #"),
        ("she read it out as P, e, b, b, l, e, 3, 0", "P, e, b, b, l, e, 3, 0"),
        ("the laptop is O-t-t-e-r and then 7-7", "O-t-t-e-r"),
        ("the shed code is two six one eight", "two six one eight"),
        ("my card pin: seven, three, nine, nine", "seven, three, nine, nine"),
        ("the padlock combination is nine, twenty-two, fifteen", "nine, twenty-two, fifteen"),
        ("the old safe opens right 31, left 8, right 22", "right 31, left 8, right 22"),
        ("my email password is marigold, no capitals, then 64, then a dollar", "64"),
    ],
)
def test_a_value_spelled_out_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "where is the CVV on an amex, front or back?",
        "my zip code 9021 is on the card's bill",
        "the flight on 10/26 had 851 passengers",
        "one, two, three, four, let's go!",
        "pick one of the options A, B, C or D",
        "count with me: one two three four five",
        "turn left at the church, then right, then left again",
        "we won 3-1, then 2-0 the week after",
        "the version is 1.2.3.4 and the build is a-b-c-d",
    ],
)
def test_sentences_of_the_same_look_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the spiral lock for the kids' scooters is 739", "739"),
        ("I changed the D-lock to 4418", "4418"),
        ("the key box at mum's (for the nurse) is 2716", "2716"),
        ("the keysafe for the dog walker is 0904", "0904"),
        ("garden gate 5620", "5620"),
        ("garage door keypad (the old one) 3381", "3381"),
        ("voicemail: 6640", "6640"),
        ("allarm code 8830 for the shop", "8830"),
        ("lockr combo 22-6-31", "22-6-31"),
        ("das Zahlenschloss am Keller ist 4471", "4471"),
        ("het hangslot van de schuur heeft code 2903", "2903"),
        ("koden till porten \u00e4r 7712", "7712"),
        ("the storage unit takes the code 6034 after hours", "6034"),
        ("'Code 482913 to confirm the transfer of 80.00 EUR. Never share it.'", "482913"),
    ],
)
def test_the_code_of_what_a_code_opens_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "let's meet at the gate, 1430",
        "our flight leaves from gate 114",
        "the dial lock has 3 rings, 1,000 settings in all",
        "locker 218 is mine, 219 is Tom's",
        "the safe cost 1500 euros",
        "the lock is 100 years old",
        "zip code 90210, area code 415",
        "the error code 1603 came back",
        "the Tor port is 9050 and time slot 1400 works",
        "the monitor: 1920 by 1080",
    ],
)
def test_numbers_beside_locks_and_codes_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the security question at the credit union is first pet, I put Biscuit", "Biscuit"),
        ("security answer for 'town you were born in' is Little Harbour", "Little Harbour"),
        ("recovery question 'name of your first teacher' = Mrs Okoye", "Mrs Okoye"),
        ("secret Q: childhood best friend. A: Tomasz 1998", "Tomasz 1998"),
        (
            "what was the name of your first bicycle? Red Rocket - for the pension site",
            "Red Rocket",
        ),
        ("memorable place for the savings account: Tenby harbour", "Tenby harbour"),
        ("memorable date for the building society: 22/06/1985", "22/06/1985"),
        ("the utility company wants a secret word, mine is marmalade", "marmalade"),
        ("memorable word for phone banking is kipper77", "kipper77"),
        ("I answer every security question with blue walrus 19", "blue walrus 19"),
        ("insurance security questions: pet = Pippin, street = Larch Lane", "Larch Lane"),
    ],
)
def test_a_security_questions_answer_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the hint on the desktop is 'first bike + year', i.e. Raleigh2003", "Raleigh2003"),
        ("the hint I chose was 'dog + door number', which means Pepper41", "Pepper41"),
        ("hint for the NAS: 'honeymoon city' -> Lisbon", "Lisbon"),
        ("the hint reads 'school mascot' which is Hornets88", "Hornets88"),
        ("hint: her birthday twice. answer: 09110911", "09110911"),
    ],
)
def test_a_password_that_its_hint_gives_away_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "security questions are pointless for Americans, everything is public",
        "my security question answers are all made up, on purpose",
        "the building society wanted my memorable word and my mind went blank",
        "I set up security questions for Gmail yesterday",
        "my memorable word is easy to guess, I should change it",
        "the memorable date is our anniversary",
        "answer all security questions with nonsense",
        "I left a password hint for Sarah",
        "the hint for the crossword is 'capital of France', so Paris",
        "my laptop's password hint is no help, it only says Hi",
        "what was your first car? mine was a Fiat Panda",
    ],
)
def test_talk_about_security_questions_and_hints_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Hulu: Gl4cier908", "Gl4cier908"),
        ("ok the tablet: Lisbon_1977", "Lisbon_1977"),
        ("youtube \u2192 QuietHarbor41", "QuietHarbor41"),
        ("Deezer T@ngerine77", "T@ngerine77"),
        ("home desktop Wombat2291", "Wombat2291"),
        ("for the grandparents: hulu Maple_Otter!, max Comets#12", "Maple_Otter!"),
        ("mastercard 7730", "7730"),
        ("my bike: 4409", "4409"),
        ("for the spare phone it's 5518", "5518"),
        ("for Jamie's building, 7714 then press the bell", "7714"),
        ("the photo archive one is Kestrel#22", "Kestrel#22"),
        ("the one for the family NAS is Qu4rtz771", "Qu4rtz771"),
    ],
)
def test_a_value_after_what_it_is_for_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "Happy Birthday Emma1990",
        "I love Summer2024",
        "see you at Euro2024",
        "flight BA2490, seat 14C",
        "iPhone15 or MacBook2019, which to sell?",
        "python 3.12, numpy 2.1",
        "for the party, 2000 people came",
        "the winner one is the blue car",
    ],
)
def test_names_and_numbers_of_everyday_things_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("why does the council site reject Heron2008? too short maybe", "Heron2008"),
        ("it keeps saying I can't reuse mangotree44", "mangotree44"),
        ("is parsnip1987 too weak for the bank?", "parsnip1987"),
        ("would you pick Otter.Lantern# or Glasgow_1971 for my email?", "Glasgow_1971"),
        ("the tablet won't take Juniper2016 since the update", "Juniper2016"),
        ("the ATM rejected 6624 twice, I'm sure it's right", "6624"),
        ("the gate keypad doesn't accept 8071 anymore", "8071"),
    ],
)
def test_a_value_tried_or_weighed_when_getting_in_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "call 1 2 3 4 later about the password",
        "the ATM took 20 minutes to give me cash",
        "I tried 2000 times and it still fails, the card is fine",
        "they don't accept Windows10 laptops at the exam",
    ],
)
def test_talk_about_trouble_getting_in_is_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("authenticator for the payroll portal \u2014 MFZWIZLTOQ4TEMZV", "MFZWIZLTOQ4TEMZV"),
        ("authy backup for Steam: p4ka 7wnz qe3m 2hvr", "p4ka 7wnz qe3m 2hvr"),
        ("the 2-step text the hosting panel gave me NBSWY3DPO5XXE3DE", "NBSWY3DPO5XXE3DE"),
    ],
)
def test_an_authenticators_setup_key_is_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "the read was ACGTTGCAACGTTGCAACGT, nothing to do with my authenticator",
        "MAX_CONNECTIONS_PER_HOST is set in the 2fa service config",
        'token = os.environ["GITHUB_TOKEN"]',
        "const secret = process.env.STRIPE_SECRET;",
        "password: ${{ secrets.SMTP_PASSWORD }}",
        "db_password = <put it here>",
        'if not token: raise RuntimeError("token missing")',
        '"password": "**********"',
        "git clone git@gitlab.com:team/backend.git",
        "olvid\u00e9 mi contrase\u00f1a, \u00bfc\u00f3mo la restablezco?",
    ],
)
def test_code_and_placeholders_where_a_value_would_stand_are_kept(text: str) -> None:
    assert redact(text).text == text


SEED_25 = (
    "acid brave cloud dune ember fable gravel hatch ivory jolly kettle lunar maple nectar "
    "orbit pepper quill raven saddle timber umber velvet walnut yonder zephyr"
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"my monero wallet seed {SEED_25}", SEED_25),
        (
            "backup codes for the school email (two are crossed out already): 4821 9932, 1187 2206",
            "1187 2206",
        ),
        ("wify at the caravan plum1994", "plum1994"),
        ("our household Disney is Tulip1990&", "Tulip1990"),
        ("Kim and I both use Harbour2012 for the family iCloud", "Harbour2012"),
        ("de poortcode van het complex is 3318", "3318"),
        ("key safe 6620, spare keys inside", "6620"),
        ("the new one for the gym app is `Parsley2014`", "Parsley2014"),
        ("he said \"it's CedarMoss88, don't write it down\"", "CedarMoss88"),
    ],
)
def test_values_said_in_other_ways_are_taken_out(text: str, value: str) -> None:
    _assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    [
        "the 'Summer2024' campaign starts Monday",
        'df = open("data2019.csv")',
        "our household has 2 kids and 1 cat",
        "we both use Firefox for the family laptop",
        "our key safe is rusty, 3 years old",
    ],
)
def test_quotes_and_shared_things_without_a_value_are_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_passphrase_after_its_label_goes_though_two_of_its_words_are_frequent() -> None:
    # Found by round 16's property test: "drift" and "raven" are frequent words.
    assert redact("pw glacier drift raven").text == "pw [redacted password]"


def test_an_assignment_after_a_word_keeps_its_name() -> None:
    # Found by the second attack's property test once a label and a value
    # with no sign between were read (round 20).
    assert redact("export PASSWORD:aaa!aaa0").text == "export PASSWORD:[redacted password]"
