"""A form for one group of settings, built from its pydantic model.

Each field the form knows how to edit gets a row, in declaration order: its
name in plain words, an editor chosen by its type (a check box, a spin box
stepping within the field's bounds, a line of text, a list of choices, a
pair of numbers), and its description as help.  Every change is checked at
once by the model itself (``model_validate`` of the whole group, so field
validators such as the time zone's run too); a value it refuses shows why
under its field, and the form is invalid until it is fixed: ``value()``
never returns anything the model would not accept.

The spin boxes let any number be typed and only their arrows stop at the
bounds: a number out of bounds is then refused with the model's reason
instead of keys that silently do nothing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from typing import Any, Generic, Literal, Protocol, TypeVar, get_args, get_origin

import annotated_types
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QFocusEvent, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from desktop.ui.widgets.direction_guard import guarded
from desktop.ui.widgets.labels import named
from desktop.ui.widgets.visibility import set_shown

INT_LIMIT = 2**31 - 1
"""A spin box holds a C int: the upper step bound of an unbounded int field."""
FLOAT_LIMIT = 1e9
"""What a float spin box can hold; its step bound when the field has none."""
_SPIN_WIDTH_CHARS = 11
_TEXT_MAX_WIDTH = 420
_TEXT_WIDTH = 320
_LABEL_SHARE = 1 / 3
"""Labels take at most this share of the form's width; longer ones wrap."""
_LABEL_MIN_WIDTH = 110
_FIELD_GAP = 14

M = TypeVar("M", bound=BaseModel)

Suggestions = Callable[[], Sequence[str]]
"""Values a text field offers as the user types, asked for the first time it is used."""


def plain_words(name: str) -> str:
    """A field name in plain words: ``max_reply_tokens`` → ``Max reply tokens``."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def clean_message(message: str) -> str:
    """Pydantic's *message* without its boilerplate, as a sentence."""
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    message = re.sub(r"^(Input|String|Tuple|Value) should", "Should", message)
    message = message[:1].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


class _Editor(Protocol):
    """The widget editing one field, with its value as the model takes it."""

    widget: QWidget

    def get(self) -> object: ...

    def put(self, value: object) -> None: ...

    def on_edit(self, slot: Callable[[], None]) -> None: ...


class _NoWheelUnlessFocused(QObject):
    """Scrolling a page over a spin box or a list of choices scrolls the page;
    only a focused one turns with the wheel (no setting changed by accident)."""

    def eventFilter(self, watched: QObject, event: object) -> bool:
        if (
            isinstance(event, QWheelEvent)
            and isinstance(watched, QWidget)
            and not watched.hasFocus()
        ):
            event.ignore()  # the scroll area beneath takes it
            return True
        return False


def _bounds(info: FieldInfo) -> tuple[float | None, float | None, bool, bool]:
    """The field's lower and upper bounds, and whether each is exclusive."""
    low: float | None = None
    high: float | None = None
    low_open = high_open = False
    for rule in info.metadata:
        if isinstance(rule, annotated_types.Ge):
            low = float(rule.ge)  # type: ignore[arg-type]  # a number: the field is one
        elif isinstance(rule, annotated_types.Gt):
            low, low_open = float(rule.gt), True  # type: ignore[arg-type]  # as above
        elif isinstance(rule, annotated_types.Le):
            high = float(rule.le)  # type: ignore[arg-type]  # as above
        elif isinstance(rule, annotated_types.Lt):
            high, high_open = float(rule.lt), True  # type: ignore[arg-type]  # as above
    return low, high, low_open, high_open


def _spin_width(spin: QAbstractSpinBox) -> int:
    """One width for every spin box (their hints follow their huge ranges)."""
    return spin.fontMetrics().horizontalAdvance("0" * _SPIN_WIDTH_CHARS) + 36


class _IntSpin(QSpinBox):
    """Any int may be typed; the arrows step within [low, high]."""

    def __init__(self, low: int, high: int) -> None:
        super().__init__()
        self.low, self.high = low, high
        self.setRange(-INT_LIMIT, INT_LIMIT)
        self.setFixedWidth(_spin_width(self))

    def stepBy(self, steps: int) -> None:
        self.setValue(min(self.high, max(self.low, self.value() + steps * self.singleStep())))

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        if self.value() < self.high:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        if self.value() > self.low:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        return flags


