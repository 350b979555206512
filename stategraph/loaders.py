"""Safe loading of the files stategraph reads: change files, case files and import lines.

These files come from users, agents and other programs, so they are hostile until read. A
plain ``yaml.safe_load`` is safe from code execution but not from the rest: a nine-line
"billion laughs" file expands to gigabytes, a 2,000-level nest ends in ``RecursionError``,
a duplicate key silently wins, and a 5 GB line is read whole. Here every file is read with
limits checked *while* it is parsed, before anything is built:

- ``max_bytes``: the file (or one import line) is read up to this size and refused past it;
- ``max_depth``: nesting of lists and mappings, checked on the parser's event stream (PyYAML's
  parser keeps its own stack, so no recursion happens before the check);
- ``max_aliases`` and ``max_nodes``: YAML aliases used, and nodes counted with every alias
  expanded; a change file allows no alias at all;
- ``max_states``: how many states (or justifications) one file may bring.

Duplicate mapping keys are refused in YAML and JSON alike. Every failure is an
:class:`~stategraph.errors.InputFileError` naming the file, the line where it is known, and
the limit, so the user can fix the file; nothing reaches the engine or the store first.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from stategraph.errors import (
    DuplicateKeyError,
    InputFileError,
    InputLimitError,
    InputSyntaxError,
    InvalidInputError,
    UnreadableInputError,
)

__all__ = [
    "CASE",
    "CHANGE",
    "IMPORT",
    "STDIN",
    "Limits",
    "import_records",
    "load_case_data",
    "load_change",
    "parse_json",
    "parse_yaml",
    "read_jsonl",
    "read_text",
    "require_file",
]

_MIB = 1 << 20
_CHUNK = 1 << 16
STDIN = "-"
"""The name that reads standard input (``revise --change -``)."""


_KeyPath = tuple[str, ...]


@dataclass(frozen=True)
class Limits:
    """What one kind of input file may hold; see the module docstring for each limit.

    ``ids``: where the file's ids stand, each place as the mapping keys that lead to it from
    the top (lists are not counted; :data:`KEYS` last: the keys of that mapping). A plain
    YAML scalar there is the string as written:
    YAML 1.1 would read ``012`` as 10, ``0x10`` as 16, ``1_000`` as 1000, ``12:30`` as 750
    and ``no`` as False, and so name another state. Quoted, tagged or empty scalars, and JSON,
    are read as they are (a number there is then refused by the model: ids are strings).
    """

    max_bytes: int
    max_depth: int = 64
    max_aliases: int = 0
    max_nodes: int = 1_000_000
    max_states: int | None = None
    ids: frozenset[_KeyPath] = frozenset()


_STATE_FIELDS = (
    ("id",),
    ("because",),
    ("because", "all"),
    ("because", "unless"),
    ("context",),
    ("session",),
)


def _state_ids(*at: str) -> set[_KeyPath]:
    """Where a state's ids stand in a case file, the state being at ``at``."""
    return {(*at, *field) for field in _STATE_FIELDS}


KEYS = "<keys>"
"""Last in a place of :attr:`Limits.ids`: the keys of the mapping there are ids."""

_JUSTIFICATION_IDS = {
    (field, *part)
    for field in ("add_justifications", "remove_justifications")
    for part in (("head",), ("premises",), ("unless",), ("checked", KEYS), ("proposed", KEYS))
}

CHANGE = Limits(
    max_bytes=16 * _MIB,
    max_aliases=0,
    max_states=100_000,
    ids=frozenset(
        {("retract",), ("assert", "id"), ("supersede", "id"), ("supersede", "with", "id")}
        | {("reviews", "id")}
        | _JUSTIFICATION_IDS
    ),
)
"""A change file: no YAML alias at all (a change has no use for one)."""


def _change_ids(*at: str) -> set[_KeyPath]:
    """Where a case's change and gold name ids, the change being at ``(*at, "change")``."""
    return (
        {(*at, "change", "retract"), (*at, "change", "supersede", "id")}
        | _state_ids(*at, "change", "assert")
        | _state_ids(*at, "change", "supersede", "with")
        | {(*at, "expect", k) for k in ("invalidated", "kept", "needs_confirmation", "restored")}
        | {(*at, "expect", "consequences", KEYS), (*at, "expect", "depth", KEYS)}
    )


