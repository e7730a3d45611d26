"""The ``config.toml`` template documents every key the code reads, and its values are
valid: uncommented, it is a config every section's parser accepts.

The keys the code reads are found by walking the source: each ``config.section("name")``
is followed through direct reads (``.get("key")``, ``["key"]``, ``"key" in``), names it
is bound to and the functions it is passed to (their parameter, read the same way), and
``fields(cls)`` / ``cls(**section)`` reads of a dataclass's fields. A read with a key
computed at run time (a harness name, a binding id) asks only that the section is there.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from viva_store.config_template import config_template

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "viva_store").rglob("*.py")) + sorted((ROOT / "viva_tui").rglob("*.py"))


@dataclass
class Code:
    """Every function and dataclass of the sources, by name, with their parent links."""

    functions: dict[str, list[tuple[ast.FunctionDef, str | None]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    parents: dict[ast.AST, ast.AST] = field(default_factory=dict)
    enclosing: dict[ast.AST, ast.FunctionDef] = field(default_factory=dict)
    owner: dict[ast.FunctionDef, str | None] = field(default_factory=dict)


def _load() -> tuple[Code, list[ast.Module]]:
    code, modules = Code(), []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules.append(tree)
        # breadth first: an inner function comes after its outer one and wins `enclosing`
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                code.parents[child] = node
            if isinstance(node, ast.ClassDef):
                code.classes[node.name] = node
                for item in node.body:
                    if isinstance(item, ast.FunctionDef):
                        code.owner[item] = node.name
            if isinstance(node, ast.FunctionDef):
                code.owner.setdefault(node, None)
                code.functions[node.name].append((node, code.owner[node]))
                for inner in ast.walk(node):
                    if inner is not node:
                        code.enclosing[inner] = node
    return code, modules


def _fields_of(code: Code, name: str | None) -> set[str]:
    cls = code.classes.get(name or "")
    if cls is None:
        return set()
    return {
        item.target.id
        for item in cls.body
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
    }


@dataclass
class Reads:
    keys: set[str] = field(default_factory=set)
    dynamic: bool = False


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _field_loop_class(code: Code, key: ast.AST, fn: ast.FunctionDef) -> str | None:
    """``X`` when ``key`` is ``f.name`` and ``f`` loops over ``fields(X)`` in ``fn``."""
    if not (isinstance(key, ast.Attribute) and key.attr == "name"):
        return None
    if not isinstance(key.value, ast.Name):
        return None
    for node in ast.walk(fn):
        if isinstance(node, ast.For | ast.comprehension) and isinstance(node.target, ast.Name):
            it = node.iter
            if (
                node.target.id == key.value.id
                and isinstance(it, ast.Call)
                and isinstance(it.func, ast.Name)
                and it.func.id == "fields"
                and it.args
                and isinstance(it.args[0], ast.Name)
            ):
                arg = it.args[0].id
                return code.owner.get(fn) if arg == "cls" else arg
    return None


def _follow(code: Code, node: ast.AST, reads: Reads, seen: set[int]) -> None:
    """Record what is read of the mapping that the expression ``node`` evaluates to."""
    parent = code.parents.get(node)
    fn = code.enclosing.get(node)
    if parent is None or fn is None:
        return
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = code.parents.get(parent)
        if parent.attr == "get" and isinstance(call, ast.Call) and call.args:
            key = _literal(call.args[0])
            if key is not None:
                reads.keys.add(key)
            else:
                reads.dynamic = True
        elif parent.attr in ("items", "keys", "values"):
            reads.dynamic = True
    elif isinstance(parent, ast.Subscript) and parent.value is node:
        key = _literal(parent.slice)
        loop_cls = _field_loop_class(code, parent.slice, fn)
        if key is not None:
            reads.keys.add(key)
        elif loop_cls is not None:
            reads.keys |= _fields_of(code, loop_cls)
        else:
            reads.dynamic = True
    elif isinstance(parent, ast.Compare) and node in parent.comparators:
        key = _literal(parent.left)
        loop_cls = _field_loop_class(code, parent.left, fn)
        if key is not None:
            reads.keys.add(key)
        elif loop_cls is not None:
            reads.keys |= _fields_of(code, loop_cls)
        else:
            reads.dynamic = True
    elif isinstance(parent, ast.Assign | ast.AnnAssign) and parent.value is node:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        for target in targets:
            if isinstance(target, ast.Name):
                _follow_name(code, fn, target.id, reads, seen)
    elif (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Name)
        and (parent.func.id == "dict")
    ):
        _follow(code, parent, reads, seen)  # dict(section), e.g. passed on as **kwargs
    elif isinstance(parent, ast.Call) and node in parent.args:
        _follow_call(code, parent, fn, parent.args.index(node), None, reads, seen)
    elif isinstance(parent, ast.keyword):
        call = code.parents[parent]
        assert isinstance(call, ast.Call)
        if parent.arg is None:  # cls(**section): the class's fields
            _kwargs_fields(code, call, fn, reads)
        else:
            _follow_call(code, call, fn, None, parent.arg, reads, seen)


def _kwargs_fields(code: Code, call: ast.Call, fn: ast.FunctionDef, reads: Reads) -> None:
    if isinstance(call.func, ast.Name):
        name = code.owner.get(fn) if call.func.id == "cls" else call.func.id
        reads.keys |= _fields_of(code, name)


def _follow_name(code: Code, fn: ast.FunctionDef, name: str, reads: Reads, seen: set[int]) -> None:
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            _follow(code, node, reads, seen)


def _follow_call(
    code: Code,
    call: ast.Call,
    caller: ast.FunctionDef,
    index: int | None,
    keyword: str | None,
    reads: Reads,
    seen: set[int],
) -> None:
    """Follow the mapping into every function the call may reach (by name), into the
    parameter it binds to."""
    if isinstance(call.func, ast.Name):
        name, qualifier = call.func.id, None
    elif isinstance(call.func, ast.Attribute):
        name = call.func.attr
        value = call.func.value
        qualifier = value.id if isinstance(value, ast.Name) else None
        if qualifier == "cls":
            qualifier = code.owner.get(caller)
    else:
        return
    candidates = code.functions.get(name, [])
    if qualifier in code.classes:
        candidates = [(f, c) for f, c in candidates if c == qualifier] or candidates
    for fn, cls in candidates:
        params = [a.arg for a in fn.args.args]
        if cls is not None and params and params[0] in ("self", "cls"):
            params = params[1:]
        param = keyword if keyword in params else None
        if param is None and index is not None and index < len(params):
            param = params[index]
        if param is None or hash((id(fn), param)) in seen:
            continue
        seen.add(hash((id(fn), param)))
        _follow_name(code, fn, param, reads, seen)


def code_reads() -> dict[str, Reads]:
    """Every section the code reads, and the keys it reads of each."""
    code, modules = _load()
    found: dict[str, Reads] = defaultdict(Reads)
    for tree in modules:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "section"
                and len(node.args) == 1
                and _literal(node.args[0]) is not None
                and node in code.enclosing
            ):
                name = _literal(node.args[0])
                assert name is not None
                if code.owner.get(code.enclosing[node]) == "Config":
                    continue  # the reader itself
                _follow(code, node, found[name], set())
    return dict(found)


def uncommented(template: str) -> dict[str, object]:
    """The template with its settings uncommented, parsed as TOML."""
    setting = re.compile(r"^# (\[|\"?[\w.-]+\"? = )")
    lines = [line[2:] for line in template.splitlines() if setting.match(line)]
    return tomllib.loads("\n".join(lines))


def test_every_key_the_code_reads_is_in_the_template() -> None:
    documented = uncommented(config_template())
    reads = code_reads()
    # the walk itself must find what it is meant to find (or the check below is empty)
    assert {"skills", "recall", "triage", "import", "state", "launch", "roots", "redact"} <= set(
        reads
    )
    assert {"half_life_sessions", "capacity"} <= reads["skills"].keys
    assert {"state_mode", "max_query_chars"} <= reads["recall"].keys
    assert {"allow", "allow_patterns", "rules"} <= reads["redact"].keys
    assert reads["roots"].dynamic and reads["keys"].dynamic
    missing = [
        f"[{section}] {key}"
        for section, read in sorted(reads.items())
        for key in sorted(read.keys)
        if key not in documented.get(section, {})  # type: ignore[operator]
    ]
    assert not missing, "keys the code reads that config.toml's template lacks: " + str(missing)
    assert set(reads) <= set(documented), "sections missing: " + str(set(reads) - set(documented))


def test_the_template_uncommented_is_a_valid_config() -> None:
    from viva_store.engagement.rules import EntryRules
    from viva_store.recall.ranking import RecallParams
    from viva_store.redact.ruleset import settings_from_config
    from viva_store.skills.events import skill_params
    from viva_store.skills.params import SkillParams

    raw = uncommented(config_template())
    assert skill_params(raw["skills"]) == SkillParams()  # type: ignore[arg-type]
    assert RecallParams.from_config(raw["recall"]) == RecallParams()  # type: ignore[arg-type]
    EntryRules.from_config(raw["state"])  # type: ignore[arg-type]
    settings = settings_from_config(raw["redact"])  # type: ignore[arg-type]
    assert [r.name for r in settings.rules] == ["acme-token"]
