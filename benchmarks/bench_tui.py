"""The app on a large store: time to first screen, and Triage's first rows.

    .venv/bin/python benchmarks/bench_tui.py [--sessions 50000] [--runs 7] [--cache DIR]

The store is built once (cached in ``--cache``) the way a user's would be: real harness
files (Claude Code and Codex) recovered by the real importer, then a fifth of the
sessions filed to members through the triage service, the rest left in the queue.

* **First screen**: wall time from starting a Python process to the first frame
  (Textual's ``Ready`` event), headless at 160×48, for ``viva``'s app on the store and
  for a bare Textual app (one ``Static``) measured the same way, alternately. Floor: the
  median of the paired ratios ≤ 1.5 (pairing cancels load that drifts during a run).
* For information, the same with everything the ``viva`` command imports first (its
  command modules load the store at import time today).
* **Triage**: in one process, with the app idle on its first pane, the time from
  pressing ``2`` until the Triage list shows its first rows. Floor: ≤ 0.5 s.
* **Through the ``viva`` command** (what a user starts: its real command line, driven
  by ``tui_probe.py``, which sends keys as a user would), in a pseudo-terminal of 160×48,
  each run paired with a bare Textual app started the same way: the first frame (the
  header's title drawn; floor: the paired ratio ≤ 1.5), the Members pane's counts after
  the first frame (≤ 1 s), Triage's first rows after ``2`` (≤ 0.5 s), the weekly report
  after ``ctrl+r`` (≤ 0.3 s), ``q`` until the process has exited (≤ 0.3 s; the bare
  app's quit beside it), and filing one session (its row and that member's count; it
  must run no suggestion pass and recount only that member).

Medians of ``--runs`` runs; prints every figure and floor, exits 1 if a floor is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

NOW = "2026-03-02T12:00:00+00:00"
SIZE = (160, 48)
FIRST_SCREEN_RATIO = 1.5
TRIAGE_SECONDS = 0.5
NAMESPACE = uuid.UUID("0f5c2a6e-3b1d-4e7a-9c8b-5d4e3f2a1b0c")
PROJECTS = ["viva", "ledger-api", "roadmap", "infra", "backups", "research", "site", "tools"]

BARE = """
import sys
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("hello")
    def on_ready(self):
        sys.stdout.write("READY\\n"); sys.stdout.flush(); self.exit()

Bare().run(headless=True, size=(160, 48))
"""

VIVA = """
import sys
from viva_store.config import load_config
from viva_tui.app import VivaApp, owner_context

class Probe(VivaApp):
    def on_ready(self):
        sys.stdout.write("READY\\n"); sys.stdout.flush(); self.exit()

Probe(owner_context, config=load_config()).run(headless=True, size=(160, 48))
"""
BARE_PTY = """
from textual.app import App
from textual.widgets import Static

class Bare(App):
    BINDINGS = [("q", "quit", "Quit")]
    def compose(self):
        yield Static("hello")

Bare().run()
"""
MEMBERS_SECONDS = 1.0
QUIT_SECONDS = 0.3
VIVA_CLI = "import viva_tui.cli  # everything `viva` loads before it opens the app\n" + VIVA


def build_store(home: Path, sessions: int) -> None:
    """Write ``sessions`` harness files, import them, file a fifth of them to members."""
    from viva_store.access import OWNER
    from viva_store.config import load_config
    from viva_store.demo.harness_files import WRITERS, SessionSpec, Turn
    from viva_store.importing.pipeline import run_import
    from viva_store.members.roster import load_team, member_names
    from viva_store.sessions.service import SessionFilter, list_sessions
    from viva_store.store import Context, Store
    from viva_store.triage.classify import classify

    roots = {"claude-code": home / "files" / "claude-code", "codex": home / "files" / "codex"}
    start = datetime(2025, 3, 1, tzinfo=UTC)
    print(f"building a {sessions:,}-session store in {home} (once; cached)", flush=True)
    t0 = time.perf_counter()
    for n in range(sessions):
        harness = "claude-code" if n % 2 else "codex"
        project = PROJECTS[n % len(PROJECTS)]
        spec = SessionSpec(
            native_id=str(uuid.uuid5(NAMESPACE, str(n))),
            cwd=f"/home/haisu/src/{project}",
            start=start + timedelta(minutes=10 * n),
            turns=(Turn(f"task {n} in {project}: check the build", "Done; the build is green."),),
            model="claude-sonnet-4" if harness == "claude-code" else "gpt-5-codex",
            title=f"Task {n} in {project}" if harness == "claude-code" else None,
        )
        WRITERS[harness](roots[harness], spec)
    print(f"  files written in {time.perf_counter() - t0:.0f} s", flush=True)
    config = load_config({"VIVA_HOME": str(home)})
    store = Store.open(config)
    ctx = Context(store, OWNER)
    load_team(ctx)
    t0 = time.perf_counter()
    events = run_import(ctx, list(roots), {h: str(p) for h, p in roots.items()})
    while True:
        try:
            next(events)
        except StopIteration:
            break
    print(f"  imported in {time.perf_counter() - t0:.0f} s", flush=True)
    names = member_names(ctx)
    queue = [s.id for s in list_sessions(ctx, SessionFilter(status="unattributed"))]
    filed = queue[: len(queue) // 5]
    for i, name in enumerate(names):
        part = filed[i :: len(names)]
        for chunk in range(0, len(part), 1000):
            classify(ctx, part[chunk : chunk + 1000], name, note="benchmark")
    store.close()
    (home / "BUILT").write_text(f"{sessions}\n")


def child_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIVA_")}
    env.update(VIVA_HOME=str(home), VIVA_NOW=NOW, PYTHONPATH=str(REPO))
    return env


def first_screen(code: str, env: dict[str, str]) -> float:
    """Seconds from process start to the line READY (the first frame)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - t0
    _, err = proc.communicate(timeout=60)
    if b"READY" not in line:
        raise SystemExit(f"the app did not start: {err.decode(errors='replace')[-2000:]}")
    return elapsed


