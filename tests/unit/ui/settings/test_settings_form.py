"""The generic settings form on a small model of every kind of field it edits
(and some it leaves out), edited through its widgets as a user would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, TypeVar

import pytest
from pydantic import BaseModel, ConfigDict, Field, field_validator
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)
from pytestqt.qtbot import QtBot

from desktop.core.base.settings import ChatSettings
from desktop.ui.settings.form import INT_LIMIT, SettingsForm, clean_message, plain_words

W = TypeVar("W", bound=QWidget)


class Sample(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(True, description="Whether it runs.")
    max_tries: int = Field(5, ge=1, le=10, description="Tries before giving up.")
    budget: int = Field(100, gt=0, description="No upper bound.")
    share: float = Field(0.5, gt=0.0, le=1.0, description="A share of something.")
    nickname: str = Field("moon", min_length=1, description="What to call it.")
    speed: Literal["slow", "fast"] = Field("slow", description="How fast.")
    band: tuple[float, float] = Field((0.2, 0.8), description="Low then high.")
    paths: tuple[str, ...] = Field((), description="Not editable here.")
    secret_mode: bool = Field(False, description="Skipped by the caller.")

    @field_validator("band")
    @classmethod
    def _in_order(cls, band: tuple[float, float]) -> tuple[float, float]:
        if not band[0] < band[1]:
            raise ValueError("the low end comes first")
        return band


@pytest.fixture
def form(qtbot: QtBot) -> Iterator[SettingsForm[Sample]]:
    made: SettingsForm[Sample] = SettingsForm(Sample, Sample(), skip=("secret_mode",))
    qtbot.addWidget(made)
    made.show()
    yield made


def editor(form: SettingsForm[Sample], name: str, kind: type[W]) -> W:
    widget = form.rows[name].editor.widget
    assert isinstance(widget, kind), type(widget)
    return widget


def band_spins(form: SettingsForm[Sample]) -> tuple[QDoubleSpinBox, QDoubleSpinBox]:
    low, high = form.rows["band"].editor.widget.findChildren(QDoubleSpinBox)
    return low, high


def test_words_and_messages() -> None:
    assert plain_words("max_reply_tokens") == "Max reply tokens"
    assert clean_message("Input should be less than or equal to 200") == (
        "Should be less than or equal to 200."
    )
    assert clean_message("Value error, the band is wrong") == "The band is wrong."
    assert clean_message("String should match pattern '^a$'") == "Should match pattern '^a$'."


def test_one_row_per_editable_field_in_order_with_its_help(form: SettingsForm[Sample]) -> None:
    assert list(form.rows) == [
        "enabled",
        "max_tries",
        "budget",
        "share",
        "nickname",
        "speed",
        "band",
    ]
    row = form.rows["max_tries"]
    assert row.label.text() == "Max tries"
    assert row.help.text() == "Tries before giving up." and row.help.isVisible()
    assert row.editor.widget.toolTip() == "Tries before giving up."
    assert row.editor.widget.accessibleName() == "Max tries"
    assert isinstance(form.rows["enabled"].editor.widget, QCheckBox)
    assert isinstance(form.rows["budget"].editor.widget, QSpinBox)
    assert isinstance(form.rows["share"].editor.widget, QDoubleSpinBox)
    assert isinstance(form.rows["nickname"].editor.widget, QLineEdit)
    speed = editor(form, "speed", QComboBox)
    assert [speed.itemText(i) for i in range(speed.count())] == ["slow", "fast"]
    assert [spin.accessibleName() for spin in band_spins(form)] == ["Band, low", "Band, high"]
    assert not any(label.text() == "Paths" for label in form.findChildren(QLabel))


def test_the_arrows_stop_at_the_bounds_but_typing_past_them_says_why(
    qtbot: QtBot, form: SettingsForm[Sample]
) -> None:
    tries = editor(form, "max_tries", QSpinBox)
    tries.setValue(10)
    tries.stepUp()
    assert tries.value() == 10  # the upper bound
    editor(form, "budget", QSpinBox).setValue(1)
    editor(form, "budget", QSpinBox).stepDown()
    assert editor(form, "budget", QSpinBox).value() == 1  # gt=0: one is the least
    budget = form.rows["budget"].editor.widget
    assert isinstance(budget, QSpinBox) and budget.maximum() == INT_LIMIT

    tries.selectAll()
    with qtbot.waitSignal(form.changed):
        qtbot.keyClicks(tries, "12")
    assert tries.value() == 12
    assert form.value() is None
    assert form.errors() == {"max_tries": "Should be less than or equal to 10."}
    problem = form.rows["max_tries"].problem
    assert problem.isVisible() and problem.text() == "Should be less than or equal to 10."

    tries.setValue(7)
    assert form.errors() == {} and not problem.isVisible()
    value = form.value()
    assert value is not None and value.max_tries == 7


def test_field_validators_run_on_the_whole_group(form: SettingsForm[Sample]) -> None:
    low, high = band_spins(form)
    low.setValue(0.9)
    assert form.errors() == {"band": "The low end comes first."}
    assert form.value() is None and form.is_dirty()
    high.setValue(0.95)
    value = form.value()
    assert value is not None and value.band == (0.9, 0.95)


def test_every_kind_of_editor_gives_the_models_value(form: SettingsForm[Sample]) -> None:
    editor(form, "enabled", QCheckBox).setChecked(False)
    editor(form, "share", QDoubleSpinBox).setValue(0.25)
    editor(form, "nickname", QLineEdit).setText("sun")
    editor(form, "speed", QComboBox).setCurrentIndex(1)
    assert form.value() == Sample(enabled=False, share=0.25, nickname="sun", speed="fast")
    assert form.changed_fields() == ["enabled", "share", "nickname", "speed"]

    editor(form, "nickname", QLineEdit).setText("")
    assert form.errors() == {"nickname": "Should have at least 1 character."}
    assert form.changed_fields() == ["enabled", "share", "nickname", "speed"]


def test_changing_a_value_back_is_not_a_change(form: SettingsForm[Sample]) -> None:
    tries = editor(form, "max_tries", QSpinBox)
    tries.setValue(6)
    assert form.is_dirty()
    tries.setValue(5)
    assert not form.is_dirty() and form.value() == Sample()


def test_loading_a_value_is_not_an_edit(qtbot: QtBot, form: SettingsForm[Sample]) -> None:
    editor(form, "max_tries", QSpinBox).setValue(12)
    with qtbot.assertNotEmitted(form.changed):
        form.set_value(Sample(max_tries=3, speed="fast"))
    assert editor(form, "max_tries", QSpinBox).value() == 3
    assert editor(form, "speed", QComboBox).currentText() == "fast"
    assert not form.is_dirty() and form.errors() == {}
    assert not form.rows["max_tries"].problem.isVisible()


def test_reloading_under_edits_keeps_them(form: SettingsForm[Sample]) -> None:
    editor(form, "max_tries", QSpinBox).setValue(8)
    form.set_value(Sample(nickname="sun"), keep_edits=True)
    assert editor(form, "nickname", QLineEdit).text() == "sun"
    assert form.value() == Sample(nickname="sun", max_tries=8)
    assert form.original() == Sample(nickname="sun")


def test_edit_to_puts_values_in_as_edits(qtbot: QtBot) -> None:
    form: SettingsForm[Sample] = SettingsForm(Sample, Sample(max_tries=9, nickname="sun"))
    qtbot.addWidget(form)
    with qtbot.waitSignal(form.changed):
        form.edit_to(Sample())
    assert form.is_dirty() and form.value() == Sample()
    assert editor(form, "nickname", QLineEdit).text() == "moon"


def test_an_untouched_value_is_never_rounded(qtbot: QtBot) -> None:
    form: SettingsForm[Sample] = SettingsForm(Sample, Sample(share=0.123456))
    qtbot.addWidget(form)
    share = editor(form, "share", QDoubleSpinBox)
    assert share.decimals() == 4 and share.text() == "0.1235"
    editor(form, "max_tries", QSpinBox).setValue(6)
    value = form.value()
    assert value is not None and value.share == 0.123456


def test_the_wheel_turns_only_a_focused_spin_box(qtbot: QtBot, form: SettingsForm[Sample]) -> None:
    tries = editor(form, "max_tries", QSpinBox)
    tries.clearFocus()
    wheel = QWheelEvent(
        QPointF(5, 5),
        QPointF(tries.mapToGlobal(QPoint(5, 5))),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(tries, wheel)
    assert tries.value() == 5 and not form.is_dirty()


def test_a_real_group_skips_nothing_it_can_edit(qtbot: QtBot) -> None:
    form: SettingsForm[ChatSettings] = SettingsForm(ChatSettings, ChatSettings())
    qtbot.addWidget(form)
    assert list(form.rows) == list(ChatSettings.model_fields)
    language = form.rows["language"].editor.widget
    assert isinstance(language, QLineEdit)
    language.setText("e!")
    assert form.errors()["language"].startswith("Should match pattern")
