"""Round 30: what round 29 left (a short code of capitals after
"remember" taken out, a Wi-Fi network's name taken with its password, a
password spelled with a dash or a sign among its letters kept), and the
families of ``tests.secret_families_round30``.
"""

from __future__ import annotations

import pytest

from desktop.core.privacy.redaction import redact
from tests.redacted import assert_gone, assert_kept


@pytest.mark.parametrize("text", ["remember B12 ok", "remember M25, it is quicker", "remember A4!"])
def test_a_short_code_of_capitals_to_remember_is_kept(text: str) -> None:
    assert_kept(text)


def test_a_password_to_remember_still_goes() -> None:
    assert_gone("help me remember Kx7pQ2, it's the new work one", "Kx7pQ2")


@pytest.mark.parametrize(
    "text",
    [
        "wifi name: Casa_Sol, password: Vento#882",
        "wifi: Casa_Sol, pw: Vento#882",
        "Wi-Fi: Casa_Sol | password: Vento#882",
        "network Casa_Sol, key: Vento#882",
    ],
)
def test_a_networks_name_stays_and_its_password_goes(text: str) -> None:
    assert_gone(text, "Vento#882")
    assert "Casa_Sol" in redact(text).text


def test_a_networks_value_with_no_password_after_it_still_goes() -> None:
    assert_gone("wifi: Vento#882, thanks", "Vento#882")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("it's spelled k i w i - m a n g o - 3 for the email account", "k i w i - m a n g o - 3"),
        ("it's spelled k_i_w_i_-_m_a_n_g_o_-_3 for the email", "k_i_w_i_-_m_a_n_g_o_-_3"),
        ("it's spelled P_a_s_t_e_l_#_d_e_#_n_a_t_a for the email", "P_a_s_t_e_l_#_d_e_#_n_a_t_a"),
        ("it's spelled P.a.s.t.e.l.#.d.e for the bank", "P.a.s.t.e.l.#.d.e"),
        ("my password is k i w i - m a n g o", "k i w i - m a n g o"),
    ],
)
def test_a_password_spelled_with_a_dash_or_a_sign_in_it_is_taken_out(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    "text",
    ["options A - B - C - D", "N.A.S.A. and 1.1.1.1", "it's spelled S-M-I-T-H, like the singer"],
)
def test_letters_listed_or_an_acronym_are_kept(text: str) -> None:
    assert_kept(text)