class _FloatSpin(QDoubleSpinBox):
    """Any number may be typed; the arrows step within [low, high]."""

    def __init__(self, low: float, high: float, decimals: int, step: float) -> None:
        super().__init__()
        self.low, self.high = low, high
        self.setDecimals(decimals)
        self.setRange(-FLOAT_LIMIT, FLOAT_LIMIT)
        self.setSingleStep(step)
        self.setFixedWidth(_spin_width(self))

    def stepBy(self, steps: int) -> None:
        self.setValue(min(self.high, max(self.low, self.value() + steps * self.singleStep())))

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        if self.value() < self.high:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        if self.value() > self.low:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        return flags


def _decimals(value: float) -> int:
    """Enough decimals to show *value* as stored (2 to 4)."""
    if not math.isfinite(value):
        return 2
    fraction = f"{value:.6f}".rstrip("0").partition(".")[2]
    return min(4, max(2, len(fraction)))


def _float_spin(info: FieldInfo, value: float) -> _FloatSpin:
    low, high, low_open, high_open = _bounds(info)
    decimals = _decimals(value)
    tick = 10.0**-decimals
    step = 0.05 if low is not None and high is not None and high - low <= 2 else 1.0
    return _FloatSpin(
        -FLOAT_LIMIT if low is None else low + (tick if low_open else 0.0),
        FLOAT_LIMIT if high is None else high - (tick if high_open else 0.0),
        decimals,
        step,
    )


class _BoolEditor:
    def __init__(self) -> None:
        self.box = QCheckBox()
        self.widget: QWidget = self.box

    def get(self) -> object:
        return self.box.isChecked()

    def put(self, value: object) -> None:
        self.box.setChecked(bool(value))

    def on_edit(self, slot: Callable[[], None]) -> None:
        self.box.toggled.connect(slot)


class _IntEditor:
    def __init__(self, info: FieldInfo) -> None:
        low, high, low_open, high_open = _bounds(info)
        self.spin = _IntSpin(
            -INT_LIMIT if low is None else math.floor(low) + (1 if low_open else 0),
            INT_LIMIT if high is None else math.ceil(high) - (1 if high_open else 0),
        )
        self.widget: QWidget = self.spin

    def get(self) -> object:
        return self.spin.value()

    def put(self, value: object) -> None:
        assert isinstance(value, int)
        self.spin.setValue(max(-INT_LIMIT, min(INT_LIMIT, value)))

    def on_edit(self, slot: Callable[[], None]) -> None:
        self.spin.valueChanged.connect(slot)


class _FloatEditor:
    def __init__(self, info: FieldInfo, value: float) -> None:
        self.spin = _float_spin(info, value)
        self.widget: QWidget = self.spin

    def get(self) -> object:
        return self.spin.value()

    def put(self, value: object) -> None:
        assert isinstance(value, int | float)
        self.spin.setValue(float(value))

    def on_edit(self, slot: Callable[[], None]) -> None:
        self.spin.valueChanged.connect(slot)


class _SuggestingLineEdit(QLineEdit):
    """A line of text that offers *suggestions*, read the first time it has focus
    (reading them may take a while: the zone database is a folder of files)."""

    def __init__(self, suggestions: Suggestions | None) -> None:
        super().__init__()
        self._suggestions = suggestions

    def sizeHint(self) -> QSize:
        # Room for an address or a zone name; narrower when the page is.
        return QSize(_TEXT_WIDTH, super().sizeHint().height())

    def focusInEvent(self, event: QFocusEvent) -> None:
        if self._suggestions is not None:
            completer = QCompleter(list(self._suggestions()), self)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
            self.setCompleter(completer)
            self._suggestions = None
        super().focusInEvent(event)


class _TextEditor:
    def __init__(self, suggestions: Suggestions | None) -> None:
        self.line = _SuggestingLineEdit(suggestions)
        self.line.setMaximumWidth(_TEXT_MAX_WIDTH)
        self.widget: QWidget = self.line

    def get(self) -> object:
        return self.line.text()

    def put(self, value: object) -> None:
        self.line.setText(str(value))

    def on_edit(self, slot: Callable[[], None]) -> None:
        self.line.textChanged.connect(slot)


class _ChoiceEditor:
    def __init__(self, choices: Sequence[object], words: Mapping[str, str]) -> None:
        self.combo = QComboBox()
        for choice in choices:
            self.combo.addItem(words.get(str(choice), str(choice)), choice)
        self.widget: QWidget = self.combo

    def get(self) -> object:
        return self.combo.currentData()

    def put(self, value: object) -> None:
        self.combo.setCurrentIndex(self.combo.findData(value))

    def on_edit(self, slot: Callable[[], None]) -> None:
        self.combo.currentIndexChanged.connect(slot)


