"""The data stategraph reasons over: states, justifications, changes and revision reports.

All models are immutable pydantic v2 models. Collections that have no meaningful order
(premises, ``unless`` conditions, ids to retract) are normalised to sorted tuples on input, so
two equal inputs serialise to identical bytes whatever order the caller wrote them in.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

import clingo
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    Strict,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from stategraph.values import (
    ActionStatus,
    Consequence,
    DecidedBy,
    Decision,
    EdgeCheck,
    Origin,
    ReversalPolicy,
    Source,
    Truth,
    Verdict,
)

__all__ = [
    "ActionStatus",
    "Change",
    "ChangedState",
    "Consequence",
    "DecidedBy",
    "Decision",
    "EdgeCheck",
    "EdgeOutcome",
    "Entry",
    "Ids",
    "Justification",
    "JustificationRef",
    "LostSupport",
    "Origin",
    "Reason",
    "Report",
    "Reversal",
    "ReversalPolicy",
    "Review",
    "Source",
    "State",
    "StateId",
    "Supersession",
    "Text",
    "Truth",
    "Verdict",
    "check_text",
    "id_list",
    "normalise_id",
]

M = TypeVar("M", bound=BaseModel)

_NOT_IN_IDS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 control characters, the line and paragraph separators, and the bidi overrides
and isolates: in an id they would let it forge or reorder a line wherever it is printed, or
make two ids that look the same differ."""

_MAX_ID = 512

_SURROGATE = re.compile("[\ud800-\udfff]")
"""A UTF-16 surrogate code point on its own: Python strings can hold one (JSON's
``"\\udc00"`` makes one), but it is no character, UTF-8 cannot encode it, and every store, log
and answer that met one failed half-way (a serialisation error, an HTTP 500, an MCP call never
answered)."""


def check_text(value: str, what: str = "text") -> str:
    """Return ``value`` if it is valid Unicode text (no lone surrogate).

    Called by every model field that holds text, so no surface can store what it could not
    write back out.

    Raises:
        ValueError: the text holds a lone surrogate (named by code point and position).
    """
    bad = _SURROGATE.search(value)
    if bad is not None:
        raise ValueError(
            f"{what} contains the lone surrogate U+{ord(bad.group()):04X} at position "
            f"{bad.start()}: it is no character and cannot be stored; send valid Unicode"
        )
    return value


def _check_tree(value: Any) -> Any:
    """Check every string (keys included) in a JSON-like value, without recursion."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            check_text(item)
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
    return value


Text = Annotated[str, AfterValidator(check_text)]
"""A text field: any string but one with a lone surrogate (see :func:`check_text`)."""


def normalise_id(value: str) -> str:
    """A state id as stategraph keeps it: without surrounding spaces, in Unicode NFC.

    NFC because the same name typed on two keyboards (``café`` as one code point or as ``e``
    and a combining accent) must be one id, not two that print alike. Called for every id a
    model reads (states, justifications, changes), and by :class:`~stategraph.memory.Memory`
    for the ids it is asked about.

    Raises:
        ValueError: for anything but a string (never turned into one: see :func:`id_list`),
            a control, line-separator or bidi character anywhere in the id (checked before
            the spaces are stripped: a tab or newline is refused, not dropped), or an id that
            is empty or longer than 512 characters once normalised, or one that holds a lone
            surrogate.
    """
    if not isinstance(value, str):
        raise ValueError(_not_an_id(value))
    check_text(value, "an id")
    bad = _NOT_IN_IDS.search(value)
    if bad is not None:
        raise ValueError(
            f"id {value!r} contains the control character U+{ord(bad.group()):04X}: ids may not "
            "contain control, line-separator or bidi characters; remove it"
        )
    value = value.strip()
    if not value.isascii():
        value = unicodedata.normalize("NFC", value)
    if not 0 < len(value) <= _MAX_ID:
        raise ValueError(f"an id has 1 to {_MAX_ID} characters besides surrounding spaces")
    return value


def _not_an_id(value: Any) -> str:
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return f"an id is a string, not {type(value).__name__} {shown}: write it in quotes"


def id_list(value: Any) -> tuple[str, ...]:
    """The ids one field gives (one id, or a list of them), normalised, without repeats, sorted.

    Only strings are ids. Anything else is refused, never turned into text: ``str()`` of a
    number, a boolean, None or a mapping names some other state (YAML reads ``012`` as 10,
    ``no`` as False, ``12:30`` as 750; JSON ``null`` would become ``"None"``).

    Raises:
        ValueError: for a value that is neither an id nor a list of ids, or an item that is
            not a valid id (:func:`normalise_id`).
    """
    if isinstance(value, str):
        return (normalise_id(value),)
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise ValueError(f"expected an id or a list of ids; {_not_an_id(value)}")
    return tuple(sorted({normalise_id(v) for v in value}))


StateId = Annotated[
    str,
    Strict(),
    StringConstraints(min_length=1, max_length=_MAX_ID),
    AfterValidator(normalise_id),
]
"""A state's identifier: a non-empty string without control characters, kept in NFC (see
:func:`normalise_id`; it reaches clingo only as a string symbol). Strict: a number, a
boolean, None or bytes is refused, not converted (:func:`id_list`)."""


Ids = Annotated[
    tuple[str, ...],
    BeforeValidator(id_list, json_schema_input_type=StateId | list[StateId]),
]
"""Ids given as one id or a list of them (:func:`id_list`): kept normalised, without repeats,
sorted."""


_FROZEN = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)
"""Every model is immutable and refuses unknown fields. Each builds its validator on first use
(``defer_build``), not at import: ``show`` or ``why`` uses three of the models, and building
all of them was most of the command line's start-up."""


