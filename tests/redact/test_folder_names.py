"""A working folder's secrets are redacted in the folder name Claude Code makes of it:
every character but an ASCII letter or digit turned into ``-`` (a UTF-16 unit each), so
the spans the redactor finds in the cwd fall on the same places of the name."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from viva_store.redact import RULES, FolderNames, redact_path, redact_text
from viva_store.redact.engine import secret_spans
from viva_store.redact.paths import FOLDER_CUT, folder_name, redacted_folder

from .planted import Example, example
from .support import survivors

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "claude-code"
# Examples that fit in a folder's path: one line, the length of a folder name.
PLANTS = [e for e in map(example, RULES) if "\n" not in e.text and len(e.text) <= 150]
_MARKER = re.compile(r"(\[REDACTED:[a-z0-9-]+\])")
names = st.text(st.characters(exclude_characters="/\\\n", exclude_categories=["Cs"]), max_size=30)
cwds = st.lists(names, max_size=5).map(lambda parts: "/" + "/".join(parts))


def _encoded_keeping_markers(text: str) -> str:
    """``text`` named as Claude Code names a folder, but for its markers."""
    return "".join(p if _MARKER.fullmatch(p) else folder_name(p) for p in _MARKER.split(text))


def claude_folder(cwd: str) -> str:
    """The folder Claude Code makes of ``cwd``: cut, with a hash, when longer than 200."""
    name = folder_name(cwd)
    return name if len(name) <= FOLDER_CUT else name[:FOLDER_CUT] + "-1x2y3z"


def _projects_path(folder: str) -> str:
    return f"/home/dev/.claude/projects/{folder}/0196b1c2-d3e4-7f50-b6c7-d8e9f0a1b2c3.jsonl"


@given(st.sampled_from(PLANTS), cwds, cwds)
def test_a_secret_in_the_cwd_never_survives_in_its_folder_name(
    plant: Example, before: str, after: str
) -> None:
    # A secret found with its context ends the cwd, as it ends the text that shows it.
    cwd = f"{before}/{plant.text}{after if plant.alone else ''}"
    assume(not survivors(plant.secret, redact_text(cwd)[0]))  # what the redactor finds
    folders = FolderNames()
    folders.learn(cwd)
    secret = folder_name(plant.secret)
    # What the surrounding names already hold of it (runs of `-`) is not the secret's.
    already = set(survivors(secret, folder_name(before) + "\0" + folder_name(after)))
    for folder in {claude_folder(cwd), folder_name(cwd)}:  # as Claude Code writes it, or whole
        shown = redact_path(_projects_path(folder), folders)[0]
        assert "[REDACTED:" in shown
        assert not set(survivors(secret, shown)) - already


@given(cwds)
def test_a_cwd_with_nothing_to_redact_leaves_its_folder_name_as_it_is(cwd: str) -> None:
    assume(not redact_text(cwd)[1])
    assert redacted_folder(cwd) is None
    folders = FolderNames()
    folders.learn(cwd)
    path = _projects_path(folder_name(cwd))
    assert folders.apply(path) is path


@given(st.one_of(cwds, st.sampled_from(PLANTS).map(lambda e: f"/srv/{e.text}/x")))
def test_the_spans_fall_where_the_redactor_puts_its_markers(cwd: str) -> None:
    spans = secret_spans(cwd)
    out, pos = [], 0
    for start, end, rule in spans:
        assert pos <= start < end
        out += [cwd[pos:start], f"[REDACTED:{rule}]"]
        pos = end
    assert "".join([*out, cwd[pos:]]) == redact_text(cwd)[0]
    found = redacted_folder(cwd)
    assert (found is None) == (not spans)
    if found is not None and len(folder_name(cwd)) <= FOLDER_CUT:
        # The cwd's markers, at the places of the name: nothing else is changed.
        assert found == (folder_name(cwd), _encoded_keeping_markers(redact_text(cwd)[0]))


def test_the_folder_names_are_claude_codes() -> None:
    """Every folder of the real sessions is its lines' cwd so named; ``.``, ``_``,
    non-ASCII and characters beyond the BMP (two UTF-16 units) each become ``-``."""
    checked = 0
    for folder in (p for p in FIXTURES.rglob("*") if p.is_dir() and p.name.startswith("-")):
        for file in folder.glob("*.jsonl"):
            lines = [json.loads(line) for line in file.read_text().splitlines() if line.strip()]
            cwd = next(line["cwd"] for line in lines if isinstance(line, dict) and "cwd" in line)
            assert folder_name(cwd) == folder.name
            checked += 1
    assert checked >= 3
    assert folder_name("/a.b_c d/é😀") == "-a-b-c-d----"
    assert folder_name("/é😀", utf16=False) == "---"


def test_a_folder_name_cut_at_200_characters_is_redacted_to_its_hash() -> None:
    token = next(e.secret for e in PLANTS if e.alone and len(e.secret) >= 30)
    kept = "-" + "a" * (FOLDER_CUT - 11) + "-"  # the cut falls inside the token
    cwd = kept.replace("-", "/") + token + "/more"
    cut = folder_name(cwd)[:FOLDER_CUT] + "-1x2y3z"  # Claude Code's cut, and its hash
    folders = FolderNames()
    folders.learn(cwd)
    shown = folders.apply(_projects_path(cut)).split("/")[-2]
    assert re.fullmatch(r"(-a*-?)\[REDACTED:[a-z0-9-]+\]-1x2y3z", shown), shown
    assert kept.startswith(shown.split("[")[0])


def test_a_folder_shown_redacted_before_is_shown_so_again() -> None:
    """A resumed read may see only lines without the cwd: the path stored before says
    how its folder is shown."""
    token = PLANTS[0].secret
    folder = folder_name(f"/srv/{token}")
    raw = _projects_path(folder)
    stored = raw.replace(folder, "-srv-[REDACTED:x]")
    folders = FolderNames()
    folders.learn_stored(raw, stored)
    quarantined = raw.replace(".jsonl", "/subagents/agent-a1.jsonl")
    assert folders.apply(quarantined) == stored.replace(".jsonl", "/subagents/agent-a1.jsonl")
