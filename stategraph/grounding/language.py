"""Per-memory language detection: the one decision is Chinese or English."""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Lang", "detect_language"]

Lang = Literal["en", "zh"]

# CJK Unified Ideographs, extension A and compatibility ideographs. Kana and Hangul are left
# out on purpose: the zh pipeline would segment them badly, and the English path at least
# finds no false atoms in them.
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def detect_language(text: str) -> Lang:
    """Pick the pipeline for one memory.

    A memory with any Han character goes to the Chinese pipeline: mixed memories such as
    ``"用户计划 2026-12 从上海搬到深圳"`` carry their structure in the Chinese words, and the zh
    lexicons also list the Latin spellings that turn up in such text (``KYC``, ``¥``).

    Args:
        text: the memory's text.

    Returns:
        ``"zh"`` when the text contains a CJK ideograph, else ``"en"``.
    """
    return "zh" if _CJK.search(text) else "en"
