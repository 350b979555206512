"""The benchmark case format: one file (YAML or JSON) per case, validated before anything runs.

A case holds a memory history, one change and the gold answer (see ``DESIGN.md``, "Benchmark").
Validation is strict because a wrong gold silently skews every figure the suite reports: unknown
fields, dangling premises, expected ids that name nothing, and missing depths are all errors, and
each error names the case file and the field so that a suite author can fix it at once.

A *trace* is an agent's memory as it wrote it, over several sessions, and then several changes:
one file with ``memories`` (each may name the ``session`` it was written in) and ``changes``, a
list of ``{told_as, change, expect, why}`` applied in order. It is scored as one case per change
(:meth:`Trace.steps`): change ``k`` is applied to the memory as the changes before it left it,
and scored like a case's change, on the memories the gold has not already seen go. An optional
``basis`` block gives the gold support of derived memories; it is never shown to a system, only
read by analyses (how many of the gold premises the candidates found).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from stategraph.errors import InputFileError, StategraphError
from stategraph.loaders import load_case_data

__all__ = [
    "KNOWN_TAGS",
    "Case",
    "CaseChange",
    "CaseError",
    "CaseExpect",
    "CaseMemory",
    "CaseStep",
    "Support",
    "Trace",
    "load_case",
    "load_case_file",
    "load_cases",
    "shipped_cases",
    "shipped_cases_dir",
    "validate",
    "validate_trace",
]

KNOWN_TAGS = frozenset(
    {
        "hard-negative",
        "alternative-support",
        "dead-cycle",
        "unless",
        "restore",
        "action",
        "supersede-compatible",
        "negative-cycle",
        "deep",
        "blind",  # text written without sight of the grounding and not yet used to develop it
        "seen",  # written blind, then looked at while developing: reported apart, never as blind
        "trace",  # an agent's memory over sessions, then several changes (Trace)
    }
)
"""Feature tags a case may carry; anything else is a typo and rejected."""

_CASE_SUFFIXES = (".yaml", ".yml", ".json")
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class CaseError(StategraphError, ValueError):
    """A case file is malformed or its gold answer is inconsistent.

    Attributes:
        path: the case file.
        field: the dotted location of the fault inside the case (``memories[2].because``).
        message: what is wrong.
    """

    def __init__(self, path: str, field: str, message: str) -> None:
        self.path = path
        self.field = field
        self.message = message
        super().__init__(f"{path}: {field or '(root)'}: {message}")


_STRICT = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Support(BaseModel):
    """One alternative justification: every premise holds and no ``unless`` state holds."""

    model_config = _STRICT

    all: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()

    def to_engine(self) -> dict[str, list[str]]:
        """The ``{all, unless}`` mapping the engine's ``because=`` argument accepts."""
        return {"all": list(self.all), "unless": list(self.unless)}


def _support(value: Any) -> Any:
    """Accept a bare id, a list of ids, or an ``{all, unless}`` mapping."""
    if isinstance(value, str):
        return {"all": [value]}
    if isinstance(value, (list, tuple)):
        return {"all": list(value)}
    return value


class CaseMemory(BaseModel):
    """One memory of the history (or a state a change brings in)."""

    model_config = _STRICT

    id: str
    kind: str
    text: str
    status: Literal["pending", "executed"] | None = None
    because: tuple[Support, ...] = ()
    context: tuple[str, ...] = ()
    session: str | None = Field(default=None, min_length=1, max_length=200)
    """The session or turn the agent wrote it in (``Memory.add(..., session=...)``)."""

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not _ID_RE.match(v):
            raise ValueError(f"id {v!r} must be letters, digits, '_', '-' or '.'")
        return v

    @field_validator("kind")
    @classmethod
    def _kind_known(cls, v: str) -> str:
        if not v.isidentifier():
            raise ValueError(f"kind must be a simple name such as 'belief', got {v!r}")
        return v

    @field_validator("because", mode="before")
    @classmethod
    def _alternatives(cls, v: Any) -> Any:
        if isinstance(v, (list, tuple)):
            return [_support(alt) for alt in v]
        return v

    @property
    def supports(self) -> tuple[Support, ...]:
        """The alternatives (empty for facts and for candidate-only or text-only states)."""
        return self.because

    def premise_ids(self) -> set[str]:
        """Every id this memory's declared alternatives require to hold."""
        return {p for alt in self.because for p in alt.all}

    def unless_ids(self) -> set[str]:
        """Every id whose holding would block one of this memory's alternatives."""
        return {u for alt in self.because for u in alt.unless}


