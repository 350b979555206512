"""Baselines on tiny cases, and the similarity baseline's parts."""

from __future__ import annotations

from stategraph.bench.cases import shipped_cases
from stategraph.bench.similarity import (
    SimilaritySystem,
    cosine,
    is_dev,
    ngrams,
    tfidf,
    tune_threshold,
)
from stategraph.bench.systems import DescendantsSystem, DirectSystem, NoneSystem, System

from .tiny import make_case


def test_systems_follow_the_protocol() -> None:
    for s in (NoneSystem(), DescendantsSystem(), DirectSystem(), SimilaritySystem()):
        assert isinstance(s, System)


def test_none_predicts_nothing() -> None:
    assert not NoneSystem().run(make_case()).invalidated


def test_descendants_ignores_alternative_support() -> None:
    pred = DescendantsSystem().run(make_case())
    assert pred.invalidated == {"m2", "m3", "m5"}
    assert pred.consequences == {"m3": "cancel"}


def test_direct_is_one_hop_with_alternatives() -> None:
    pred = DirectSystem().run(make_case())
    assert pred.invalidated == {"m2"}  # m5 survives through m4; m3 is two hops away


def test_executed_action_is_flagged_for_review() -> None:
    case = make_case(
        memories=[
            {"id": "m1", "kind": "fact", "text": "trip"},
            {
                "id": "m2",
                "kind": "action",
                "text": "booked",
                "because": ["m1"],
                "status": "executed",
            },
        ],
        expect={"needs_confirmation": ["m2"], "consequences": {"m2": "review"}, "depth": {"m2": 1}},
        tags=["action"],
    )
    pred = DescendantsSystem().run(case)
    assert not pred.invalidated and pred.flagged == {"m2"}
    assert pred.consequences == {"m2": "review"}


def test_ngrams_work_for_chinese() -> None:
    g = ngrams("搬到深圳")
    assert g["深圳"] == 1 and g["到深圳"] == 1


def test_cosine_of_identical_and_disjoint_texts() -> None:
    a, b, c = tfidf(["move to Shenzhen", "move to Shenzhen", "xyz"])
    assert abs(cosine(a, b) - 1.0) < 1e-9
    assert cosine(a, c) == 0.0


def test_similarity_threshold_decides() -> None:
    case = make_case()
    assert SimilaritySystem(threshold=0.0).run(case).invalidated >= {"m2", "m3", "m4", "m5"}
    assert not SimilaritySystem(threshold=1.01).run(case).invalidated


def test_dev_split_is_stable_and_partial() -> None:
    ids = [c.id for c in shipped_cases()]
    dev = [i for i in ids if is_dev(i)]
    assert 0 < len(dev) < len(ids) / 2
    assert is_dev(dev[0])  # deterministic


def test_tuning_returns_a_grid_value() -> None:
    dev = [c for c in shipped_cases() if is_dev(c.id)]
    t = tune_threshold(dev)
    assert 0 < t < 1 and round(t, 2) == t


def test_default_threshold_is_the_shipped_tuning() -> None:
    from stategraph.bench.similarity import DEFAULT_THRESHOLD

    dev = [c for c in shipped_cases() if is_dev(c.id)]
    assert tune_threshold(dev) == DEFAULT_THRESHOLD


def test_a_fact_the_engine_superseded_itself_is_predicted_gone() -> None:
    """A new fact read as reversing m1 supersedes it: m1 is gone with what rested on it, and
    the case's own change (the new fact) is not part of the prediction."""
    from stategraph.bench.engine import prediction_from
    from stategraph.cli.demo import build

    mem = build("en", text_only=True)
    report = mem.fact("m1b", "The user will stay in Shanghai")
    assert [r.outcome for r in report.reversals] == ["superseded"]
    pred = prediction_from(report, None, {"m1b"})
    assert pred.invalidated == {"m1", "m2", "m3"}
