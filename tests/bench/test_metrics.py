"""Impact-F1 and companions on hand-made predictions."""

from __future__ import annotations

import pytest

from stategraph.bench.cases import Case
from stategraph.bench.metrics import Counts, depth_bucket, group_key, score
from stategraph.bench.systems import Prediction

from .tiny import make_case


def test_counts_ratios() -> None:
    c = Counts(tp=2, fp=1, fn=1)
    assert c.precision == pytest.approx(2 / 3)
    assert c.recall == pytest.approx(2 / 3)
    assert c.f1 == pytest.approx(2 / 3)
    assert Counts().f1 == 1.0


def test_perfect_prediction() -> None:
    case = make_case()
    pred = Prediction(frozenset({"m2", "m3"}), consequences={"m3": "cancel"})
    s = score([(case, pred)])
    assert (s.overall.tp, s.overall.fp, s.overall.fn) == (2, 0, 0)
    assert s.by_depth["1"].tp == 1 and s.by_depth["2"].tp == 1
    assert s.collateral == 0 and s.residue == 0
    assert s.consequence_accuracy == 1.0


def test_false_positive_bucketed_by_hop_distance_and_collateral() -> None:
    case = make_case()
    pred = Prediction(frozenset({"m2", "m5", "m4"}))
    s = score([(case, pred)])
    assert s.overall.fp == 2
    assert s.by_depth["1"].fp == 1  # m5 is one hop from m1
    assert s.by_depth["3+"].fp == 1  # m4 is unreachable
    assert s.collateral == 2
    assert s.residue == 1
    assert s.by_depth["2"].fn == 1
    assert s.consequence_accuracy == 0.0


def test_changed_states_are_not_scored() -> None:
    case = make_case()
    s = score([(case, Prediction(frozenset({"m1", "m2", "m3"})))])
    assert s.overall.fp == 0 and s.overall.tp == 2


def test_flagged_is_never_invalidated() -> None:
    case = make_case()
    s = score([(case, Prediction(flagged=frozenset({"m2", "m3"})))])
    assert s.flagged == 2
    assert s.overall.tp == 0 and s.residue == 2
    assert s.overall.precision == 1.0 and s.overall.recall == 0.0


def test_micro_average_and_breakdowns() -> None:
    a = make_case()
    b = make_case(id="tiny-zh-01", lang="zh")
    s = score([(a, Prediction(frozenset({"m2", "m3"}))), (b, Prediction())])
    assert s.overall.recall == 0.5
    assert s.by_lang["en"].recall == 1.0 and s.by_lang["zh"].recall == 0.0
    assert s.by_track["declared"].tp == 2
    assert s.cases == 2


@pytest.mark.parametrize(("d", "b"), [(1, "1"), (2, "2"), (3, "3+"), (7, "3+"), (None, "3+")])
def test_depth_bucket(d: int | None, b: str) -> None:
    assert depth_bucket(d) == b


def test_flags_are_needed_or_unneeded_questions() -> None:
    case = make_case()  # m2, m3 must go; m4, m5 must stay
    s = score([(case, Prediction(frozenset({"m2"}), flagged=frozenset({"m3", "m4", "m5"})))])
    assert (s.needed, s.unneeded) == (1, 2)
    assert s.unneeded_per_change == 2.0
    assert s.question_precision == pytest.approx(1 / 3)
    group = s.by_group["declared/-"]
    assert (group.needed, group.unneeded, group.silent, group.gold) == (1, 2, 0, 2)
    assert s.to_dict()["by_group"]["declared/-"]["question_precision"] == pytest.approx(0.3333)
    assert score([(case, Prediction())]).question_precision == 1.0


def test_groups_are_track_batch_and_blind() -> None:
    assert group_key(make_case(id="tiny-en-g07", tags=["blind"])) == "declared/g/blind"
    assert group_key(make_case(id="tiny-en-07")) == "declared/-"


def _told_as_a_fact() -> Case:
    """The move told off as a new fact, which reverses m1: the gold lists what rests on m1,
    not m1 itself (it counts as gone: :meth:`Case.gold_invalidated`)."""
    case = make_case(
        change={"assert": [{"id": "m6", "kind": "fact", "text": "The move is off."}]},
        expect={
            "invalidated": ["m2", "m3"],
            "kept": ["m4", "m5"],
            "consequences": {"m3": "cancel"},
            "depth": {"m2": 1, "m3": 2},
        },
    )
    return case.model_copy(update={"reverses": "m1"})


def test_the_fact_a_new_one_reverses_is_scored_as_gone() -> None:
    case = _told_as_a_fact()
    assert case.gold_invalidated() == {"m1", "m2", "m3"}
    superseded = score([(case, Prediction(frozenset({"m1", "m2", "m3"})))])
    assert (superseded.overall.tp, superseded.overall.fn, superseded.silent) == (3, 0, 0)
    asked = score([(case, Prediction(frozenset(), flagged=frozenset({"m1", "m2", "m3"})))])
    assert (asked.silent, asked.needed, asked.unneeded) == (0, 3, 0)
    kept = score([(case, Prediction(frozenset({"m2", "m3"})))])
    assert kept.silent == 1  # the old fact held silently beside its reversal


def test_what_a_later_step_sees_of_an_earlier_reversal_is_not_scored_again() -> None:
    earlier = _told_as_a_fact()
    step = earlier.model_copy(update={"history": (), "reverses": None})
    assert "m1" not in step.gone()
    from stategraph.bench.cases import CaseStep

    told = CaseStep(change=earlier.change, expect=earlier.expect, reverses="m1")
    later = step.model_copy(update={"history": (told,)})
    assert "m1" in later.gone()
