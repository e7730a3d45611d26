"""DESIGN I7: no code path approves a principle except the owner's explicit decision.

Static checks over ``viva_store``'s source: the word "approved" is written once (the
constant), exactly one call passes that constant — inside ``approve``, which starts by
refusing anyone but the owner — and only the principle services touch the event table.
The behavioural side (every decision refused under a grant) is in test_principles.py
and tests/cli/test_cli_principles.py.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import viva_store

ROOT = Path(viva_store.__file__).parent
EVENT_WRITERS = {
    "principles/propose.py",  # proposed
    "principles/batch.py",  # batched, merged
    "principles/decide.py",  # the owner's decisions
}


@functools.cache
def modules() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of ``viva_store``, parsed once (the checks only read the trees)."""
    return tuple(
        (path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(), str(path)))
        for path in sorted(ROOT.rglob("*.py"))
    )


def parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def enclosing_function(node: ast.AST, up: dict[ast.AST, ast.AST]) -> ast.FunctionDef | None:
    while node in up:
        node = up[node]
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("work"):
            return node
    return None


def test_the_word_approved_is_written_once() -> None:
    found = [
        (name, node.lineno)
        for name, tree in modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == "approved"
    ]
    assert [name for name, _ in found] == ["principles/state.py"], found


def test_one_call_writes_approved_and_it_is_the_owners() -> None:
    calls = []
    for name, tree in modules():
        up = parents(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            values = [*node.args, *(k.value for k in node.keywords)]
            if any(
                (isinstance(v, ast.Name) and v.id == "APPROVED")
                or (isinstance(v, ast.Attribute) and v.attr == "APPROVED")
                for v in values
            ):
                fn = enclosing_function(node, up)
                calls.append((name, fn.name if fn else None, fn))
    assert [(name, fn) for name, fn, _ in calls] == [("principles/decide.py", "approve")]
    approve = calls[0][2]
    assert approve is not None
    statements = [
        st
        for st in approve.body
        if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))  # docstring
    ]
    assert ast.unparse(statements[0]).startswith("require_owner(ctx.actor, ")


def event_table_names(tree: ast.Module) -> set[str]:
    """Names a module binds to the ``principle_event`` table."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("principles.load"):
            names |= {a.asname or a.name for a in node.names if a.name == "E"}
        if isinstance(node, ast.Assign) and ast.unparse(node.value) == "PRINCIPLE_EVENT":
            names |= {ast.unparse(t) for t in node.targets}
    return names


def test_only_the_principle_services_write_principle_events() -> None:
    writers = set()
    for name, tree in modules():
        table = event_table_names(tree) | {"PRINCIPLE_EVENT"}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func) == "insert"
                and node.args
                and ast.unparse(node.args[0]) in table
            ):
                writers.add(name)
    assert writers == EVENT_WRITERS
    referencing = {
        name
        for name, tree in modules()
        for node in ast.walk(tree)
        if (isinstance(node, ast.Name) and node.id == "PRINCIPLE_EVENT")
        or (isinstance(node, ast.Constant) and node.value == "principle_event")
    }
    outside = {name for name in referencing if not name.startswith("principles/")}
    # The redaction upgrade may re-redact an event's text (never add or decide one).
    upgrade = {"recheck/tables.py", "migrations/versions/0015_redaction_upgrade.py"}
    assert outside <= {"db/schema.py", "migrations/versions/0005_principles.py", *upgrade}, outside