def _check_atom(where: str, n: int, text: str) -> None:
    """Refuse an atom that is no ground atom such as ``moves(user,shanghai,shenzhen)``.

    Checked when a state is written, with or without rule packs, so that a malformed atom is
    an error naming it (DESIGN.md: bad input gets a clear message naming the thing) rather
    than a value stored and skipped by every reader, or refused only once rule packs are on.
    Parsed as a term (``clingo.parse_term``), never as program text.

    Raises:
        ValueError: naming the atom and what is wrong with it.
    """
    try:
        sym = clingo.parse_term(text)
    except RuntimeError as exc:
        reason = " ".join(str(exc).split())
        raise ValueError(
            f"{where}: atom {n} ({text!r}) does not parse as a term: {reason}"
        ) from None
    except UnicodeError:  # clingo's reader fails on non-ASCII outside quotes, and surrogates
        raise ValueError(
            f"{where}: atom {n} ({text!r}) does not parse as a term: clingo cannot read its "
            "characters (outside a quoted string, use ASCII letters, digits and punctuation)"
        ) from None
    if sym.type is not clingo.SymbolType.Function or not sym.name:
        what = _TERM_KINDS.get(sym.type, "a tuple")
        raise ValueError(f"{where}: atom {n} ({text!r}) is {what}, not an atom such as pred(a,b)")


_TERM_KINDS = {
    clingo.SymbolType.Number: "a number",
    clingo.SymbolType.String: "a string",
    clingo.SymbolType.Infimum: "#inf",
    clingo.SymbolType.Supremum: "#sup",
}


