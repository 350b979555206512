"""Bearer tokens: stored only as hashes, each scoped to one tenant, refused alike when missing
or unknown; the tokens file is read under the loaders' limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stategraph.errors import DuplicateKeyError, UnreadableInputError
from stategraph.service.auth import Tokens, add_token, hash_token
from stategraph.service.errors import InvalidTenantError, ServiceConfigError, UnauthorizedError


def test_a_token_is_stored_only_as_its_hash(tmp_path: Path) -> None:
    file = tmp_path / "tokens.json"
    alice = add_token(file, "alice", label="laptop")
    bob = add_token(file, "bob")
    text = file.read_text()
    assert alice not in text and bob not in text
    assert hash_token(alice) in text
    assert file.stat().st_mode & 0o777 == 0o600
    tokens = Tokens.from_file(file)
    assert tokens.tenant_for(alice) == "alice"
    assert tokens.tenant_for(bob) == "bob"
    assert tokens.tenants == {"alice", "bob"}
    assert json.loads(text)["tokens"][0]["label"] == "laptop"
    assert alice.startswith("sg_") and len(alice) > 40


def test_no_token_and_an_unknown_token_are_refused_alike(tmp_path: Path) -> None:
    file = tmp_path / "tokens.json"
    token = add_token(file, "alice")
    tokens = Tokens.from_file(file)
    messages = set()
    for presented in (None, "", "sg_unknown", token + "x", hash_token(token)):
        with pytest.raises(UnauthorizedError) as caught:
            tokens.tenant_for(presented)
        messages.add(str(caught.value))
    assert len(messages) == 1


def test_a_bad_tokens_file_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "tokens.json"
    with pytest.raises(UnreadableInputError):
        Tokens.from_file(file)
    digest = "0" * 64
    file.write_text('{"tokens": [], "tokens": []}')
    with pytest.raises(DuplicateKeyError):
        Tokens.from_file(file)
    bad = [
        {"tokens": [{"sha256": "abc", "tenant": "alice"}]},
        {"tokens": [{"sha256": digest, "tenant": "alice", "token": "clear"}]},
        {"tokens": [{"sha256": digest, "tenant": "a"}, {"sha256": digest, "tenant": "b"}]},
        {"tokens": [{"sha256": digest, "tenant": "../etc"}]},
        ["not", "a", "mapping"],
    ]
    for data in bad:
        file.write_text(json.dumps(data))
        with pytest.raises(ServiceConfigError):
            Tokens.from_file(file)
    with pytest.raises(ServiceConfigError):
        add_token(file, "alice")  # an unreadable file is never overwritten
    assert json.loads(file.read_text()) == ["not", "a", "mapping"]
    with pytest.raises(InvalidTenantError):
        add_token(tmp_path / "other.json", "Alice")
    assert not (tmp_path / "other.json").exists()
