"""``bench perf`` at a tiny size: the JSON shape, and every system agreeing with stategraph.

No timing is asserted (CI machines are shared and slow); the figures are only checked to exist.
"""

from __future__ import annotations

import argparse
import json

import pytest

from stategraph.bench.cli import register
from stategraph.bench.perf.cli import parse_sizes
from stategraph.bench.perf.graphs import Index, least_fixpoint
from stategraph.bench.perf.report import acceptance, render
from stategraph.bench.perf.systems import JTMS, DurableJTMS
from stategraph.bench.perf.workload import FACT, generate


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="stategraph")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return int(args.func(args))


def test_perf_json_shape_and_agreement(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "perf", "--sizes", "300", "--premises", "6", "--budget", "5", "--json"]
    assert _run(argv) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert {"cpu", "cores", "ram_gb", "python", "clingo"} <= set(doc["machine"])
    size = doc["sizes"]["300"]
    for key in ("load_s", "open_s", "peak_rss_mb"):
        assert size[key] > 0
    systems = size["systems"]
    required = {
        "stategraph",
        "clingo-full",
        "clingo-multishot",
        "python-lfp",
        "jtms",
        "jtms-durable",
    }
    assert required <= set(systems)
    for name in set(systems) - set(required):
        assert name in ("networkx", "pydatalog")
    for name, s in systems.items():
        assert {"p50_ms", "p95_ms", "hub_ms"} <= set(s), name
        assert s["n"] == 6, name
        if name not in ("stategraph", "networkx"):
            assert s["agree"] is True, name
    skipped = {"networkx", "pydatalog"} - set(systems)
    for name in skipped:
        assert f"{name} skipped" in out.err
    assert size["hub_cone"] > size["cone_mean"]
    table = render(doc)
    assert "machine:" in table and "clingo-multishot" in table and "DISAGREE" not in table


def test_workload_is_seeded_and_stratified() -> None:
    a, b = generate(500, seed=3, premises=10), generate(500, seed=3, premises=10)
    assert (a.kind, a.justs, a.premises) == (b.kind, b.justs, b.premises)
    assert a.justs != generate(500, seed=4).justs
    assert all(a.kind[u] == FACT for _, _, us in a.justs for u in us)
    assert a.hub not in a.premises and len(set(a.premises)) == 10


def test_jtms_matches_the_fixpoint_after_each_retraction() -> None:
    wl = generate(400, seed=1, premises=15)
    jtms, ix = JTMS(wl), Index(wl)
    active = bytearray(1 if k == FACT else 0 for k in wl.kind)
    for fact in [*wl.premises, wl.hub]:
        jtms.retract(fact)
        active[fact] = 0
        assert jtms.true == least_fixpoint(ix, active)[0]


def test_durable_jtms_answers_as_jtms_and_stores_each_answer() -> None:
    wl = generate(400, seed=2, premises=10)
    jtms, durable = JTMS(wl), DurableJTMS(wl)
    for seq, fact in enumerate([*wl.premises, wl.hub], start=1):
        changed = durable.retract(fact)
        assert changed == jtms.retract(fact)
        stored = dict(durable.conn.execute("SELECT id, value FROM truth"))
        assert [stored[i] for i in range(wl.n)] == list(jtms.true)
        logged = durable.conn.execute("SELECT changed FROM log WHERE seq=?", (seq,)).fetchone()
        assert json.loads(logged[0]) == sorted(changed)


def test_sizes_and_stray_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_sizes("1e3,1e4") == [1000, 10000]
    with pytest.raises(argparse.ArgumentTypeError):
        parse_sizes("1e3,x")
    assert _run(["bench", "--sizes", "1e3"]) == 2
    assert "only read by 'bench perf'" in capsys.readouterr().err


def _size(**systems: dict[str, float]) -> dict[str, object]:
    return {"load_s": 31.0, "peak_rss_mb": 900.0, "open_s": 0.002, "systems": systems}


def test_acceptance_names_each_target_met_or_not() -> None:
    size = _size(
        stategraph={"p50_ms": 0.6, "hub_ms": 3000.0},
        jtms={"p50_ms": 0.05},
        **{"clingo-full": {"p50_ms": 300.0}, "python-lfp": {"hub_ms": 1000.0}},
    )
    verdicts = {target: met for target, met, _ in acceptance(size)}
    assert verdicts == {
        "revision p50 <= 5 ms": True,
        "p50 <= 10x JTMS marking": False,  # 12x
        "p50 >= 1000x faster than clingo full": False,  # 500x
        "hub <= 2x the Python whole-graph fixpoint": False,  # 3x
        "bulk load <= 30 s": False,
        "bulk load peak RSS <= 1 GiB": True,
        "open <= 5 s": True,
    }
    skipped = acceptance(_size(stategraph={"p50_ms": 0.6, "hub_ms": 3000.0}))
    assert [met for _, met, _ in skipped] == [True, None, None, None, False, True, True]