def _plain(data: bytes) -> bytes:
    """What a terminal shows of ``data``, roughly: escape sequences dropped."""
    import re

    return re.sub(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07]*\x07|[()][A-Z0-9]|.)", b"", data)


def in_terminal(
    argv: list[str],
    env: dict[str, str],
    steps: list[tuple[bytes, bytes]],
    quit_key: bytes | None = b"q",
) -> tuple[list[float], float]:
    """Start ``argv`` in a 160×48 pseudo-terminal; for each (key, text) step, send the key
    (none for b"") and wait until ``text`` is drawn: the seconds each step took. Then
    ``quit_key`` (None: the process quits by itself), and the wall-clock instant
    (``time.time()``) the process had exited."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, in the terminal
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    seen = b""
    took: list[float] = []
    try:
        for key, text in steps:
            start = time.perf_counter() if took else t0
            mark = len(seen)
            if key:
                os.write(fd, key)
            while text not in _plain(seen[mark:]):
                ready, _, _ = select.select([fd], [], [], 60)
                if not ready:
                    raise SystemExit(f"{argv[0]}: {text!r} not drawn in 60 s")
                seen += os.read(fd, 1 << 16)
            took.append(time.perf_counter() - start)
        if quit_key:
            os.write(fd, quit_key)
        while True:
            ready, _, _ = select.select([fd], [], [], 60)
            try:
                if not ready or not os.read(fd, 1 << 16):
                    break
            except OSError:  # the terminal closed: the process has exited
                break
        os.waitpid(pid, 0)
        return took, time.time()
    finally:
        os.close(fd)
        try:  # a step that failed leaves the child running: end it
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


APP_FLOORS = {"members": MEMBERS_SECONDS, "triage": 0.5, "report": 0.3, "quit": QUIT_SECONDS}
PROBE = Path(__file__).resolve().parent / "tui_probe.py"


def viva_run(env: dict[str, str], out: Path) -> dict[str, float]:
    """One ``viva`` process (its command line, driven by the probe) in a terminal: the
    first frame (the header's title drawn), then the probe's figures, and ``q`` to the
    process's exit."""
    out.unlink(missing_ok=True)
    (first,), exited = in_terminal(
        [sys.executable, str(PROBE)], dict(env, VIVA_PROBE_OUT=str(out)), [(b"", b"Viva")], None
    )
    lines = out.read_text().splitlines() if out.exists() else []
    if len(lines) != 2 or not lines[1].startswith("QUIT"):
        raise SystemExit(f"the probe did not finish: {lines}")
    figures = dict(json.loads(lines[0]))
    figures["first"] = first
    figures["quit"] = exited - float(lines[1].split()[1])
    return figures


def through_viva(env: dict[str, str], runs: int, home: Path) -> bool:
    """The app's figures through the ``viva`` command in a terminal, each run paired with
    a bare Textual app started the same way; prints them, and whether every floor holds."""
    term = dict(env, TERM="xterm-256color")
    bare_argv = [sys.executable, "-c", BARE_PTY]
    out = home / "probe.json"

    def bare_run() -> tuple[float, float]:
        quit_start = time.time()
        (first,), exited = in_terminal(bare_argv, term, [(b"", b"hello")])
        return first, exited - quit_start - first

    bare_run(), viva_run(term, out)  # warm the OS caches
    bare, viva = [], []
    for _ in range(runs):
        bare.append(bare_run())
        viva.append(viva_run(term, out))
    med = statistics.median
    ratio = med(v["first"] / b for (b, _), v in zip(bare, viva, strict=True))
    ok = ratio <= FIRST_SCREEN_RATIO

    def verdict(good: bool) -> str:
        return "ok" if good else "MISSED"

    print(f"through `viva` in a terminal, driven by the probe (medians of {runs} pairs):")
    print(f"  first frame, bare Textual app  {med(b for b, _ in bare) * 1000:7.0f} ms")
    print(
        f"  first frame, `viva`            {med(v['first'] for v in viva) * 1000:7.0f} ms   "
        f"ratio {ratio:.2f} (<= {FIRST_SCREEN_RATIO})  {verdict(ok)}"
    )
    for key, floor in APP_FLOORS.items():
        value = med(v[key] for v in viva)
        good = value <= floor
        ok &= good
        extra = f"; bare app {med(q for _, q in bare) * 1000:.0f} ms" if key == "quit" else ""
        print(
            f"  {key:<8} {value * 1000:7.0f} ms   (best {min(v[key] for v in viva) * 1000:.0f}"
            f"{extra}; floor <= {floor * 1000:.0f} ms)  {verdict(good)}"
        )
    filing = med(v["file_one"] for v in viva)
    passes = max(v["suggestions"] for v in viva)
    recounts = max(v["members recounted"] for v in viva)
    light = passes == 0 and recounts <= 1
    print(
        f"  filing one session {filing * 1000:.0f} ms; suggestion passes {passes:.0f}, "
        f"members recounted {recounts:.0f}  {verdict(light)}"
    )
    return ok and light


async def triage_rows(home: Path) -> float:
    """Seconds from pressing 2 to the first rows of the triage list."""
    from textual import events

    from viva_store.access import OWNER
    from viva_store.config import load_config
    from viva_store.store import Context, Store
    from viva_tui.app import VivaApp
    from viva_tui.widgets.triage_pane import TriagePane

    ctx = Context(Store.open(load_config({"VIVA_HOME": str(home)})), OWNER)
    app = VivaApp(ctx)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        for _ in range(400):  # the store is open, the first pane filled, the app idle
            await pilot.pause(0.05)
            idle = not [w for w in app.workers if w.is_running]
            if idle and screen.panes_built:  # type: ignore[attr-defined]
                break
        t0 = time.perf_counter()
        # The key is posted, not pressed through the pilot (which would also wait for
        # everything that follows, such as the preview of the first session).
        app.post_message(events.Key("2", "2"))
        while not (found := screen.query(TriagePane)) or not found.first().order:
            await asyncio.sleep(0.002)
        await pilot.pause(0)  # the refresh that draws the rows
        elapsed = time.perf_counter() - t0
        await app.workers.wait_for_complete()
    ctx.store.close()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument(
        "--only-viva", action="store_true", help="only the figures through the `viva` command"
    )
    args = parser.parse_args()
    home = args.cache or Path(tempfile.gettempdir()) / f"viva-bench-tui-{args.sessions}"
    os.environ.update(VIVA_NOW=NOW, VIVA_HOME=str(home))
    os.environ.pop("VIVA_DB_URL", None)
    marker = home / "BUILT"
    if not (marker.exists() and marker.read_text().strip() == str(args.sessions)):
        if home.exists():
            import shutil

            shutil.rmtree(home)
        build_store(home, args.sessions)

    env = child_env(home)
    if args.only_viva:
        print(f"store: {args.sessions:,} sessions ({home}); medians of {args.runs} runs")
        return 0 if through_viva(env, args.runs, home) else 1
    first_screen(BARE, env), first_screen(VIVA, env)  # warm the OS caches
    bare, viva, cli = [], [], []
    for _ in range(args.runs):
        bare.append(first_screen(BARE, env))
        viva.append(first_screen(VIVA, env))
        cli.append(first_screen(VIVA_CLI, env))
    triage = [asyncio.run(triage_rows(home)) for _ in range(args.runs)]

    bare_s, viva_s, triage_s = (statistics.median(x) for x in (bare, viva, triage))
    # Each viva run is paired with the bare run just before it, so both saw the same load.
    ratio = statistics.median(v / b for v, b in zip(viva, bare, strict=True))
    ok_first, ok_triage = ratio <= FIRST_SCREEN_RATIO, triage_s <= TRIAGE_SECONDS
    print(f"store: {args.sessions:,} sessions ({home}); medians of {args.runs} runs")
    print(
        f"first screen, bare Textual app   {bare_s * 1000:7.0f} ms   (best {min(bare) * 1000:.0f})"
    )
    print(
        f"first screen, viva               {viva_s * 1000:7.0f} ms   (best {min(viva) * 1000:.0f})"
    )
    print(
        f"  (through `viva`'s CLI imports      {statistics.median(cli) * 1000:7.0f} ms; "
        "information, see the README)"
    )
    print(
        f"first screen ratio (paired runs)    {ratio:5.2f}      "
        f"(floor <= {FIRST_SCREEN_RATIO})  {'ok' if ok_first else 'MISSED'}"
    )
    print(
        f"triage, first rows after '2'     {triage_s * 1000:7.0f} ms   (best "
        f"{min(triage) * 1000:.0f}; floor <= {TRIAGE_SECONDS * 1000:.0f} ms)  "
        f"{'ok' if ok_triage else 'MISSED'}"
    )
    ok_app = through_viva(env, args.runs, home)
    return 0 if ok_first and ok_triage and ok_app else 1


if __name__ == "__main__":
    sys.exit(main())
