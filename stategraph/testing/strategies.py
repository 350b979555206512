"""Hypothesis strategies for support graphs and the changes that revise them.

What the generated graphs contain, and why:

- 1-4 alternative justifications per derived state, 1-4 premises each, with premises biased
  towards the first two states (hubs), so losing one support often leaves another;
- positive cycles of length 2-5 and random back edges, added once both ends exist (a
  justification may cite a later state); self-loops (length 1) are left to the oracle tests,
  because the engine rejects a state that cites itself;
- ``unless`` edges to existing states and to *ghost* ids (``g0``..``g3``) that do not exist yet
  and may be asserted later, and negative cycles through ``unless`` (undefined states);
- actions, pending and executed, among beliefs and plans;
- changes of 1-3 operations each: retract, assert a fact, supersede, add or remove a
  justification (sometimes every justification of a head, leaving it bare; sometimes a new
  justification citing a state the same change retracts); every generated change is valid
  for the memory it applies to. A retraction or supersession mostly targets a state that
  some justification cites, and an assertion mostly a ghost some ``unless`` names, so that
  most changes move something (a change nothing rests on gives an empty report, which
  every property passes trivially; ``stategraph.testing.reach`` counts what examples reach);
- two shapes random draws seldom make, each hung off an *anchor* (a fact ``t<n>``, whose id
  sorts after every ``s<n>``, so that the justification through it is never the first of
  equally low ones), and retracted or superseded first when a change picks a target: a
  positive ring whose members each rest on the anchor (the smallest justification of each
  is then the ring edge, which must never carry the ring once the anchor goes), and two
  states that block each other, one of them also resting on the anchor (the blocking
  justification is as low and sorts first: no support may rest on it, since the other
  state's falsity hinges on the state it would support).

With ``atoms`` (a user's vocabulary of grounded atoms), every state written or asserted
also carries 0-2 of them, so that a memory with rule packs links the generated states through
its rules; without, nothing is drawn for atoms and the examples are as before.

Choices are drawn so that Hypothesis shrinks towards the plain case (no ``unless``, no extra
edges, facts and retractions), which keeps counterexamples short.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from stategraph.testing.graphs import DERIVED_KINDS, FACT, ChangeSpec, Just, Mirror, Node, Scenario

GHOSTS = ("g0", "g1", "g2", "g3")
"""Ids that ``unless`` may name before any state has them (defaults awaiting a blocker)."""
ANCHOR = "t"
"""Prefix of the anchors' ids (see the module docstring)."""

OPERATIONS = ("retract", "assert", "supersede", "add", "remove")

MIN_NODES = 3
"""States every scenario has at least (``max_nodes`` allowing): a fact, a state on it, and a
third, so that even the smallest example has something to cascade and a hard negative."""


def _chance(draw: st.DrawFn, percent: int) -> bool:
    """True with about ``percent``% probability; shrinks towards False."""
    return draw(st.integers(0, 99)) >= 100 - percent


def _ids(draw: st.DrawFn, pool: list[str], lo: int, hi: int, hubs: int = 2) -> list[str]:
    """1..n distinct ids from ``pool``, biased towards the first ``hubs`` ids (shared premises)."""
    if not pool:
        return []
    pick = st.one_of(st.sampled_from(pool[:hubs]), st.sampled_from(pool))
    size = min(hi, len(set(pool)))
    return draw(st.lists(pick, min_size=min(lo, size), max_size=size, unique=True))


def _unless(draw: st.DrawFn, pool: list[str], negation: bool, percent: int = 20) -> list[str]:
    if not negation or not pool or not _chance(draw, percent):
        return []
    return draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2, unique=True))


def _atoms(draw: st.DrawFn, pool: Sequence[str]) -> tuple[str, ...]:
    """0-2 atoms of the pool (nothing drawn when it is empty); shrinks towards none."""
    if not pool:
        return ()
    return tuple(sorted(draw(st.lists(st.sampled_from(pool), max_size=2, unique=True))))


