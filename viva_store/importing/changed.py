"""Reading the sources a run found new or changed, and storing what they hold.

Only a run with something to read comes here (:func:`read_changed`), so the harness
readers, the redaction of transcripts and the writers are imported by such a run
alone: a re-import of an unchanged history stays close to a bare directory walk.
Small files are read in worker processes when it pays
(:mod:`~viva_store.importing.pool`); what a read yields goes into the pending batch,
and the :class:`~viva_store.importing.batch.Writer` stores each batch in one
transaction.
"""

from __future__ import annotations

from collections.abc import Generator

from viva_store.importing.batch import Pending, Writer
from viva_store.importing.harness.model import Problem
from viva_store.importing.harness.reader import LINE_KINDS
from viva_store.importing.paths import PathKeys
from viva_store.importing.pool import POOL_FILE_BYTES, POOL_MIN_BYTES, default_workers, read_in_pool
from viva_store.importing.prepare import Batch
from viva_store.importing.read import Reading, read_lines, read_whole
from viva_store.importing.sources import Job
from viva_store.importing.summary import FileImported, ImportSummary, Tally
from viva_store.store import Context


def read_changed(
    ctx: Context,
    summary: ImportSummary,
    jobs: list[Job],
    keys: PathKeys,
    workers: int | None,
    pool_min_bytes: int | None,
) -> Generator[FileImported, None, Tally]:
    """Read and store ``jobs``, one event per file; returns what the writes stored.
    Line counts and problems go to ``summary``."""
    for job in jobs:  # a resumed read may not see the cwd its folder is named after
        if job.known is not None:
            keys.folders.learn_stored(str(job.source.path), job.known.path)
    writer = Writer(ctx, summary.run_id, keys)
    small = [j for j in jobs if j.source.kind in LINE_KINDS and j.st.st_size <= POOL_FILE_BYTES]
    count = workers if workers is not None else default_workers()
    least = POOL_MIN_BYTES if pool_min_bytes is None else pool_min_bytes
    if count > 1 and sum(j.st.st_size for j in small) >= least:
        for job, prepared in read_in_pool(small, count, writer.now):
            if isinstance(prepared, Problem):
                summary.problems.append(prepared)
            else:
                writer.begin(job.source.harness)
                writer.pending.absorb(prepared.pending)
                summary.count(prepared.counts)
                if writer.full:
                    writer.flush()
            yield _imported(job, writer)
        pooled = {id(j) for j in small}
        jobs = [j for j in jobs if id(j) not in pooled]
    for job in jobs:
        try:
            if job.source.kind in LINE_KINDS:
                _read_here(writer, summary, job)
            else:
                _read_whole(ctx, writer, summary, job)
        except OSError as exc:
            reason = f"cannot read: {exc.strerror or exc}"
            summary.problems.append(Problem(str(job.source.path), None, reason))
        yield _imported(job, writer)
    writer.flush()
    return writer.written


def _imported(job: Job, writer: Writer) -> FileImported:
    source = job.source
    return FileImported(
        source.harness, str(source.path), job.st.st_size, writer.written.messages_added
    )


def _read_here(writer: Writer, summary: ImportSummary, job: Job) -> None:
    """Stream one JSON-lines file into the pending batch, storing it whenever it fills."""
    writer.begin(job.source.harness)
    path = str(job.source.path)
    reading = Reading(read_lines(job.source, job.st, job.resume(), writer.now, job.settled))
    for item in reading:
        writer.pending.add(item, path)
        if writer.full:
            writer.flush()
    done = reading.result()
    summary.count(done.counts)
    writer.pending.files.append(done.state)
    if writer.full:
        writer.flush()


def _read_whole(ctx: Context, writer: Writer, summary: ImportSummary, job: Job) -> None:
    """Read a source that is not JSON lines and store it in a transaction of its own:
    such sources report running totals, so there the latest usage figure wins."""
    writer.flush()
    source = job.source
    whole = Pending(writer.now, Batch(source.harness), replace_usage=True)
    reading = Reading(read_whole(source, job.st, ctx.store.now()))
    path = str(source.path)
    for chunk in reading:
        whole.add(chunk, path)
    done = reading.result()
    summary.count(done.counts)
    whole.files.append(done.state)
    writer.store(whole)