class State(BaseModel):
    """One memory item.

    Facts are exogenous: they hold while active. Every other kind is derived and holds only
    while one of its justifications holds.
    """

    model_config = _FROZEN

    id: StateId
    kind: str = "fact"
    text: Text = ""
    atoms: tuple[Text, ...] = ()
    source: Source = Source.user
    status: ActionStatus | None = None
    metadata: Annotated[dict[str, Any], AfterValidator(_check_tree)] = Field(default_factory=dict)
    created_at: datetime | None = None
    session: StateId | None = None
    """The session or turn the memory was written in (the MCP session, a LangGraph thread or
    namespace, or what the caller names): what candidate proposal falls back on when nothing
    in a derived memory's words relates it to a fact (:mod:`stategraph.text.candidates`).
    Left out of the JSON when None, so a state without one serialises (and hashes) as before
    sessions were kept."""

    @model_serializer(mode="wrap")
    def _without_no_session(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if self.session is None and isinstance(data, dict):
            data.pop("session", None)
        return data

    @field_validator("kind")
    @classmethod
    def _kind_is_a_name(cls, v: str) -> str:
        v = v.strip()
        if not v.isidentifier():
            raise ValueError(f"kind must be a simple name such as 'belief', got {v!r}")
        return v

    @field_validator("atoms")
    @classmethod
    def _atoms_are_ground_atoms(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        state = info.data.get("id")
        for n, text in enumerate(v):
            _check_atom(f"atoms of {state}" if state else "atoms", n, text)
        return v


class Justification(BaseModel):
    """``head`` holds if every premise holds and no ``unless`` state holds.

    Identity is ``(head, premises, unless)``: adding the same justification twice is a no-op,
    and the origin records where the latest copy came from.
    """

    model_config = _FROZEN

    head: StateId
    premises: tuple[StateId, ...] = ()
    unless: tuple[StateId, ...] = ()
    origin: Origin = Origin.declared
    checked: dict[StateId, EdgeCheck] = Field(default_factory=dict)
    """For ``recovered`` justifications: premises already checked (others are candidates)."""
    notes: dict[Text, Text] = Field(default_factory=dict)
    """Why each checked premise was classified as it was; for a ``review`` justification,
    who confirmed the state (``by``), why (``note``) and, if the caller said, when (``at``)."""
    rules: tuple[Text, ...] = ()
    """For ``rule`` justifications: the rule-pack rules (``pack:line``) that linked it."""
    proposed: dict[StateId, Text] = Field(default_factory=dict)
    """For ``recovered`` justifications: how each candidate premise was found (``context``,
    ``rule``, ``entity``, ``lexical``; see :mod:`stategraph.text.candidates`)."""

    _norm_premises = field_validator("premises", "unless", mode="before")(id_list)

    @property
    def key(self) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        """The identity of the justification."""
        return (self.head, self.premises, self.unless)

    def ref(self) -> JustificationRef:
        """The head-less, order-free description used in reports."""
        return trusted(
            JustificationRef,
            {
                "premises": self.premises,
                "unless": self.unless,
                "origin": self.origin,
                "rules": self.rules,
                "notes": self.notes,
                "proposed": self.proposed,
            },
        )

    def candidates(self) -> tuple[str, ...]:
        """Premises of a recovered justification that have not been checked yet."""
        if self.origin is not Origin.recovered:
            return ()
        return tuple(p for p in self.premises if p not in self.checked)


class JustificationRef(BaseModel):
    """A justification as a report names it (its head is the entry it belongs to)."""

    model_config = _FROZEN

    premises: tuple[str, ...]
    unless: tuple[str, ...] = ()
    origin: Origin = Origin.declared
    rules: tuple[str, ...] = ()
    notes: dict[str, str] = Field(default_factory=dict)
    """For candidate premises that were checked: how each was classified, and why."""
    proposed: dict[str, str] = Field(default_factory=dict)
    """For candidate premises: the method that proposed each."""


class Supersession(BaseModel):
    """Replace state ``id`` by ``with_`` (``with`` in JSON); the old one keeps its history."""

    model_config = _FROZEN

    id: StateId
    with_: State = Field(alias="with")


class Review(BaseModel):
    """A person's decision on a flagged state, recorded in the change that applies it.

    The decision itself is an ordinary part of the same change (:mod:`stategraph.review`): a
    confirmation is a ``review`` justification without premises, a rejection a retraction.
    This record says who decided and why, so the log keeps both, under the hash chain.
    """

    model_config = _FROZEN

    id: StateId
    decision: Decision
    by: Annotated[
        str,
        StringConstraints(min_length=1, max_length=256, strip_whitespace=True),
        AfterValidator(check_text),
    ]
    """Who decided (a name or an account, as the caller identifies people)."""
    note: Text = ""
    at: datetime | None = None
    """When, if the caller says; otherwise the log entry's time is the only one (a time taken
    here from the clock would make the change, and so its report, differ on replay)."""


def _listed(value: Any) -> Any:
    """One entry given without the list, as a list of it."""
    return [value] if isinstance(value, (Mapping, BaseModel)) else value


def _one_or_many(field: str, item: Any) -> Any:
    """The validator of a change's list that takes one entry without the list, too; the JSON
    schema clients read names both forms."""
    return field_validator(field, mode="before", json_schema_input_type=item | list[item])(_listed)


class Change(BaseModel):
    """Everything one revision applies, atomically.

    Any combination is allowed: retract states, assert new states, supersede states, add or
    remove justifications. In JSON, ``assert`` and ``supersede`` are the field names.
    """

    model_config = _FROZEN

    retract: tuple[StateId, ...] = ()
    assert_: tuple[State, ...] = Field(default=(), alias="assert")
    supersede: tuple[Supersession, ...] = ()
    add_justifications: tuple[Justification, ...] = ()
    remove_justifications: tuple[Justification, ...] = ()

    reviews: tuple[Review, ...] = ()
    """People's decisions this change applies: each confirmed state has a ``review``
    justification without premises among ``add_justifications``, each rejected one is in
    ``retract``. Left out of the JSON when empty, so changes without reviews serialise (and
    hash) as they did before reviews existed."""

    # Each list takes one entry without the list, too (``retract: "x1"``, ``supersede: {id,
    # with}``), as docs/reference/shapes.md says every surface does; the schemas say so.
    _one_retract = field_validator(
        "retract", mode="before", json_schema_input_type=StateId | list[StateId]
    )(id_list)
    _one_assert = _one_or_many("assert_", State)
    _one_supersede = _one_or_many("supersede", Supersession)
    _one_added = _one_or_many("add_justifications", Justification)
    _one_removed = _one_or_many("remove_justifications", Justification)
    _one_review = _one_or_many("reviews", Review)

    @model_validator(mode="after")
    def _reviews_are_applied(self) -> Change:
        confirmed = {
            j.head
            for j in self.add_justifications
            if j.origin is Origin.review and not j.premises and not j.unless
        }
        # a confirmation that changes nothing: a fact a new fact may have replaced is kept
        # (it holds without justification; stategraph.review)
        alone = not (self.retract or self.assert_ or self.supersede or self.remove_justifications)
        for r in self.reviews:
            done = confirmed if r.decision is Decision.confirmed else set(self.retract)
            if r.decision is Decision.confirmed and alone and not self.add_justifications:
                continue
            if r.id not in done:
                does = {
                    Decision.confirmed: "add a review justification without premises for it",
                    Decision.rejected: "retract it",
                }[r.decision]
                raise ValueError(f"review of {r.id!r} ({r.decision.value}): the change must {does}")
        return self

    @model_serializer(mode="wrap")
    def _without_empty_reviews(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if not self.reviews and isinstance(data, dict):
            data.pop("reviews", None)
        return data

    def is_empty(self) -> bool:
        """True when the change does nothing at all (a person's decision alone is something:
        the confirmation of a fact a new fact may have replaced adds nothing else)."""
        return not (
            self.retract
            or self.assert_
            or self.supersede
            or self.add_justifications
            or self.remove_justifications
            or self.reviews
        )


class LostSupport(BaseModel):
    """A justification that held before the change and does not now, and why."""

    model_config = _FROZEN

    justification: JustificationRef
    failed: tuple[str, ...] = ()
    """Premises that no longer hold (or are undecided)."""
    blocked_by: tuple[str, ...] = ()
    """``unless`` states that now hold (or are undecided)."""
    removed: bool = False
    """The change removed this justification itself."""


class Reason(BaseModel):
    """Why a verdict was reached, as data."""

    model_config = _FROZEN

    cause: str
    """One of ``no_support``, ``alternative_support``, ``new_support``, ``negative_cycle``,
    ``undefined_premise``, ``unverified_candidate``, ``depth_limit``, ``compatible_update``,
    ``possibly_defeated`` (a fact the change asserted may defeat this memory's stand-in
    support, and no judge settled it: the value is kept, a person decides),
    ``possibly_replaced`` (a fact the change asserted reads as reversing or replacing this
    fact, or one this memory rests on: the value is kept, a person decides; see
    :class:`Reversal`)."""
    lost: tuple[LostSupport, ...] = ()
    surviving: JustificationRef | None = None
    """The justification that carries a kept or restored state (minimal derivation height)."""
    cycle: tuple[str, ...] = ()
    """For ``negative_cycle``: the states of the cycle through ``unless``."""
    undecided: tuple[str, ...] = ()
    """For undefined states: the premises/conditions whose value is undecided."""


class Entry(BaseModel):
    """The revision's conclusion about one touched state."""

    model_config = _FROZEN

    id: str
    kind: str
    old: Truth
    new: Truth
    verdict: Verdict
    depth: int
    """Shortest number of support hops from a changed state."""
    decided_by: DecidedBy
    consequence: Consequence | None = None
    reason: Reason


class EdgeOutcome(BaseModel):
    """What a revision made of one candidate edge it put in question.

    A candidate edge is in question when its premise stopped holding. Logic settles it when
    the head's value is decided without it (another justification holds, or a premise
    already known to be needed fails); else a judge is asked; else it is left flagged and the
    head goes to confirmation.
    """

    model_config = _FROZEN

    head: str
    premise: str
    decided_by: DecidedBy | None
    """``logic``, ``judge`` (an answer accepted), or None: left flagged."""
    check: EdgeCheck | None = None
    """What the judge concluded: the head needed the premise, or holds without it."""
    support: tuple[str, ...] = ()
    """For a judge's "still holds": the memories it named as the head's support instead."""
    asked: bool = False
    """A judge was asked (the answer may have been rejected: see ``note``)."""
    blocker: bool = False
    """A candidate blocker: ``premise`` names a fact the change asserted that may defeat the
    head (not a premise that stopped holding). Only a judge settles one: confirmed, the fact
    joins the ``unless`` of the head's stand-in support; unconfirmed, the head keeps its
    value and the edge is reported undecided."""
    note: str = ""
    """The judge's reason, or why its answer was rejected, or why it was not asked."""


class ChangedState(BaseModel):
    """A state the change itself acted on (not scored, reported for the audit trail)."""

    model_config = _FROZEN

    id: str
    action: str
    """``retracted``, ``superseded``, ``asserted``, ``justification_added`` or
    ``justification_removed``."""
    by: str | None = None
    """For ``superseded``: the id of the new state."""
    new: Truth


def _none(value: object) -> bool:
    return value is None


class Reversal(BaseModel):
    """A new fact that reads as reversing or replacing a holding one, and what was done.

    A fact told as a change ("Actually the Tokyo trip is cancelled", "the dentist appointment
    moved to 2027-03-25") is not an addition: both would hold, with everything resting on the
    old one (:mod:`stategraph.text.reversals`). By the memory's ``reversals`` policy it either
    supersedes the old fact (a clean reading, policy ``supersede``) or puts the old fact and
    what rests on it to confirmation (cause ``possibly_replaced``), asking :attr:`question`.
    """

    model_config = _FROZEN

    new: StateId
    """The new fact."""
    old: StateId
    """The holding fact it reads as reversing or replacing."""
    clean: bool
    """The reading says exactly what is undone: an atom it negates or gives a new value is
    the old fact's."""
    shared: tuple[str, ...] = ()
    """What the two name in common (places, people, events, dates, values)."""
    outcome: Literal["superseded", "asked", "kept"]
    """``superseded``: the new fact replaced the old one in this revision; ``asked``: the old
    fact and what rests on it wait for a person; ``kept``: the judge answered that the old
    fact still holds beside the new one."""
    question: str = ""
    """For ``asked``: the question for a person ("Does 'Actually the Tokyo trip is
    cancelled' replace 'The user flies to Tokyo on 2027-04-10'?")."""
    decided_by: DecidedBy | None = Field(default=None, exclude_if=_none)
    """``judge`` when the judge answered the question (:mod:`stategraph.judge.reversals`);
    None when the reading decided (a clean supersession) or nobody has yet (asked)."""


class Report(BaseModel):
    """The outcome of one revision: one entry per touched state, sorted by depth then id."""

    model_config = _FROZEN

    change: Change
    changed: tuple[ChangedState, ...]
    entries: tuple[Entry, ...]
    cone_size: int
    """How many states the change reaches (the affected cone)."""
    solved: int = 0
    """How many of them were solved: the rest kept the justification that carries them
    (``docs/revision.md``)."""
    max_depth: int | None
    method: str = "cone/stratified"
    """How the model was computed: ``cone/stratified`` (one stable model) or
    ``cone/alternating`` (alternating fixpoint, for cones with a cycle through ``unless``)."""
    edges: tuple[EdgeOutcome, ...] = ()
    """The candidate edges this change put in question and who settled each, sorted."""
    reversals: tuple[Reversal, ...] = ()
    """New facts of this change that read as reversing or replacing a holding fact, and what
    was done with each, sorted. Left out of the JSON when empty, so reports without any
    serialise (and hash) as they did before."""

    @model_serializer(mode="wrap")
    def _without_empty_reversals(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if not self.reversals and isinstance(data, dict):
            data.pop("reversals", None)
        return data

    @property
    def edge_counts(self) -> dict[str, int]:
        """Candidate edges in question: ``considered``, decided by ``logic``, ``asked`` of a
        judge, settled by the ``judge``, and left ``flagged``."""
        return {
            "considered": len(self.edges),
            "logic": sum(e.decided_by is DecidedBy.logic for e in self.edges),
            "asked": sum(e.asked for e in self.edges),
            "judge": sum(e.decided_by is DecidedBy.judge for e in self.edges),
            "flagged": sum(e.decided_by is None for e in self.edges),
        }

    def ids(self, verdict: Verdict | str) -> list[str]:
        """Ids of the entries with the given verdict, sorted."""
        v = Verdict(verdict)
        return sorted(e.id for e in self.entries if e.verdict is v)

    @property
    def invalidated(self) -> list[str]:
        """States that lost all support."""
        return self.ids(Verdict.invalidated)

    @property
    def kept(self) -> list[str]:
        """Touched states that still hold through another support."""
        return self.ids(Verdict.kept)

    @property
    def restored(self) -> list[str]:
        """States that did not hold before and hold now."""
        return self.ids(Verdict.restored)

    @property
    def needs_confirmation(self) -> list[str]:
        """States neither logic nor policy could settle."""
        return self.ids(Verdict.needs_confirmation)

    @property
    def consequences(self) -> dict[str, str]:
        """Action consequences, ``{id: "cancel" | "review"}``."""
        return {e.id: e.consequence.value for e in self.entries if e.consequence is not None}

    def entry(self, state_id: str) -> Entry | None:
        """The entry for one state, or None when the revision did not touch it."""
        return next((e for e in self.entries if e.id == state_id), None)

    def to_json(self, indent: int | None = 2) -> str:
        """Deterministic JSON: the same store and change always give the same bytes."""
        return self.model_dump_json(indent=indent, by_alias=True, exclude_none=False)


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """Build a model from values stategraph itself produced, skipping validation.

    A revision reads hundreds of stored rows and may report tens of thousands of entries;
    validation (or pydantic's ``model_construct``) costs several microseconds an object, this a
    fraction of that. ``values`` must name every field, defaults included, with a value of the
    right type: only the store (for rows it wrote) and the grader call it, and tests hold what
    they build equal to validated models (``tests/core/test_store.py``,
    ``tests/core/test_revision.py``, ``tests/core/test_model.py``).

    Raises:
        TypeError: for a model that is not frozen (its instances could not share a fields set).
    """
    fields = _ALL_FIELDS.get(cls)
    if fields is None:
        if not cls.model_config.get("frozen"):
            raise TypeError(f"trusted() builds frozen models only, not {cls.__name__}")
        fields = _ALL_FIELDS[cls] = set(cls.model_fields)
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", fields)
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


_ALL_FIELDS: dict[type[BaseModel], set[str]] = {}
"""Per model class, the one "fields set" its trusted instances share. A set per object was two
thirds of the cost of loading a large cone's justifications (5 µs each at 10^6 states, 1.7 µs
without). It is never changed in place: pydantic adds to it only when a field is assigned,
which a frozen model refuses, and ``model_copy`` copies it first."""
