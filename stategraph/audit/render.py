"""One logged revision as a page for a reviewer who does not read JSON: Markdown or HTML.

The page says, in words and tables: when the revision was committed and under which hash
(checked against the entry's contents), what was asked (reviews included: who decided what,
and why), what the engine added to it (rule links, candidates, the judge's justifications),
what happened to every state it acted on and every state it affected (old and new value,
verdict, depth, who decided, and the reason: which support was lost, which one carries the
state, the cycle), the candidate edges in question and the judge's answers.

Both formats are built from one list of blocks (:func:`blocks`), so they say the same. Every
text that comes from the memory (ids, memory texts, notes, the judge's reasons) is escaped for
the format: a memory cannot add a link, an image, markup or script to the page, nor forge a
line of it (control, line-separator and bidi characters are shown as escapes). The HTML page is
self-contained: no script, no outside resource.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stategraph.engine.proof_text import confirmed_by
from stategraph.escaping import LINE_ESCAPES
from stategraph.judge.base import JudgeCall
from stategraph.model import (
    Change,
    Entry,
    Justification,
    JustificationRef,
    LostSupport,
    Origin,
    Reason,
    Report,
)
from stategraph.store.revlog import chain

__all__ = [
    "Bullets",
    "Heading",
    "Para",
    "Table",
    "blocks",
    "justification_text",
    "reason_text",
    "to_html",
    "to_markdown",
]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~&$])")
"""Characters Markdown (CommonMark and the common extensions) may read as markup."""


@dataclass(frozen=True)
class Strong:
    """Text to emphasise (an id, a verdict)."""

    text: str


Inline = str | Strong
Cell = Sequence[Inline] | str


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Para:
    parts: Sequence[Inline]


@dataclass(frozen=True)
class Bullets:
    items: Sequence[Sequence[Inline]]


@dataclass(frozen=True)
class Table:
    header: Sequence[str]
    rows: Sequence[Sequence[Cell]]


Block = Heading | Para | Bullets | Table


def blocks(
    seq: int,
    at: str,
    texts: Mapping[str, str],
    row: tuple[str, str, str, str, str, str],
) -> list[Block]:
    """The page of one log entry.

    Args:
        seq: the entry's sequence number.
        at: when it was committed.
        texts: memory texts by id (from the store), for the states the page names.
        row: the entry's canonical texts: change (as asked), report, config, calls,
            prev_hash, hash.
    """
    change_text, report_text, config_text, calls_text, prev, digest = row
    intact = chain(prev, seq, at, change_text, report_text, config_text, calls_text) == digest
    config = json.loads(config_text)
    out: list[Block] = [Heading(f"Revision {seq}", 1)]
    check = "matches the entry's contents" if intact else "DOES NOT match the entry's contents"
    out.append(
        Table(
            ("", ""),
            [
                ("committed at", at),
                ("hash", f"{digest} ({check})"),
                ("previous hash", prev),
                ("configuration", _config(config)),
            ],
        )
    )
    if report_text.startswith('{"bulk_load":'):
        summary = json.loads(report_text)["bulk_load"]
        facts = ", ".join(f"{k} {v}" for k, v in sorted(summary.items()))
        out.append(Para([f"A bulk load, logged as a summary only: {facts}."]))
        return out
    report = Report.model_validate_json(report_text)
    asked = Change.model_validate_json(change_text)
    out += [Heading("The change"), Bullets(_change_items(asked, texts))]
    added = _engine_added(asked, report.change)
    if added:
        out += [
            Heading("What the engine added to it"),
            Para(["Grounding, rule links, candidates and the judge completed the change:"]),
            Bullets(added),
        ]
    out += [Heading("Outcome"), Para([_outcome(report)])]
    if report.changed:
        acted: list[Sequence[Cell]] = [
            (
                [Strong(c.id)],
                _text(texts, c.id),
                c.action.replace("_", " ") + (f" by {c.by}" if c.by else ""),
                c.new.value,
            )
            for c in report.changed
        ]
        out += [
            Heading("States the change acted on"),
            Table(("state", "text", "what happened", "now"), acted),
        ]
    out.append(Heading("States it affected"))
    if report.entries:
        header = ("state", "kind", "text", "was → is", "verdict", "depth", "decided by", "why")
        out.append(Table(header, [_entry_row(e, texts) for e in report.entries]))
    else:
        out.append(Para(["No other state was affected."]))
    if report.edges:
        edges: list[Sequence[Cell]] = [
            (
                [Strong(e.head)],
                [Strong(e.premise)],
                "a new fact that may defeat it" if e.blocker else "a candidate premise lost",
                e.decided_by.value if e.decided_by else "nobody: flagged",
                e.check.value if e.check else "",
                e.note,
            )
            for e in report.edges
        ]
        titles = ("state", "premise", "in question as", "settled by", "outcome", "note")
        out += [Heading("Candidate edges in question"), Table(titles, edges)]
    calls = [JudgeCall.model_validate(c) for c in json.loads(calls_text)] if calls_text else []
    if calls:
        out += [Heading("Judge calls"), Table(_CALL_HEADER, [_call_row(c) for c in calls])]
    return out


_CALL_HEADER = ("state", "premise", "answer", "support", "reason", "served")


def _config(config: Mapping[str, Any]) -> str:
    parts = [
        f"max depth {config.get('max_depth') if config.get('max_depth') is not None else 'none'}",
        f"kinds {', '.join(config.get('kinds', []))}",
        f"rule packs {', '.join(config.get('rules', [])) or 'none'}",
        f"grounder {config.get('grounder') or 'none'}",
    ]
    cand = config.get("candidates")
    parts.append(f"candidates {cand['name']} (k {cand['k']})" if cand else "no candidates")
    judge = config.get("judge")
    parts.append(f"judge {judge['name']} ({judge['model']})" if judge else "no judge")
    if config.get("assume") is False:
        parts.append("no assumptions")
    if "max_alternatives" in config:
        parts.append(f"at most {config['max_alternatives']} rule derivations a memory")
    return "; ".join(parts)


def _text(texts: Mapping[str, str], sid: str) -> str:
    return texts.get(sid, "")


def justification_text(j: Justification | JustificationRef) -> str:
    """A justification in words: ``[a, b] unless [c] (declared via pack:12)``, or who
    confirmed it (shared with the picture page, so both say it alike)."""
    if j.origin is Origin.review:
        return confirmed_by(j)
    premises = f"[{', '.join(j.premises)}]"
    unless = f" unless [{', '.join(j.unless)}]" if j.unless else ""
    rules = f" via {', '.join(j.rules)}" if j.rules else ""
    return f"{premises}{unless} ({j.origin.value}{rules})"


def _change_items(change: Change, texts: Mapping[str, str]) -> list[list[Inline]]:
    items: list[list[Inline]] = []
    for s in change.supersede:
        new = s.with_
        items.append(
            ["superseded ", Strong(s.id), " by ", Strong(new.id), f" ({new.kind}): {new.text}"]
        )
    items += [["retracted ", Strong(sid), f": {_text(texts, sid)}"] for sid in change.retract]
    items += [["asserted ", Strong(s.id), f" ({s.kind}): {s.text}"] for s in change.assert_]
    items += [
        ["justification added for ", Strong(j.head), ": " + justification_text(j)]
        for j in change.add_justifications
        if j.origin is not Origin.review
    ]
    items += [
        ["justification removed from ", Strong(j.head), ": " + justification_text(j)]
        for j in change.remove_justifications
    ]
    for r in change.reviews:
        on = f" on {r.at.isoformat()}" if r.at is not None else ""
        note = f": {r.note}" if r.note else ""
        items.append([Strong(r.decision.value), " ", Strong(r.id), f" by {r.by}{on}{note}"])
    return items or [["nothing"]]


def _engine_added(asked: Change, applied: Change) -> list[list[Inline]]:
    """The justifications the applied change adds or removes that the asked one did not."""
    given = {j.key: j for j in asked.add_justifications}
    gone = {j.key for j in asked.remove_justifications}
    items: list[list[Inline]] = [
        ["added for ", Strong(j.head), ": " + justification_text(j)]
        for j in applied.add_justifications
        if given.get(j.key) != j
    ]
    items += [
        ["removed from ", Strong(j.head), ": " + justification_text(j)]
        for j in applied.remove_justifications
        if j.key not in gone
    ]
    return items


def _outcome(report: Report) -> str:
    counts = [
        f"{len(report.invalidated)} invalidated",
        f"{len(report.kept)} kept",
        f"{len(report.restored)} restored",
        f"{len(report.needs_confirmation)} need confirmation",
    ]
    consequences = ", ".join(f"{k} {v}" for k, v in sorted(report.consequences.items()))
    then = f"; consequences for actions: {consequences}" if consequences else ""
    return (
        f"{', '.join(counts)}{then}. The change reached {report.cone_size} states and solved "
        f"{report.solved} of them ({report.method})."
    )


def _entry_row(e: Entry, texts: Mapping[str, str]) -> list[Cell]:
    verdict: list[Inline] = [Strong(e.verdict.value.replace("_", " "))]
    if e.consequence is not None:
        verdict.append(f", {e.consequence.value}")
    return [
        [Strong(e.id)],
        e.kind,
        _text(texts, e.id),
        f"{e.old.value} → {e.new.value}",
        verdict,
        str(e.depth),
        e.decided_by.value,
        reason_text(e.reason),
    ]


def _lost(lost: LostSupport) -> str:
    j = lost.justification
    what = f"[{', '.join(j.premises)}]" if j.premises else "its default"
    how = []
    if lost.failed:
        how.append(f"{', '.join(lost.failed)} no longer true")
    if lost.blocked_by:
        how.append(f"{', '.join(lost.blocked_by)} now blocks it")
    if lost.removed:
        how.append("the change removed it")
    rules = f" via {', '.join(j.rules)}" if j.rules else ""
    return f"lost {what} ({j.origin.value}{rules}): {'; '.join(how) or 'it no longer holds'}"


_CAUSES = {
    "no_support": "no justification holds",
    "alternative_support": "another justification holds",
    "new_support": "a justification holds now",
    "negative_cycle": "a cycle through unless: undefined",
    "undefined_premise": "a premise is undecided",
    "unverified_candidate": "a candidate premise it may rest on was lost, and nobody verified it",
    "depth_limit": "past the depth bound: not computed",
    "compatible_update": "its declared support was superseded by a compatible fact",
    "possibly_defeated": "a new fact may defeat it, and nobody judged",
}


def reason_text(r: Reason) -> str:
    """A reason in words: the cause, what was lost, what carries the state, the cycle."""
    parts = [_CAUSES.get(r.cause, r.cause.replace("_", " "))]
    parts += [_lost(lost) for lost in r.lost]
    if r.surviving is not None and r.surviving.origin is Origin.review:
        parts.append(justification_text(r.surviving))
    elif r.surviving is not None:
        parts.append(f"carried by {justification_text(r.surviving)}")
    if r.cycle:
        parts.append(f"cycle {', '.join(r.cycle)}")
    if r.undecided:
        parts.append(f"undecided: {', '.join(r.undecided)}")
    return "; ".join(parts)


def _call_row(c: JudgeCall) -> list[Cell]:
    q = c.question
    if c.answer is None:
        answer, support, reason = "no answer", "", c.error or ""
    else:
        answer = "still holds" if c.answer.still_holds else "does not hold"
        support, reason = ", ".join(c.answer.support), c.answer.reason
    served = "cache" if c.cached else f"{c.model}, {c.attempts} attempt(s), {c.tokens} tokens"
    return [[Strong(q.head.id)], [Strong(q.premise.id)], answer, support, reason, served]


# ---- formats ---------------------------------------------------------------------------------


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text.translate(LINE_ESCAPES))


def _md_inline(parts: Cell) -> str:
    if isinstance(parts, str):
        return _md(parts)
    return "".join(f"**{_md(p.text)}**" if isinstance(p, Strong) else _md(p) for p in parts)


def to_markdown(page: Sequence[Block]) -> str:
    """The page as Markdown (CommonMark with pipe tables)."""
    lines: list[str] = []
    for b in page:
        if isinstance(b, Heading):
            lines += ["#" * b.level + " " + _md(b.text), ""]
        elif isinstance(b, Para):
            lines += [_md_inline(b.parts), ""]
        elif isinstance(b, Bullets):
            lines += [f"- {_md_inline(item)}" for item in b.items] + [""]
        else:
            lines.append("| " + " | ".join(_md(h) for h in b.header) + " |")
            lines.append("|" + "---|" * len(b.header))
            lines += ["| " + " | ".join(_md_inline(c) for c in row) + " |" for row in b.rows]
            lines.append("")
    return "\n".join(lines)


def _html(text: str) -> str:
    return html.escape(text.translate(LINE_ESCAPES), quote=True)


def _html_inline(parts: Cell) -> str:
    if isinstance(parts, str):
        return _html(parts)
    return "".join(
        f"<strong>{_html(p.text)}</strong>" if isinstance(p, Strong) else _html(p) for p in parts
    )


_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
"""


def to_html(page: Sequence[Block]) -> str:
    """The page as one self-contained HTML document (no script, no outside resource)."""
    title = next((b.text for b in page if isinstance(b, Heading)), "revision")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{_html(title)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
    ]
    for b in page:
        if isinstance(b, Heading):
            out.append(f"<h{b.level}>{_html(b.text)}</h{b.level}>")
        elif isinstance(b, Para):
            out.append(f"<p>{_html_inline(b.parts)}</p>")
        elif isinstance(b, Bullets):
            out.append("<ul>" + "".join(f"<li>{_html_inline(i)}</li>" for i in b.items) + "</ul>")
        else:
            head = "".join(f"<th>{_html(h)}</th>" for h in b.header)
            body = "".join(
                "<tr>" + "".join(f"<td>{_html_inline(c)}</td>" for c in row) + "</tr>"
                for row in b.rows
            )
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
