"""Frozen dataclasses built at the cost of plain ones.

A frozen dataclass's generated ``__init__`` sets each field with ``object.__setattr__`` (the
class's own ``__setattr__`` refuses). CPython calls that slot wrapper with a tuple of its
arguments: about 1,500 machine instructions a field, so the 15 fields of a
:class:`~quiz.footprint.engine.report.PhaseEstimate` cost 25,000, more than most items of an
estimate. :func:`fast_init` keeps the class frozen and everything it does, and builds its
instances with plain assignments instead:

* ``cls(...)`` with arguments makes the new instance an instance of a mutable twin of ``cls``
  (a subclass with the same slots and the default ``__setattr__``);
* the twin's ``__init__`` is the one a plain dataclass of the same fields has (the same
  parameters, defaults, default factories, keyword-only fields and errors): it assigns each
  field to its slot, then makes the instance a ``cls`` again.

So ``cls(...)`` returns a ``cls``, frozen, equal to what the dataclass's own ``__init__`` builds.
Without arguments (``copy`` and ``pickle`` call ``cls.__new__(cls)``, then restore the fields
the frozen way) nothing changes.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def fast_init(cls: type[T]) -> type[T]:
    """Build the instances of the frozen slots dataclass ``cls`` with plain assignments (see
    the module docstring); returns ``cls``. Apply it above ``@dataclass``.

    Raises:
        TypeError: ``cls`` is not a frozen dataclass with slots, defines ``__new__`` or
            ``__post_init__``, or has init-only fields (this construction would not run or take
            them).
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in vars(cls):
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with slots")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if (cls.__new__ is not object.__new__ or hasattr(cls, "__post_init__")
            or len(vars(cls)["__dataclass_fields__"]) != len(fields)):
        raise TypeError(f"{cls.__name__} defines __new__ or __post_init__, or has init-only "
                        "fields")
    spec: list[tuple[str, Any, Any]] = []
    for f in fields:
        options: dict[str, Any] = {"init": f.init, "kw_only": f.kw_only}
        if f.default is not dataclasses.MISSING:
            options["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            options["default_factory"] = f.default_factory
        spec.append((f.name, f.type, dataclasses.field(**options)))

    def frozen_again(self: Any) -> None:  # the plain __init__'s last step
        self.__class__ = cls

    # A plain dataclass of the same fields: its generated __init__ assigns each field, then
    # calls __post_init__ (here: back to the frozen class).
    plain = dataclasses.make_dataclass(cls.__name__, spec, repr=False, eq=False,
                                       namespace={"__post_init__": frozen_again})
    twin = type(cls.__name__, (cls,), {
        "__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        "__init__": vars(plain)["__init__"], "__post_init__": frozen_again,
        # the default setattr and delattr: plain assignments to the inherited slots
        "__setattr__": object.__setattr__, "__delattr__": object.__delattr__,
    })
    new = object.__new__

    def __new__(klass: type[T], *args: Any, **kwargs: Any) -> T:
        if (args or kwargs) and klass is cls:
            made: T = new(twin)  # type(made).__init__ is the twin's, which ends in a cls
            return made
        return new(klass)

    cls.__new__ = __new__  # type: ignore[assignment]
    return cls
