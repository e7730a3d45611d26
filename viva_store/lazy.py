"""Names a module re-exports, loaded from their own module on first use.

A feature's ``service`` module is the one place its callers import from, so it names
everything the feature offers; importing all of that for every call would make a
``viva skill show`` load the principles' batching and the importer's redaction. A
service lists its re-exports with :func:`exports` instead (and imports them under
``TYPE_CHECKING`` for the type checker): each is imported when first asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def exports(
    namespace: dict[str, Any], modules: Mapping[str, Iterable[str]]
) -> Callable[[str], Any]:
    """The module ``__getattr__`` that loads each name of ``modules`` (module → names)
    from its module when first asked for, and keeps it in ``namespace``."""
    where = {name: module for module, names in modules.items() for name in names}
    owner = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {owner!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
