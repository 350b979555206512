"""Errors raised by the grounding subpackage and the rule-pack helper.

Both derive from :class:`stategraph.errors.StategraphError` (so callers catch one root type)
and from :class:`ValueError`, because each one reports bad input: a rule pack that clingo
rejects, or a language or grounder name nobody registered.
"""

from __future__ import annotations

from collections.abc import Iterable

from stategraph.errors import StategraphError

__all__ = ["GroundingError", "RulePackError"]


class RulePackError(StategraphError, ValueError):
    """A rule pack cannot be used: it is malformed, unsafe, or not a set of normal rules.

    Attributes:
        pack: the pack's name (``"relocation"``) or ``"<inline>"`` for program text.
        detail: what is wrong, including clingo's own message when clingo found it.
        line: the pack line at fault, when known.
    """

    def __init__(self, pack: str, detail: str, line: int | None = None) -> None:
        self.pack = pack
        self.detail = detail
        self.line = line
        where = f"{pack}:{line}" if line is not None else pack
        super().__init__(
            f"rule pack {where}: {detail} (rule packs hold plain normal rules "
            "`head :- body.`; fix the rule or remove it)"
        )


class GroundingError(StategraphError, ValueError):
    """Grounding was asked for something it cannot do (unknown language or grounder name).

    Attributes:
        what: the offending value.
        known: the values that would have worked.
    """

    def __init__(self, what: str, known: Iterable[str], kind: str = "value") -> None:
        self.what = what
        self.known = sorted(known)
        super().__init__(f"unknown {kind} {what!r}: use one of {', '.join(self.known)}")