class Supersede(BaseModel):
    """Replace ``id`` by the state ``with``."""

    model_config = _STRICT

    id: str
    with_: CaseMemory = Field(alias="with")


class CaseChange(BaseModel):
    """What the case revises: any of ``retract``, ``assert``, ``supersede``."""

    model_config = _STRICT

    retract: tuple[str, ...] = ()
    assert_: tuple[CaseMemory, ...] = Field(default=(), alias="assert")
    supersede: tuple[Supersede, ...] = ()

    @field_validator("supersede", "retract", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, (dict, str)) else v

    def removed_ids(self) -> set[str]:
        """States that stop holding because the change says so (retracted or superseded)."""
        return set(self.retract) | {s.id for s in self.supersede}

    def added(self) -> list[CaseMemory]:
        """States the change brings in (asserted, and the new side of each supersession)."""
        return [*self.assert_, *(s.with_ for s in self.supersede)]

    def changed_ids(self) -> set[str]:
        """Every state the change acts on; none of them is scored."""
        return self.removed_ids() | {m.id for m in self.added()}

    def to_engine(self) -> dict[str, Any]:
        """The change as the engine's ``Change.model_validate`` expects it."""
        out: dict[str, Any] = {}
        if self.retract:
            out["retract"] = list(self.retract)
        if self.assert_:
            out["assert"] = [_state_dict(m) for m in self.assert_]
        if self.supersede:
            out["supersede"] = [{"id": s.id, "with": _state_dict(s.with_)} for s in self.supersede]
        return out


def _state_dict(m: CaseMemory) -> dict[str, Any]:
    out: dict[str, Any] = {"id": m.id, "kind": m.kind, "text": m.text}
    if m.status is not None:
        out["status"] = m.status
    if m.session is not None:
        out["session"] = m.session
    return out


class CaseExpect(BaseModel):
    """The gold answer, written by reasoning about the situation (never by running a system)."""

    model_config = _STRICT

    invalidated: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    needs_confirmation: tuple[str, ...] = ()
    restored: tuple[str, ...] = ()
    consequences: dict[str, Literal["cancel", "review"]] = Field(default_factory=dict)
    depth: dict[str, int] = Field(default_factory=dict)


class CaseStep(BaseModel):
    """One change of a trace, with its gold.

    Attributes:
        told_as: how the agent told it (``supersede``, ``retract``, ``correction``, or
            ``fact``: a new fact that says the old one no longer holds); reported, never
            shown to a system.
        change: the change, as a case gives it.
        expect: the gold answer for this change alone.
        why: the author's reason for the gold, for whoever reads a failure.
        reverses: for a change told as a new fact, the fact it reverses (which the gold
            counts as gone); never shown to a system.
        carries_over: for a correction, the memories the corrected fact goes on supporting
            (the detail they rest on did not change); never shown to a system.
    """

    model_config = _STRICT

    told_as: str = ""
    change: CaseChange
    expect: CaseExpect
    why: str = ""
    reverses: str | None = None
    carries_over: tuple[str, ...] = ()


