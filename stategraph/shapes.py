"""The input shapes every surface takes, read in one place: a memory with its basis, and the
refusal of anything else in one clean message.

``docs/reference/shapes.md`` documents the two shapes: a memory (a state's fields with
``because``, ``unless`` and ``context``) and a change (:class:`~stategraph.model.Change`,
whose lists each take one entry without the list, too). Python (``Memory.add``), the command
line (``add``, ``import --memories``, ``revise --change``), the HTTP API, the MCP tools and the
LangGraph store all read them through this module and :mod:`stategraph.model`, so a shape
means the same on each and a refusal says the same on each:

- :func:`read_because` is the one reader of ``because``: one alternative or a list of them,
  each an id, a list of ids that must all hold, or ``{"all": [...], "unless": [...]}``;
- :class:`NewState` is a memory as one mapping (the HTTP body, MCP's ``remember``), its basis
  read by :func:`read_because` and :func:`~stategraph.model.id_list`;
- :func:`validated` turns pydantic's validation errors into one
  :class:`~stategraph.errors.InvalidInputError` whose message names each field at fault, with
  no pydantic boilerplate (no error codes, inputs or links): the same words on every surface.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from stategraph.errors import InvalidInputError
from stategraph.model import ActionStatus, Ids, State, StateId, id_list

__all__ = [
    "AllOf",
    "Because",
    "NewState",
    "Ref",
    "problems",
    "read_because",
    "validated",
]

M = TypeVar("M", bound=BaseModel)


class AllOf(BaseModel):
    """One alternative given in full: every premise in ``all`` must hold, and no state in
    ``unless``."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    all_: Ids = Field(default=(), alias="all")
    unless: Ids = ()


Ref = Callable[[Any, str], str]
"""Reads one premise as written (``value``, and where it stands, for an error) into a state
id: the LangGraph store's premises are keys of its namespaces, not ids."""

_ALTERNATIVE = "an alternative is an id, a list of ids, or {'all': [...], 'unless': [...]}"
_KEYS = frozenset({"all", "unless"})


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _refused(where: str, message: str) -> InvalidInputError:
    return InvalidInputError("memory", [(where, message)])


def _ids(value: Any, where: str, ref: Ref | None) -> tuple[str, ...]:
    """One premise or a list of them, as ids."""
    if ref is None:
        try:
            return id_list(value)
        except ValueError as exc:
            raise _refused(where, str(exc)) from None
    items = value if isinstance(value, (list, tuple)) else [value]
    return tuple(sorted({ref(item, f"{where}.{i}") for i, item in enumerate(items)}))


def _alternative(alt: Any, where: str, ref: Ref | None) -> AllOf:
    if isinstance(alt, AllOf) and ref is None:
        return alt
    if isinstance(alt, Mapping) and (ref is None or set(alt) <= _KEYS):
        unknown = sorted(str(k) for k in set(alt) - _KEYS)
        if unknown:
            raise _refused(f"{where}.{unknown[0]}", "only 'all' and 'unless' are allowed")
        return AllOf.model_construct(
            all_=_ids(alt.get("all", ()), f"{where}.all", ref),
            unless=_ids(alt.get("unless", ()), f"{where}.unless", ref),
        )
    if isinstance(alt, (str, list, tuple)) or ref is not None:  # one premise, or all of them
        return AllOf.model_construct(all_=_ids(alt, where, ref), unless=())
    raise _refused(where, f"{_ALTERNATIVE}, not {type(alt).__name__} {_shown(alt)}")


def read_because(value: Any, ref: Ref | None = None, where: str = "because") -> tuple[AllOf, ...]:
    """``because`` as its alternatives: each the premises that must all hold, and its own
    ``unless``.

    ``value`` is None (no basis given), one alternative, or a list of them. An alternative is
    an id (``"a"``), a list of ids that must all hold (``["a", "b"]``), or ``{"all": [...],
    "unless": [...]}`` (each an id or a list). So ``["a", "b"]`` is "a, or else b" and
    ``[["a", "b"]]`` is "a and b"; a bare string is one id, never the list of its characters.

    Args:
        value: ``because`` as written.
        ref: reads one premise into an id (default: the premise is the id itself).
        where: the field's name, for errors (empty: the locations start at the alternative's
            index, for a validator that pydantic places under the field).

    Raises:
        InvalidInputError: naming the alternative at fault (``because.1.all``) and what an
            alternative may be.
    """
    if value is None:
        return ()
    if isinstance(value, (str, Mapping, AllOf)):
        value = [value]
    elif not isinstance(value, (list, tuple)):
        raise _refused(where, f"{_ALTERNATIVE}, or a list of them; not {_shown(value)}")
    prefix = f"{where}." if where else ""
    return tuple(_alternative(alt, f"{prefix}{i}", ref) for i, alt in enumerate(value))


