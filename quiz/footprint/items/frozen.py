"""Frozen dataclasses built at the cost of plain ones.

A frozen dataclass's generated ``__init__`` sets each field with ``object.__setattr__`` (the
class's own ``__setattr__`` refuses). CPython calls that slot wrapper with a tuple of its
arguments: about 1,500 machine instructions a field, so the 15 fields of a
:class:`~quiz.footprint.engine.report.PhaseEstimate` cost 25,000, more than most items of an
estimate. :func:`fast_init` keeps the class frozen and everything it does, and builds its
instances with plain assignments instead:

* ``cls.__new__`` is a function generated with the parameters of the dataclass's
  ``__init__`` (the same order, defaults, default factories and keyword-only fields): it makes
  the new instance an instance of a mutable twin of ``cls`` (a subclass with the same slots and
  the default ``__setattr__``), assigns each field to its slot, then makes it a ``cls`` again;
* ``cls.__init__`` is ``object.__init__`` (the instance is built already), so ``cls(...)`` is
  one Python call, with no dictionary of its keyword arguments.

So ``cls(...)`` returns a ``cls``, frozen, equal to what the dataclass's own ``__init__`` builds
(kept in :data:`DATACLASS_INIT`). Arguments that do not fit (a required one missing, an unknown
keyword) raise the dataclass's ``TypeError``; without arguments (``copy`` and ``pickle`` call
``cls.__new__(cls)``, then restore the fields the frozen way) the instance is bare, as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

DATACLASS_INIT: dict[type, Callable[..., None]] = {}
"""The dataclass's own (frozen) ``__init__`` of each class :func:`fast_init` built, which
``cls.__init__`` no longer is: what its instances are checked against."""


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
    # The plain dataclass's __init__ raises what the dataclass's own does for arguments that
    # do not fit (missing, unexpected); the fast path below never calls it.
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

    plain = dataclasses.make_dataclass(cls.__name__, spec, repr=False, eq=False,
                                       namespace={"__post_init__": frozen_again})
    twin = type(cls.__name__, (cls,), {
        "__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__,
        "__init__": vars(plain)["__init__"], "__post_init__": frozen_again,
        # the default setattr and delattr: plain assignments to the inherited slots
        "__setattr__": object.__setattr__, "__delattr__": object.__delattr__,
    })
    new = object.__new__
    plain_init = vars(plain)["__init__"]
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}

    def other(klass: type[T], given: dict[str, Any]) -> T:
        """What the fast path does not build: no argument at all (``copy`` and ``pickle``
        call ``cls.__new__(cls)``), a required one missing (the plain ``__init__`` raises as the
        dataclass's would), or a subclass."""
        args = {k: v for k, v in given.items()
                if v is not _GIVEN_NONE and v is not defaults.get(k, _GIVEN_NONE)}
        if not args or klass is not cls:
            made: T = new(klass)
            return made
        made = new(twin)
        plain_init(made, **args)  # raises TypeError: a required argument is missing
        return made

    DATACLASS_INIT[cls] = vars(cls)["__init__"]
    cls.__new__ = _constructor(cls, twin, fields, other)  # type: ignore[method-assign]
    cls.__init__ = object.__init__  # type: ignore[method-assign]  # __new__ built it
    return cls


class _GivenNone:
    """The default of a constructor parameter that has none (see :func:`_constructor`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<required>"


_GIVEN_NONE = _GivenNone()


def _constructor(cls: type, twin: type, fields: tuple[dataclasses.Field[Any], ...],
                 other: Callable[[type, dict[str, Any]], Any]) -> Callable[..., Any]:
    """``cls.__new__`` with the parameters of the dataclass's ``__init__`` (the same order,
    defaults and keyword-only ones; a required one defaults to :data:`_GIVEN_NONE`): it makes
    a ``twin`` instance, assigns each field to its slot (a default factory called as the
    dataclass's would), makes it a ``cls`` and returns it; ``cls.__init__`` is then
    ``object.__init__``. One Python call where ``cls(...)`` took three (``__new__``, the
    twin's ``__init__`` and its ``__post_init__``), and no keyword dictionary."""
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_twin": twin, "_other": other,
                           "_R": _GIVEN_NONE}
    positional: list[str] = []
    keyword: list[str] = []
    required: list[str] = []
    body: list[str] = []
    for f in fields:
        name = f.name
        if f.default_factory is not dataclasses.MISSING:
            env[f"_f_{name}"] = f.default_factory
        if f.default is not dataclasses.MISSING:
            env[f"_d_{name}"] = f.default
        if not f.init:
            if f.default_factory is not dataclasses.MISSING:
                body.append(f"    self.{name} = _f_{name}()")
            elif f.default is not dataclasses.MISSING:
                body.append(f"    self.{name} = _d_{name}")
            continue
        if f.default is not dataclasses.MISSING:
            param = f"{name}=_d_{name}"
            body.append(f"    self.{name} = {name}")
        else:
            param = f"{name}=_R"
            if f.default_factory is not dataclasses.MISSING:
                body.append(f"    self.{name} = _f_{name}() if {name} is _R else {name}")
            else:
                required.append(name)
                body.append(f"    self.{name} = {name}")
        (keyword if f.kw_only else positional).append(param)
    params = ", ".join(["klass", *positional, *(["*", *keyword] if keyword else [])])
    given = ", ".join(f"{p.split('=')[0]!r}: {p.split('=')[0]}" for p in positional + keyword)
    missing = " or ".join(["klass is not _cls", *(f"{n} is _R" for n in required)])
    source = "\n".join([
        f"def __new__({params}):",
        f"    if {missing}:",
        f"        return _other(klass, {{{given}}})",
        "    self = _new(_twin)",
        *body,
        "    self.__class__ = _cls",
        "    return self",
    ])
    exec(source, env)  # noqa: S102 - the source is built above from the dataclass's field names
    made: Callable[..., Any] = env["__new__"]
    made.__qualname__ = f"{cls.__qualname__}.__new__"
    made.__module__ = cls.__module__
    return made