class Case(BaseModel):
    """One benchmark case. Use :func:`load_case` to read one with file-aware errors.

    A step of a trace (:meth:`Trace.steps`) is a case too: its ``history`` holds the trace's
    changes before it, which a system applies first, unscored; ``told_as`` and ``why`` are its
    step's.
    """

    model_config = _STRICT

    id: str
    lang: Literal["zh", "en", "mixed"]
    track: Literal["declared", "recovered", "text"]
    memories: tuple[CaseMemory, ...]
    change: CaseChange
    expect: CaseExpect
    tags: tuple[str, ...] = ()
    history: tuple[CaseStep, ...] = ()
    told_as: str = ""
    why: str = ""
    reverses: str | None = None
    trace: str | None = None
    """The trace this case is a step of (None: a case of its own)."""
    basis: dict[str, Any] = Field(default_factory=dict)
    """The trace's gold support of its derived memories (:attr:`Trace.basis`): never shown
    to a system; the gold oracle cites it (:mod:`stategraph.bench.gold_judge`)."""

    def basis_of(self, state_id: str) -> set[str]:
        """Every id the gold support of a memory names (empty when there is none)."""
        return set(_ids_in(self.basis.get(state_id)))

    @property
    def domain(self) -> str:
        """The domain, read from the id's first segment (``relocation-zh-01`` → relocation)."""
        return self.id.split("-", 1)[0]

    @property
    def batch(self) -> str:
        """The batch a case came in, read from its id's last segment: its letters before the
        number (``finance-en-g03`` → ``g``; ``finance-en-03`` → ``""``, the first cases). A
        trace's steps are in their trace's batch."""
        last = (self.trace or self.id).rsplit("-", 1)[-1]
        found = re.match(r"[A-Za-z]*", last)
        return found.group(0).lower() if found and found.group(0) != last else ""

    def gold_invalidated(self) -> set[str]:
        """What the gold invalidates: ``expect.invalidated``, and the fact a new fact told as
        a change reverses (:attr:`reverses`), which the gold counts as gone whether or not its
        author listed it (unless listed as left to confirmation): superseding it is right,
        asking about it is a needed question, and keeping it silently beside its reversal is
        a silent miss."""
        out = set(self.expect.invalidated)
        if self.reverses is not None and self.reverses not in self.expect.needs_confirmation:
            out.add(self.reverses)
        return out

    def gone(self) -> set[str]:
        """The states the gold of the earlier steps of a trace saw go (invalidated, and not
        restored since): not scored again (empty for a case of its own)."""
        out: set[str] = set()
        for step in self.history:
            out |= set(step.expect.invalidated) | step.change.removed_ids()
            if step.reverses is not None:
                out.add(step.reverses)
            out -= set(step.expect.restored)
        return out

    def unscored(self) -> set[str]:
        """The states not scored: the ones the change acts on, and :meth:`gone`."""
        return self.change.changed_ids() | self.gone()

    def memory(self, state_id: str) -> CaseMemory | None:
        """The memory with that id (in a trace's step, also one its earlier changes added),
        or None."""
        added = (m for step in self.history for m in step.change.added())
        return next((m for m in (*self.memories, *added) if m.id == state_id), None)

    def scored_ids(self) -> list[str]:
        """The memories a system is scored on: all but the changed ones (and in a trace's
        step, the ones its earlier changes added, but not those the gold saw go)."""
        unscored = self.unscored()
        added = [m for step in self.history for m in step.change.added()]
        return [m.id for m in (*self.memories, *added) if m.id not in unscored]