CASE = Limits(
    max_bytes=4 * _MIB,
    max_aliases=1_000,
    max_nodes=200_000,
    max_states=10_000,
    ids=frozenset(
        {("id",), ("basis", KEYS)} | _state_ids("memories") | _change_ids() | _change_ids("changes")
    ),
)
"""A benchmark case, or a trace (its ``changes`` hold what a case's ``change`` and ``expect``
do): aliases allowed, their expansion capped."""
IMPORT = Limits(max_bytes=_MIB, max_nodes=100_000, max_states=10_000_000)
"""One line of a JSONL import (``max_bytes`` is per line); ``max_states`` is per file."""

_Source = str | Path | Traversable
_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"
_CHECKED_SCALARS = {
    "tag:yaml.org,2002:timestamp": "date or time",
    "tag:yaml.org,2002:int": "integer",
}
"""Scalars PyYAML reads by the look of them and then fails to build with a bare
``ValueError``: ``2026-13-45`` or ``2026-02-30`` (a date that does not exist), an integer of
more digits than Python converts. Built once as they are read, to refuse them by line."""
_STR_TAG = "tag:yaml.org,2002:str"


# ---- reading bytes ---------------------------------------------------------------------------


def _name(source: _Source) -> str:
    return "<stdin>" if source == STDIN else str(source)


def _node(source: _Source) -> Path | Traversable:
    return Path(source) if isinstance(source, str) else source


def _open_binary(source: _Source) -> Any:
    """Open a file for reading bytes, with a clean error for every way that can fail."""
    name = _name(source)
    if source == STDIN:
        return sys.stdin.buffer
    node = _node(source)
    if node.is_dir():
        raise UnreadableInputError(name, "is a folder, not a file: give the file's path")
    try:
        return node.open("rb")
    except FileNotFoundError:
        raise UnreadableInputError(name, "no such file: check the path") from None
    except OSError as exc:
        raise UnreadableInputError(name, f"cannot read: {exc.strerror or exc}") from None


def _decode(data: bytes, name: str, first_line: int = 1) -> str:
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        raise UnreadableInputError(
            name, f"not UTF-8 text (byte {data[exc.start]:#04x}): save the file as UTF-8", line
        ) from None


def require_file(source: _Source) -> None:
    """Check that a file can be opened, before anything else (a store) is touched.

    Raises:
        UnreadableInputError: missing, a folder, or unreadable.
    """
    if source != STDIN:
        _open_binary(source).close()


def read_text(source: _Source, limits: Limits) -> str:
    """The whole text of a file (``"-"``: standard input), refused past ``max_bytes``.

    Raises:
        UnreadableInputError: missing, a folder, unreadable, or not UTF-8.
        InputLimitError: larger than ``limits.max_bytes``.
    """
    name = _name(source)
    f = _open_binary(source)
    chunks: list[bytes] = []
    size = 0
    try:  # in chunks: one read(max_bytes) would allocate the whole limit for a small file
        while size <= limits.max_bytes and (
            chunk := f.read(min(_CHUNK, limits.max_bytes + 1 - size))
        ):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise UnreadableInputError(name, f"cannot read: {exc.strerror or exc}") from None
    finally:
        if source != STDIN:
            f.close()
    if size > limits.max_bytes:
        raise InputLimitError(
            name, "max_bytes", limits.max_bytes, f"larger than {limits.max_bytes:,} bytes"
        )
    return _decode(b"".join(chunks), name)


# ---- YAML ------------------------------------------------------------------------------------


@dataclass
class _Open:
    """A list or mapping whose end event has not come yet."""

    node: SequenceNode | MappingNode
    anchor: str | None
    size: int = 1
    height: int = 1
    key: Node | None = None
    keys: dict[Any, int] = field(default_factory=dict)


