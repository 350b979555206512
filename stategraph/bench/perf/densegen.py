"""A seeded stream of *dense* text memories for ``stategraph bench perf --text --workload dense``.

:mod:`stategraph.bench.perf.textgen` writes a household over years: a new memory meets few
others. Real memories are denser than that: one user, one city, one drug, mentioned again and
again. This stream is that case, on purpose (issue 23), in English and Chinese (about half
each), one memory at a time, ``{"id", "kind", "text"}`` (and ``"status"`` for actions):

- **Moves, 15%.** The user plans to move between a handful of cities (six), in a month of
  2026-2028: every move is ``moves(user,A,B,"YYYY-MM")``, so every move matches the patterns
  that every move-dependent memory watches.
- **What rests on the moves, 55%.** Commute beliefs for a city (``commute_city``, derived
  from any move to it: 15%), broadband to-dos before the move (``cancel_utility`` and
  ``around(user,move)``, derived from every move: 10%), local services and recommendations in
  a city (``local_service`` / ``recommend``, from any move to it: 15%), and reminders to take
  the one drug the user takes (``med_reminder(user,metformin,"500mg")``: 15%), which rest on
  the medication fact repeated throughout (**4%**: ``dose`` and ``takes``).
- **Unrelated plans, 26%.** Chit-chat and plans that ground to nothing.

So at 10^4 memories one move pattern is watched by thousands of memories, and each commute
belief or to-do has as many alternative derivations as the linker keeps (``max_alternatives``).

Determinism: memory ``i`` is built from ``Random("densegen:SEED:i")`` alone (the first two are
a move and the medication fact, so that derived memories have something to rest on); its id
is ``d`` and ``i`` in seven digits. The stream of ``generate(n, seed)`` is a prefix of any
longer one.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from stategraph.bench.perf.textgen import TextMemory

__all__ = ["DenseWorkload", "generate"]

_CITIES = (
    ("shanghai", "Shanghai", "上海"),
    ("shenzhen", "Shenzhen", "深圳"),
    ("beijing", "Beijing", "北京"),
    ("hangzhou", "Hangzhou", "杭州"),
    ("guangzhou", "Guangzhou", "广州"),
    ("chengdu", "Chengdu", "成都"),
)
_CATEGORIES = (
    ("restaurants", "restaurants", "餐厅"),
    ("schools", "schools", "学校"),
    ("activities", "activities", "活动"),
)
_UNRELATED = (
    ("plan", "Plan a picnic with friends on Saturday.", "周末和朋友去爬山"),
    ("plan", "Read a chapter of the novel before bed.", "睡前读一章小说"),
    ("plan", "Call grandma on Sunday evening.", "周日晚上给奶奶打电话"),
    ("belief", "The user enjoys long walks.", "用户喜欢散步"),
    ("plan", "Try the new pasta recipe this week.", "这周试做新的意面"),
)
_KINDS = (
    ("move", 15),
    ("commute", 15),
    ("broadband", 10),
    ("service", 8),
    ("recommend", 7),
    ("dose", 4),
    ("reminder", 15),
    ("unrelated", 26),
)


def _pick(rng: random.Random) -> str:
    return rng.choices([k for k, _ in _KINDS], weights=[w for _, w in _KINDS])[0]


def _memory(i: int, seed: int) -> TextMemory:
    rng = random.Random(f"densegen:{seed}:{i}")
    what = "move" if i == 0 else "dose" if i == 1 else _pick(rng)
    zh = rng.random() < 0.5
    lang = "zh" if zh else "en"
    z = 2 if zh else 1
    city = rng.choice(_CITIES)
    atoms: tuple[str, ...]
    status = None
    if what == "move":
        src, dst = rng.sample(_CITIES, 2)
        year, month = rng.randint(2026, 2028), rng.randint(1, 12)
        ym = f"{year}-{month:02d}"
        text = (
            f"用户计划{year}年{month}月从{src[2]}搬到{dst[2]}"
            if zh
            else f"The user plans to move from {src[1]} to {dst[1]} in {ym}."
        )
        kind, atoms, role, domain = (
            "fact",
            (f'moves(user,{src[0]},{dst[0]},"{ym}")',),
            "fact",
            "relocation",
        )
    elif what == "dose":
        text = (
            "用户每天服用二甲双胍500毫克"
            if zh
            else "The user takes metformin 500 mg every morning."
        )
        kind, atoms = "fact", ('dose(user,metformin,"500mg")', "takes(user,metformin)")
        role, domain = "fact", "health"
    elif what == "unrelated":
        kind, en, zh_t = rng.choice(_UNRELATED)
        text, atoms, role, domain = (zh_t if zh else en), (), "unrelated", "none"
    else:
        role, domain = "derived", "relocation"
        if what == "commute":
            kind = "belief"
            text = f"通勤时间按{city[2]}计算" if zh else f"Commute time is computed for {city[1]}."
            atoms = (f"commute_city(user,{city[0]})",)
        elif what == "broadband":
            kind, status = "action", "pending"
            text = "搬家前退宽带" if zh else "Cancel the home broadband before the move."
            atoms = ("around(user,move)", "cancel_utility(user,broadband)")
        elif what == "service":
            kind = "plan"
            text = (
                f"给{city[2]}新家开通宽带"
                if zh
                else f"Set up internet for the new apartment in {city[1]}."
            )
            atoms = (f"local_service(user,broadband,{city[0]})",)
        elif what == "recommend":
            kind = "plan"
            cat = rng.choice(_CATEGORIES)
            text = f"给用户推荐{city[2]}的{cat[2]}" if zh else f"Recommend {cat[1]} in {city[1]}."
            atoms = (f"recommend(user,{cat[0]},{city[0]})",)
        else:
            kind, status, domain = "action", "pending", "health"
            text = (
                "提醒用户每天早上吃二甲双胍500毫克"
                if zh
                else "Remind the user to take metformin 500 mg every morning."
            )
            atoms = ('med_reminder(user,metformin,"500mg")',)
    del z
    return TextMemory(
        DenseWorkload.id_of(i),
        kind,
        text,
        status,
        lang,  # type: ignore[arg-type]
        domain,
        role,  # type: ignore[arg-type]
        None,
        tuple(sorted(atoms)),
    )


class DenseWorkload:
    """A seeded stream of ``n`` dense text memories (see the module docstring)."""

    def __init__(self, n: int, seed: int) -> None:
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        self.n = n
        self.seed = seed

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[dict[str, str]]:
        return (m.state() for m in self.memories())

    @staticmethod
    def id_of(i: int) -> str:
        """The id of the ``i``-th memory."""
        return f"d{i:07d}"

    def memories(self, start: int = 0, stop: int | None = None) -> Iterator[TextMemory]:
        """The memories from ``start`` up to ``stop`` (default: the end)."""
        stop = self.n if stop is None else min(stop, self.n)
        for i in range(start, stop):
            yield _memory(i, self.seed)

    def changes(self, k: int) -> list[dict[str, Any]]:
        """``k`` revisions of distinct move facts of the stream: a move superseded by one to
        another city (two in three) or retracted; each stands on its own."""
        rng = random.Random(f"densegen:{self.seed}:changes")
        facts = [m for m in self.memories() if m.kind == "fact" and m.domain == "relocation"]
        out: list[dict[str, Any]] = []
        for m in rng.sample(facts, min(k, len(facts))):
            if rng.random() < 1 / 3:
                out.append({"retract": [m.id]})
                continue
            src, dst = rng.sample(_CITIES, 2)
            if m.lang == "zh":
                text = f"用户改为2027年3月从{src[2]}搬到{dst[2]}"
            else:
                text = f"The user now plans to move from {src[1]} to {dst[1]} in 2027-03."
            out.append(
                {
                    "supersede": {
                        "id": m.id,
                        "with": {"id": f"{m.id}.v2", "kind": "fact", "text": text},
                    }
                }
            )
        return out


def generate(n: int, seed: int) -> DenseWorkload:
    """The dense workload of ``n`` memories for ``seed``."""
    return DenseWorkload(n, seed)