def node(draw: st.DrawFn, sid: str, *, derived_ok: bool, atoms: Sequence[str] = ()) -> Node:
    """A state with a kind (and a status for actions, and atoms of the pool ``atoms``)."""
    # derived first: the plain case (what shrinking heads for) is a belief on a fact, the
    # smallest memory a change can cascade through
    kind = draw(st.sampled_from((*DERIVED_KINDS, FACT))) if derived_ok else FACT
    status = draw(st.sampled_from(("pending", "executed"))) if kind == "action" else None
    return Node(sid, kind, status, _atoms(draw, atoms))


def justification(
    draw: st.DrawFn, head: str, premise_pool: list[str], unless_pool: list[str], negation: bool
) -> Just | None:
    """One justification of ``head`` over the pools (never citing ``head`` itself)."""
    premises = _ids(draw, [p for p in premise_pool if p != head], 1, 4)
    if not premises:
        return None
    unless = _unless(draw, [u for u in unless_pool if u != head], negation)
    return Just.of(head, premises, unless)


def _cycles(draw: st.DrawFn, derived: list[str], ids: list[str], negation: bool) -> list[Just]:
    """Positive cycles (2-5 states), negative cycles through ``unless`` and back edges."""
    extra: list[Just] = []
    if len(derived) >= 2:
        for _ in range(draw(st.integers(0, 2))):
            size = draw(st.integers(2, min(5, len(derived))))
            ring = draw(st.lists(st.sampled_from(derived), min_size=2, max_size=size, unique=True))
            for i, head in enumerate(ring):
                nxt = ring[(i + 1) % len(ring)]
                others = _ids(draw, [p for p in ids if p not in (head, nxt)], 0, 1)
                unless = _unless(draw, [u for u in ids + list(GHOSTS) if u != head], negation)
                extra.append(Just.of(head, [nxt, *others], unless))
        if negation and _chance(draw, 35):
            ring = draw(st.lists(st.sampled_from(derived), min_size=2, max_size=3, unique=True))
            for i, head in enumerate(ring):
                premise = draw(st.sampled_from([p for p in ids if p != head]))
                extra.append(Just.of(head, [premise], [ring[(i + 1) % len(ring)]]))
    if derived:
        for _ in range(draw(st.integers(0, 3))):
            head = draw(st.sampled_from(derived))
            j = justification(draw, head, ids, ids + list(GHOSTS), negation)
            if j is not None:
                extra.append(j)
    return extra


def change(
    draw: st.DrawFn,
    mirror: Mirror,
    counter: list[int],
    negation: bool,
    atoms: Sequence[str] = (),
) -> ChangeSpec:
    """A valid change for ``mirror`` with 1-3 operations (``counter`` numbers new ids; new
    facts carry atoms of the pool ``atoms``)."""
    retract: list[str] = []
    asserted: list[Node] = []
    supersede: list[tuple[str, Node]] = []
    add: list[Just] = []
    remove: list[Just] = []
    existing = sorted(mirror.nodes)

    def busy() -> set[str]:
        return set(retract) | {o for o, _ in supersede} | {j.head for j in add + remove}

    cited = {x for j in mirror.justs for x in (*j.premises, *j.unless)}
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(OPERATIONS))
        free = sorted(mirror.active - busy())
        if op in ("retract", "supersede") and free:
            anchors = [s for s in free if s.startswith(ANCHOR)]
            # a state others rest on, more often than not: a change to a state nothing cites
            # moves nothing, and an empty report checks little
            supports = [s for s in free if s in cited]
            if anchors and _chance(draw, 50):
                pool = anchors
            elif supports and _chance(draw, 70):
                pool = supports
            else:
                pool = free
            target = draw(st.sampled_from(pool))
            if op == "retract":
                retract.append(target)
            else:
                counter[0] += 1
                supersede.append((target, Node(f"r{counter[0]}", atoms=_atoms(draw, atoms))))
        elif op == "add":
            heads = [s for s in free if mirror.is_derived_active(s)]
            if heads:
                head = draw(st.sampled_from(heads))
                # Sometimes cite what this very change retracts: a support that is born dead.
                pool = retract if retract and _chance(draw, 30) else existing
                j = justification(draw, head, pool, existing + list(GHOSTS), negation)
                if j is not None and j not in remove:
                    add.append(j)
        elif op == "remove":
            removable = [
                j
                for j in sorted(mirror.justs)
                if j.head in free and mirror.is_derived_active(j.head) and j not in add
            ]
            if removable:
                gone = draw(st.sampled_from(removable))
                if _chance(draw, 30):  # strip the head bare: a derived state with no support
                    remove += [j for j in removable if j.head == gone.head]
                else:
                    remove.append(gone)
        else:
            taken = set(mirror.nodes) | {n.id for n in asserted}
            ghosts = [g for g in GHOSTS if g not in taken] if negation else []
            counter[0] += 1
            blockers = [g for g in ghosts if g in cited]  # asserting one defeats a default
            if blockers and _chance(draw, 60):
                sid = draw(st.sampled_from(blockers))
            else:
                sid = draw(st.sampled_from([*ghosts, f"n{counter[0]}"]))
            asserted.append(Node(sid, atoms=_atoms(draw, atoms)))
    if not (retract or asserted or supersede or add or remove):
        # Every drawn operation lacked a target: the engine refuses an empty change, so assert
        # a new fact instead (no draw, so every other example stays the same).
        counter[0] += 1
        asserted.append(Node(f"n{counter[0]}"))
    spec = ChangeSpec(
        tuple(sorted(retract)), tuple(asserted), tuple(supersede), tuple(add), tuple(remove)
    )
    mirror.apply(spec)
    return spec


