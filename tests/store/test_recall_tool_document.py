"""What recall indexes of a tool call and shows of it: every word of a tool input's JSON
values is a word of the indexed document (line breaks and tabs in them too), and a hit's
snippet highlights the matched word in the field that holds it."""

from __future__ import annotations

import json
import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from viva_store.recall.fts import TOKENIZE, document
from viva_store.recall.query import fts5_expression
from viva_store.recall.snippet import message_snippet

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)
GAP = st.sampled_from([" ", "\n", "\t", "\r\n", "\n\t", " \\ ", '"', "/"])


@st.composite
def spaced(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A string of words with line breaks, tabs, quotes and backslashes between them."""
    words = draw(st.lists(WORD, min_size=1, max_size=6))
    out = words[0]
    for word in words[1:]:
        out += draw(GAP) + word
    return out, words


def _indexed(args: str, result: str) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(d, detail=none, tokenize='{TOKENIZE}')")
    conn.execute("CREATE TABLE m (text, tool_args, tool_result)")
    conn.execute("INSERT INTO m VALUES ('', ?, ?)", (args, result))
    conn.execute(f"INSERT INTO t(d) SELECT {document('m.')} FROM m")
    return conn


@given(st.lists(spaced(), min_size=1, max_size=3), spaced())
def test_every_word_of_a_tool_inputs_values_is_indexed(
    values: list[tuple[str, list[str]]], output: tuple[str, list[str]]
) -> None:
    args = json.dumps({f"k{n}": value for n, (value, _) in enumerate(values)}, ensure_ascii=False)
    conn = _indexed(args, output[0])
    for word in [w for _, words in values for w in words] + output[1]:
        found = conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (fts5_expression((word,)),))
        assert found.fetchone() == (1,), (word, args)


@given(spaced(), spaced(), spaced(), st.sampled_from(["text", "input", "output"]))
def test_the_snippet_highlights_the_word_in_the_field_holding_it(
    text: tuple[str, list[str]],
    args: tuple[str, list[str]],
    result: tuple[str, list[str]],
    where: str,
) -> None:
    planted = "quixotically"  # longer than any drawn word: in no other field
    fields = {"text": text[0], "input": args[0], "output": result[0]}
    fields[where] += " " + planted
    tool_args = json.dumps({"command": fields["input"], "description": "d"})
    snippet = message_snippet(
        fields["text"], "Bash", "cmd", tool_args, fields["output"], (planted,), width=400
    )
    shown = {snippet.text[start:end] for start, end in snippet.highlights}
    assert shown == {planted}
    label = {"text": "", "input": "Bash cmd: ", "output": "Bash output: "}[where]
    assert snippet.text.startswith(label)
