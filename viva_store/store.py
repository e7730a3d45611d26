"""Opening a store: the engine, the schema, the guards; and the call context.

A :class:`Store` is made once per process (``Store.open``); every service
function takes a :class:`Context` — the store plus the :class:`Actor` making
the call — so access control can never be forgotten.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from viva_store import clock, redact
from viva_store.access import OWNER, Actor
from viva_store.config import CONFIG_FILE, Config, ensure_home, load_config
from viva_store.db import engine as db_engine
from viva_store.db.guards import missing_guards
from viva_store.db.migrate import upgrade
from viva_store.db.raw import RawTx, RawWriter
from viva_store.db.schema import APPEND_ONLY
from viva_store.errors import StoreError

T = TypeVar("T")


class Store:
    """An open store: one engine, migrated to the newest schema, guards verified."""

    def __init__(self, engine: Engine, config: Config) -> None:
        self.engine = engine
        self.config = config
        self._raw = RawWriter(engine)

    @classmethod
    def open(cls, config: Config | None = None) -> Store:
        """Open (creating and upgrading when needed) the store ``config`` names."""
        config = config or load_config()
        # The user's own rules are checked before anything is opened: a bad rule is an
        # error now, not a secret that slips through later.
        where = str(config.home / CONFIG_FILE)
        redact.configure(redact.settings_from_config(config.section("redact"), where))
        if config.is_sqlite:
            ensure_home(config)
        try:
            engine = db_engine.make_engine(config.db_url)
            upgrade(engine)
            missing = db_engine.read(engine, lambda c: missing_guards(c, APPEND_ONLY))
        except OperationalError as exc:
            raise StoreError(f"cannot open the store at {_safe_url(config)}: {exc.orig}") from exc
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open the store at {_safe_url(config)}: {exc}") from exc
        if missing:
            engine.dispose()
            raise StoreError(
                "the store's append-only guards are missing (" + ", ".join(missing) + "); "
                "refusing to open it"
            )
        return cls(engine, config)

    def write(self, work: Callable[[Connection], T]) -> T:
        """One short write transaction (retried while the store is busy)."""
        return db_engine.write(self.engine, work)

    def write_raw(self, work: Callable[[RawTx], T]) -> T:
        """One short write transaction on the DBAPI connection (a hot path's prepared
        statements; see :mod:`viva_store.db.raw`), retried while the store is busy."""
        return self._raw.write(work)

    def read(self, work: Callable[[Connection], T]) -> T:
        """One read transaction."""
        return db_engine.read(self.engine, work)

    def now(self) -> datetime:
        """The store's clock (``VIVA_NOW`` aware)."""
        return clock.now()

    def close(self) -> None:
        self._raw.close()
        self.engine.dispose()


def _safe_url(config: Config) -> str:
    """The database URL without its password (error messages reach the terminal)."""
    from sqlalchemy.engine import make_url

    return make_url(config.db_url).render_as_string(hide_password=True)


@dataclass(frozen=True, slots=True)
class Context:
    """What every service call receives: the store and who is asking."""

    store: Store
    actor: Actor = OWNER

    def as_actor(self, actor: Actor) -> Context:
        return Context(self.store, actor)
