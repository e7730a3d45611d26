"""Typer's parameter coercion without pydantic for the values that need none.

Typer turns every command-line value into its annotation through a pydantic
``TypeAdapter``; importing pydantic and building the adapters costs a ``viva`` call
more than the rest of its start-up. Most values need no validation at all — a ``str``
that already is one, a default ``int``, ``"10"`` for an ``int`` — so
:func:`install` puts a plain-Python conversion in front of Typer's for exactly those
cases. Anything else (a malformed number, an out-of-range value, a ``Path``, a wrong
choice) goes to Typer's own coercion unchanged, so results and error messages are
Typer's.

The hook is Typer's lazy ``_TyperParameter.get_runtime_param``; if a Typer release
renames it, :func:`install` returns False and Typer runs as it ships (tests check the
hook is in place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")
_UNSET = object()


def convert(annotation: Any, info: Any, value: Any) -> Any:
    """``value`` as ``annotation`` when no validation can fail on it, else :data:`_UNSET`."""
    if annotation is str:
        return value if isinstance(value, str) else _UNSET
    if annotation is int:
        number: Any = _UNSET
        if type(value) is int:
            number = value
        elif isinstance(value, str) and _INT.fullmatch(value):
            number = int(value)
        return number if number is not _UNSET and _in_range(number, info) else _UNSET
    if annotation is float:
        number = _UNSET
        if type(value) is float:
            number = value
        elif isinstance(value, str) and _FLOAT.fullmatch(value):
            number = float(value)
        return number if number is not _UNSET and _in_range(number, info) else _UNSET
    if annotation == list[str]:
        ok = isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
        return list(value) if ok else _UNSET
    if isinstance(annotation, type) and issubclass(annotation, Enum) and info.case_sensitive:
        if isinstance(value, annotation):
            return value
        by_value = {member.value: member for member in annotation}
        return by_value.get(value, _UNSET) if isinstance(value, str) else _UNSET
    return _UNSET


def _in_range(number: float, info: Any) -> bool:
    if info.clamp:
        return False
    return (info.min is None or number >= info.min) and (info.max is None or number <= info.max)


def install() -> bool:
    """Put :func:`convert` in front of Typer's coercion; False if Typer's hook is not there."""
    try:
        from typer import _coercion
        from typer.core import _TyperParameter
    except ImportError:
        return False
    if not hasattr(_TyperParameter, "get_runtime_param") or not hasattr(_coercion, "RuntimeParam"):
        return False
    if getattr(_TyperParameter.get_runtime_param, "viva_plain", False):
        return True

    @dataclass(frozen=True)
    class PlainRuntimeParam(_coercion.RuntimeParam):
        """Converts what needs no validation; hands the rest to Typer's own coercion."""

        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if getattr(ctx, "token_normalize_func", None) is None:
                plain = convert(self.annotation, self.parameter_info, value)
                if plain is not _UNSET:
                    return plain
            typer_own = _coercion.build_runtime_param(self.descriptor)
            return typer_own._coerce_value(value, param=param, ctx=ctx)

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            descriptor = self.type_descriptor
            if descriptor.file_annotation is not None:
                self._runtime_param = _coercion.build_runtime_param(descriptor)
            else:
                self._runtime_param = PlainRuntimeParam(
                    parameter_info=descriptor.parameter_info,
                    annotation=descriptor.annotation,
                    descriptor=descriptor,
                )
        return self._runtime_param

    get_runtime_param.viva_plain = True  # type: ignore[attr-defined]
    setattr(_TyperParameter, "get_runtime_param", get_runtime_param)  # noqa: B010
    return True
