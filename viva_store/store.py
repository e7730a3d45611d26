"""Opening a store: the engine, the schema, the guards; and the call context.

A :class:`Store` is made once per process (``Store.open``); every service
function takes a :class:`Context` — the store plus the :class:`Actor` making
the call — so access control can never be forgotten.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from viva_store import clock
from viva_store.access import OWNER, Actor
from viva_store.config import Config, ensure_home, load_config
from viva_store.db import engine as db_engine
from viva_store.db.guards import expected_guards
from viva_store.db.migrate import head_revision, opening_state, upgrade
from viva_store.db.schema import (
    APPEND_ONLY,
    CLASSIFICATION,
    ENGAGEMENT_EVENT,
    KNOWLEDGE_EVENT,
    MEMBER,
    MESSAGE,
    PRINCIPLE_EVENT,
    SKILL_EVENT,
)
from viva_store.errors import StoreError

T = TypeVar("T")


class Store:
    """An open store: one engine, migrated to the newest schema, guards verified."""

    def __init__(self, engine: Engine, config: Config) -> None:
        self.engine = engine
        self.config = config

    @classmethod
    def open(cls, config: Config | None = None) -> Store:
        """Open (creating and upgrading when needed) the store ``config`` names.

        Every way this can fail is one line of :class:`StoreError`: a URL that is not a
        database URL or names an engine Viva does not support, a missing driver, a
        folder that does not exist, a damaged or read-only file, a server that refuses.
        """
        config = config or load_config()
        _configure_redaction(config)
        url = _checked_url(config.db_url)
        if config.is_sqlite and config.db_url == config.default_db_url:
            ensure_home(config)  # the default store lives in the data dir, made on first use
        try:
            engine = db_engine.make_engine(config.db_url)
        except (NoSuchModuleError, ModuleNotFoundError) as exc:
            raise StoreError(
                f"no driver for {url.drivername} is installed ({exc}); PostgreSQL stores need "
                "Viva's postgres extra (pip install 'viva-tui[postgres]') and a "
                "postgresql+psycopg:// URL"
            ) from exc
        shown = url.render_as_string(hide_password=True)
        try:
            state = opening_state(engine)
            if state is None or state.revision != head_revision():
                upgrade(engine)
                state = opening_state(engine)
            present = state.triggers if state is not None else frozenset()
            missing = [
                name
                for name in expected_guards(engine.dialect.name, APPEND_ONLY)
                if name not in present
            ]
        except StoreError as exc:
            engine.dispose()
            raise StoreError(f"cannot open the store at {shown}: {exc}") from exc
        except DBAPIError as exc:
            engine.dispose()
            reason = str(exc.orig).splitlines()[0] if exc.orig is not None else type(exc).__name__
            raise StoreError(f"cannot open the store at {shown}: {reason}") from exc
        except SQLAlchemyError as exc:
            engine.dispose()
            raise StoreError(f"cannot open the store at {shown}: {exc}".splitlines()[0]) from exc
        if missing:
            engine.dispose()
            raise StoreError(
                "the store's append-only guards are missing (" + ", ".join(missing) + "); "
                "refusing to open it"
            )
        return cls(engine, config)

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only (its SQLite file cannot be written)."""
        return self.engine.url.query.get("mode") == "ro"

    def write(self, work: Callable[[Connection], T]) -> T:
        """One short write transaction (retried while the store is busy)."""
        return db_engine.write(self.engine, work)

    def read(self, work: Callable[[Connection], T]) -> T:
        """One read transaction."""
        return db_engine.read(self.engine, work)

    def change_stamp(self) -> ChangeStamp:
        """Where each part of the store stands now (one cheap query on indexed keys).

        Two stamps differ in an area when anything of it was written in between, by this
        process or any other; live views poll it to know what to read again.
        """
        marks = [
            select(func.max(MESSAGE.c.id)).scalar_subquery(),
            select(func.max(CLASSIFICATION.c.id)).scalar_subquery(),
            select(func.max(SKILL_EVENT.c.id)).scalar_subquery(),
            select(func.max(PRINCIPLE_EVENT.c.id)).scalar_subquery(),
            select(func.max(ENGAGEMENT_EVENT.c.id)).scalar_subquery(),
            select(func.count()).select_from(MEMBER).scalar_subquery(),
            select(func.max(KNOWLEDGE_EVENT.c.id)).scalar_subquery(),
        ]
        row = self.read(lambda conn: conn.execute(select(*marks)).one())
        return ChangeStamp(dict(zip(CHANGE_AREAS, (int(v or 0) for v in row), strict=True)))

    def now(self) -> datetime:
        """The store's clock (``VIVA_NOW`` aware)."""
        return clock.now()

    def close(self) -> None:
        self.engine.dispose()


CHANGE_AREAS = (
    "sessions",
    "triage",
    "skills",
    "principles",
    "engagement",
    "members",
    "knowledge",
)
"""The parts of the store a :class:`ChangeStamp` tells apart."""


@dataclass(frozen=True, slots=True)
class ChangeStamp:
    """The newest entry of each area's log (an area's mark only grows as it is written)."""

    marks: dict[str, int]

    def changed_since(self, earlier: ChangeStamp | None) -> frozenset[str]:
        """The areas written since ``earlier`` (all of them when there is none); an
        ``earlier`` read after this one names none."""
        if earlier is None:
            return frozenset(self.marks)
        return frozenset(a for a, mark in self.marks.items() if mark > earlier.marks.get(a, -1))

    def merged(self, other: ChangeStamp) -> ChangeStamp:
        """The newer mark of each area (stamps read in any order merge to the latest)."""
        areas = self.marks.keys() | other.marks.keys()
        return ChangeStamp({a: max(self.marks.get(a, -1), other.marks.get(a, -1)) for a in areas})


ENGINES = ("sqlite", "postgresql")


def _configure_redaction(config: Config) -> None:
    """Check and apply the user's own rules (``[redact]`` of ``config.toml``) before the
    store opens: a bad rule is an error now, not a secret that slips through later.
    Without any, the rules load only when something is redacted."""
    own = config.section("redact")
    if not own and "viva_store.redact" not in sys.modules:
        return
    # Rules of one's own, or a redactor loaded already (an earlier store of this process):
    # set it to this config's rules.
    from viva_store import redact

    redact.configure(redact.settings_from_config(own, str(config.config_file)))


def _checked_url(text: str) -> URL:
    """``text`` as a database URL of an engine Viva supports, or a one-line error that
    never repeats the text (it may hold a password)."""
    try:
        url = make_url(text)
    except ArgumentError as exc:
        raise StoreError(
            "VIVA_DB_URL is not a database URL; give one such as sqlite:////path/to/viva.db "
            "or postgresql+psycopg://user@host/viva"
        ) from exc
    if url.get_backend_name() not in ENGINES:
        raise StoreError(
            f"VIVA_DB_URL names {url.get_backend_name()}: Viva keeps its store in SQLite or "
            "PostgreSQL"
        )
    return url


@dataclass(frozen=True, slots=True)
class Context:
    """What every service call receives: the store and who is asking."""

    store: Store
    actor: Actor = OWNER

    def as_actor(self, actor: Actor) -> Context:
        return Context(self.store, actor)
