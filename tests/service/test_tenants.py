"""Tenant stores: names that are safe as file names, one SQLite file per tenant, reads that
create nothing, and store URLs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stategraph.errors import UnknownStateError
from stategraph.service.errors import InvalidTenantError, ServiceConfigError
from stategraph.service.tenants import SQLiteTenants, check_tenant, open_tenants


@pytest.mark.parametrize("name", ["alice", "a", "tenant-7", "x_y", "0", "a" * 64])
def test_valid_tenant_names(name: str) -> None:
    assert check_tenant(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "Alice", "../bob", "a/b", "a.b", ".", "..", "-a", "_a", "a b", "a\x00", "a" * 65, "é"],
)
def test_names_that_are_no_safe_file_name_are_refused(name: str) -> None:
    with pytest.raises(InvalidTenantError):
        check_tenant(name)


def test_each_tenant_is_its_own_file(tmp_path: Path) -> None:
    tenants = SQLiteTenants(tmp_path / "data")
    try:
        with tenants.memory("alice", write=True) as mem:
            mem.fact("m1", "Alice's")
        with tenants.memory("bob", write=True) as mem:
            mem.fact("m1", "Bob's")
        with tenants.memory("alice") as mem:
            assert mem.state("m1").text == "Alice's"
            assert mem.verify_log() == 1
        assert tenants.tenants() == ["alice", "bob"]
        assert tenants.exists("bob") and not tenants.exists("carol")
        assert sorted(p.name for p in (tmp_path / "data").glob("*.db")) == ["alice.db", "bob.db"]
    finally:
        tenants.close()


def test_reading_a_tenant_without_a_store_creates_nothing(tmp_path: Path) -> None:
    tenants = SQLiteTenants(tmp_path / "data")
    try:
        with tenants.memory("carol") as mem:
            assert mem.states() == []
            with pytest.raises(UnknownStateError):
                mem.state("m1")
        assert list((tmp_path / "data").iterdir()) == []
        with pytest.raises(InvalidTenantError), tenants.memory("../carol", write=True):
            pass
        assert list(tmp_path.iterdir()) == [tmp_path / "data"]
    finally:
        tenants.close()


def test_the_data_folder_is_private(tmp_path: Path) -> None:
    SQLiteTenants(tmp_path / "new" / "data").close()
    assert (tmp_path / "new" / "data").stat().st_mode & 0o077 == 0


def test_only_recent_tenants_keep_a_connection(tmp_path: Path) -> None:
    tenants = SQLiteTenants(tmp_path, keep_open=2)
    try:
        for name in ("a", "b", "c"):
            with tenants.memory(name, write=True) as mem:
                mem.fact("m1")
        keepers = tenants._keepers._open
        assert [Path(p).stem for p in keepers] == ["b", "c"]
    finally:
        tenants.close()
    assert not tenants._keepers._open


def test_store_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    relative = open_tenants("sqlite:///rel")
    absolute = open_tenants(f"sqlite:///{tmp_path}/abs")
    bare = open_tenants("bare")
    try:
        assert isinstance(relative, SQLiteTenants) and relative.folder == Path("rel")
        assert isinstance(absolute, SQLiteTenants) and absolute.folder == tmp_path / "abs"
        assert isinstance(bare, SQLiteTenants) and bare.folder == Path("bare")
        assert relative.name == "stategraph.sqlite_tenants.v1"
    finally:
        for t in (relative, absolute, bare):
            t.close()
    for url in ("postgresql://127.0.0.1:1/x", "sqlite://", "sqlite:///"):  # port 1: refused
        with pytest.raises(ServiceConfigError):
            open_tenants(url)
    (tmp_path / "file").write_text("")
    with pytest.raises(ServiceConfigError):
        open_tenants(f"sqlite:///{tmp_path}/file")
    assert sorted(os.listdir(tmp_path)) == ["abs", "bare", "file", "rel"]
