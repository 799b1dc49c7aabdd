"""Settings read from a spec string after a colon: one parser and one validator for every bot whose spec takes them.

The search bots (``search:worlds=64,top=4``) and the language-model agent (``llm:model=m,base_url=http://...``).

A subclass is a frozen dataclass whose fields are the settings, with their bounds in ``LIMITS`` (numbers),
``FLOATS`` (the numbers that need not be whole), ``WORDS`` (settings that take one of a few names) and ``TEXTS``
(free text, such as a model's name or a URL, that must match a pattern). Anything else is refused with a
``ValueError`` that says what is allowed: a spec is typed by people and read from files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import ClassVar, TypeVar

SettingsT = TypeVar("SettingsT", bound="Settings")


@dataclass(frozen=True)
class Settings:
    """Base of the settings a spec gives after a colon (see the module docstring)."""

    LIMITS: ClassVar[dict[str, tuple[float, float]]] = {}
    FLOATS: ClassVar[tuple[str, ...]] = ()
    WORDS: ClassVar[dict[str, tuple[str, ...]]] = {}
    TEXTS: ClassVar[dict[str, tuple[str, str]]] = {}
    """Free-text settings: the pattern the whole value must match, and what it is in words (for the message)."""
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    """Settings a spec must give (their defaults stand for "not given")."""
    KIND: ClassVar[str] = "search"
    """The spec name these settings follow, and the word error messages use."""

    def __post_init__(self) -> None:
        for name, (low, high) in self.LIMITS.items():
            value = getattr(self, name)
            kind = float if name in self.FLOATS else int
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(
                    f"{self.KIND} setting {name} must be {kind.__name__} from {low:g} to {high:g}, not {value!r}"
                )
            if kind is int and not float(value).is_integer():
                raise ValueError(f"{self.KIND} setting {name} must be a whole number, not {value!r}")
        for name, allowed in self.WORDS.items():
            if getattr(self, name) not in allowed:
                choices = ", ".join(allowed)
                raise ValueError(f"{self.KIND} setting {name} must be one of {choices}, not {getattr(self, name)!r}")
        for name, (pattern, meaning) in self.TEXTS.items():
            value = getattr(self, name)
            given = value or name not in self.REQUIRED
            if not isinstance(value, str) or not given or not re.fullmatch(pattern, value):
                raise ValueError(f"{self.KIND} setting {name} must be {meaning}, not {str(value)[:40]!r}")

    @classmethod
    def parse(cls: type[SettingsT], text: str) -> SettingsT:
        """Settings from ``name=value,...`` (any subset, any order); ``ValueError`` says what is wrong."""
        known = [f.name for f in fields(cls)]
        values: dict[str, float | int | str] = {}
        for part in text.split(","):
            name, sep, raw = part.partition("=")
            name, raw = name.strip(), raw.strip()
            if name not in cls.TEXTS:
                raw = raw[:40]
            if not sep or name not in known:
                raise ValueError(f"unknown {cls.KIND} setting {part.strip()[:40]!r}: use {', '.join(known)}")
            if name in values:
                raise ValueError(f"{cls.KIND} setting {name} is given twice")
            if name in cls.WORDS or name in cls.TEXTS:
                values[name] = raw
                continue
            try:
                number = float(raw)
            except ValueError:
                raise ValueError(f"{cls.KIND} setting {name} must be a number, not {raw!r}") from None
            if name not in cls.FLOATS and not number.is_integer():
                raise ValueError(f"{cls.KIND} setting {name} must be a whole number, not {number:g}")
            values[name] = number if name in cls.FLOATS else int(number)
        return cls(**values)

    def spec(self, name: str | None = None) -> str:
        """The agent spec that builds these settings (``name`` defaults to ``KIND``)."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            parts.append(f"{f.name}={value:g}" if isinstance(value, float) else f"{f.name}={value}")
        return f"{name or self.KIND}:{','.join(parts)}"
