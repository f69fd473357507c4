"""Read-only views of a spec that an estimate reads fast.

A pydantic model has a ``__getattr__`` (for private attributes and extra fields), so CPython
reads each field of a spec through ``slot_tp_getattr_hook`` and never specializes the read:
about 550 machine instructions a field, where a plain object's specialized read takes about 50.
One estimate with every option on reads some 290 fields (``t.pp``, ``t.zero``,
``inf.weights``...). :func:`spec_view` gives it a view instead:

* the same field values, in a plain ``__dict__`` (in the same order, so ``vars(view)`` lists
  what ``vars(part)`` does), the parts of a :class:`~quiz.footprint.inputs.spec.FootprintSpec`
  as views themselves;
* the properties written in our spec classes (``devices``, ``attention_kernel``, ``resolved``,
  ``phases``...), which read those fields;
* everything else a part offers (``model_fields_set``, ``model_copy``, ``model_dump``,
  ``to_mapping``...) from the part itself (``view._part``).

A view is as immutable as its part: its class refuses every assignment after it is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel

if TYPE_CHECKING:
    from quiz.footprint.inputs.spec import FootprintSpec

_CLASSES: dict[type[BaseModel], type] = {}
"""The view class of each spec class (:func:`_view_class`), made when first needed."""


class _View:
    """Base of the view classes: the field values in ``__dict__``, the part in ``_part``."""

    __slots__ = ("__dict__", "_part")
    _part: BaseModel

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a view of {type(self._part).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a view of {type(self._part).__name__} is read-only")

    def __repr__(self) -> str:
        return f"view of {self._part!r}"


_build = object.__setattr__  # fills a view (its own __setattr__ refuses)


def _view_class(cls: type[BaseModel]) -> type:
    """The view class of the spec class ``cls``: its own properties (those of the classes
    between ``cls`` and :class:`~pydantic.BaseModel`), and the rest of its public attributes
    read from the part."""
    namespace: dict[str, Any] = {"__slots__": (), "__module__": __name__,
                                 "__qualname__": f"{cls.__name__}View"}
    ours = [k for k in cls.__mro__ if issubclass(k, BaseModel) and k is not BaseModel]
    for klass in reversed(ours):
        for name, value in vars(klass).items():
            if isinstance(value, property):
                namespace[name] = value
    for name in dir(cls):
        if name.startswith("_") or name in cls.model_fields or name in namespace:
            continue
        namespace[name] = property(_from_part(name))
    return type(f"{cls.__name__}View", (_View,), namespace)


def _from_part(name: str) -> Any:
    def read(self: _View) -> Any:
        return getattr(self._part, name)
    read.__name__ = name
    return read


def view(part: BaseModel) -> Any:
    """A view of the spec part ``part`` (see the module docstring)."""
    cls = type(part)
    made = _CLASSES.get(cls)
    if made is None:
        made = _CLASSES[cls] = _view_class(cls)
    out: Any = object.__new__(made)
    _build(out, "__dict__", dict(part.__dict__))
    _build(out, "_part", part)
    return out


def spec_view(spec: FootprintSpec) -> FootprintSpec:
    """A view of ``spec`` whose ``training``, ``inference`` and ``storage`` are views too.

    Kept for the last spec asked about (the entry holds it; a spec is immutable, so the same
    object has the same view): estimating the same spec again (a bank's questions sharing a
    scenario, the benchmark) reuses it, as the memos keyed on its parts did before views."""
    entry = _LAST[0]
    if entry[0] is spec:
        found: FootprintSpec = entry[1]
        return found
    out = view(spec)
    values = out.__dict__
    for name in ("training", "inference", "storage"):
        values[name] = view(values[name])
    made = cast("FootprintSpec", out)
    _LAST[0] = (spec, made)
    return made


_LAST: list[tuple[object, Any]] = [(object(), None)]
"""``(spec, view)``: the last :func:`spec_view`, read and replaced whole."""


def with_values(part: Any, **changes: Any) -> Any:
    """A view of ``part`` (a spec part, or a view of one) with some field values changed: its
    properties read the changed values (a whole-model view of a training spec, ``dp=1, tp=1``
    ..., has ``devices`` 1); what a view reads from its part is the original part's."""
    base = part if isinstance(part, _View) else view(part)
    out = object.__new__(type(base))
    _build(out, "__dict__", {**base.__dict__, **changes})
    _build(out, "_part", base._part)
    return out
