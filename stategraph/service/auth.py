"""Bearer tokens, each scoped to one tenant, kept hashed in a tokens file.

A request's tenant comes only from its token: no route takes a tenant name, so no request can
name another tenant's memory. The tokens file holds the SHA-256 of each token, never the token
itself, so a copy of the file (a backup, a config repository) lets nobody in. Tokens are 256
random bits, so an unsalted fast hash is enough: there is nothing to guess from a digest.

The file is JSON::

    {"tokens": [{"sha256": "<64 hex digits>", "tenant": "alice", "label": "alice's laptop"}]}

``stategraph serve --tokens FILE --add-token TENANT`` adds a new token for a tenant and prints
it once. The file is read under the same limits as every other input file
(:mod:`stategraph.loaders`): duplicate keys refused, nesting and size bounded.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stategraph.loaders import Limits, parse_json, read_text
from stategraph.service.errors import ServiceConfigError, UnauthorizedError
from stategraph.service.tenants import check_tenant

__all__ = ["TokenEntry", "Tokens", "add_token", "hash_token", "new_token"]

_LIMITS = Limits(max_bytes=16 << 20, max_depth=8)
_SHA256 = r"^[0-9a-f]{64}$"


def hash_token(token: str) -> str:
    """The SHA-256 of a token, as the tokens file stores it (lower-case hex)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A new random token (256 bits, URL-safe), prefixed ``sg_`` so that secret scanners and
    people can tell what it is."""
    return "sg_" + secrets.token_urlsafe(32)


class TokenEntry(BaseModel):
    """One token of the tokens file: its hash, and the one tenant it may act as."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sha256: str = Field(pattern=_SHA256)
    tenant: str
    label: str = ""


class _TokensFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tokens: tuple[TokenEntry, ...] = ()


class Tokens:
    """The tokens a server accepts, by hash.

    Args:
        entries: the tokens; each tenant name must be valid, and each hash appear once.

    Raises:
        ServiceConfigError: a hash given twice, or an invalid tenant name.
    """

    def __init__(self, entries: tuple[TokenEntry, ...] | list[TokenEntry]) -> None:
        self._tenant_of: dict[str, str] = {}
        for e in entries:
            try:
                check_tenant(e.tenant)
            except ValueError as exc:
                raise ServiceConfigError("--tokens", str(exc)) from None
            if e.sha256 in self._tenant_of:
                raise ServiceConfigError(
                    "--tokens", f"the token hash {e.sha256[:12]}... is given twice"
                )
            self._tenant_of[e.sha256] = e.tenant

    @classmethod
    def from_file(cls, path: str | Path) -> Tokens:
        """Read a tokens file.

        Raises:
            InputFileError: the file is missing, unreadable, not JSON, or too large or deep.
            ServiceConfigError: its content is not a tokens file.
        """
        name = str(path)
        data = parse_json(read_text(Path(path), _LIMITS), name, _LIMITS)
        try:
            parsed = _TokensFile.model_validate(data)
        except ValidationError as exc:
            where = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
                for e in exc.errors()
            )
            raise ServiceConfigError("--tokens", f"{name} is not a tokens file: {where}") from None
        return cls(parsed.tokens)

    @property
    def tenants(self) -> frozenset[str]:
        """Every tenant some token may act as."""
        return frozenset(self._tenant_of.values())

    def tenant_for(self, token: str | None) -> str:
        """The tenant a presented token acts as.

        Raises:
            UnauthorizedError: no token, or one the file does not list (the same error for
                both, so that a caller learns nothing about which tokens exist).
        """
        if not token:
            raise UnauthorizedError()
        tenant = self._tenant_of.get(hash_token(token))
        if tenant is None:
            raise UnauthorizedError()
        return tenant


def add_token(path: str | Path, tenant: str, label: str = "") -> str:
    """Add a new token for ``tenant`` to a tokens file (created if missing) and return it.

    The token itself is returned once and stored nowhere: only its hash goes into the file,
    which is replaced atomically and readable by its owner only.

    Raises:
        InvalidTenantError: the tenant name is not valid.
        InputFileError, ServiceConfigError: the existing file cannot be read as a tokens file.
    """
    check_tenant(tenant)
    file = Path(path)
    entries: list[TokenEntry] = []
    if file.exists():
        data = parse_json(read_text(file, _LIMITS), str(file), _LIMITS)
        try:
            entries = list(_TokensFile.model_validate(data).tokens)
        except ValidationError:
            raise ServiceConfigError(
                "--tokens", f"{file} is not a tokens file: fix or move it first"
            ) from None
    token = new_token()
    entries.append(TokenEntry(sha256=hash_token(token), tenant=tenant, label=label))
    text = json.dumps({"tokens": [e.model_dump() for e in entries]}, indent=2, ensure_ascii=False)
    fd, tmp = tempfile.mkstemp(dir=file.parent if str(file.parent) else ".", prefix=".tokens.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, file)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return token