def _node_with_support(
    draw: st.DrawFn, sid: str, earlier: list[str], negation: bool, atoms: Sequence[str] = ()
) -> tuple[Node, tuple[Just, ...]]:
    """A new state; a derived one gets 1-4 alternative justifications over earlier states."""
    n = node(draw, sid, derived_ok=bool(earlier), atoms=atoms)
    justs: list[Just] = []
    if n.kind != FACT:
        for _ in range(draw(st.integers(1, 4))):
            j = justification(draw, sid, earlier, earlier + list(GHOSTS), negation)
            if j is not None and j not in justs:
                justs.append(j)
    return n, tuple(justs)


def _negative_ring(
    draw: st.DrawFn, start: int, earlier: list[str], room: int
) -> list[tuple[Node, tuple[Just, ...]]]:
    """2-3 new derived states, each supported only by ``premise, not <next in the ring>``.

    The ring's later members do not exist when the first is added: ``unless`` may name a
    missing id. With no other support, the ring is undefined in the well-founded model (even
    and odd rings alike) until a change breaks it.
    """
    size = draw(st.integers(2, min(3, room)))
    ids = [f"s{start + k}" for k in range(size)]
    ring: list[tuple[Node, tuple[Just, ...]]] = []
    for k, sid in enumerate(ids):
        n = node(draw, sid, derived_ok=True)
        if n.kind == FACT:
            n = Node(sid, "belief")
        premise = draw(st.sampled_from(earlier))
        ring.append((n, (Just.of(sid, [premise], [ids[(k + 1) % size]]),)))
    return ring


def _gadgets(
    draw: st.DrawFn, nodes: list[tuple[Node, tuple[Just, ...]]], mirror: Mirror, negation: bool
) -> list[Just]:
    """The anchored ring and the anchored blocking pair (module docstring), each now and
    then; new states are appended to ``nodes`` (and ``mirror``), the ring's edges returned
    (they cite states written later, so they go in with the scenario's extra edges)."""
    extra: list[Just] = []
    derived = [n.id for n, _ in nodes if n.kind != FACT]
    anchors = 0

    def anchor() -> str:
        nonlocal anchors
        n = Node(f"{ANCHOR}{anchors}")
        anchors += 1
        nodes.append((n, ()))
        mirror.add(n)
        return n.id

    if len(derived) >= 2 and _chance(draw, 25):
        t = anchor()
        size = draw(st.integers(2, min(3, len(derived))))
        ring = draw(st.lists(st.sampled_from(derived), min_size=2, max_size=size, unique=True))
        for i, head in enumerate(ring):
            extra += [Just.of(head, [ring[(i + 1) % len(ring)]]), Just.of(head, [t])]
    if negation and nodes and _chance(draw, 25):
        first = nodes[0][0].id
        t = anchor()
        x, y = f"s{len(nodes)}", f"s{len(nodes) + 1}"
        for sid, other, more in ((x, y, [Just.of(x, [t])]), (y, x, [])):
            pair = (Just.of(sid, [first], [other]), *more)
            nodes.append((Node(sid, "belief"), pair))
            mirror.add(nodes[-1][0], pair)
    return extra


