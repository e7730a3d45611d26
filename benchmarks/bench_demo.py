"""``viva demo`` as a new user meets it: from launch to the Members pane's rows on screen.

    .venv/bin/python benchmarks/bench_demo.py [--first 3] [--reuse 5]

Each run starts the real ``viva demo`` command line (``demo_probe.py``: the ``viva``
entry point with the app class swapped for one that reports when the Members pane's
rows have their counts) in a 160×48 pseudo-terminal, on the real clock, with nothing of
the environment's ``VIVA_*`` variables:

* **first**: an empty ``VIVA_HOME``: the demo store is built, then the app opens on it
  (target ≤ 15 s);
* **reuse**: a second ``viva demo`` on the store the first one built, which it opens as
  it is (target ≤ 3 s).

Each run is paired with a bare Textual app's first frame started the same way just before
it (the floor: what any Textual app costs on this machine at this moment), and the
figures are medians over the runs, with the median of the paired ratios. Prints every
figure with the load average; exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tui import BARE_PTY, REPO, in_terminal

FIRST_SECONDS = 15.0
REUSE_SECONDS = 3.0
PROBE = Path(__file__).resolve().parent / "demo_probe.py"


def load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def demo_env(home: Path, out: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIVA_")}
    env.update(
        VIVA_HOME=str(home), VIVA_PROBE_OUT=str(out), PYTHONPATH=str(REPO), TERM="xterm-256color"
    )
    return env


def demo_run(home: Path) -> float:
    """Seconds from starting ``viva demo`` to the Members pane's rows with their counts."""
    out = home.parent / f"{home.name}.probe"
    out.unlink(missing_ok=True)
    start = time.time()
    in_terminal([sys.executable, str(PROBE)], demo_env(home, out), [], None)
    text = out.read_text().split() if out.exists() else []
    if len(text) != 2 or text[0] != "MEMBERS":
        raise SystemExit(f"the probe did not report the Members rows: {text}")
    return float(text[1]) - start


def bare_run(env: dict[str, str]) -> float:
    """Seconds from starting a bare Textual app to its first frame drawn."""
    (first,), _ = in_terminal([sys.executable, "-c", BARE_PTY], env, [(b"", b"hello")])
    return first


def report(name: str, pairs: list[tuple[float, float]], target: float) -> bool:
    med = statistics.median
    viva = [v for _, v in pairs]
    ratio = med(v / b for b, v in pairs)
    good = med(viva) <= target
    print(
        f"  {name:<6} {med(viva):6.2f} s  (best {min(viva):.2f}, worst {max(viva):.2f}; "
        f"bare app {med(b for b, _ in pairs):.2f} s, paired ratio {ratio:.1f}×; "
        f"{len(pairs)} pairs)  target ≤ {target:.0f} s  {'ok' if good else 'MISSED'}"
    )
    return good


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--first", type=int, default=3, help="first builds (≥ 3)")
    parser.add_argument("--reuse", type=int, default=5, help="reusing runs (≥ 5)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="viva-bench-demo-"))
    bare_env = dict(demo_env(root, root / "unused"), PYTHONPATH="")
    print(f"load average at start: {load()}")
    try:
        bare_run(bare_env)  # warm the OS caches (Python, Textual)
        first: list[tuple[float, float]] = []
        for n in range(args.first):
            home = root / f"new-{n}"  # a new user's empty VIVA_HOME
            first.append((bare_run(bare_env), demo_run(home)))
        reuse: list[tuple[float, float]] = []
        home = root / "new-0"
        for _ in range(args.reuse):
            reuse.append((bare_run(bare_env), demo_run(home)))
        print(f"`viva demo`, launch → the Members pane's rows (load average now {load()}):")
        ok = report("first", first, FIRST_SECONDS)
        ok &= report("reuse", reuse, REUSE_SECONDS)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
