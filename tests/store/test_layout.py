"""Where Viva's files land: the platform's folders, ``VIVA_HOME`` as one folder,
``VIVA_CONFIG``, and an earlier layout (everything in the data dir) moved once."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from viva_store.config import load_config
from viva_store.errors import InvalidInput
from viva_store.store import Store

linux = pytest.mark.skipif(sys.platform != "linux", reason="the XDG folders are Linux's")
XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


@pytest.fixture
def user(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A user's home with no ``VIVA_HOME``: the platform's folders apply."""
    home = tmp_path / "user"
    monkeypatch.delenv("VIVA_HOME")
    monkeypatch.delenv("VIVA_CONFIG", raising=False)
    for var in XDG:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return home


@linux
def test_each_kind_of_file_has_its_platform_folder(user: Path) -> None:
    config = load_config()
    assert config.home == user / ".local/share/viva"
    assert config.config_file == user / ".config/viva/config.toml"
    assert config.state_dir == user / ".local/state/viva"
    assert config.cache_dir == user / ".cache/viva"
    assert config.log_dir == user / ".local/state/viva/log"
    Store.open(config).close()
    assert (config.home / "viva.db").is_file()
    assert config.config_file.is_file() and not (config.home / "config.toml").exists()
    assert (config.config_file.stat().st_mode & 0o777) == 0o600
    assert ((config.home / "viva.db").stat().st_mode & 0o777) == 0o600


def test_viva_home_keeps_everything_in_one_folder(tmp_path: Path) -> None:
    home = tmp_path / "one"
    config = load_config({"VIVA_HOME": str(home)})
    assert {config.home, config.config_dir, config.state_dir, config.cache_dir} == {home}
    assert config.config_file == home / "config.toml" and config.log_dir == home / "logs"


def test_viva_config_names_the_file_and_is_never_written(tmp_path: Path) -> None:
    chosen = tmp_path / "elsewhere.toml"
    chosen.write_text("[recall]\nhalf_life_days = 7.0\n", encoding="utf-8")
    env = {"VIVA_HOME": str(tmp_path / "home"), "VIVA_CONFIG": str(chosen)}
    config = load_config(env)
    assert config.config_file == chosen and config.section("recall")["half_life_days"] == 7.0
    Store.open(config).close()
    assert not (tmp_path / "home" / "config.toml").exists()
    with pytest.raises(InvalidInput, match=r"VIVA_CONFIG names .*missing\.toml"):
        load_config({**env, "VIVA_CONFIG": str(tmp_path / "missing.toml")})


@linux
def test_an_old_layout_is_moved_once_with_a_message(user: Path) -> None:
    old = user / ".local/share/viva"
    (old / "themes").mkdir(parents=True)
    (old / "config.toml").write_text("[recall]\nhalf_life_days = 9.0\n", encoding="utf-8")
    (old / "ui.json").write_text('{"theme": "viva-light"}', encoding="utf-8")
    (old / "themes" / "mine.yaml").write_text("name: mine\n", encoding="utf-8")
    (old / ".theme-cache.json").write_text("{}", encoding="utf-8")
    (old / "viva.db").write_bytes(b"")

    config = load_config()
    assert config.section("recall")["half_life_days"] == 9.0  # read from its new place
    moved = {Path(n.split(" to ")[1].split(" (")[0]) for n in config.notices}
    assert moved == {
        user / ".config/viva/config.toml",
        user / ".config/viva/themes",
        user / ".local/state/viva/ui.json",
        user / ".cache/viva/.theme-cache.json",
    }
    assert all(n.startswith(f"moved {old}/") for n in config.notices)
    assert (user / ".config/viva/themes/mine.yaml").read_text() == "name: mine\n"
    assert sorted(os.listdir(old)) == ["viva.db"]  # the database stays in the data dir

    again = load_config()
    assert again.notices == () and again.section("recall")["half_life_days"] == 9.0


@linux
def test_a_file_already_in_its_new_place_is_not_overwritten(user: Path) -> None:
    old = user / ".local/share/viva"
    old.mkdir(parents=True)
    (old / "config.toml").write_text("# old\n", encoding="utf-8")
    new = user / ".config/viva/config.toml"
    new.parent.mkdir(parents=True)
    new.write_text("# new\n", encoding="utf-8")
    assert load_config().notices == ()
    assert new.read_text() == "# new\n" and (old / "config.toml").read_text() == "# old\n"


@linux
def test_the_cli_says_what_it_moved(user: Path) -> None:
    from tests.cli.runner import run

    old = Path(load_config().home)
    old.mkdir(parents=True)
    (old / "ui.json").write_text("{}", encoding="utf-8")
    done = run(["members", "--json"])
    assert done.code == 0, done.err
    assert f"viva: moved {old / 'ui.json'} to " in done.err
    assert "moved" not in run(["members", "--json"]).err
