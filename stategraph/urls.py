"""Store URLs as they may be shown: every credential taken out, and a malformed URL refused.

A PostgreSQL URL can carry a password in three places: ``user:PASSWORD@host``, a query
parameter (``?password=``, ``?sslpassword=``), or, in a libpq conninfo string, a
``password=`` pair. Every message, error and log line that shows a URL (or that a database
driver wrote about one) goes through :func:`redact` first: it never raises, even for a URL
that does not parse, so the path that reports a bad URL cannot itself leak or crash.

:func:`check_url` reads a URL the way the stores will (``urllib.parse``) and turns the
``ValueError`` a malformed IPv6 host or a port past 65535 raises into a clear
:class:`~stategraph.errors.InvalidInputError` naming the redacted URL.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import SplitResult, unquote, urlsplit

from stategraph.errors import InvalidInputError

__all__ = ["MASK", "check_url", "redact", "redact_logs"]

MASK = "***"
"""What a credential is shown as."""

_AUTHORITY = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<netloc>[^/?#\s]*)")
_SECRET_PAIR = re.compile(
    r"(?P<key>\b[\w.-]*(?:password|passwd|pwd|secret|token)[\w.-]*)"
    r"(?P<eq>\s*=\s*)"
    r"(?P<value>'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?|(?:[^&\s'\":]|:(?!\s|$))*)",
    re.IGNORECASE,
)
"""A ``key=value`` whose key names a credential (``password``, ``sslpassword``,
``PGPASSWORD``, ``token``, ...), in a query string or a conninfo string, quoted or not (a
bare value ends at ``&``, a space, or a colon that ends a message's subject)."""
_MIN_SECRET = 3
"""Shorter credentials are not searched for as bare text in a message (every ``a`` of it
would go); their ``user:...@`` and ``password=`` forms are still masked."""


def _mask_userinfo(match: re.Match[str]) -> str:
    netloc = match["netloc"]
    if "@" not in netloc:
        return match.group()
    userinfo, _, host = netloc.rpartition("@")  # as urllib: the host follows the last '@'
    if ":" not in userinfo:
        return match.group()
    user = userinfo.partition(":")[0]
    return f"{match['scheme']}{user}:{MASK}@{host}"


def _secrets(url: str) -> list[str]:
    """The credentials a URL or conninfo string carries, as written and percent-decoded."""
    found: list[str] = []
    for m in _AUTHORITY.finditer(url):
        userinfo = m["netloc"].rpartition("@")[0] if "@" in m["netloc"] else ""
        if ":" in userinfo:
            found.append(userinfo.partition(":")[2])
    for m in _SECRET_PAIR.finditer(url):
        found.append(m["value"].strip("'\""))
    out: set[str] = set()
    for s in found:
        out.update({s, unquote(s)})
    return sorted((s for s in out if len(s) >= _MIN_SECRET), key=len, reverse=True)


def redact(text: str, *urls: str) -> str:
    """``text`` (a URL, a conninfo string, or a message about one) with every credential
    replaced by :data:`MASK`.

    Masks the password of every ``scheme://user:password@host`` and the value of every
    ``key=value`` whose key names a credential; and, for each of ``urls`` (the URLs the
    message may be about), every place the message quotes one of their credentials as bare
    text (a driver's "syntax error near ..."), percent-decoded or not. Never raises.
    """
    secrets = [s for url in (text, *urls) for s in _secrets(url)]
    out = _AUTHORITY.sub(_mask_userinfo, text)
    out = _SECRET_PAIR.sub(lambda m: f"{m['key']}{m['eq']}{MASK}", out)
    for secret in secrets:
        out = out.replace(secret, MASK)
    return out


def check_url(url: str, what: str = "store") -> SplitResult:
    """``url`` split into its parts, checked as the database driver will read it.

    Raises:
        InvalidInputError: the URL does not parse (a malformed IPv6 host such as
            ``[::1``), or names a port outside 0..65535; the message shows the URL redacted.
    """
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (urllib checks the port only when it is read)
    except ValueError as exc:
        problem = f"{redact(url)} is not a valid URL ({exc}): check the host and the port"
        raise InvalidInputError(what, [("url", problem)]) from None
    return parts


def _redacted(record: logging.LogRecord, urls: tuple[str, ...]) -> logging.LogRecord:
    message = record.getMessage()
    cleaned = redact(message, *urls)
    if cleaned != message:
        record.msg, record.args = cleaned, None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text, *urls)
    return record


def redact_logs(*urls: str) -> None:
    """Run :func:`redact` over every log record this process makes from now on (its message
    and its traceback), whichever library logs it: a server calls this at start with its
    store URL, so that no log line shows a credential, whatever an exception's text quotes.
    Calling it again replaces the URLs."""
    factory = logging.getLogRecordFactory()
    base = getattr(factory, "_stategraph_base", factory)

    def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
        return _redacted(base(*args, **kwargs), urls)

    make._stategraph_base = base  # type: ignore[attr-defined]
    logging.setLogRecordFactory(make)
