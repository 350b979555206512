"""The exceptions stategraph raises.

Every error derives from :class:`StategraphError`, so callers can catch one type. Each subclass
carries the offending data as attributes and says in its message what to do about it. Errors
about bad input also derive from :class:`ValueError` (or :class:`KeyError` for lookups) so that
code written against the standard library's conventions keeps working.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "AsOfRangeError",
    "ConcurrentChangeError",
    "DuplicateKeyError",
    "DuplicateStateError",
    "EmbeddingError",
    "HeadMismatchError",
    "InconsistentStoreError",
    "InputFileError",
    "InputLimitError",
    "InputSyntaxError",
    "InvalidChangeError",
    "InvalidInputError",
    "InvalidKindError",
    "JudgeConfigError",
    "LogIntegrityError",
    "LogicError",
    "MalformedAnswerError",
    "NotHoldingError",
    "NotPendingError",
    "RenderError",
    "ReplayDivergenceError",
    "ReplayUnavailableError",
    "ResourceNotFoundError",
    "SelfJustificationError",
    "StategraphError",
    "StoreBusyError",
    "StoreError",
    "StoreNotFoundError",
    "StoreUnavailableError",
    "TamperedStoreError",
    "ToolNotFoundError",
    "UnknownStateError",
    "UnreadableInputError",
]


class StategraphError(Exception):
    """Root of every error stategraph raises."""


class InvalidInputError(StategraphError, ValueError):
    """Input did not validate (a state, justification or change with a bad field).

    Attributes:
        what: what was being validated (``"state"``, ``"change"``, ...).
        errors: the validation errors as ``(location, message)`` pairs.
    """

    def __init__(self, what: str, errors: Sequence[tuple[str, str]]) -> None:
        self.what = what
        self.errors = list(errors)
        lines = "; ".join(f"{loc or '(root)'}: {msg}" for loc, msg in self.errors)
        super().__init__(f"invalid {what}: {lines}")


class UnknownStateError(StategraphError, KeyError):
    """An operation named a state id the memory does not hold.

    Attributes:
        state_id: the id that was not found.
        context: where it was named (e.g. ``"premise of m2"``).
    """

    def __init__(self, state_id: str, context: str = "") -> None:
        self.state_id = state_id
        self.context = context
        where = f" ({context})" if context else ""
        super().__init__(
            f"unknown state id {state_id!r}{where}: add the state first, or check the spelling"
        )

    def __str__(self) -> str:  # KeyError would repr() the message otherwise
        return str(self.args[0])


class SelfJustificationError(StategraphError, ValueError):
    """A justification names its own head as a premise or as an ``unless`` condition.

    Attributes:
        state_id: the head that cites itself.
    """

    def __init__(self, state_id: str) -> None:
        self.state_id = state_id
        super().__init__(
            f"justification of {state_id!r} cites {state_id!r} itself: a state cannot support "
            "or block itself; remove it from the premises/unless list"
        )


class InvalidKindError(StategraphError, ValueError):
    """A state's kind is not one the policy knows.

    Attributes:
        kind: the unknown kind.
        known: the kinds the policy accepts.
    """

    def __init__(self, kind: str, known: Iterable[str], state_id: str = "") -> None:
        self.kind = kind
        self.known = sorted(known)
        self.state_id = state_id
        who = f" of state {state_id!r}" if state_id else ""
        super().__init__(
            f"unknown kind {kind!r}{who}: use one of {', '.join(self.known)}, "
            "or register the kind in the Policy"
        )


class InvalidChangeError(StategraphError, ValueError):
    """A change cannot be applied as given (it contradicts itself or the memory).

    Attributes:
        field: the part of the change at fault (``"retract"``, ``"supersede"``, ...).
        state_id: the id concerned, when there is one.
    """

    def __init__(self, field: str, message: str, state_id: str = "") -> None:
        self.field = field
        self.state_id = state_id
        super().__init__(f"invalid change ({field}): {message}")


class DuplicateStateError(InvalidChangeError):
    """A state was added under an id that is already taken (also by a retracted state: ids
    are history).

    A conflict with the memory as it is, not malformed input: the same change succeeds on a
    memory without that id (the HTTP API answers 409, not 400).

    Attributes:
        state_id: the id that already exists.
        field: the part of the change that adds it (``"assert"``, ``"supersede"``), or empty.
    """

    def __init__(self, state_id: str, field: str = "") -> None:
        said = f"state id {state_id!r} already exists: pick a new id, or supersede the old state"
        super().__init__(field, said, state_id)
        if not field:
            self.args = (said,)


class NotHoldingError(StategraphError, ValueError):
    """``why`` was asked about a state that does not hold.

    Attributes:
        state_id: the state.
        truth: its current truth value.
    """

    def __init__(self, state_id: str, truth: str) -> None:
        self.state_id = state_id
        self.truth = truth
        super().__init__(
            f"state {state_id!r} does not hold (it is {truth}): ask why-not instead "
            f"(Memory.why_not({state_id!r}), or stategraph why-not STORE {state_id})"
        )


class LogicError(StategraphError):
    """The logic layer failed (clingo reported an error or an unexpected result)."""


class ResourceNotFoundError(StategraphError, FileNotFoundError):
    """A packaged data file (an encoding or a pattern pack) is missing.

    Attributes:
        name: the resource asked for.
    """

    def __init__(self, name: str, available: Iterable[str] = ()) -> None:
        self.name = name
        self.available = sorted(available)
        hint = f"; available: {', '.join(self.available)}" if self.available else ""
        super().__init__(f"no packaged resource {name!r}{hint} (is the installation complete?)")


class StoreError(StategraphError):
    """The store file cannot be used (wrong schema version, not a stategraph store, ...)."""

    def __init__(self, path: str, message: str, **data: Any) -> None:
        self.path = path
        self.data = data
        super().__init__(f"{path}: {message}")


class StoreBusyError(StoreError):
    """Another connection held the store's write lock for longer than the busy timeout.

    Raised instead of SQLite's "database is locked", which reads like damage: the store is
    fine, and the operation that raised this wrote nothing, so it can simply be tried again.

    Attributes:
        timeout: how long the operation waited for the lock, in seconds.
    """

    def __init__(self, path: str, timeout: float) -> None:
        self.timeout = timeout
        super().__init__(
            path,
            f"the store is busy: another process has held its write lock for more than the busy "
            f"timeout ({timeout:g} s) and nothing was written; retry the operation later, or "
            "open the store with a longer busy_timeout",
            timeout=timeout,
        )


class StoreUnavailableError(StoreError):
    """The database server, or the node of a distributed database that holds the store's
    rows, could not be reached (down, restarting, or cut off).

    Raised instead of a driver's connection error, which names hosts and ports. The store is
    not damaged: a write runs in one transaction on the node that holds its tenant, so an
    operation that raised this either wrote nothing or, if the node went away during its very
    commit, wrote all of it; retry later, and after a failure mid-write look (read the state
    back) before sending the same revision again. On a distributed database the other
    tenants, on other nodes, are served meanwhile.

    Attributes:
        driver_message: what the database driver said (it names hosts and ports, so it is
            kept out of the service's answers; its log has it).
    """

    def __init__(self, path: str, driver_message: str) -> None:
        self.driver_message = driver_message
        super().__init__(
            path,
            "the database node that holds this store cannot be reached (down or restarting); "
            "the operation did not complete: retry it later",
        )


class ConcurrentChangeError(StoreError):
    """Another writer committed while a revision was being computed from what it read.

    Raised by a store's commit when its log head moved since the revision started reading;
    nothing was written. :class:`~stategraph.memory.Memory` catches it and recomputes the
    revision from the new store state (judge answers already given are reused), at last
    holding the write lock, so it reaches only callers of the store's own API.

    Attributes:
        attempts: how many times the revision was computed.
    """

    def __init__(self, path: str, attempts: int) -> None:
        self.attempts = attempts
        super().__init__(
            path,
            f"other writers committed during each of {attempts} attempts to revise; nothing "
            "was written: retry the change",
            attempts=attempts,
        )


class LogIntegrityError(StoreError):
    """The revision log's hash chain does not verify: an entry was altered or removed.

    Attributes:
        seq: the first entry that does not verify.
        reason: what is wrong with it.
        breaks: every ``(seq, reason)`` found, in log order (the first is ``seq, reason``).
    """

    def __init__(
        self,
        path: str,
        seq: int,
        reason: str = "does not match its hash chain",
        breaks: Sequence[tuple[int, str]] = (),
        advice: str = "the log was altered; restore the store from a backup",
    ) -> None:
        self.seq = seq
        self.reason = reason
        self.breaks = list(breaks) or [(seq, reason)]
        more = f" ({len(self.breaks) - 1} more after it)" if len(self.breaks) > 1 else ""
        super().__init__(
            path, f"revision log entry {seq} {reason}{more}: {advice}", seq=seq, reason=reason
        )


class TamperedStoreError(LogIntegrityError):
    """A write was refused because an earlier verification of the log failed.

    The store refuses every write from the failed verification on, in every process, until
    someone who has looked at the damage says to carry on
    (:meth:`stategraph.store.SQLiteStore.acknowledge_tamper`, or ``stategraph history STORE
    --acknowledge-tamper``).
    """

    def __init__(self, path: str, breaks: Sequence[tuple[int, str]]) -> None:
        seq, reason = breaks[0]
        super().__init__(
            path,
            seq,
            reason,
            breaks,
            advice="the store refuses writes since a verification found this; restore it from a "
            "backup, or inspect it and acknowledge the breaks to write again ('stategraph history "
            "STORE --acknowledge-tamper', or SQLiteStore.acknowledge_tamper())",
        )


class HeadMismatchError(LogIntegrityError):
    """The log verifies, but does not reach the head the caller gave.

    An answer about that head, not evidence found in the store: anyone may give any head, so
    nothing is recorded and writes go on. If the head was taken from this store earlier and
    kept elsewhere, entries were removed from the end of the log (or replaced) since.
    """

    def __init__(self, path: str, breaks: Sequence[tuple[int, str]]) -> None:
        seq, reason = breaks[0]
        super().__init__(
            path,
            seq,
            reason,
            breaks,
            advice="the head given does not match this log; if it was taken from this store, "
            "entries were removed or replaced since: restore the store from a backup",
        )


class InconsistentStoreError(StategraphError):
    """A state's stored truth value contradicts its stored justifications (or its status).

    Revisions write the values, the justifications and the log together, so only an edit of
    the store's tables outside stategraph leaves a store so; ``stategraph history STORE
    --verify --deep`` says what no longer matches the log.

    Attributes:
        state_id: the state concerned.
        problem: what contradicts what.
    """

    def __init__(self, state_id: str, problem: str) -> None:
        self.state_id = state_id
        self.problem = problem
        super().__init__(
            f"state {state_id!r} {problem}: the store's tables were edited outside stategraph; "
            "run 'stategraph history STORE --verify --deep', and restore the store from a backup"
        )


class InputFileError(StategraphError, ValueError):
    """An input file (a change, a case, an import) cannot be read or is refused.

    Raised before anything is validated or written, so a hostile or broken file never reaches
    the engine or the store.

    Attributes:
        path: the file (``<stdin>`` for standard input).
        line: the 1-based line of the fault, or None where it is not known.
        reason: what is wrong and what to do, without the location.
    """

    def __init__(self, path: str, reason: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        super().__init__(f"{path}{'' if line is None else f':{line}'}: {reason}")

    @property
    def detail(self) -> str:
        """The reason with the line, for callers that name the file themselves."""
        return self.reason if self.line is None else f"line {self.line}: {self.reason}"


class UnreadableInputError(InputFileError):
    """An input file is missing, is a folder, cannot be opened, or is not UTF-8 text."""


class InputSyntaxError(InputFileError):
    """An input file is not valid YAML or JSON, or uses a construct stategraph refuses
    (several documents, a non-scalar or merge key, a tag it does not read)."""


class DuplicateKeyError(InputFileError):
    """A mapping in an input file gives the same key twice (YAML and JSON parsers would keep
    the last one silently).

    Attributes:
        key: the repeated key.
        first_line: the line of its first occurrence, where known.
    """

    def __init__(self, path: str, key: str, line: int | None, first_line: int | None) -> None:
        self.key = key
        self.first_line = first_line
        first = f" (first given on line {first_line})" if first_line is not None else ""
        super().__init__(path, f"duplicate key {key!r}{first}: give each key once", line=line)


class InputLimitError(InputFileError):
    """An input file goes past one of the loader's limits (size, nesting depth, YAML aliases,
    nodes after alias expansion, number of states).

    Attributes:
        limit: the name of the limit (``max_bytes``, ``max_depth``, ``max_aliases``,
            ``max_nodes``, ``max_states``).
        value: the limit's value.
    """

    def __init__(
        self, path: str, limit: str, value: int, reason: str, line: int | None = None
    ) -> None:
        self.limit = limit
        self.value = value
        super().__init__(path, f"{reason} (limit {limit}={value})", line=line)


class StoreNotFoundError(StoreError, FileNotFoundError):
    """A command that only reads a store was given a path where no store exists.

    Raised instead of creating an empty store for a mistyped path.
    """

    def __init__(self, path: str) -> None:
        super().__init__(
            path,
            "no such store: check the path (only add, revise and import create a store)",
        )


class JudgeConfigError(StategraphError, ValueError):
    """A judge cannot be built as configured: a setting is missing or out of range.

    Raised only when a judge is constructed, never while it answers, so a misconfigured judge
    fails before a revision starts rather than leaving every edge undecided.

    Attributes:
        judge: the judge's versioned name.
        fields: the settings or environment variables at fault.
    """

    def __init__(self, judge: str, message: str, fields: Iterable[str] = ()) -> None:
        self.judge = judge
        self.fields = sorted(fields)
        super().__init__(f"{judge}: {message}")


class EmbeddingError(StategraphError):
    """An embedder could not give the vectors asked for (timeout, connection, HTTP status,
    a malformed reply).

    Recall catches it and keeps its lexical order, with a warning in each result's reason: an
    embedding rerank never loses a recall.

    Attributes:
        model: the embedding model.
        reason: what went wrong, starting with a fixed word (``timeout``, ``connection``,
            ``http_error``, ``malformed``, ``too_large``, ``unexpected``).
    """

    def __init__(self, model: str, reason: str) -> None:
        self.model = model
        self.reason = reason
        super().__init__(f"embedding model {model}: {reason}")


class MalformedAnswerError(StategraphError, ValueError):
    """A judge's reply is not one JSON object of the answer's schema.

    A judge turns this into a call with ``error`` set (the edge stays undecided); it is raised
    only by :func:`stategraph.judge.parse.parse_answers` (and ``parse_answer``) for callers
    that parse replies themselves.

    Attributes:
        text: the reply as received (cut to 500 characters).
        problem: what is wrong with it.
    """

    def __init__(self, text: str, problem: str) -> None:
        self.text = text[:500]
        self.problem = problem
        super().__init__(
            f"malformed judge answer ({problem}): expected one JSON object "
            '{"answers": [{"head": id, "still_holds": bool, "support": [ids], "reason": str}]} '
            '(one answer {"still_holds": ...} under the prompt versions of one question a '
            "request), bare or in one ```json fence"
        )


class ToolNotFoundError(StategraphError, FileNotFoundError):
    """An outside program that one feature runs is not installed (not on ``PATH``).

    Raised before anything is written, naming what to install, so a missing optional tool is
    an instruction rather than a traceback; the rest of stategraph works without it.

    Attributes:
        tool: the program looked for (``"dot"``).
        needed_for: what needs it (``"--format svg"``).
        install: how to install it.
        instead: what works without it.
    """

    def __init__(self, tool: str, needed_for: str, install: str, instead: str = "") -> None:
        self.tool = tool
        self.needed_for = needed_for
        self.install = install
        self.instead = instead
        alt = f"; or {instead}" if instead else ""
        super().__init__(
            f"{needed_for} needs the program {tool!r}, which is not installed (not on PATH): "
            f"{install}{alt}"
        )


class RenderError(StategraphError):
    """An outside renderer (Graphviz's ``dot``) failed on a picture stategraph wrote.

    Attributes:
        tool: the program that failed.
        detail: what it printed on stderr (cut to 500 characters).
    """

    def __init__(self, tool: str, detail: str) -> None:
        self.tool = tool
        self.detail = detail.strip()[:500]
        super().__init__(
            f"{tool} failed to render the picture ({self.detail or 'no message'}): rerun with "
            "--format dot to see the input, and report it"
        )


class NotPendingError(StategraphError, ValueError):
    """A confirmation or rejection named a state that is not waiting for review.

    Only states a revision flagged ``needs_confirmation`` (and nothing settled since), or
    whose value is undefined, can be confirmed or rejected: a review is a person's answer to
    the engine's question, not a way around it.

    Attributes:
        state_id: the state.
        truth: its current value.
        active: False if it was retracted or superseded.
    """

    def __init__(self, state_id: str, truth: str, active: bool) -> None:
        self.state_id = state_id
        self.truth = truth
        self.active = active
        if not active:
            what = "it was retracted or superseded"
        else:
            what = f"it is {truth} and no revision left it flagged needs_confirmation"
        super().__init__(
            f"state {state_id!r} is not waiting for review ({what}): see 'stategraph review' "
            "for the states that are; to change another state, revise it (add a justification, "
            "or retract it)"
        )


class ReplayDivergenceError(LogIntegrityError):
    """Replaying a logged change did not give the logged report (or judge calls, or config).

    The hash chain held, so the entry was either rewritten with its hashes recomputed, or
    written by a stategraph whose verdicts differ from this one's.

    Attributes:
        where: the first place the two differ, as a path (``report.entries[1].verdict``).
        logged: the logged value there (cut to 200 characters).
        replayed: the replayed value there (cut to 200 characters).
    """

    def __init__(self, path: str, seq: int, where: str, logged: str, replayed: str) -> None:
        self.where = where
        self.logged = logged[:200]
        self.replayed = replayed[:200]
        super().__init__(
            path,
            seq,
            f"does not replay: at {where} the log has {self.logged} but replaying its change "
            f"gives {self.replayed}",
            advice="the entry was rewritten (hashes recomputed), or written by another version "
            "of stategraph; compare with a head kept elsewhere, or replay with that version",
        )


class ReplayUnavailableError(StategraphError, ValueError):
    """A log cannot be replayed as given (it does not start at its first entry, or was written
    with settings this stategraph cannot rebuild).

    Attributes:
        seq: the entry concerned.
        reason: what is missing, and what to do.
    """

    def __init__(self, seq: int, reason: str) -> None:
        self.seq = seq
        self.reason = reason
        super().__init__(f"cannot replay revision log entry {seq}: {reason}")


class AsOfRangeError(InvalidInputError):
    """A read of the past asked for a revision the memory cannot show: before its first
    revision (or before the past was kept, for a store migrated from an older version), or
    after its last one (a revision not written yet, a time in the future).

    Attributes:
        asked: what was asked for (a sequence number or a time, as given).
        first: the earliest revision that can be read (None: the memory has no revision yet).
        last: the latest revision (its head; 0 when there is none).
    """

    def __init__(self, asked: object, first: int | None, last: int, problem: str) -> None:
        self.asked = asked
        self.first = first
        self.last = last
        if first is None:
            valid = "the memory has no revision yet, so it has no past to read"
        elif first == last:
            valid = f"the only revision that can be read is {last}"
        else:
            valid = f"give a revision from {first} to {last}, or a time from then on"
        super().__init__("as_of", [("as_of", f"{problem}: {valid}")])
