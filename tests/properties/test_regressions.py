"""Counterexamples the property suite found, kept as plain regression tests.

Each one is the shrunk scenario Hypothesis reported, written out with the public API so it
reads without the strategies. A test marked ``xfail(strict=True)`` documents an engine bug
that is still open: when the engine is fixed, the strict xfail fails, and the marker must be
removed.
"""

from __future__ import annotations

from stategraph import Change, Justification, Memory, State, Truth


def test_state_that_never_held_is_not_invalidated() -> None:
    """Found by ``test_invalidated_means_no_justification_holds`` (deep profile).

    s1 has no justification (so it is false); one change retracts s2 and adds ``s1 <- s2``.
    s1 was false and stays false: no justification of it held before or holds after, so it
    must not be reported at all, least of all as ``invalidated`` (which means "lost all
    support").
    """
    mem = Memory()
    mem.fact("s0")
    mem.fact("s2")
    mem.belief("s1", because=["s0"])
    mem.revise(Change(remove_justifications=[Justification(head="s1", premises=["s0"])]))
    assert mem.truth("s1") is Truth.false
    report = mem.revise(
        Change(retract=["s2"], add_justifications=[Justification(head="s1", premises=["s2"])])
    )
    assert mem.truth("s1") is Truth.false
    entry = report.entry("s1")
    assert entry is None or entry.old is not entry.new, entry


def test_retracted_premise_and_new_head_in_one_change() -> None:
    """The shrunk example as Hypothesis found it (holding sets were right; only the report
    was wrong): the truth values must match the oracle whatever the verdicts say."""
    mem = Memory()
    mem.fact("s0")
    mem.belief("s1", because=["s0"])
    mem.revise(
        Change(
            retract=["s0"],
            assert_=[State(id="g0")],
            remove_justifications=[Justification(head="s1", premises=["s0"])],
        )
    )
    mem.revise(Change(assert_=[State(id="g1")]))
    mem.revise(
        Change(retract=["g0"], add_justifications=[Justification(head="s1", premises=["g0"])])
    )
    assert mem.holding() == {"g1"}
    assert mem.undefined() == frozenset()


def _just(head: str, *premises: str, unless: tuple[str, ...] = ()) -> Justification:
    return Justification(head=head, premises=premises, unless=unless)


def test_a_support_must_not_rest_on_a_falsity_that_hinges_on_it() -> None:
    """Found by ``test_every_state_has_its_oracle_truth_value`` (deep profile), when the
    engine began solving only the states whose support a change reaches.

    s3 holds through s1 (a declared cycle s1 -> s2 -> s3 -> s1 hangs off s0), so s4 (``s0,
    not s3``) is false, so s3's other justification ``s0, not s4`` holds too. Chosen as s3's
    support, that justification would keep s3 true by itself once s1 goes: but without s1, s3
    and s4 block each other and both are undefined.
    """
    mem = Memory()
    mem.fact("s0")
    mem.belief("s1", because=["s0"])
    mem.belief("s2", because=["s0"])
    mem.belief("s3", because=[{"all": ["s0"], "unless": ["s4"]}])
    mem.belief("s4", because=[{"all": ["s0"], "unless": ["s3"]}])
    mem.revise(
        Change(
            add_justifications=[
                _just("s1", "s2"),
                _just("s2", "s3"),
                _just("s3", "s1"),
                _just("s2", "s1"),
            ]
        )
    )
    assert mem.truth("s3") is Truth.true and mem.truth("s4") is Truth.false
    mem.retract("s1")
    assert mem.undefined() == {"s3", "s4"}


def test_a_state_kept_through_a_negative_cycle_is_undefined_when_its_anchor_goes() -> None:
    """Found by ``test_kept_names_a_justification_that_holds`` (deep profile), same cause:
    s1 held through the action s3, which made s2 false; retracting s3 leaves s1 and s2
    blocking each other."""
    mem = Memory()
    mem.fact("s0")
    mem.belief("s1", because=[{"all": ["s0"], "unless": ["s2"]}])
    mem.belief("s2", because=[{"all": ["s0"], "unless": ["s1"]}])
    mem.action("s3", because=["s0"])
    mem.revise(Change(add_justifications=[_just("s1", "s3"), _just("s3", "s1")]))
    mem.revise(Change(assert_=[State(id="g0", kind="fact"), State(id="g1", kind="fact")]))
    report = mem.retract("s3")
    assert mem.undefined() == {"s1", "s2"}
    assert report.entry("s1") is not None and report.entry("s1").new is Truth.undefined


def _cycle_scenario(s6_last: bool) -> Memory:
    """s7, s8, s9 block each other in a ring; s1 rests on s7 and feeds s9 through s6.

    The same contents either way; with ``s6_last`` the justifications of s6 come last, so the
    store ends with ``s0, s1`` as s6's support (a tie with ``s2`` at the height seen then),
    and a later change to s1 solves the ring as well.
    """
    states = [State(id=f"s{i}", kind="fact" if i in (0, 2, 5) else "belief") for i in range(10)]
    of_s6 = [_just("s6", "s2"), _just("s6", "s0", "s1")]
    others = [
        _just("s1", "s0"),
        _just("s3", "s0"),
        _just("s4", "s0"),
        _just("s7", "s0", unless=("s8",)),
        _just("s8", "s0", unless=("s9",)),
        _just("s9", "s6", unless=("s7",)),
        _just("s1", "s3", unless=("s0",)),
        _just("s3", "s1"),
        _just("s1", "s4", "s7"),
        _just("s4", "s3"),
    ]
    mem = Memory()
    mem.revise(Change(assert_=states))
    for j in [*others, *of_s6] if s6_last else [*of_s6, *others]:
        mem.revise(Change(add_justifications=[j]))
    return mem


def test_the_cause_of_an_undefined_state_does_not_depend_on_history() -> None:
    """Found by ``test_reports_are_deterministic_and_order_free`` (deep profile): whether s1
    was reported on a negative cycle depended on how much of the cone the store's supports
    let the revision solve. s1 is undefined because its premise s7 is on the ring; s1 itself
    is on no cycle of undefined states (s6 holds through s2)."""
    reports = []
    for s6_last in (False, True):
        mem = _cycle_scenario(s6_last)
        report = mem.revise(Change(remove_justifications=[_just("s1", "s0")]))
        entry = report.entry("s1")
        assert entry is not None and entry.new is Truth.undefined
        assert entry.reason.cause == "undefined_premise" and entry.reason.cycle == ()
        reports.append([(e.id, e.verdict, e.new, e.depth, e.reason.cause) for e in report.entries])
    assert reports[0] == reports[1]
