"""Text shown on a terminal or in a report, one memory per line whatever it holds.

A memory's text or id comes from whoever wrote it. Printed as is, a newline, a line separator
or a bidi override in it could forge a line of output (a fake "+ m3 holds") or reorder one.
Every renderer of memories (``show``, ``why``, ``why-not``, ``recall``, the audit's reports)
translates its lines with :data:`LINE_ESCAPES`, so such characters show as escapes instead.
"""

from __future__ import annotations

__all__ = ["LINE_ESCAPES"]

_CONTROLS = (*range(32), *range(127, 160), 0x2028, 0x2029, *range(0x202A, 0x202F))

LINE_ESCAPES = {c: ascii(chr(c))[1:-1] for c in (*_CONTROLS, *range(0x2066, 0x206A))}
"""``str.translate`` table: control, line-separator and bidi characters to their escapes."""
