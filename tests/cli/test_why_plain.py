"""``stategraph why`` reads a store of this version straight from its file
(:mod:`stategraph.store.ancestry`), without pydantic: its text must be the one
:meth:`Memory.why <stategraph.memory.Memory.why>` renders, and every case the models answer with
an error (a state that does not hold, one stored unfounded, an unknown id, a kind the default
policy lacks, a store of another version) must go the way it went before.
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stategraph import Memory
from stategraph.cli import main
from stategraph.errors import StategraphError
from stategraph.model import Change, EdgeCheck, Justification, Origin, State

from .test_startup import run_fresh

CLI = importlib.import_module("stategraph.cli.main")  # the module (``main`` is its function)

IDS = ["f1", "f2", "b1", "b2", "b3", "a1", "用户", "\u00e9x"]
"""The first two are facts; the last two are a Chinese id and one with an accent (in NFC)."""

TEXTS = ["", "plain", "line\nforged m9 [fact]", "bidi \u202eevil", "深圳 commute", " spaced "]


def _plain(path: Path, sid: str) -> str | None:
    """What the command line prints without the models; None where it opens the store."""
    args = argparse.Namespace(store=str(path), id=sid, as_of=None, busy_timeout=5.0, json=False)
    return CLI._proof_text(args)  # type: ignore[no-any-return]


@st.composite
def memories(draw: st.DrawFn) -> tuple[list[State], list[Justification], list[str]]:
    """States of every kind with justifications of every origin (candidates checked or not,
    rules, reviews with notes, ``unless``), cycles allowed, some states retracted."""
    ids = IDS[: draw(st.integers(3, len(IDS)))]
    states = []
    for i, sid in enumerate(ids):
        kind = "fact" if i < 2 else draw(st.sampled_from(["fact", "belief", "plan", "action"]))
        states.append(State(id=sid, kind=kind, text=draw(st.sampled_from(TEXTS))))
    justs = []
    for s in states:
        if s.kind == "fact":
            continue
        others = [i for i in ids if i != s.id]
        for _ in range(draw(st.integers(0, 3))):
            premises = draw(st.lists(st.sampled_from(others), max_size=3, unique=True))
            unless = draw(st.lists(st.sampled_from(others), max_size=1, unique=True))
            origin = draw(st.sampled_from(list(Origin)))
            extra: dict[str, object] = {}
            if origin is Origin.recovered and premises:
                checked = draw(
                    st.dictionaries(st.sampled_from(premises), st.sampled_from(EdgeCheck))
                )
                extra = {
                    "checked": checked,
                    "notes": {p: f"{p} was {c.value}" for p, c in checked.items()},
                }
            elif origin is Origin.rule:
                extra = {
                    "rules": draw(st.lists(st.sampled_from(["move:3", "care:12"]), min_size=1))
                }
            elif origin is Origin.review:
                extra = {
                    "notes": {"by": "ann", "note": draw(st.sampled_from(TEXTS)), "at": "2026-12-03"}
                }
            justs.append(
                Justification(head=s.id, premises=premises, unless=unless, origin=origin, **extra)
            )
    retracted = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
    return states, justs, retracted


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(memories())
def test_the_plain_proof_is_the_models_proof(
    tmp_path_factory: pytest.TempPathFactory,
    memory: tuple[list[State], list[Justification], list[str]],
) -> None:
    states, justs, retracted = memory
    path = tmp_path_factory.mktemp("why") / "m.db"
    with Memory(path, candidates=None, assume=False) as mem:
        mem.revise(Change(assert_=states))
        if justs:
            mem._apply(Change(add_justifications=justs))  # as the engine writes them
        if retracted:
            mem.revise(Change(retract=retracted))
        answers = {}
        for s in states:
            try:
                answers[s.id] = mem.why(s.id).render()
            except StategraphError:
                answers[s.id] = None
    for sid, full in answers.items():
        assert _plain(path, sid) == full, sid


def _commute(path: Path) -> Path:
    with Memory(path) as mem:
        mem.fact("f", "The user lives in Shanghai")
        mem.belief("b", "Commute by metro", because=["f"])
    return path


def test_what_the_models_refuse_is_left_to_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _commute(tmp_path / "m.db")
    with Memory(path) as mem:
        mem.belief("lost", because=["f"], unless=["f"])
        mem.belief("\u00e9", because=["f"])
    assert _plain(path, "b") is not None
    assert _plain(path, "\u00e9") is not None
    for sid in ("lost", "missing", " b", "b\n", "e\u0301"):
        assert _plain(path, sid) is None
    assert main(["why", str(path), "e\u0301"]) == 0  # the models normalise it to NFC
    assert capsys.readouterr().out.startswith("\u00e9 [belief]")
    assert main(["why", str(path), "lost"]) == 2  # the models' error and exit code
    assert "does not hold" in capsys.readouterr().err
    assert main(["why", str(path), " b"]) == 0  # an id the models strip, then prove
    assert capsys.readouterr().out.startswith("b [belief] Commute by metro")


def _edit(path: Path, sql: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(sql)
    conn.close()


def test_a_store_the_plain_reader_does_not_take_is_opened_in_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _commute(tmp_path / "m.db")
    hunch = "kind = 'hunch', body = json_set(body, '$.kind', 'hunch')"  # no kind the CLI knows
    _edit(path, f"UPDATE states SET {hunch} WHERE id = 'b'")
    assert _plain(path, "b") is None
    assert main(["why", str(path), "b"]) == 2
    assert "unknown kind 'hunch'" in capsys.readouterr().err
    _edit(path, "UPDATE states SET body = json_set(body, '$.kind', 'belief') WHERE id = 'b'")
    _edit(path, "UPDATE states SET truth = 'false' WHERE id = 'f'")
    assert _plain(path, "b") is None  # stored holding, yet resting on nothing that holds
    assert main(["why", str(path), "b"]) == 4
    assert "no justification of it holds" in capsys.readouterr().err
    _edit(path, "UPDATE meta SET value = '5' WHERE key = 'schema'")
    assert _plain(path, "b") is None


_WHY = """
import contextlib, io, json, sys
from stategraph.cli import main

with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(["why", sys.argv[1], "a"])
loaded = sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "clingo", "yaml"})
print(json.dumps({"code": code, "loaded": loaded, "text": out.getvalue()}))
"""


def test_why_imports_no_model_clingo_or_yaml(tmp_path: Path) -> None:
    """What start-up costs: pydantic alone takes 0.2 s on the 2-core machines CI runs on."""
    path = tmp_path / "m.db"
    with Memory(path) as mem:
        mem.fact("f", "用户计划 2026-12 从上海搬到深圳")
        mem.belief("b", "Commute by metro", because=["f"])
        mem.action("a", "Cancel the broadband", because=["b"])
        expected = mem.why("a").render()
    result = run_fresh(_WHY, path)
    assert result == {"code": 0, "loaded": [], "text": expected + "\n"}


def test_the_kind_is_read_from_the_state_body_as_the_models_read_it(tmp_path: Path) -> None:
    """An edited ``kind`` column is not what the models see (they read the stored body), so
    neither the listing nor the proof may print it."""
    from stategraph.store.listing import state_lines

    path = _commute(tmp_path / "m.db")
    _edit(path, "UPDATE states SET kind = 'hunch' WHERE id = 'b'")
    with Memory(path) as mem:
        expected = mem.why("b").render()
    assert _plain(path, "b") == expected
    assert expected.startswith("b [belief]")
    lines = state_lines(str(path), 5.0)
    assert lines is not None and {r["id"]: r["kind"] for r in lines}["b"] == "belief"
