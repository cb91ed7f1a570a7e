"""Turning engine values into JSON-ready values: cards as codes, enums by value, fractions as text."""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from fractions import Fraction
from typing import Any, ClassVar

from games.cards import Card


def fraction_text(value: Fraction) -> str:
    """``Fraction(3, 2)`` -> ``"3/2"``, ``Fraction(-1)`` -> ``"-1"``."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def jsonable(value: Any) -> Any:
    """A JSON-ready copy of an engine value (dataclasses become dicts of their fields)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Fraction):
        return fraction_text(value)
    if isinstance(value, (tuple, list)):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        return {item.name: jsonable(getattr(value, item.name)) for item in fields(value)}
    raise TypeError(f"cannot make {type(value).__name__} JSON-ready")


@dataclass(frozen=True, slots=True)
class Tagged:
    """A value written as ``{"type": <its type tag>, <its fields>...}``: actions and events."""

    type: ClassVar[str] = "tagged"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        data = jsonable(self)
        assert isinstance(data, dict)
        out.update(data)
        return out
