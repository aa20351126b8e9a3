"""Round 8 of the attacks on the settings file.

- A key written twice (two editors' merges, a pasted block) was read as its
  last, silently: a whole ``models`` group written before another was
  dropped, and the next save wrote the file without it.  Now each key
  written twice is named, a group written twice is read as one, a setting
  given two different values falls back to its default, and the file as it
  was is set aside (a save cannot write it back as written).
- A count or duration with no upper bound took any number: a huge interval
  (``chat.compaction_interval_minutes``, meant as "never") crashed start-up
  with an ``OverflowError`` in the scheduler.  Every count and duration now
  has an upper bound, and each one's largest value is a duration Python holds.
- One number of over 4,300 digits made ``json`` raise the ``ValueError`` of
  ``int``, read as "not JSON": every setting went back to its default and
  the message told the user to call ``sys.set_int_max_str_digits()``.  Now
  that value alone is left out and named.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import annotated_types
import pytest
from pydantic import BaseModel

from desktop.core.base.paths import AppPaths
from desktop.core.base.settings import Settings, SettingsProblem, load_settings, save_settings


@pytest.fixture
def path(user_dirs: AppPaths) -> Path:
    return user_dirs.settings_file


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _set_aside(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.damaged-*"))


# -- a key written twice ----------------------------------------------------------


def test_a_group_written_twice_is_read_as_one_and_named(path: Path) -> None:
    text = (
        '{"version": 2, "models": {"context_length": 8192}, "chat": {"memories_top_k": 7},'
        ' "models": {"temperature": 0.1}}'
    )
    _write(path, text)

    settings, problem = load_settings(path)

    assert settings.models.context_length == 8192  # the first group is not lost
    assert settings.models.temperature == 0.1
    assert settings.chat.memories_top_k == 7
    assert isinstance(problem, SettingsProblem)
    assert "models: written twice" in str(problem)
    [kept] = _set_aside(path)  # the file as the user wrote it
    assert kept.read_text(encoding="utf-8") == text
    assert kept.name in str(problem)


def test_a_setting_given_two_values_keeps_its_default_and_is_named(path: Path) -> None:
    text = (
        '{"version": 2, "models":'
        ' {"context_length": 8192, "temperature": 0.2, "context_length": 1024}}'
    )
    _write(path, text)

    settings, problem = load_settings(path)

    assert settings.models.context_length == 4096  # neither: which one was meant is unknown
    assert settings.models.temperature == 0.2
    assert "models.context_length: written twice" in str(problem)
    [kept] = _set_aside(path)
    assert kept.read_text(encoding="utf-8") == text


def test_the_same_key_in_a_group_written_twice_is_named_too(path: Path) -> None:
    _write(
        path,
        '{"version": 2, "models": {"context_length": 8192, "threads": 2},'
        ' "models": {"context_length": 1024, "temperature": 0.3}}',
    )

    settings, problem = load_settings(path)

    assert (settings.models.context_length, settings.models.threads) == (4096, 2)
    assert settings.models.temperature == 0.3
    assert "models.context_length: written twice" in str(problem)


def test_a_key_written_twice_inside_a_list_leaves_that_entry_out(path: Path) -> None:
    _write(
        path,
        '{"version": 2, "models": {"temperature": 0.4, "chat":'
        ' [{"kind": "local", "model": "a.gguf", "model": "b.gguf"}]}}',
    )

    settings, problem = load_settings(path)

    assert settings.models.temperature == 0.4
    assert settings.models.chat == Settings().models.chat
    assert "models.chat: holds model written twice" in str(problem)  # the key to find


def test_a_setting_written_twice_alike_is_used_and_named(path: Path) -> None:
    _write(path, '{"version": 2, "chat": {"memories_top_k": 7, "memories_top_k": 7}}')

    settings, problem = load_settings(path)

    assert settings.chat.memories_top_k == 7
    assert "chat.memories_top_k: written twice" in str(problem)


def test_settings_read_from_a_file_with_a_key_written_twice_save_and_read_back(
    path: Path,
) -> None:
    _write(path, '{"version": 2, "models": {"context_length": 8192}, "models": {"threads": 3}}')
    settings, _ = load_settings(path)

    save_settings(settings, path)

    again, problem = load_settings(path)
    assert problem is None
    assert (again.models.context_length, again.models.threads) == (8192, 3)


# -- every count and duration has an upper bound ---------------------------------------


def _numeric_fields() -> list[tuple[str, str, BaseModel]]:
    groups = [
        (name, field.default_factory())  # type: ignore[call-arg]  # each group is made with no arguments
        for name, field in Settings.model_fields.items()
        if field.default_factory is not None
    ]
    return [
        (group_name, key, group)
        for group_name, group in groups
        for key, field in type(group).model_fields.items()
        if field.annotation in (int, float)
    ]


def _upper(group: BaseModel, key: str) -> float | None:
    for rule in type(group).model_fields[key].metadata:
        if isinstance(rule, annotated_types.Le):
            return float(rule.le)  # type: ignore[arg-type]  # a number: the field is one
        if isinstance(rule, annotated_types.Lt):
            return float(rule.lt)  # type: ignore[arg-type]  # as above
    return None


def test_every_count_and_duration_has_an_upper_bound() -> None:
    unbounded = [f"{g}.{key}" for g, key, group in _numeric_fields() if _upper(group, key) is None]

    assert unbounded == []


_UNITS = {"_minutes": "minutes", "_hours": "hours", "_days": "days", "_seconds": "seconds"}


def test_every_durations_largest_value_is_a_duration_python_holds() -> None:
    durations = [
        (key, group, unit)
        for _, key, group in _numeric_fields()
        for suffix, unit in _UNITS.items()
        if key.endswith(suffix)
    ]

    assert len(durations) >= 10  # the suffixes do find them
    for key, group, unit in durations:
        upper = _upper(group, key)
        assert upper is not None, key
        assert timedelta(**{unit: upper}) > timedelta(0)  # no OverflowError


@pytest.mark.parametrize(
    ("group", "key"),
    [("chat", "compaction_interval_minutes"), ("memory", "harvest_check_minutes")],
)
def test_a_huge_interval_keeps_its_default_and_is_named(path: Path, group: str, key: str) -> None:
    _write(
        path,
        f'{{"version": 2, "models": {{"context_length": 8192}},'
        f' "{group}": {{"{key}": 99999999999999}}}}',
    )

    settings, problem = load_settings(path)

    assert getattr(getattr(settings, group), key) == getattr(getattr(Settings(), group), key)
    assert settings.models.context_length == 8192
    assert f"{group}.{key}: must be ≤" in str(problem)


# -- a number too long to read ----------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["9" * 5000, "-" + "9" * 5000, "[0.5, " + "9" * 5000 + "]"],
    ids=["long", "long-negative", "in-a-list"],
)
def test_a_number_too_long_to_read_is_left_out_alone(path: Path, value: str) -> None:
    key = "contradiction_band" if value.startswith("[") else "early_after_new_memories"
    _write(
        path,
        f'{{"version": 2, "models": {{"context_length": 8192}}, "dream": {{"{key}": {value}}}}}',
    )

    settings, problem = load_settings(path)

    assert settings.models.context_length == 8192  # the rest kept
    assert getattr(settings.dream, key) == getattr(Settings().dream, key)
    said = str(problem)
    assert f"dream.{key}:" in said
    assert "5000 digits" in said
    assert "sys." not in said and "set_int_max_str_digits" not in said
    assert _set_aside(path) == []  # left for the user to correct, like any unusable value


# -- a value nested deep, but not too deep for json ---------------------------------


@pytest.mark.parametrize("shape", ["[", '{"a": '])
def test_a_value_nested_hundreds_deep_is_left_out_alone(path: Path, shape: str) -> None:
    # json reads these (it gives up near 1,000); walking them recursively ran out of stack.
    close = "]" if shape == "[" else "}"
    deep = shape * 900 + "1" + close * 900
    _write(path, f'{{"version": 2, "models": {{"temperature": 0.5, "added": {deep}}}}}')

    settings, problem = load_settings(path)

    assert settings.models.temperature == 0.5
    assert settings.models.added == ()
    said = str(problem)
    assert "nests too deeply" in said
    assert said.startswith(f"Some settings in {path} cannot be used: models.added")