class _PairEditor:
    """Two numbers, low then high, e.g. a band of similarities."""

    def __init__(self, info: FieldInfo, value: tuple[float, float]) -> None:
        finest = max(value, key=_decimals)  # both show as many decimals as it needs
        self.low = _float_spin(info, finest)
        self.high = _float_spin(info, finest)
        self.widget = QWidget()
        row = QHBoxLayout(self.widget)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.low)
        row.addWidget(QLabel("to"))
        row.addWidget(self.high)
        row.addStretch(1)

    def get(self) -> object:
        return (self.low.value(), self.high.value())

    def put(self, value: object) -> None:
        assert isinstance(value, tuple)
        self.low.setValue(float(value[0]))
        self.high.setValue(float(value[1]))

    def on_edit(self, slot: Callable[[], None]) -> None:
        self.low.valueChanged.connect(slot)
        self.high.valueChanged.connect(slot)


def _choice_words(info: FieldInfo) -> Mapping[str, str]:
    """How the field names its choices (``json_schema_extra={"choices": {value: words}}``),
    e.g. "Follow the system" for "system"; a choice not named shows its value."""
    extra = info.json_schema_extra
    words = extra.get("choices") if isinstance(extra, dict) else None
    if not isinstance(words, dict):
        return {}
    return {str(value): str(said) for value, said in words.items()}


def _editor_for(info: FieldInfo, value: object, suggestions: Suggestions | None) -> _Editor | None:
    """The editor for a field of this type, or None if the form cannot edit it."""
    kind: Any = info.annotation
    if kind is bool:
        return _BoolEditor()
    if kind is int:
        return _IntEditor(info)
    if kind is float:
        assert isinstance(value, int | float)
        return _FloatEditor(info, float(value))
    if kind is str:
        return _TextEditor(suggestions)
    if get_origin(kind) is Literal:
        return _ChoiceEditor(get_args(kind), _choice_words(info))
    if get_origin(kind) is tuple and get_args(kind) == (float, float):
        assert isinstance(value, tuple)
        return _PairEditor(info, value)
    return None


class _Row:
    """One field's label, editor, help and problem line."""

    def __init__(self, name: str, info: FieldInfo, editor: _Editor) -> None:
        self.name = name
        self.label_text = plain_words(name)
        self.editor = editor
        description = info.description or ""
        self.label = named(QLabel(self.label_text), "settings-field-label")
        self.label.setWordWrap(True)
        self.label.setBuddy(editor.widget)
        self.help = named(QLabel(description), "settings-field-help")
        self.help.setWordWrap(True)
        self.help.setTextFormat(Qt.TextFormat.PlainText)
        set_shown(self.help, bool(description))
        self.problem = named(QLabel(), "settings-field-problem", f"Problem with {self.label_text}")
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.hide()
        self.label.setToolTip(description)
        editor.widget.setToolTip(description)
        focusable = {editor.widget: self.label_text}
        if isinstance(editor, _PairEditor):
            focusable = {
                editor.low: f"{self.label_text}, low",
                editor.high: f"{self.label_text}, high",
            }
        for widget, accessible in focusable.items():
            widget.setAccessibleName(accessible)
            widget.setAccessibleDescription(description)
            widget.setToolTip(description)

    def add_to(self, grid: QGridLayout, row: int) -> int:
        """Lay the field out from *row* of *grid*; the next free row."""
        grid.addWidget(self.label, row, 0)  # the column's width: wrapped only if it must
        if isinstance(field := self.editor.widget, QLineEdit):
            grid.addWidget(guarded(field), row, 1)  # aligned, its warning would not wrap
        else:
            grid.addWidget(
                field, row, 1, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            )
        grid.addWidget(self.help, row + 1, 1)
        grid.addWidget(self.problem, row + 2, 1)
        grid.setRowMinimumHeight(row + 3, _FIELD_GAP)
        return row + 4

    def show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))