def _because(value: Any) -> tuple[AllOf, ...]:
    return read_because(value, where="")


Because = Annotated[
    tuple[AllOf, ...],
    BeforeValidator(
        _because,
        json_schema_input_type=StateId | AllOf | list[StateId | list[StateId] | AllOf] | None,
    ),
]
"""``because`` as :func:`read_because` reads it."""


class NewState(State):
    """A memory as an agent writes it, in one mapping: the state's fields, and its basis.

    ``because`` lists *alternative* justifications, each a premise id, a list of ids that must
    all hold, or ``{"all": [...], "unless": [...]}`` (one alternative may be given without the
    list). ``["a", "b"]`` means "a, or else b"; ``[["a", "b"]]`` means "a and b". ``unless``
    applies to every alternative. ``context`` names the memories that were in context when
    this one was written: candidate premises, checked before they count (for a fact,
    provenance only). ``unless`` and ``context`` take one id or a list.
    """

    because: Because = ()
    unless: Ids = ()
    context: Ids = ()

    def state(self) -> State:
        """The state itself (an action is pending unless it says otherwise)."""
        fields = {name: getattr(self, name) for name in State.model_fields}
        if self.kind == "action" and self.status is None:
            fields["status"] = ActionStatus.pending
        return State.model_validate(fields)


_PREFIXES = ("Value error, ", "Assertion failed, ")
"""What pydantic puts before the message of an error a validator raised."""

_PYTHON_WORDS = {"a valid tuple": "a valid list"}
"""Pydantic's words for a Python type where the input is JSON, and the JSON word."""


def problems(errors: Sequence[Mapping[str, Any]], skip: int = 0) -> list[tuple[str, str]]:
    """Pydantic's validation errors as ``(field, message)`` pairs, in the library's words.

    An :class:`~stategraph.errors.InvalidInputError` raised inside a validator (by
    :func:`read_because`) gives its own fields, placed under the field it was raised for; any
    other message loses pydantic's prefix (``Value error, ``). Codes, inputs and links to
    pydantic's site are never part of the message.

    Args:
        errors: ``ValidationError.errors()`` (or FastAPI's, which has the same keys).
        skip: leading parts of each location to leave out (FastAPI's ``body``).
    """
    out: list[tuple[str, str]] = []
    for e in errors:
        loc = ".".join(str(p) for p in tuple(e.get("loc", ()))[skip:])
        cause = (e.get("ctx") or {}).get("error")
        if isinstance(cause, InvalidInputError):
            out.extend((".".join(filter(None, (loc, at))), said) for at, said in cause.errors)
            continue
        message = str(e.get("msg", ""))
        for prefix in _PREFIXES:
            message = message.removeprefix(prefix)
        for python, json in _PYTHON_WORDS.items():
            message = message.replace(python, json)
        out.append((loc, message))
    return out


def validated(model: type[M], value: Any, what: str, where: str = "") -> M:
    """``value`` as a ``model``, or one :class:`~stategraph.errors.InvalidInputError` naming
    each field at fault (:func:`problems`).

    Args:
        model: the model to read ``value`` as.
        value: the input (an instance of ``model`` is returned as it is).
        what: what the input is, for the message (``"memory"``, ``"change"``).
        where: where it came from (``file:line``), put before each field.

    Raises:
        InvalidInputError: ``invalid WHAT: FIELD: MESSAGE; ...``.
    """
    if isinstance(value, model):
        return value
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        errors = problems(exc.errors())
        if where:
            errors = [(f"{where}.{loc}" if loc else where, said) for loc, said in errors]
        raise InvalidInputError(what, errors) from None
