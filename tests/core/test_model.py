"""Models built without validation (``stategraph.model.trusted``)."""

from __future__ import annotations

import pydantic
import pytest

from stategraph.model import Justification, JustificationRef, Origin, trusted


def _ref(*premises: str) -> JustificationRef:
    return trusted(
        JustificationRef,
        {
            "premises": premises,
            "unless": (),
            "origin": Origin.declared,
            "rules": (),
            "notes": {},
            "proposed": {},
        },
    )


def test_a_trusted_model_equals_the_validated_one() -> None:
    built = trusted(
        Justification,
        {
            "head": "h",
            "premises": ("a", "b"),
            "unless": ("u",),
            "origin": Origin.declared,
            "checked": {},
            "notes": {},
            "rules": (),
            "proposed": {},
        },
    )
    checked = Justification(head="h", premises=["b", "a"], unless=["u"])
    assert built == checked
    assert built.model_dump_json() == checked.model_dump_json()
    assert built.model_fields_set == set(Justification.model_fields)


def test_copies_with_updates_leave_the_shared_fields_set_alone() -> None:
    one, other = _ref("a"), _ref("b")
    assert one.model_fields_set is other.model_fields_set  # shared, so it must never change
    before = set(other.model_fields_set)
    copied = one.model_copy(update={"premises": ("x",)})
    assert copied.premises == ("x",) and one.premises == ("a",)
    assert copied.model_fields_set is not one.model_fields_set
    assert other.model_fields_set == before


def test_assigning_a_field_is_refused_and_changes_nothing() -> None:
    one, other = _ref("a"), _ref("b")
    with pytest.raises(pydantic.ValidationError):
        one.premises = ("z",)  # type: ignore[misc]
    assert one.premises == ("a",)
    assert other.model_fields_set == set(JustificationRef.model_fields)


def test_only_frozen_models_can_be_trusted() -> None:
    class Loose(pydantic.BaseModel):
        x: int

    with pytest.raises(TypeError, match="frozen"):
        trusted(Loose, {"x": 1})
