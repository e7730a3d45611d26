"""A word-level difference between a principle's wording in force and a candidate."""

from __future__ import annotations

import difflib

from textual.content import Content


def word_diff(old: str | None, new: str) -> Content:
    """``new`` against ``old``: removed words struck in ``$diff-removed``, added ones in
    ``$diff-added``. With no ``old`` the whole text is new."""
    if not old:
        return Content.styled(new, "$diff-added")
    a, b = old.split(), new.split()
    parts: list[Content] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(Content(" ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            parts.append(Content.styled(" ".join(a[i1:i2]), "strike $diff-removed"))
        if op in ("insert", "replace"):
            parts.append(Content.styled(" ".join(b[j1:j2]), "bold $diff-added"))
    return Content(" ").join(parts)
