"""F1: what the pane shows, and its keys as they are mapped now."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.binding import Binding

from viva_tui.dialogs.document import DocumentDialog


def key_rows(bindings: Sequence[Binding], keymap: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """``(keys, description, binding id)`` for each binding, remaps applied."""
    rows = []
    for b in bindings:
        keys = keymap.get(b.id, b.key) if b.id else b.key
        shown = ", ".join(k.strip().replace("question_mark", "?") for k in keys.split(","))
        rows.append((shown, b.tooltip or b.description, b.id or ""))
    return rows


def help_markdown(
    title: str,
    text: str,
    bindings: Sequence[Binding],
    shared: Sequence[Binding],
    keymap: Mapping[str, str],
) -> str:
    """The help page of a pane: its text, its keys, then the keys every pane shares."""

    def table(rows: list[tuple[str, str, str]]) -> str:
        lines = ["| key | does | id (for `[keys]` in config.toml) |", "|---|---|---|"]
        lines += [f"| `{k}` | {d} | `{i}` |" for k, d, i in rows]
        return "\n".join(lines)

    parts = [text.strip(), f"## Keys of {title}", table(key_rows(bindings, keymap))]
    parts += ["## Everywhere", table(key_rows(shared, keymap))]
    parts.append(
        "Remap any key by its id in `$VIVA_HOME/config.toml`, e.g. "
        '`[keys]` then `"triage.nobody" = "N"`. **ctrl+p** opens the command palette.'
    )
    return "\n\n".join(parts)


class HelpDialog(DocumentDialog):
    """The help page of one pane."""

    def __init__(
        self,
        title: str,
        text: str,
        bindings: Sequence[Binding],
        shared: Sequence[Binding],
        keymap: Mapping[str, str],
    ) -> None:
        super().__init__(f"Help — {title}", help_markdown(title, text, bindings, shared, keymap))
