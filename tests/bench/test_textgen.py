"""The seeded text workload of ``bench perf --text``: deterministic, shaped as documented,
written the way the grounding reads it, and linked by the rule packs the way it claims.

Grounding is checked against the atoms each memory says it should give, so a template that
drifts from the grounding (or a grounding change that stops reading a template) fails here,
naming the text. The end-to-end check runs the real ``Memory`` with every pack.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from stategraph import Memory
from stategraph.bench.perf.textgen import PER_DAY, TextMemory, TextWorkload, generate
from stategraph.grounding import ground
from stategraph.grounding.packs import list_packs, load_pack
from stategraph.model import Change, EdgeCheck, Justification, Origin, State

DOMAINS = {"relocation", "scheduling", "health", "finance"}
KINDS = {"fact", "belief", "plan", "action"}


@pytest.fixture(scope="module")
def stream() -> list[TextMemory]:
    """The first 2,000 memories of seed 0 (50 days)."""
    return list(generate(2000, 0).memories())


def test_same_seed_same_stream_other_seed_another() -> None:
    assert list(generate(400, 7)) == list(generate(400, 7))
    assert list(generate(400, 7)) != list(generate(400, 8))
    texts = {m["text"] for m in generate(400, 8)}
    assert len(texts & {m["text"] for m in generate(400, 7)}) < 250  # not a reshuffle


def test_a_larger_stream_extends_a_smaller_one_and_any_memory_stands_alone() -> None:
    small, large = generate(300, 3), generate(1000, 3)
    assert list(small.memories()) == list(large.memories(0, 300))
    assert list(large.memories(250, 330)) == list(large.memories())[250:330]
    rng = random.Random(0)
    for i in rng.sample(range(1000), 25):
        memory = large.memory(i)
        assert memory.id == TextWorkload.id_of(i) == f"m{i:07d}"
    far = generate(100_000, 3)
    i = 73_457
    assert far.memory(i) == next(far.memories(i, i + 1))
    with pytest.raises(IndexError):
        small.memory(300)


def test_ids_unique_and_in_stream_order(stream: list[TextMemory]) -> None:
    ids = [m.id for m in stream]
    assert ids == [TextWorkload.id_of(i) for i in range(len(stream))]
    assert len(set(ids)) == len(ids)


def test_every_memory_is_a_valid_state(stream: list[TextMemory]) -> None:
    for m in stream:
        state = State.model_validate(m.state())
        assert state.kind in KINDS
        assert (state.status is not None) == (state.kind == "action"), m
        assert set(m.state()) <= {"id", "kind", "text", "status"}


def test_mix_within_tolerance(stream: list[TextMemory]) -> None:
    n = len(stream)
    roles = Counter(m.role for m in stream)
    assert 0.60 <= roles["unrelated"] / n <= 0.70
    assert 0.25 <= (roles["fact"] + roles["derived"]) / n <= 0.40
    langs = Counter(m.lang for m in stream)
    assert 0.45 <= langs["en"] / n <= 0.55
    for role in ("fact", "derived", "unrelated"):
        by_lang = Counter(m.lang for m in stream if m.role == role)
        assert min(by_lang["en"], by_lang["zh"]) / sum(by_lang.values()) >= 0.4, role
    assert {m.domain for m in stream if m.role != "unrelated"} == DOMAINS
    kinds = Counter(m.kind for m in stream if m.role == "derived")
    assert set(kinds) == {"belief", "plan", "action"}
    unrelated_kinds = Counter(m.kind for m in stream if m.role == "unrelated")
    assert set(unrelated_kinds) == KINDS
    statuses = Counter(m.status for m in stream if m.kind == "action")
    assert set(statuses) == {"pending", "executed"}


def test_episodes_have_one_to_four_derived_memories_after_their_fact(
    stream: list[TextMemory],
) -> None:
    position = {m.id: i for i, m in enumerate(stream)}
    same_day: Counter[str] = Counter()
    for i, m in enumerate(stream):
        if m.role == "derived":
            assert m.episode is not None and position[m.episode] < i, m
            assert stream[position[m.episode]].role in ("fact", "profile")
            if position[m.episode] // PER_DAY == i // PER_DAY:
                same_day[m.episode] += 1
        else:
            assert m.episode is None
    facts = [m for m in stream if m.role == "fact"]
    assert all(1 <= same_day[m.id] <= 4 for m in facts if int(m.id[1:]) < 1960)


def test_values_spread_as_documented() -> None:
    stream = list(generate(20_000, 1).memories())
    atoms = [a for m in stream for a in m.atoms]
    trips = [a for a in atoms if a.startswith("trip(")]
    trip_dates = Counter(a.rsplit(",", 1)[1] for a in trips)
    assert len({a.split(",")[1] for a in trips}) >= 40  # many cities
    assert max(trip_dates.values()) <= 3  # each trip on its own date, give or take
    appointments = Counter(a.rsplit(",", 1)[1] for a in atoms if a.startswith("appointment("))
    assert len(appointments) >= 300 and max(appointments.values()) <= 12
    user_moves = [a for a in atoms if a.startswith("moves(user,")]
    assert 1 <= len(user_moves) <= 3  # 500 days: a move or two, not hundreds
    amounts = Counter(a for a in atoms if a.startswith("transfer_request("))
    assert len(amounts) >= 0.8 * sum(amounts.values())
    years = {a.split('"')[1][:4] for a in atoms if '"' in a}
    assert len(years) >= 2


@pytest.fixture(scope="module")
def wide() -> list[TextMemory]:
    """A whole 10^5 stream (seed 11): every template and life event shows up somewhere."""
    return list(generate(100_000, 11).memories())


def _template(m: TextMemory) -> tuple[str, ...]:
    """What a memory was written from, near enough: role, language, predicates."""
    return (m.role, m.lang, *sorted({a.split("(")[0] for a in m.atoms}))


def test_episode_memories_ground_to_their_atoms(wide: list[TextMemory]) -> None:
    groups: dict[tuple[str, ...], list[TextMemory]] = {}
    for m in wide:
        if m.role != "unrelated":
            groups.setdefault(_template(m), []).append(m)
    rng = random.Random(5)
    sample = [m for g in groups.values() for m in rng.sample(g, min(3, len(g)))]
    assert len(groups) >= 60  # every kind of episode memory, in both languages
    assert {m.domain for m in sample} == DOMAINS
    for m in sample:
        assert m.atoms, m
        assert tuple(sorted(ground(m.text, lang=m.lang).texts)) == m.atoms, m.text


def test_unrelated_memories_ground_to_no_atom_a_pack_uses(wide: list[TextMemory]) -> None:
    used = set().union(*(load_pack(p).used for p in list_packs()))
    unrelated = [m for m in wide if m.role == "unrelated"]
    sample = random.Random(6).sample(unrelated, 200)
    assert {m.lang for m in sample} == {"en", "zh"}
    assert any(m.atoms for m in sample)  # preferences and hedges: atoms, but no pack's
    for m in sample:
        got = ground(m.text, lang=m.lang)
        assert tuple(sorted(got.texts)) == m.atoms, m.text
        for atom in got.atoms:
            sym = atom.symbol
            assert f"{sym.name}/{len(sym.arguments)}" not in used, (m.text, atom.text)


def _rule_premises(justifications: list[Justification]) -> set[str]:
    """What rules make a state rest on: premises of its rule justifications, and candidate
    premises the rules confirmed as dependencies (a candidate edge can carry the same
    premises as a rule link, and then stands for it)."""
    out: set[str] = set()
    for j in justifications:
        if j.origin is Origin.rule:
            out.update(j.premises)
        out.update(p for p, c in j.checked.items() if c is EdgeCheck.dependency)
    return out


def test_rules_link_episodes_and_never_unrelated_memories() -> None:
    workload = generate(120, 2)
    memories = list(workload.memories())
    mem = Memory(rules="all", grounder="stategraph.rule_grounder.v1")
    for m in memories:
        mem.add(m.state())
    by_head: dict[str, list[Justification]] = {}
    for j in mem.store.justifications():  # through the atom nodes
        by_head.setdefault(j.head, []).append(j)
    rests_on = {h: _rule_premises(js) for h, js in by_head.items()}

    def below(state: str) -> set[str]:
        seen: set[str] = set()
        todo = [state]
        while todo:
            for p in rests_on.get(todo.pop(), set()) - seen:
                seen.add(p)
                todo.append(p)
        return seen

    derived = [m for m in memories if m.role == "derived"]
    linked = [m for m in derived if m.episode in below(m.id)]
    assert len(derived) >= 20
    assert len(linked) >= 0.9 * len(derived), [m.text for m in derived if m not in linked]
    unrelated = {m.id for m in memories if m.role == "unrelated"}
    cited = {
        p for js in by_head.values() for j in js if j.origin is Origin.rule for p in j.premises
    }
    assert not unrelated & cited
    assert not [u for u in unrelated if rests_on.get(u)]

    changes = workload.changes(3)
    for change in changes:
        report = mem.revise(change)
        assert report.changed  # applies to the loaded stream as it stands


def test_changes_are_deterministic_distinct_and_valid(stream: list[TextMemory]) -> None:
    workload = generate(2000, 0)
    changes = workload.changes(40)
    assert changes == generate(2000, 0).changes(40)
    assert changes != generate(2000, 1).changes(40)
    assert len(changes) == 40
    by_id = {m.id: m for m in stream}
    olds = []
    for change in changes:
        Change.model_validate(change)
        if "retract" in change:
            (old,) = change["retract"]
        else:
            old, new = change["supersede"]["id"], change["supersede"]["with"]
            assert new["id"] == f"{old}.v2" and new["id"] not in by_id
            assert new["text"] != by_id[old].text
        assert by_id[old].role == "fact"
        olds.append(old)
    assert len(set(olds)) == len(olds)
    assert len({int(o[1:]) // PER_DAY for o in olds}) >= 30  # spread over the stream
    assert any("supersede" in c for c in changes)
    assert len(generate(30, 0).changes(1000)) < 1000  # no more than there are facts