class _Composer:
    """Builds PyYAML nodes from the parser's events, one event at a time, checking the limits
    as it goes. PyYAML's own composer recurses once per level and expands nothing, but it
    checks nothing either; this one refuses a file at the first event past a limit."""

    def __init__(self, name: str, limits: Limits, first_line: int) -> None:
        self.name = name
        self.limits = limits
        self.offset = first_line
        # PyYAML's stubs leave these untyped
        self.resolver: Any = Resolver()
        self.constructor: Any = SafeConstructor()
        self.stack: list[_Open] = []
        self.anchors: dict[str, tuple[Node, int, int]] = {}
        self.nodes = 0
        self.aliases = 0
        self.root: Node | None = None
        self.documents = 0

    def line(self, event: Any) -> int:
        return int(event.start_mark.line) + self.offset

    def refuse(self, limit: str, reason: str, event: Any) -> InputLimitError:
        value = getattr(self.limits, limit)
        return InputLimitError(self.name, limit, value, reason, self.line(event))

    def feed(self, event: Any) -> None:
        """Take one parser event (PyYAML's C and Python events differ in their stubs)."""
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise InputSyntaxError(
                    self.name, "more than one YAML document: give one", self.line(event)
                )
        elif isinstance(event, yaml.AliasEvent):
            self.alias(event)
        elif isinstance(event, yaml.ScalarEvent):
            self.scalar(event)
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            self.start(event)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            done = self.stack.pop()
            self.close(done.node, done.anchor, done.size, done.height, event)

    def scalar(self, event: Any) -> None:
        tag = event.tag
        if tag is None and event.implicit[0] and event.value and self.at_id():
            tag = _STR_TAG  # an id, as written: never a number, a boolean or a date
        elif tag is None or tag == "!":
            tag = self.resolver.resolve(ScalarNode, event.value, event.implicit)
        node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        self.count(1, event)
        if tag in _CHECKED_SCALARS:
            try:
                self.constructor.yaml_constructors[tag](self.constructor, node)
            except (ValueError, OverflowError) as exc:
                what = _CHECKED_SCALARS[tag]
                reason = f"{event.value[:40]!r} is not a valid {what} ({exc}): quote it as text"
                raise InputSyntaxError(self.name, reason, self.line(event)) from None
        self.close(node, event.anchor, 1, 0, event)

    def at_id(self) -> bool:
        """True when the scalar coming stands where the file holds ids (:attr:`Limits.ids`)."""
        if not self.limits.ids or not self.stack:
            return False
        path = tuple(str(o.key.value) for o in self.stack if o.key is not None)
        top = self.stack[-1]
        if isinstance(top.node, MappingNode) and top.key is None:
            path += (KEYS,)  # a key of the innermost mapping
        return path in self.limits.ids

    def count(self, n: int, event: Any) -> None:
        self.nodes += n
        if self.nodes > self.limits.max_nodes:
            raise self.refuse(
                "max_nodes", f"more than {self.limits.max_nodes:,} values (aliases expanded)", event
            )

    def depth_check(self, height: int, event: Any) -> None:
        if len(self.stack) + height > self.limits.max_depth:
            raise self.refuse(
                "max_depth", f"nested deeper than {self.limits.max_depth} levels", event
            )

    def start(self, event: Any) -> None:
        self.depth_check(1, event)
        self.count(1, event)
        tag = event.tag
        seq = isinstance(event, yaml.SequenceStartEvent)
        kind = SequenceNode if seq else MappingNode
        if tag is None or tag == "!":
            tag = self.resolver.resolve(kind, None, event.implicit)
        node = kind(tag, [], event.start_mark, None, event.flow_style)
        self.stack.append(_Open(node, event.anchor))

    def alias(self, event: Any) -> None:
        self.aliases += 1
        if self.aliases > self.limits.max_aliases:
            what = (
                "YAML aliases (*name) are not allowed here"
                if not self.limits.max_aliases
                else (f"more than {self.limits.max_aliases} YAML aliases")
            )
            raise self.refuse("max_aliases", f"{what}: write the values out", event)
        if event.anchor not in self.anchors:
            raise InputSyntaxError(
                self.name, f"alias *{event.anchor} names no earlier anchor", self.line(event)
            )
        node, size, height = self.anchors[event.anchor]
        self.depth_check(height, event)
        self.count(size, event)
        self.attach(node, size, height, event)

    def close(self, node: Node, anchor: str | None, size: int, height: int, event: Any) -> None:
        if anchor is not None:
            self.anchors[anchor] = (node, size, height)
        self.attach(node, size, height, event)

    def attach(self, node: Node, size: int, height: int, event: Any) -> None:
        if not self.stack:
            self.root = node
            return
        parent = self.stack[-1]
        parent.size += size
        parent.height = max(parent.height, height + 1)
        if isinstance(parent.node, SequenceNode):
            parent.node.value.append(node)
        elif parent.key is None:
            parent.key = self.key(parent, node, event)
        else:
            parent.node.value.append((parent.key, node))
            parent.key = None

    def key(self, parent: _Open, node: Node, event: Any) -> Node:
        line = int(node.start_mark.line) + self.offset
        if not isinstance(node, ScalarNode):
            raise InputSyntaxError(self.name, "a mapping key must be a plain value", line)
        if node.tag == _MERGE_TAG:
            raise InputSyntaxError(self.name, "merge keys (<<) are not supported", line)
        value = self.construct(node, line)
        try:
            first = parent.keys.get(value)
        except TypeError:  # an unhashable key: SafeConstructor refuses it below as well
            first = None
        if first is not None:
            raise DuplicateKeyError(self.name, str(value), line, first)
        parent.keys[value] = line
        return node

    def construct(self, node: Node, line: int) -> Any:
        try:
            return self.constructor.construct_document(node)
        except yaml.YAMLError as exc:
            raise _syntax(self.name, exc, line, self.offset, self.limits) from None


