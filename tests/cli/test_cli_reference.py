"""Every command's help follows the conventions, and the generated reference is current.

Each command answers ``-h`` as ``--help`` and names its values as a command line does
(``--member MEMBER``), never by Python type (``<str>``, ``<bool>``); ``docs/reference.md``
and ``docs/viva.1`` are what ``scripts/gen_cli_reference.py`` prints from the code today.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.cli.runner import run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import gen_cli_reference as gen

TREE = gen.commands()
TYPE_NOISE = re.compile(r"<(bool|str|int|float|list\[|path|int range|float range)[^>]*>")


def test_the_walk_sees_every_command_and_group() -> None:
    names = {command.name for command in TREE}
    assert {"viva", "viva recall", "viva skill", "viva skill use", "viva state set"} <= names
    assert len(names) == len(TREE) > 40


@pytest.mark.parametrize("command", TREE, ids=lambda command: command.name)
def test_help_has_no_type_noise_and_answers_h(command: gen.Command) -> None:
    long = run([*command.path, "--help"])
    short = run([*command.path, "-h"])
    assert long.code == 0 and short.code == 0, long.err + short.err
    assert short.out == long.out
    assert f"Usage: {command.name}" in " ".join(long.out.split())
    assert not TYPE_NOISE.findall(long.out), long.out
    for param in command.parameters:
        assert "<" not in param.names, param


def test_a_value_is_named_and_a_flag_takes_none() -> None:
    recall = next(command for command in TREE if command.path == ("recall",))
    names = {param.names for param in recall.parameters}
    assert {"QUERY", "--member MEMBER", "--json", "-h, --help"} <= names
    use = next(command for command in TREE if command.path == ("skill", "use"))
    assert "--outcome [success|failure|corrected]" in {param.names for param in use.parameters}


def test_the_committed_reference_and_man_page_are_current() -> None:
    assert gen.REFERENCE.read_text(encoding="utf-8") == gen.reference(TREE), (
        "docs/reference.md is stale: run python scripts/gen_cli_reference.py"
    )
    assert gen.MAN_PAGE.read_text(encoding="utf-8") == gen.man_page(TREE), (
        "docs/viva.1 is stale: run python scripts/gen_cli_reference.py"
    )


def test_the_man_page_is_roff_that_reads_back_as_the_commands() -> None:
    page = gen.MAN_PAGE.read_text(encoding="utf-8")
    assert page.startswith(".TH VIVA 1 ")
    sections = re.findall(r"^\.SS \"(.+)\"$", page, flags=re.M)
    assert [s.replace("\\-", "-") for s in sections] == [c.name for c in TREE[1:]]
    assert not [line for line in page.splitlines() if line.startswith("'")]
