"""A deterministic, realistic harness history for the import benchmark.

Real file-size spread (most sessions small, a few huge), Claude Code and
Codex layouts, sub-agent files, long tool outputs, and planted secrets. The
same ``--mb`` and ``--seed`` always give the same bytes.

    python benchmarks/gen_history.py OUT_DIR --mb 200 [--seed 1] [--big-file-mb 0]
"""

from __future__ import annotations

import argparse
import random
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

WORDS = [
    "the",
    "import",
    "resumes",
    "at",
    "the",
    "byte",
    "offset",
    "of",
    "the",
    "last",
    "complete",
    "line",
    "and",
    "quarantines",
    "what",
    "it",
    "cannot",
    "decode",
    "session",
    "member",
    "skill",
    "weight",
    "decay",
    "projection",
    "principle",
    "owner",
    "triage",
    "queue",
    "def",
    "class",
    "return",
    "self",
    "yield",
    "async",
    "await",
    "import",
    "from",
    "pytest",
    "assert",
    "fixture",
    "error",
    "traceback",
]


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def _code(rng: random.Random, lines: int) -> str:
    out = []
    for i in range(lines):
        indent = "    " * rng.randint(0, 3)
        out.append(f"{indent}{rng.choice(WORDS)}_{i} = {rng.choice(WORDS)}({rng.randint(0, 999)})")
    return "\n".join(out)


def _secret(rng: random.Random) -> str:
    # Built at run time; shaped like a key so the redactor has work to do.
    body = "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        for _ in range(40)
    )
    return "ghp" + "_" + body[:36]


def claude_session(
    path: Path, rng: random.Random, target_bytes: int, start: datetime, subagent: bool
) -> int:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    cwd = f"/home/dev/src/project{rng.randint(0, 20)}"
    written = 0
    parent = None
    at = start
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        n = 0
        while written < target_bytes:
            n += 1
            base = {
                "isSidechain": subagent,
                "userType": "external",
                "cwd": cwd,
                "sessionId": sid,
                "version": "2.1.80",
                "gitBranch": "main",
                "entrypoint": "cli",
            }
            uid = f"{sid[:8]}-{n:06d}-u"
            prompt = _text(rng, rng.randint(5, 60))
            if rng.random() < 0.02:
                prompt += f" export GITHUB_TOKEN={_secret(rng)}"
            lines = [
                {
                    **base,
                    "parentUuid": parent,
                    "type": "user",
                    "uuid": uid,
                    "timestamp": at.isoformat(),
                    "message": {"role": "user", "content": prompt},
                },
            ]
            msg = {
                "id": f"msg_{sid[:8]}{n:08d}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "stop_reason": "tool_use",
                "usage": {
                    "input_tokens": rng.randint(10, 5000),
                    "output_tokens": rng.randint(10, 900),
                    "cache_read_input_tokens": rng.randint(0, 90000),
                    "cache_creation_input_tokens": 0,
                },
            }
            tool_id = f"toolu_{sid[:8]}{n:08d}"
            lines.append(
                {
                    **base,
                    "parentUuid": uid,
                    "type": "assistant",
                    "uuid": f"{uid}a",
                    "timestamp": at.isoformat(),
                    "requestId": f"req_{n}",
                    "message": {**msg, "content": [{"type": "text", "text": _text(rng, 30)}]},
                }
            )
            lines.append(
                {
                    **base,
                    "parentUuid": f"{uid}a",
                    "type": "assistant",
                    "uuid": f"{uid}t",
                    "timestamp": at.isoformat(),
                    "requestId": f"req_{n}",
                    "message": {
                        **msg,
                        "content": [
                            {
                                "type": "tool_use",
                                "id": tool_id,
                                "name": "Bash",
                                "input": {"command": f"cat src/{rng.choice(WORDS)}.py"},
                            }
                        ],
                    },
                }
            )
            output = _code(rng, rng.choice((5, 20, 80, 300)))
            lines.append(
                {
                    **base,
                    "parentUuid": f"{uid}t",
                    "type": "user",
                    "uuid": f"{uid}r",
                    "timestamp": at.isoformat(),
                    "message": {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": tool_id, "content": output}
                        ],
                    },
                    "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False},
                }
            )
            for line in lines:
                data = orjson.dumps(line) + b"\n"
                fh.write(data)
                written += len(data)
            parent = f"{uid}r"
            at += timedelta(seconds=rng.randint(5, 120))
    return written


def generate(out: Path, mb: float, seed: int = 1, big_file_mb: float = 0) -> tuple[int, int]:
    """Write about ``mb`` megabytes of Claude Code history under ``out``; returns (files, bytes)."""
    rng = random.Random(seed)
    total = int(mb * (1 << 20))
    written = files = 0
    start = datetime(2026, 9, 1, tzinfo=UTC)
    if big_file_mb:
        written += claude_session(
            out / "-home-dev-big" / "big.jsonl", rng, int(big_file_mb * (1 << 20)), start, False
        )
        files += 1
    while written < total:
        # Log-normal sizes: median ~60 KB, a long tail into tens of MB.
        size = int(
            min(max(rng.lognormvariate(11.0, 1.6), 2_000), 40 << 20, total - written + 2_000)
        )
        project = out / f"-home-dev-src-project{rng.randint(0, 20)}"
        sid = str(uuid.UUID(int=rng.getrandbits(128)))
        written += claude_session(project / f"{sid}.jsonl", rng, size, start, False)
        files += 1
        if rng.random() < 0.1:  # a sub-agent transcript beside its parent (2.1.x layout)
            agent = project / sid / "subagents" / f"agent-{rng.getrandbits(64):016x}.jsonl"
            written += claude_session(agent, rng, size // 4, start, True)
            files += 1
        start += timedelta(hours=rng.randint(1, 12))
    return files, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--mb", type=float, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--big-file-mb", type=float, default=0)
    args = parser.parse_args()
    files, written = generate(args.out, args.mb, args.seed, args.big_file_mb)
    print(f"{files} files, {written / (1 << 20):.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