def _syntax(
    name: str, exc: yaml.YAMLError, fallback: int | None, offset: int, limits: Limits
) -> InputFileError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = int(mark.line) + offset if mark is not None else fallback
    problem = getattr(exc, "problem", None) or str(exc)
    if "maximum nesting depth" in problem:
        # libyaml stops a flow nest at its own depth (1,000) while it scans ahead for a key,
        # before our check sees the events: the same fault, said the same way
        depth = limits.max_depth
        return InputLimitError(name, "max_depth", depth, f"nested deeper than {depth} levels", line)
    context = getattr(exc, "context", None)
    reason = f"not valid YAML: {problem}" + (f" ({context})" if context else "")
    return InputSyntaxError(name, reason, line)


def parse_yaml(text: str, name: str, limits: Limits, first_line: int = 1) -> Any:
    """Parse one YAML document under ``limits``; an empty document is None.

    Raises:
        InputSyntaxError: not valid YAML, several documents, a non-scalar or merge key, an
            unknown tag.
        DuplicateKeyError: a mapping gives a key twice.
        InputLimitError: past ``max_depth``, ``max_aliases`` or ``max_nodes``.
    """
    composer = _Composer(name, limits, first_line)
    parser = _YAML_LOADER(text)
    try:
        while parser.check_event():
            composer.feed(parser.get_event())
    except yaml.YAMLError as exc:
        raise _syntax(name, exc, None, first_line, limits) from None
    finally:
        parser.dispose()
    if composer.root is None:
        return None
    line = int(composer.root.start_mark.line) + first_line
    return composer.construct(composer.root, line)


# ---- JSON ------------------------------------------------------------------------------------

