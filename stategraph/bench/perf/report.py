"""The machine a run was measured on, the ratios the acceptance criteria name, and the table."""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import clingo

import stategraph

__all__ = ["acceptance", "machine", "ratios", "render"]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gb() -> float | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return None


def _engine_version() -> str:
    """The commit the engine was imported from, ``+dirty`` with uncommitted core changes.

    Sizes measured in separate runs are only comparable at the same engine version.
    """
    root = Path(stategraph.__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return stategraph.__version__
    return f"{stategraph.__version__} ({head}{'+dirty' if dirty else ''})"


def machine() -> dict[str, Any]:
    """CPU, cores, RAM and versions: every figure is only meaningful with these."""
    ram = _ram_gb()
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "ram_gb": round(ram, 1) if ram is not None else None,
        "os": platform.platform(),
        "python": platform.python_version(),
        "clingo": clingo.__version__,
        "stategraph": _engine_version(),
    }


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def ratios(systems: Mapping[str, Mapping[str, Any]]) -> dict[str, float | None]:
    """The ratios issue 6 accepts on, and the durable-JTMS floor, where both sides ran."""
    sg = "stategraph"
    pairs = [
        ("stategraph_p50_over_jtms_p50", sg, "jtms", "p50_ms"),
        ("stategraph_p50_over_jtms_durable_p50", sg, "jtms-durable", "p50_ms"),
        ("clingo_full_p50_over_stategraph_p50", "clingo-full", sg, "p50_ms"),
        ("clingo_multishot_p50_over_stategraph_p50", "clingo-multishot", sg, "p50_ms"),
        ("python_lfp_p50_over_stategraph_p50", "python-lfp", sg, "p50_ms"),
        ("stategraph_hub_over_python_lfp_hub", sg, "python-lfp", "hub_ms"),
    ]
    return {
        key: _ratio(systems[left].get(field), systems[right].get(field))
        for key, left, right, field in pairs
        if left in systems and right in systems
    }


_ORDER = (
    "clingo-full",
    "clingo-multishot",
    "python-lfp",
    "jtms",
    "jtms-durable",
    "networkx",
    "pydatalog",
)


def _rank(order: list[str], name: str) -> int:
    return order.index(name) if name in order else len(order)


def _ms(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v * 1000:.0f} us" if v < 1 else f"{v:.1f} ms" if v < 1000 else f"{v / 1000:.2f} s"


def _x(v: float | None) -> str:
    return "-" if v is None else f"{v:.3g}x"


def render(doc: Mapping[str, Any]) -> str:
    """Plain text: the machine, then per size the engine figures and one row per system."""
    m = doc["machine"]
    lines = [
        f"machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; "
        f"python {m['python']}, clingo {m['clingo']}, stategraph {m.get('stategraph')}"
    ]
    for size, r in doc["sizes"].items():
        lines += [
            "",
            f"{size} states, {r['justifications']} justifications: "
            f"load {r['load_s']:.2f} s ({r['load_path']}; input objects built in "
            f"{r['inputs_s']:.2f} s more), peak RSS {r['peak_rss_mb']:.0f} MB (before loading "
            f"{r['input_rss_mb']:.0f} MB), open {r['open_s']:.3f} s, "
            f"store {r['db_mb']:.0f} MB",
            f"  random premise: cone {r['cone_mean']:.1f} states, solved {r['solved_mean']:.1f}, "
            f"changed {r['changed_mean']:.1f}; hub: cone {r['hub_cone']}, solved "
            f"{r['hub_solved']}, changed {r['hub_changed']}; "
            f"methods {', '.join(r['methods'])}",
        ]
        sg = r["systems"]["stategraph"]
        head = ["system", "p50", "p95", "hub", "n", "p50/sg", "hub/sg", "check"]
        rows = [head]
        order = ["stategraph", *_ORDER]
        for name, s in sorted(r["systems"].items(), key=lambda kv: _rank(order, kv[0])):
            check = "agree" if s.get("agree") else "DISAGREE" if "agree" in s else "-"
            if "answer_mean" in s:
                check = f"answers {s['answer_mean']:.1f} avg, hub {s['answer_hub']}"
            if name == "stategraph":
                check = "reference"
            rows.append(
                [
                    name,
                    _ms(s["p50_ms"]),
                    _ms(s["p95_ms"]),
                    _ms(s["hub_ms"]),
                    str(s["n"]),
                    _x(_ratio(s["p50_ms"], sg["p50_ms"])),
                    _x(_ratio(s["hub_ms"], sg["hub_ms"])),
                    check,
                ]
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
        lines += [
            "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows
        ]
        rat = ", ".join(f"{k} {_x(v)}" for k, v in r["ratios"].items())
        lines.append(f"  ratios: {rat}")
    if str(ACCEPTANCE_SIZE) in doc["sizes"]:
        lines += ["", f"issue 6 acceptance at {ACCEPTANCE_SIZE} states:"]
        for target, met, got in acceptance(doc["sizes"][str(ACCEPTANCE_SIZE)]):
            verdict = "not measured" if met is None else "met" if met else "NOT MET"
            lines.append(f"  {target}: {got} ({verdict})")
    return "\n".join(lines)


ACCEPTANCE_SIZE = 1_000_000
"""The store size issue 6 states its targets at."""


def acceptance(size: Mapping[str, Any]) -> list[tuple[str, bool | None, str]]:
    """Issue 6's targets against one size's figures: ``(target, met, measured)``, with
    ``met`` None where a side was not measured (a skipped system)."""
    systems = size["systems"]
    sg = systems["stategraph"]

    def ratio(left: str, right: str, field: str) -> float | None:
        if left not in systems or right not in systems:
            return None
        return _ratio(systems[left].get(field), systems[right].get(field))

    mib = size["peak_rss_mb"]
    checks: list[tuple[str, float | None, float, bool, str]] = [
        ("revision p50 <= 5 ms", sg["p50_ms"], 5.0, False, _ms(sg["p50_ms"])),
        ("p50 <= 10x JTMS marking", ratio("stategraph", "jtms", "p50_ms"), 10.0, False, ""),
        (
            "p50 >= 1000x faster than clingo full",
            ratio("clingo-full", "stategraph", "p50_ms"),
            1000.0,
            True,
            "",
        ),
        (
            "hub <= 2x the Python whole-graph fixpoint",
            ratio("stategraph", "python-lfp", "hub_ms"),
            2.0,
            False,
            "",
        ),
        ("bulk load <= 30 s", size["load_s"], 30.0, False, f"{size['load_s']:.1f} s"),
        ("bulk load peak RSS <= 1 GiB", mib, 1024.0, False, f"{mib:.0f} MiB"),
        ("open <= 5 s", size["open_s"], 5.0, False, f"{size['open_s'] * 1000:.0f} ms"),
    ]
    out: list[tuple[str, bool | None, str]] = []
    for target, value, bound, at_least, shown in checks:
        if value is None:
            out.append((target, None, "-"))
            continue
        met = value >= bound if at_least else value <= bound
        out.append((target, met, shown or _x(value)))
    return out
