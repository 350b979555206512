"""One spelling per id: every id that enters is NFC-normalised, and an id carrying a control,
line-separator or bidi character is refused wherever it enters.

Two spellings of one name (``café`` as one code point, or as ``e`` and a combining accent)
print alike; kept apart they were two states, and a premise typed on the other keyboard was an
unknown id. A tab, a newline or a bidi override in an id could forge or reorder a line of any
output that does not escape it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stategraph import Change, Justification, Memory, State, Truth
from stategraph.cli.main import EXIT_INPUT, main
from stategraph.errors import InvalidChangeError, InvalidInputError

NFC, NFD = "caf\u00e9", "cafe\u0301"

CONTROLS = [
    "\x00",
    "\t",
    "\n",
    "\r",
    "\x1b",
    "\x7f",
    "\x85",
    "\x9b",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u2067",
]
"""NUL, tab, newline, CR, ESC, DEL, NEL and CSI (C1), the line and paragraph separators, a
bidi override and a bidi isolate."""


def test_nfc_and_nfd_spellings_are_one_id() -> None:
    mem = Memory()
    mem.fact(NFD, "typed with a combining accent")
    assert [s.id for s in mem.states()] == [NFC]
    with pytest.raises(InvalidChangeError, match="already exists"):
        mem.fact(NFC)
    mem.belief("b", because=[NFC])
    mem.belief("c", because=[[NFC, NFD]])
    mem.plan("p", context=[NFD])
    assert [j.premises for j in mem.justifications("c")] == [(NFC,)]
    assert [j.premises for j in mem.justifications("p")] == [(NFC,)]
    assert mem.truth(NFD) is Truth.true and mem.state(NFD).id == NFC
    assert mem.why(NFD).root == NFC
    assert "b" in mem.supersede(NFD, {"id": "moved"}).invalidated
    assert not mem.is_active(NFC) and mem.why_not(NFD).id == NFC


def test_every_field_that_holds_an_id_is_normalised() -> None:
    assert State(id=NFD).id == NFC
    j = Justification.model_validate(
        {
            "head": NFD + "2",
            "premises": [NFD, NFC, " x "],
            "unless": [NFD + "3"],
            "origin": "recovered",
            "checked": {NFD: "dependency"},
            "proposed": {NFD: "context"},
        }
    )
    assert (j.head, j.premises, j.unless) == (NFC + "2", (NFC, "x"), (NFC + "3",))
    assert j.checked == {NFC: "dependency"} and j.proposed == {NFC: "context"}
    assert j.candidates() == ("x",)  # the checked premise is matched across spellings
    change = Change.model_validate(
        {"retract": [NFD, NFC], "supersede": {"id": NFD, "with": {"id": NFD + "!"}}}
    )
    assert change.retract == (NFC,) and change.supersede[0].id == NFC
    assert change.supersede[0].with_.id == NFC + "!"


def _attempts(mem: Memory, bad: str) -> dict[str, Callable[[], Any]]:
    """Every way an id enters the API."""
    return {
        "fact": lambda: mem.fact(bad),
        "assert": lambda: mem.revise({"assert": [{"id": bad}]}),
        "head": lambda: mem.revise({"add_justifications": [{"head": bad, "premises": ["f"]}]}),
        "premise": lambda: mem.belief("c", because=[["f", bad]]),
        "unless": lambda: mem.belief("c", because=["f"], unless=[bad]),
        "context": lambda: mem.belief("c", context=[bad]),
        "fact context": lambda: mem.fact("g", context=[bad]),
        "retract": lambda: mem.retract(bad),
        "retract in a change": lambda: mem.revise({"retract": [bad]}),
        "superseded": lambda: mem.supersede(bad, {"id": "g"}),
        "replacement": lambda: mem.supersede("f", {"id": bad}),
        "bulk": lambda: mem.bulk_load([{"id": bad}]),
        "truth": lambda: mem.truth(bad),
        "why": lambda: mem.why(bad),
        "why_not": lambda: mem.why_not(bad),
        "justifications": lambda: mem.justifications(bad),
    }


@pytest.mark.parametrize("where", ["x{}y", "f{}", "{}f"])
@pytest.mark.parametrize("char", CONTROLS)
def test_an_id_with_a_control_character_is_refused_wherever_it_enters(
    char: str, where: str
) -> None:
    """In the middle or at either end: a newline after ``f`` is refused, not stripped into
    ``f`` (which ``retract`` would then have retracted)."""
    mem = Memory()
    mem.fact("f")
    mem.belief("b", because=["f"])
    before = (mem.states(), mem.justifications(), len(mem.history()))
    for name, attempt in _attempts(mem, where.format(char)).items():
        with pytest.raises(InvalidInputError, match=r"control character U\+") as info:
            attempt()
        assert f"U+{ord(char):04X}" in str(info.value), name
    assert (mem.states(), mem.justifications(), len(mem.history())) == before


def test_the_command_line_refuses_a_tab_in_an_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["add", str(tmp_path / "m.db"), "--id", "a\tb"])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and len(err.splitlines()) == 1
    assert "control character U+0009" in err and "\t" not in err