_JSON_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _Duplicate(k)
            seen.add(k)
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_depth_fault(text: str, limit: int) -> int | None:
    """The offset of the first bracket nested deeper than ``limit``, or None.

    ``json.loads`` recurses once per level and fails with ``RecursionError`` deep down, so
    the depth is checked first, without recursion; a text with few brackets skips the scan.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for m in _JSON_TOKENS.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > limit:
                return m.start()
        elif tok in "]}":
            depth -= 1
    return None


def parse_json(text: str, name: str, limits: Limits, first_line: int = 1) -> Any:
    """Parse one JSON value under ``limits`` (``max_nodes`` is bounded by ``max_bytes``).

    Raises:
        InputSyntaxError: not valid JSON (``NaN`` and ``Infinity`` included).
        DuplicateKeyError: an object gives a key twice.
        InputLimitError: nested deeper than ``max_depth``.
    """
    fault = _json_depth_fault(text, limits.max_depth)
    if fault is not None:
        at = first_line + text.count("\n", 0, fault)
        limit = limits.max_depth
        raise InputLimitError(name, "max_depth", limit, f"nested deeper than {limit} levels", at)
    single_line = "\n" not in text.rstrip("\n")
    try:
        return json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
    except _Duplicate as dup:
        where = first_line if single_line else None
        raise DuplicateKeyError(name, dup.key, where, None) from None
    except json.JSONDecodeError as exc:
        at = first_line + exc.lineno - 1
        raise InputSyntaxError(name, f"not JSON: {exc.msg} (column {exc.colno})", at) from None
    except ValueError as exc:  # a NaN or Infinity constant
        where = first_line if single_line else None
        raise InputSyntaxError(name, f"not JSON: {exc}", where) from None
    except RecursionError:  # the depth scan is a safety check; this is the net under it
        limit = limits.max_depth
        raise InputLimitError(name, "max_depth", limit, "nested too deeply", first_line) from None


def _parse(text: str, name: str, limits: Limits) -> Any:
    if name.endswith(".json"):
        return parse_json(text, name, limits)
    return parse_yaml(text, name, limits)


# ---- the three kinds of input ----------------------------------------------------------------


def _count(value: Any) -> int:
    if value is None:
        return 0
    return len(value) if isinstance(value, list) else 1


def _check_states(name: str, limits: Limits, n: int, what: str) -> None:
    if limits.max_states is not None and n > limits.max_states:
        raise InputLimitError(
            name, "max_states", limits.max_states, f"{n:,} {what}: split the file"
        )


def load_change(source: str | Path, limits: Limits = CHANGE) -> dict[str, Any]:
    """Read a change file (``"-"``: standard input): YAML, or JSON for a ``.json`` name.

    Returns:
        The change as a mapping (empty for an empty file), not yet validated as a
        :class:`~stategraph.model.Change`.

    Raises:
        InputFileError: the file cannot be read, is not one mapping, or goes past a limit.
    """
    name = _name(source)
    data = _parse(read_text(source, limits), name, limits)
    if data is None:
        return {}
    if not isinstance(data, dict):
        kind = type(data).__name__
        reason = f"a change is one mapping (retract, assert, supersede, ...), not a {kind}"
        raise InputSyntaxError(name, reason)
    n = sum(_count(data.get(k)) for k in ("retract", "assert", "supersede"))
    _check_states(name, limits, n, "states named in one change")
    return data


def load_case_data(source: _Source, limits: Limits = CASE) -> Any:
    """Read a benchmark case file (YAML, or JSON for a ``.json`` name), not yet validated.

    Raises:
        InputFileError: the file cannot be read or goes past a limit.
    """
    name = _name(source)
    data = _parse(read_text(source, limits), name, limits)
    if isinstance(data, dict) and isinstance(data.get("memories"), list):
        _check_states(name, limits, len(data["memories"]), "memories in one case")
    return data


def read_jsonl(source: str | Path, limits: Limits = IMPORT) -> Iterator[tuple[int, Any]]:
    """Stream a JSON Lines file: ``(line number, value)`` for every line that is not blank.

    Each line is read up to ``max_bytes`` (a file of one endless line is refused, never read
    whole) and parsed under ``limits``.

    Raises:
        InputFileError: the file cannot be read, or a line is too long, not UTF-8, not JSON,
            too deep or has a duplicate key.
    """
    name = _name(source)
    with _open_binary(source) as f:
        number = 0
        while raw := f.readline(limits.max_bytes + 1):
            number += 1
            if len(raw) > limits.max_bytes:
                raise InputLimitError(
                    name,
                    "max_bytes",
                    limits.max_bytes,
                    f"line longer than {limits.max_bytes:,} bytes",
                    number,
                )
            text = _decode(raw, name, number)
            if text.strip():
                yield number, parse_json(text, name, limits, number)


def import_records(
    source: str | Path, *, justifications: bool, limits: Limits = IMPORT
) -> Iterator[tuple[str, dict[str, Any]]]:
    """One pass over an import file: its states, or its justifications (objects with a
    ``head``), each with its location ``file:line``.

    Raises:
        InputFileError: as :func:`read_jsonl`, or more than ``max_states`` records.
        InvalidInputError: a line that is not a JSON object.
    """
    name = _name(source)
    what = "justifications" if justifications else "states"
    count = 0
    for number, obj in read_jsonl(source, limits):
        where = f"{name}:{number}"
        if not isinstance(obj, dict):
            raise InvalidInputError("import", [(where, "expected a JSON object")])
        if ("head" in obj) != justifications:
            continue
        count += 1
        if limits.max_states is not None and count > limits.max_states:
            raise InputLimitError(
                name,
                "max_states",
                limits.max_states,
                f"more than {limits.max_states:,} {what}: split the file",
                number,
            )
        yield where, obj