@st.composite
def scenarios(
    draw: st.DrawFn,
    *,
    max_nodes: int = 10,
    max_changes: int = 3,
    negation: bool = True,
    gadgets: bool = True,
    atoms: Sequence[str] = (),
) -> Scenario:
    """A memory of up to ``max_nodes`` states, extra edges, then 1..``max_changes`` changes.

    ``negation=False`` gives positive programs only (no ``unless``, no ghosts), for the
    pyDatalog second opinion. ``gadgets=False`` leaves out the anchored shapes (module
    docstring), for tests about generic graphs. ``atoms`` is a vocabulary of grounded atoms
    (``"subscribed(u,tv)"``) for a memory with rule packs: the states written, asserted and
    superseding carry 0-2 of them each, so that the memory's rules link them.
    """
    mirror = Mirror()
    nodes: list[tuple[Node, tuple[Just, ...]]] = []
    # "Another state?" before each one (as st.lists does) rather than a count drawn up front,
    # so the shrinker can delete a state from the middle of a counterexample.
    while len(nodes) < max_nodes and (len(nodes) < MIN_NODES or _chance(draw, 85)):
        earlier = [n.id for n, _ in nodes]
        room = max_nodes - len(nodes)
        if negation and earlier and room >= 2 and _chance(draw, 18):
            batch = _negative_ring(draw, len(nodes), earlier, room)
        else:
            batch = [_node_with_support(draw, f"s{len(nodes)}", earlier, negation, atoms)]
        for n, justs in batch:
            nodes.append((n, justs))
            mirror.add(n, justs)
    extra_first = _gadgets(draw, nodes, mirror, negation) if gadgets else []
    ids = [n.id for n, _ in nodes]
    derived = [n.id for n, _ in nodes if n.kind != FACT]
    extra = tuple(dict.fromkeys(extra_first + _cycles(draw, derived, ids, negation)))
    if extra:
        mirror.apply(ChangeSpec(add=extra))
    counter = [0]
    changes = tuple(
        change(draw, mirror, counter, negation, atoms)
        for _ in range(draw(st.integers(1, max_changes)))
    )
    return Scenario(tuple(nodes), extra, changes)


@st.composite
def programs(
    draw: st.DrawFn, *, max_atoms: int = 12, negation: bool = True, self_loops: bool = True
) -> tuple[frozenset[str], list[tuple[str, tuple[str, ...], tuple[str, ...]]]]:
    """A raw logic program for the oracle-only tests: facts and rules over ``a0..a{n-1}``.

    Unlike :func:`scenarios`, any atom may cite any other, including itself (cycles of length
    1), and atoms may have no rule at all: this exercises the oracles on what the engine's API
    cannot even express.
    """
    n = draw(st.integers(1, max_atoms))
    atoms = [f"a{i}" for i in range(n)]
    facts = frozenset(draw(st.lists(st.sampled_from(atoms), max_size=n, unique=True)))
    rules = []
    for _ in range(draw(st.integers(0, 2 * n))):
        head = draw(st.sampled_from(atoms))
        pool = atoms if self_loops else [a for a in atoms if a != head]
        if not pool:
            continue
        premises = tuple(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4)))
        unless = tuple(_unless(draw, pool, negation, percent=40))
        rules.append((head, premises, unless))
    return facts, rules
