"""A namespaced key as a stategraph id, and back: the mapping the framework integrations share.

A key in a namespace (LangGraph's ``("memories", "u1")`` and ``"move"``) becomes one state id
in one memory::

    memories/u1/move          the first version
    memories/u1/move#2        the version that superseded it, and so on

Each label and the key are escaped, so the mapping is reversible and every id a valid
stategraph id (:func:`stategraph.model.normalise_id`): ``%``, ``/``, ``#`` and ``.`` become
``%25``, ``%2F``, ``%23``, ``%2E``; so do control, line-separator and bidi characters,
whitespace other than a space, and a space at either end of a label or key (an id loses its
surrounding spaces). A character at or above U+0100 that needs escaping is written ``%uXXXX``
(or ``%UXXXXXX``). Text that Unicode normalisation (NFC) would change is escaped whole, so that
two keys that print alike stay two ids. Chinese, accented and other text that needs none of
this is kept as typed, so ids stay readable in a picture or a log.

The ids of one namespace share the prefix :func:`namespace_prefix` (``memories/u1/``), which
also covers every namespace below it (``memories/u1/notes/...``): a namespace is a prefix
search, as LangGraph's ``search`` and ``list_namespaces`` expect.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from stategraph.errors import InvalidInputError
from stategraph.model import normalise_id

__all__ = ["MAX_ID", "namespace_prefix", "parse_id", "state_id"]

MAX_ID = 512
"""The longest state id (:func:`stategraph.model.normalise_id`)."""

Parsed = tuple[tuple[str, ...], str, int]
"""A parsed id: namespace, key, version (1 for the first)."""

_SPECIAL = frozenset("%/#.")
_NOT_IN_IDS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_ESCAPE = re.compile("%(?:([0-9A-F]{2})|u([0-9A-F]{4})|U([0-9A-F]{6}))")


def _code(c: str) -> str:
    n = ord(c)
    if n < 0x100:
        return f"%{n:02X}"
    return f"%u{n:04X}" if n < 0x10000 else f"%U{n:06X}"


def _escape(text: str, everything: bool = False) -> str:
    """One label or key, escaped (``everything``: every character outside ASCII too)."""
    out = []
    last = len(text) - 1
    for i, c in enumerate(text):
        if (
            c in _SPECIAL
            or _NOT_IN_IDS.match(c)
            or (c.isspace() and (c != " " or i in (0, last)))
            or (everything and not c.isascii())
        ):
            out.append(_code(c))
        else:
            out.append(c)
    escaped = "".join(out)
    if not everything and not unicodedata.is_normalized("NFC", escaped):
        return _escape(text, everything=True)
    return escaped


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(next(g for g in m.groups() if g), 16)), text)


def namespace_prefix(namespace: Sequence[str]) -> str:
    """The prefix every id of this namespace, and of the namespaces below it, starts with
    (``""`` for the empty namespace: every id)."""
    return "".join(_escape(label) + "/" for label in namespace)


def state_id(namespace: Sequence[str], key: str, version: int = 1) -> str:
    """The id of a key's ``version`` (1: the first) in a namespace.

    Raises:
        InvalidInputError: the namespace is empty, or the id would be longer than
            :data:`MAX_ID` characters (shorten the key or the namespace).
    """
    if not namespace:
        raise InvalidInputError("namespace", [("namespace", "is empty: name at least one label")])
    sid = namespace_prefix(namespace) + _escape(key) + (f"#{version}" if version > 1 else "")
    if len(sid) > MAX_ID:
        raise InvalidInputError(
            "key",
            [
                (
                    "key",
                    f"namespace and key make an id of {len(sid)} characters once escaped; "
                    f"at most {MAX_ID}: use a shorter key or namespace",
                )
            ],
        )
    assert normalise_id(sid) == sid, sid  # what the escaping is for
    return sid


def parse_id(sid: str) -> Parsed | None:
    """The namespace, key and version an id names, or None for an id this mapping did not
    make (a memory written some other way into the same store)."""
    labels = sid.split("/")
    if len(labels) < 2:
        return None
    *names, last = labels
    key, sep, tail = last.rpartition("#")
    version = 1
    if sep:
        if not tail.isdigit() or not tail.isascii() or int(tail) < 2 or tail.startswith("0"):
            return None
        version = int(tail)
    else:
        key = last
    namespace = tuple(_unescape(n) for n in names)
    key = _unescape(key)
    if any(not n for n in namespace):
        return None
    try:
        if state_id(namespace, key, version) != sid:  # only what this mapping makes
            return None
    except InvalidInputError:
        return None
    return namespace, key, version
