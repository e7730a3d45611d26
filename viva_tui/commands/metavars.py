"""Help that names values, not Python types.

Typer labels every value in ``--help`` with its annotation (``<bool>``, ``<str>``,
``<int range>``) and an argument as ``{name}``. :func:`name_values` gives each parameter
of a built command tree the metavar a command-line user expects instead: nothing for a
flag, the parameter's name in capitals for a value (``--member MEMBER``, ``QUERY``), the
choices for a choice (``[success|failure|corrected]``). An argument's type column shows
only its choices. A metavar set by hand is kept.
The walk is idempotent (a test walks a command tree built once).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

HELP_NAMES = ["-h", "--help"]
"""The help options of every command (the root's ``context_settings`` hands them down)."""


def name_values(root: Any) -> Any:
    """``root`` (a click command or group) with every parameter's metavar named; returns it."""
    for command in walk(root):
        for param in [*command.params, _help_option(command)]:
            if param is None:
                continue
            choices = _choices(param)
            if param.param_type_name == "argument":
                param.display_type_rich = lambda ctx, label=choices: label
                if param.metavar is None:
                    param.metavar = (param.name or "value").upper()
            elif param.metavar is not None:
                continue
            elif getattr(param, "is_flag", False) or getattr(param, "count", False):
                param.metavar = ""
            else:
                param.metavar = choices or (param.name or "value").upper()
    return root


def walk(command: Any) -> Iterator[Any]:
    """``command`` and every command under it, depth first in the order help lists them."""
    yield command
    for child in getattr(command, "commands", {}).values():
        yield from walk(child)


def _help_option(command: Any) -> Any:
    """The command's ``-h/--help`` option (click makes it per command and caches it)."""
    from typer import _click

    return command.get_help_option(_click.Context(command, help_option_names=HELP_NAMES))


def _choices(param: Any) -> str | None:
    """``[a|b|c]`` for a choice, else None."""
    descriptor: Any = getattr(param, "type_descriptor", None)
    if descriptor is None or not descriptor.is_choice or not descriptor.choices:
        return None
    return "[" + "|".join(str(getattr(c, "value", c)) for c in descriptor.choices) + "]"
