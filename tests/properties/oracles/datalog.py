"""Oracle (b): the second opinion on *positive* programs, computed by pyDatalog.

pyDatalog evaluates Datalog by SLG resolution with tabling, a different algorithm from the
alternating fixpoint of :mod:`stategraph.testing.oracles.wfm`: for a positive program both
must give the least model, and the well-founded model of a positive program has no undefined
atom. It is slow (it parses rule
text and keeps a process-wide knowledge base), so use it only on small graphs: tens of atoms.
Programs with ``unless`` are refused rather than approximated.
"""

from __future__ import annotations

from collections.abc import Iterable

from pyDatalog import pyDatalog

from stategraph.testing.oracles.wfm import Rule


def _encode(
    rules: Iterable[Rule],
) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str, str]]]:
    """Rules as data: ``link(H, P)`` for one premise, ``pair(H, P, Q)`` for two.

    Longer bodies are folded left through auxiliary atoms (``h <- a, b, c`` becomes
    ``x <- a, b`` and ``h <- x, c``); a body-less rule makes its head a fact.
    """
    facts: list[str] = []
    links: list[tuple[str, str]] = []
    pairs: list[tuple[str, str, str]] = []
    for n, (head, premises, unless) in enumerate(rules):
        if unless:
            raise ValueError(
                f"the pyDatalog oracle takes positive programs only: {head} has unless"
            )
        body = sorted(set(premises))
        if not body:
            facts.append(head)
            continue
        acc = body[0]
        for k, nxt in enumerate(body[1:-1] if len(body) > 1 else []):
            aux = f"__aux{n}_{k}"
            pairs.append((aux, acc, nxt))
            acc = aux
        if len(body) == 1:
            links.append((head, acc))
        else:
            pairs.append((head, acc, body[-1]))
    return facts, links, pairs


def datalog_least_model(facts: Iterable[str], rules: Iterable[Rule]) -> frozenset[str]:
    """The least model of a positive program, by pyDatalog.

    The rules are data (``link``/``pair`` facts) under two recursive clauses, which pyDatalog's
    tabling evaluates like a transitive closure; one ground clause per rule, or one clause with
    four recursive subgoals, made its resolution slow on graphs with a few cycles. Two quirks
    of pyDatalog 0.22 shape the encoding: a cyclic query loops forever when one predicate has
    both asserted facts and clauses (so facts go in ``base``), and when a recursive clause puts
    the ``link``/``pair`` lookup before its ``holds`` subgoals (so the lookups come last).

    Raises:
        ValueError: a rule has an ``unless`` condition.
    """
    extra_facts, links, pairs = _encode(rules)
    pyDatalog.clear()
    try:
        # Sentinel rows declare every predicate, so an empty program answers "nothing" cleanly.
        for fact in ["__sentinel__", *sorted(set(facts)), *extra_facts]:
            pyDatalog.assert_fact("base", fact)
        for row in [("__sentinel__", "__sentinel__"), *links]:
            pyDatalog.assert_fact("link", *row)
        for triple in [("__sentinel__", "__sentinel__", "__sentinel__"), *pairs]:
            pyDatalog.assert_fact("pair", *triple)
        pyDatalog.load(
            "holds(X) <= base(X)\n"
            "holds(H) <= holds(P) & link(H, P)\n"
            "holds(H) <= holds(P) & holds(Q) & pair(H, P, Q)"
        )
        answer = pyDatalog.ask("holds(X)")
        found = answer.answers if answer is not None else []
        return frozenset(str(r[0]) for r in found if not str(r[0]).startswith("__"))
    finally:
        pyDatalog.clear()