def _loc(loc: Iterable[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _check_memories(case: Case, err: _Errors) -> set[str]:
    ids: set[str] = set()
    for i, m in enumerate(case.memories):
        where = f"memories[{i}]"
        if m.id in ids:
            err(f"{where}.id", f"duplicate id {m.id!r}")
        ids.add(m.id)
        if m.kind == "fact" and m.because:
            err(f"{where}.because", "a fact is exogenous and takes no justification")
        if m.kind == "action" and m.status is None:
            err(f"{where}.status", "an action needs status: pending or executed")
        if m.kind != "action" and m.status is not None:
            err(f"{where}.status", "only actions carry a status")
        if case.track == "text" and (m.because or m.context):
            err(where, "text-track memories carry only id, kind, text (and status)")
        if case.track == "recovered" and m.because:
            err(f"{where}.because", "recovered-track memories carry candidate context only")
        if case.track == "declared" and m.context:
            err(f"{where}.context", "declared-track memories give their edges in because")
    for i, m in enumerate(case.memories):
        for j, alt in enumerate(m.because):
            for p in alt.all:
                if p not in ids:
                    err(f"memories[{i}].because[{j}].all", f"premise {p!r} is not a memory")
            if m.id in alt.all or m.id in alt.unless:
                err(f"memories[{i}].because[{j}]", f"{m.id!r} cites itself")
        for c in m.context:
            if c not in ids:
                err(f"memories[{i}].context", f"context id {c!r} is not a memory")
            if c == m.id:
                err(f"memories[{i}].context", f"{m.id!r} cites itself")
    return ids


def _check_change(case: Case, ids: set[str], err: _Errors, at: str = "") -> None:
    ch = case.change
    if not (ch.retract or ch.assert_ or ch.supersede):
        err(f"{at}change", "the change is empty: give retract, assert or supersede")
    for r in ch.retract:
        if r not in ids:
            err(f"{at}change.retract", f"{r!r} is not a memory")
    for k, s in enumerate(ch.supersede):
        if s.id not in ids:
            err(f"{at}change.supersede[{k}].id", f"{s.id!r} is not a memory")
    seen: set[str] = set()
    for m in ch.added():
        if m.id in ids or m.id in seen:
            err(f"{at}change", f"new state id {m.id!r} is already taken")
        seen.add(m.id)
        if m.kind != "fact" or m.because or m.context:
            err(f"{at}change", f"new state {m.id!r} must be a plain fact (no because/context)")


def _check_expect(case: Case, ids: set[str], err: _Errors, at: str = "") -> None:
    ex = case.expect
    changed = case.change.changed_ids()
    where = f"{at}expect"
    groups = {
        "invalidated": set(ex.invalidated),
        "kept": set(ex.kept),
        "needs_confirmation": set(ex.needs_confirmation),
        "restored": set(ex.restored),
    }
    for name, group in groups.items():
        for s in sorted(group):
            if s not in ids:
                err(f"{where}.{name}", f"{s!r} is not a memory")
            elif s in changed:
                err(f"{where}.{name}", f"{s!r} is changed by the change and is not scored")
    names = list(groups)
    for a_i, a in enumerate(names):
        for b in names[a_i + 1 :]:
            both = groups[a] & groups[b]
            if both:
                err(f"{where}.{b}", f"{sorted(both)} also listed in expect.{a}")
    moved = groups["invalidated"] | groups["needs_confirmation"] | groups["restored"]
    missing = sorted(moved - set(ex.depth))
    if missing and case.trace is None:  # a trace's author may leave depths out
        err(f"{where}.depth", f"no gold depth for {missing}")
    for s, d in sorted(ex.depth.items()):
        if s not in moved:
            err(f"{where}.depth.{s}", "depth given for a state that is not moved")
        if d < 1 and not (d == 0 and s == case.reverses):  # the fact a new fact reverses
            err(f"{where}.depth.{s}", f"depth must be >= 1, got {d}")
    _check_consequences(case, groups, err, where)


def _check_consequences(
    case: Case, groups: dict[str, set[str]], err: _Errors, where: str = "expect"
) -> None:
    ex = case.expect
    added = [m for step in case.history for m in step.change.added()]
    for m in (*case.memories, *added):
        if m.kind != "action":
            continue
        if m.status == "executed" and m.id in groups["invalidated"]:
            err(f"{where}.invalidated", f"executed action {m.id!r} is graded needs_confirmation")
        want = None
        if m.status == "pending" and m.id in groups["invalidated"]:
            want = "cancel"
        if m.id in groups["needs_confirmation"]:
            want = "review"  # an undecided action must not run (or stand) unreviewed
        got = ex.consequences.get(m.id)
        if want is not None and got != want:
            err(f"{where}.consequences.{m.id}", f"expected {want!r}, got {got!r}")
        if want is None and got is not None:
            err(f"{where}.consequences.{m.id}", f"{got!r} given for an action that is not lost")
    actions = {m.id for m in case.memories if m.kind == "action"}
    for s in sorted(set(ex.consequences) - actions):
        err(f"{where}.consequences.{s}", f"{s!r} is not an action")


def _check_tags(case: Case, err: _Errors) -> None:
    for t in case.tags:
        if t not in KNOWN_TAGS:
            err("tags", f"unknown tag {t!r}; known: {', '.join(sorted(KNOWN_TAGS))}")


class _Errors:
    """Collects faults so one run reports every problem of a file, not just the first."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def __call__(self, field: str, message: str) -> None:
        self.items.append((field, message))


def _invalid(exc: ValidationError, path: str, at: str = "") -> CaseError:
    first = exc.errors()[0]
    fields = "; ".join(f"{at}{_loc(e['loc'])}: {e['msg']}" for e in exc.errors())
    return CaseError(path, at + _loc(first["loc"]), fields)


_STEP_ONLY = frozenset({"history", "told_as", "why", "reverses", "trace", "basis"})
"""Fields of :class:`Case` that only :meth:`Trace.steps` sets."""


def _check_case(case: Case, err: _Errors, at: str = "") -> None:
    """Every check of a case (``at``: where a trace's step stands in its file)."""
    _check_tags(case, err)
    ids = _check_memories(case, err)
    for step in case.history:
        ids |= {m.id for m in step.change.added()}
    _check_change(case, ids, err, at)
    _check_expect(case, ids, err, at)


def _raise(err: _Errors, path: str) -> None:
    if err.items:
        field, _ = err.items[0]
        raise CaseError(path, field, "; ".join(f"{f}: {m}" for f, m in err.items))


def _check_name(case_id: str, path: str, err: _Errors) -> None:
    stem = Path(path).stem
    if stem != case_id and not path.startswith("<"):
        err("id", f"id {case_id!r} must match the file name {stem!r}")


def validate(data: Any, path: str) -> Case:
    """Validate parsed case data.

    Args:
        data: the parsed YAML/JSON document.
        path: the file it came from, for error messages.

    Raises:
        CaseError: naming the file and the first faulty field (all faults are in the message).
    """
    if isinstance(data, dict):
        for key in sorted(_STEP_ONLY & data.keys()):
            raise CaseError(path, key, "only a trace's steps carry it: write a trace's changes")
    try:
        case = Case.model_validate(data)
    except ValidationError as exc:
        raise _invalid(exc, path) from None
    err = _Errors()
    _check_name(case.id, path, err)
    _check_case(case, err)
    _raise(err, path)
    return case


class Trace(BaseModel):
    """An agent's memory over several sessions, then several changes (see the module's
    docstring). Read one with :func:`load_case_file`; :meth:`steps` are its cases.

    Attributes:
        basis: the gold support of derived memories (each as ``because`` gives it, or any
            nesting of lists and ``{all, unless}`` mappings of ids): never shown to a system.
    """

    model_config = _STRICT

    id: str
    lang: Literal["zh", "en", "mixed"]
    track: Literal["declared", "recovered", "text"] = "text"
    memories: tuple[CaseMemory, ...]
    changes: tuple[CaseStep, ...] = Field(min_length=1)
    basis: dict[str, Any] = Field(default_factory=dict)
    tags: tuple[str, ...] = ()

    def steps(self) -> list[Case]:
        """One case per change, ``{id}.{k}`` from 1: the changes before it its history."""
        return [
            Case(
                id=f"{self.id}.{k}",
                lang=self.lang,
                track=self.track,
                memories=self.memories,
                change=step.change,
                expect=step.expect,
                tags=self.tags,
                history=self.changes[: k - 1],
                told_as=step.told_as,
                why=step.why,
                reverses=step.reverses,
                trace=self.id,
                basis=self.basis,
            )
            for k, step in enumerate(self.changes, 1)
        ]

    def basis_of(self, state_id: str) -> set[str]:
        """Every id the gold support of a memory names (empty when the trace gives none)."""
        return set(_ids_in(self.basis.get(state_id)))


def _ids_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _ids_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _ids_in(v)


def validate_trace(data: Any, path: str) -> Trace:
    """Validate parsed trace data: the trace's own fields, and each step as a case.

    Raises:
        CaseError: naming the file and the first faulty field (``changes[1].expect...``).
    """
    try:
        trace = Trace.model_validate(data)
    except ValidationError as exc:
        raise _invalid(exc, path) from None
    err = _Errors()
    _check_name(trace.id, path, err)
    ids = {m.id for m in trace.memories} | {m.id for c in trace.changes for m in c.change.added()}
    for sid, support in sorted(trace.basis.items()):
        named = sorted({sid, *_ids_in(support)} - ids)
        if named:
            err(f"basis.{sid}", f"names {named}, not memories of the trace")
    for k, step in enumerate(trace.steps()):
        _check_case(step, err, f"changes[{k}].")
    _raise(err, path)
    return trace


def load_case_file(path: str | Path | Traversable) -> list[Case]:
    """Read and validate one file: a case (one case) or a trace (one case per change).

    Raises:
        CaseError: as :func:`load_case`.
    """
    name = str(path)
    node = Path(path) if isinstance(path, str) else path
    try:
        data = load_case_data(node)
    except InputFileError as exc:
        raise CaseError(name, "", exc.detail) from exc
    if isinstance(data, dict) and "changes" in data:
        return validate_trace(data, name).steps()
    return [validate(data, name)]


def load_case(path: str | Path | Traversable) -> Case:
    """Read and validate one case file, through the safe loader (:data:`stategraph.loaders.CASE`
    limits: a hostile case file is refused before it is built).

    Raises:
        CaseError: when the file cannot be read or parsed, goes past a loader limit, or does
            not validate; or when it is a trace (:func:`load_case_file` reads those).
    """
    found = load_case_file(path)
    if len(found) != 1 or found[0].trace is not None:
        raise CaseError(str(path), "changes", "a trace holds several cases: use load_case_file")
    return found[0]


def _case_files(root: Path | Traversable) -> Iterator[Path | Traversable]:
    if root.is_file():
        yield root
        return
    children = sorted(root.iterdir(), key=lambda c: c.name)
    for child in children:
        if child.is_dir():
            yield from _case_files(child)
        elif child.name.endswith(_CASE_SUFFIXES):
            yield child


def load_cases(paths: Iterable[str | Path | Traversable]) -> list[Case]:
    """Load every case under the given files or folders, sorted by id.

    Raises:
        CaseError: for the first bad file, or for two files with the same case id.
    """
    cases: dict[str, tuple[Case, str]] = {}
    for root in paths:
        node = Path(root) if isinstance(root, str) else root
        if not node.is_file() and not node.is_dir():
            raise CaseError(str(node), "", "no such file or folder")
        for f in _case_files(node):
            for case in load_case_file(f):
                if case.id in cases:
                    where = cases[case.id][1]
                    raise CaseError(str(f), "id", f"duplicate case id, also in {where}")
                cases[case.id] = (case, str(f))
    return [cases[k][0] for k in sorted(cases)]


def shipped_cases_dir() -> Traversable:
    """The suite that ships inside the package."""
    return files("stategraph.bench").joinpath("cases")


def shipped_cases() -> list[Case]:
    """Load the shipped suite."""
    return load_cases([shipped_cases_dir()])