class SettingsForm(QWidget, Generic[M]):
    """The fields of one settings group (*model*), showing *value*.

    *skip* names fields not to show (edited elsewhere); fields of a type the
    form cannot edit (tuples of models, lists of paths) are left out too.
    *suggestions* offers values for text fields by name.  Fields left out
    keep their value in ``value()``.

    Signals:
        changed(): the user edited a field (the value may now be invalid).
    """

    changed = Signal()

    def __init__(
        self,
        model: type[M],
        value: M,
        *,
        skip: Collection[str] = (),
        suggestions: Mapping[str, Suggestions] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settings-form")
        self._model = model
        self._original = value
        self._value: M | None = value
        self._errors: dict[str, str] = {}
        self._edits: dict[str, object] = {}
        """What the user typed, by field: fields not here keep their original value
        (a spin box rounds what it shows; an untouched value is never rounded)."""
        self._loading = False
        self._wheel_guard = _NoWheelUnlessFocused(self)
        self.rows: dict[str, _Row] = {}
        for name, info in model.model_fields.items():
            suggest = (suggestions or {}).get(name)
            editor = None if name in skip else _editor_for(info, getattr(value, name), suggest)
            if editor is not None:
                self.rows[name] = _Row(name, info, editor)
                editor.on_edit(partial(self._on_edit, name))
        self.form_problem = named(QLabel(), "settings-field-problem", "Problem with these settings")
        self.form_problem.setWordWrap(True)
        self.form_problem.hide()
        self._lay_out()
        self._put_all(value)

    def _lay_out(self) -> None:
        # One grid, no nested field widgets: a word-wrapped help or problem
        # line that appears then resizes its row at once.
        self._grid = grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(3)
        grid.setColumnStretch(1, 1)
        self._widest_label = max(
            (r.label.fontMetrics().horizontalAdvance(r.label_text) + 2 for r in self.rows.values()),
            default=0,
        )
        at = 0
        for row in self.rows.values():
            at = row.add_to(grid, at)
            for widget in [row.editor.widget, *row.editor.widget.findChildren(QWidget)]:
                if isinstance(widget, QAbstractSpinBox | QComboBox):
                    widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
                    widget.installEventFilter(self._wheel_guard)
        grid.addWidget(self.form_problem, at, 0, 1, 2)

    def resizeEvent(self, event: QResizeEvent) -> None:
        # The labels' column: as wide as the longest label while that leaves
        # the fields room, else a share of the width, the long labels wrapped.
        share = max(_LABEL_MIN_WIDTH, int(event.size().width() * _LABEL_SHARE))
        self._grid.setColumnMinimumWidth(0, min(self._widest_label, share))
        super().resizeEvent(event)

    # -- the value -----------------------------------------------------------
    def value(self) -> M | None:
        """The group as edited, validated by its model; None while a field is invalid."""
        return None if self._errors else self._value

    def original(self) -> M:
        """The group as last loaded (``set_value``)."""
        return self._original

    def errors(self) -> dict[str, str]:
        """Why the edited values are refused, by field name ("" for the whole group)."""
        return dict(self._errors)

    def is_dirty(self) -> bool:
        """Did the user change anything (valid or not) since the last load?"""
        return bool(self._errors) or self._value != self._original

    def changed_fields(self) -> list[str]:
        """The names of the fields whose edited value differs from the loaded one
        (or is refused)."""
        if self._value is None or self._errors:
            return [name for name in self.rows if name in self._edits]
        return [
            name
            for name in self.rows
            if getattr(self._value, name) != getattr(self._original, name)
        ]

    def set_value(self, value: M, *, keep_edits: bool = False) -> None:
        """Show *value* as the group's loaded state, not as the user's edits
        (``changed`` is not emitted).  With *keep_edits*, fields the user
        edited keep what was typed, on top of *value*."""
        self._original = value
        if keep_edits:
            self._edits = {
                name: typed for name, typed in self._edits.items() if typed != getattr(value, name)
            }
        else:
            self._edits = {}
        self._put_all(value)

    def edit_to(self, value: M) -> None:
        """Put *value*'s fields in the editors as if the user typed them
        (e.g. the defaults; Save keeps them)."""
        self._loading = True
        try:
            for name, row in self.rows.items():
                row.editor.put(getattr(value, name))
                self._edits[name] = getattr(value, name)
        finally:
            self._loading = False
        self._validate()
        self.changed.emit()

    def _put_all(self, value: M) -> None:
        self._loading = True
        try:
            for name, row in self.rows.items():
                if name not in self._edits:
                    row.editor.put(getattr(value, name))
        finally:
            self._loading = False
        self._validate()

    def _on_edit(self, name: str, *_signal_args: object) -> None:
        if self._loading:
            return
        self._edits[name] = self.rows[name].editor.get()
        self._validate()
        self.changed.emit()

    def _validate(self) -> None:
        data = {name: getattr(self._original, name) for name in self._model.model_fields}
        data.update(self._edits)
        try:
            self._value = self._model.model_validate(data)
            self._errors = {}
        except ValidationError as error:
            self._value = None
            self._errors = {}
            for problem in error.errors(include_url=False):
                field = str(problem["loc"][0]) if problem["loc"] else ""
                self._errors.setdefault(field, clean_message(problem["msg"]))
        for name, row in self.rows.items():
            row.show_problem(self._errors.get(name, ""))
        elsewhere = [text for field, text in self._errors.items() if field not in self.rows]
        self.form_problem.setText(" ".join(elsewhere))
        self.form_problem.setVisible(bool(elsewhere))
