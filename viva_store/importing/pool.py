"""Reading small files in worker processes while this process writes.

A worker reads one file into a :class:`~viva_store.importing.batch.Pending`
batch of its own (decoded, normalized, redacted) and never touches the store;
the run absorbs each batch as it arrives. Everything crossing the process
boundary is plain picklable data.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from multiprocessing import get_context

from viva_store.importing.batch import Pending
from viva_store.importing.harness.model import Problem, SourceFile
from viva_store.importing.prepare import Batch
from viva_store.importing.read import Reading, read_lines
from viva_store.importing.sources import Job
from viva_store.importing.state import Fingerprint, LineCounts, Resume

POOL_FILE_BYTES = 8 << 20
"""Files up to this size may be read in a worker; larger ones stream in the run itself."""
POOL_MIN_BYTES = 32 << 20
"""Changed small files must add up to this much before workers are worth starting."""


def default_workers() -> int:
    """Reader processes for a large import: one per core beyond the one this
    process needs to write, at most 4; 1 (read here) on a machine of two cores
    or fewer, where readers and the writer would only take turns (measured:
    two readers there halve the throughput of one process)."""
    return max(1, min((os.cpu_count() or 1) - 1, 4))


@dataclass(frozen=True, slots=True)
class PreparedFile:
    """Everything a worker prepared from one file: its pending batch (holding the
    file's new state) and its line accounting."""

    pending: Pending
    counts: LineCounts


def prepare_file(
    source: SourceFile, st: Fingerprint, resume: Resume, now: datetime, settled: bool = False
) -> PreparedFile:
    """Read a whole (small) file into a batch of its own: the worker's job."""
    pending = Pending(now, Batch(source.harness))
    reading = Reading(read_lines(source, st, resume, now, settled))
    path = str(source.path)
    for item in reading:
        pending.add(item, path)
    done = reading.result()
    pending.files.append(done.state)
    return PreparedFile(pending, done.counts)


def _exit_with_parent(parent: int) -> None:
    """In a worker: exit as soon as the run that started it is gone (killed with
    SIGKILL, it cannot stop its workers), rather than wait on the pool forever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="viva-parent-watch", daemon=True).start()


def read_in_pool(
    jobs: list[Job], workers: int, now: datetime
) -> Iterator[tuple[Job, PreparedFile | Problem]]:
    """Each job's prepared file (or why it could not be read), in the jobs' order.

    At most ``2 * workers`` files are in flight, so memory stays bounded however
    many files there are.
    """
    context = get_context("spawn")
    queue = list(reversed(jobs))
    running: dict[Future[PreparedFile], Job] = {}
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_exit_with_parent,
        initargs=(os.getpid(),),
    ) as pool:

        def submit() -> None:
            while queue and len(running) < 2 * workers:
                job = queue.pop()
                future = pool.submit(
                    prepare_file, job.source, job.st, job.resume(), now, job.settled
                )
                running[future] = job

        submit()
        while running:
            future = next(iter(running))
            job = running.pop(future)
            try:
                prepared: PreparedFile | Problem = future.result()
            except OSError as exc:
                reason = f"cannot read: {exc.strerror or exc}"
                prepared = Problem(str(job.source.path), None, reason)
            submit()
            yield job, prepared
