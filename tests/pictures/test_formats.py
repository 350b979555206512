"""Each format on its own: untrusted text cannot break out of DOT or Mermaid, SVG comes from
a real Graphviz (or a clear error names what to install), and the page's layout is sound."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from stategraph.errors import ToolNotFoundError
from stategraph.memory import Memory
from stategraph.pictures import build_picture, to_dot, to_html, to_mermaid
from stategraph.pictures.labels import clean, columns, wrap
from stategraph.pictures.layout import layered
from stategraph.pictures.svg import to_svg
from tests.pictures.scenes import HOSTILE

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="needs Graphviz: apt-get install graphviz (.ci/run does)"
)
TRICKY = 'a "quote", a back\\slash \\N \\G, a\nnewline, %%{init: {}}%% and #35; ' + HOSTILE


def _memory(path: Path) -> Memory:
    mem = Memory(path, candidates=None)
    mem.fact('f"1', TRICKY)
    mem.belief("b\\1", "depends on it", because=['f"1'])
    return mem


def test_labels_wrap_by_display_width_and_show_hidden_characters() -> None:
    assert columns("深圳ab") == 6
    assert wrap("通勤时间按深圳南山算" * 3, width=10) == ["通勤时间按", "深圳南山算", "通勤时间…"]
    assert wrap("one two three four", width=9) == ["one two", "three", "four"]
    assert clean("a\u202eb\u200bc\x1b[31m\nd") == "a\\u202eb\\u200bc\\x1b[31m d"


@needs_dot
def test_dot_quotes_every_text_so_graphviz_reads_it_back(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "m.db")
    dot = to_dot(build_picture(mem.store))
    mem.close()
    assert '"state:f\\"1"' in dot and '"state:b\\\\1"' in dot
    assert "back\\\\slash \\\\N \\\\G" in dot  # Graphviz's escapes stay literal text
    # Graphviz parses it and keeps the text: its canonical output has both nodes and the edge.
    done = subprocess.run(["dot", "-Tcanon"], input=dot, capture_output=True, text=True, check=True)
    assert '"state:f\\"1" -> "support:j0"' in done.stdout
    svg = to_svg(dot)
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "<script" not in svg and "&lt;script&gt;" in svg


def test_mermaid_gives_memory_text_no_syntax(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "m.db")
    chart = to_mermaid(build_picture(mem.store))
    mem.close()
    label = next(line for line in chart.splitlines() if line.startswith("  s1["))
    inside = label[len('  s1["') : -len('"]')]
    for line in inside.split("<br/>"):  # the only markup is the line breaks
        assert not set(line) & set('"<>#%`'), line
    assert "&lt;script&gt;" in inside and "&quot;quote&quot;" in inside
    assert "%%{" not in chart  # no directive can be smuggled in
    assert re.fullmatch(r"[a-z0-9]+", chart.split("-->")[0].split()[-1])  # generated names


def test_svg_without_graphviz_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no dot on it
    with pytest.raises(ToolNotFoundError, match="apt-get install graphviz") as err:
        to_svg("digraph { a }")
    assert err.value.tool == "dot" and "--format mermaid or html" in str(err.value)


def test_the_page_keeps_hostile_text_inside_its_data(tmp_path: Path) -> None:
    mem = _memory(tmp_path / "m.db")
    page = to_html(build_picture(mem.store))
    mem.close()
    assert page.count("<script") == 2  # the data block and the page's own script
    assert "<img" not in page and "window.pwned" in page  # the text is there, as data
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing from a network


def test_layout_is_deterministic_and_keeps_columns_apart() -> None:
    sizes = {n: (60.0, 20.0) for n in ("a", "b", "c", "j1", "j2")}
    edges = [("a", "j1"), ("j1", "b"), ("b", "j2"), ("j2", "a"), ("c", "j2")]  # a cycle
    first, again = layered(sizes, edges), layered(dict(reversed(sizes.items())), edges)
    assert first == again
    boxes = first.boxes
    assert boxes["a"].x < boxes["j1"].x < boxes["b"].x < boxes["j2"].x  # the back edge dropped
    for n, b in boxes.items():
        assert b.x - b.w / 2 > 0 and b.x + b.w / 2 < first.width, n
        for m, o in boxes.items():
            if m != n and b.x == o.x:
                assert abs(b.y - o.y) >= (b.h + o.h) / 2, (n, m)
