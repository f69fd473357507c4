"""The canary: every private Textual name quiz uses (all in the package
quiz/tui/textual_internals/) still exists in the installed Textual, and no other module of quiz
names one (issue 18)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
import textual

from quiz.tui import textual_internals
from quiz.tui.textual_internals import CHECKED_AGAINST, PRIVATE_NAMES, widget_hooks

assert widget_hooks  # imported for the names it registers in PRIVATE_NAMES

QUIZ = Path(__file__).resolve().parents[2] / "quiz"


@pytest.mark.parametrize("name", sorted(PRIVATE_NAMES))
def test_every_private_name_used_still_exists(name: str) -> None:
    owner, attribute = PRIVATE_NAMES[name]
    where = importlib.import_module(owner) if isinstance(owner, str) else owner
    if isinstance(where, type):
        found = any(attribute in vars(k) for k in where.__mro__) or attribute in (
            getattr(where, "__annotations__", {}))
        if not found:  # an attribute set in __init__ (e.g. Screen._compositor)
            source = "".join(inspect.getsource(k) for k in where.__mro__
                             if k.__module__.startswith("textual"))
            found = f"self.{attribute}" in source
    else:
        found = hasattr(where, attribute)
    assert found, (f"Textual {textual.__version__} has no {name} (checked against "
                   f"{CHECKED_AGAINST}): update quiz/tui/textual_internals/")


def test_the_signatures_relied_on_are_unchanged() -> None:
    from textual.app import App
    from textual.screen import Screen

    assert list(inspect.signature(App._get_screen).parameters) == ["self", "screen"]
    assert list(inspect.signature(Screen._refresh_layout).parameters)[:2] == ["self", "size"]
    assert hasattr(Screen, "_compositor_refresh")


PRIVATE = re.compile(
    r"\._(get_screen|layout_required|refresh_layout|compositor|on_key|bindings|scroll_update|"
    r"layout_cache|button|selected|driver|dirty_widgets|repaint_required)\b"
    r"|textual\._time")


def test_no_other_module_of_quiz_names_a_private_textual_name() -> None:
    offenders = []
    for path in sorted(QUIZ.rglob("*.py")):
        if "textual_internals" in path.relative_to(QUIZ).parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if PRIVATE.search(code) and "def _" not in code:
                offenders.append(f"{path.relative_to(QUIZ.parent)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_module_says_which_textual_it_was_checked_against() -> None:
    assert CHECKED_AGAINST in (textual_internals.__doc__ or "")


def test_the_hooks_used_before_the_first_paint_are_plain_mixins_before_their_base() -> None:
    """The screen hooks and the radio button's are plain mixins (no Textual class is made for
    them before the first paint): each class using one lists it before its Textual base, so its
    overrides come first, and none holds what Textual reads only from its own classes."""
    from textual.dom import DOMNode
    from textual.reactive import Reactive
    from textual.screen import Screen
    from textual.widgets import RadioButton

    from quiz.tui.app import BaseScreen
    from quiz.tui.screens.covered import HiddenWhenCovered
    from quiz.tui.screens.exam import ExamScreen
    from quiz.tui.screens.reshown import ReshownScreen
    from quiz.tui.screens.start import StartScreen
    from quiz.tui.textual_internals import (
        DrawsOnlyWhatIsShown,
        GlyphRadioButton,
        SkipsRepaintWhileHidden,
        StyledOnceWhenFirstShown,
    )
    from quiz.tui.widgets.mode_button import ModeButton

    mixins = (SkipsRepaintWhileHidden, StyledOnceWhenFirstShown, DrawsOnlyWhatIsShown,
              HiddenWhenCovered, GlyphRadioButton)
    for mixin in mixins:
        assert not issubclass(mixin, DOMNode), mixin
        # What Textual reads only from its own classes: bindings, CSS, reactives, and the
        # handlers @on marks (Textual's "_textual_on"; collected by its metaclass only).
        held = [name for name, value in vars(mixin).items()
                if name in ("BINDINGS", "CSS", "DEFAULT_CSS", "COMPONENT_CLASSES")
                or isinstance(value, Reactive) or hasattr(value, "_textual_on")]
        assert held == [], f"{mixin.__name__} holds {held}"
    for cls, uses, base in ((StartScreen, mixins[:4], Screen), (BaseScreen, mixins[1:2], Screen),
                            (ExamScreen, mixins[3:4], Screen), (ReshownScreen, mixins[3:4], Screen),
                            (ModeButton, mixins[4:], RadioButton)):
        for mixin in uses:
            assert cls.__mro__.index(mixin) < cls.__mro__.index(base), (cls, mixin)


def test_every_class_using_a_mixin_has_its_textual_base_after_it() -> None:
    """The type checker sees each mixin as a Screen or a RadioButton; at run time it is a
    plain class, so a class listing a mixin without the Textual base would type-check and fail
    when made (found by a reviewer). Every class of quiz.tui using one, in every module, lists
    the base after it."""
    import pkgutil

    from textual.dom import DOMNode
    from textual.screen import Screen
    from textual.widgets import RadioButton

    import quiz.tui
    from quiz.tui.screens.covered import HiddenWhenCovered
    from quiz.tui.textual_internals import (
        DrawsOnlyWhatIsShown,
        GlyphRadioButton,
        SkipsRepaintWhileHidden,
        StyledOnceWhenFirstShown,
    )

    for module in pkgutil.walk_packages(quiz.tui.__path__, "quiz.tui."):
        importlib.import_module(module.name)
    bases: dict[type, type] = {SkipsRepaintWhileHidden: Screen, StyledOnceWhenFirstShown: Screen,
                               DrawsOnlyWhatIsShown: Screen, HiddenWhenCovered: Screen,
                               GlyphRadioButton: RadioButton}
    users = 0
    for mixin, base in bases.items():
        stack = list(mixin.__subclasses__())
        while stack:
            cls = stack.pop()
            stack.extend(cls.__subclasses__())
            if cls in bases:  # a mixin built on a mixin
                continue
            assert issubclass(cls, DOMNode), f"{cls.__qualname__} uses {mixin.__name__} " \
                f"without a Textual base: list {base.__name__} after it"
            assert cls.__mro__.index(mixin) < cls.__mro__.index(base), (cls, mixin)
            users += 1
    assert users >= 9  # the start, base, exam and reshown screens and theirs, the mode button
