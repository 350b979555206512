"""A small hand-written SVG bar chart: Impact-F1 by gold depth, one bar per system.

Written by hand so the benchmark needs no plotting library; the output is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from stategraph.bench.metrics import DEPTH_BUCKETS, SystemScore

__all__ = ["f1_by_depth_svg"]

_COLOURS = ("#9e9e9e", "#f4a261", "#e76f51", "#2a9d8f", "#264653", "#6a4c93", "#8ab17d")
_W, _H, _LEFT, _BOTTOM, _TOP = 640, 320, 48, 40, 20


def f1_by_depth_svg(scores: Mapping[str, SystemScore]) -> str:
    """An SVG document with F1 per depth bucket (groups) and system (bars)."""
    names = list(scores)
    plot_w, plot_h = _W - _LEFT - 150, _H - _BOTTOM - _TOP
    group_w = plot_w / len(DEPTH_BUCKETS)
    bar_w = (group_w * 0.8) / max(len(names), 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
        f'viewBox="0 0 {_W} {_H}" font-family="sans-serif" font-size="11">',
        "<title>Impact-F1 by gold depth</title>",
        f'<rect width="{_W}" height="{_H}" fill="white"/>',
    ]
    base = _TOP + plot_h
    for tick in range(0, 11, 2):
        y = base - plot_h * tick / 10
        parts.append(
            f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{_LEFT + plot_w}" y2="{y:.1f}" stroke="#e0e0e0"/>'
        )
        parts.append(
            f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick / 10:.1f}</text>'
        )
    for g, bucket in enumerate(DEPTH_BUCKETS):
        x0 = _LEFT + g * group_w + group_w * 0.1
        for i, name in enumerate(names):
            f1 = scores[name].by_depth[bucket].f1
            h = plot_h * f1
            x = x0 + i * bar_w
            parts.append(
                f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar_w * 0.9:.1f}" '
                f'height="{h:.1f}" fill="{_COLOURS[i % len(_COLOURS)]}">'
                f"<title>{escape(name)} depth {bucket}: F1 {f1:.2f}</title></rect>"
            )
        cx = _LEFT + g * group_w + group_w / 2
        parts.append(
            f'<text x="{cx:.1f}" y="{base + 16}" text-anchor="middle">depth {bucket}</text>'
        )
    parts.append(
        f'<line x1="{_LEFT}" y1="{base}" x2="{_LEFT + plot_w}" y2="{base}" stroke="black"/>'
    )
    for i, name in enumerate(names):
        y = _TOP + 14 * i
        lx = _LEFT + plot_w + 16
        parts.append(
            f'<rect x="{lx}" y="{y}" width="10" height="10" fill="{_COLOURS[i % len(_COLOURS)]}"/>'
        )
        parts.append(f'<text x="{lx + 14}" y="{y + 9}">{escape(name)}</text>')
    parts.append(f'<text x="{_LEFT}" y="{_H - 6}">Impact-F1 by gold depth</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
