"""SVG snapshots of the screens a student sees, at 80×24. Update them only after reading the
diff report: `pytest tests/tui/test_snapshots.py --snapshot-update`."""

from __future__ import annotations

from quiz.tui.app import make_app
from tests.conftest import make_library, question_data


def _library():
    return make_library(
        question_data(
            "memory-001",
            answer="D",
            question="How does training memory compare with inference memory for [INT8] models?",
            options={
                "A": "About the same: both load the same weights.",
                "B": "Inference needs more, because of concurrent pipelines.",
                "C": "Training needs minimal VRAM.",
                "D": "Training needs far more: gradients, optimizer states, activations.",
            },
            short_explanation="Training is the heavy lift; inference the light one.",
            infographic={"table": {"columns": ["Aspect", "Training", "Inference"],
                                   "rows": [["Gradients", "Same size as weights", "None"],
                                            ["Bytes/param", "16", "2 (BF16)"]]}},
            full_explanation="Training keeps weights, gradients, optimizer states and "
                             "activations; inference only the weights.",
            difficulty="easy",
        ),
        title="AI infrastructure: training vs inference",
    )


async def _settled(pilot) -> None:  # type: ignore[no-untyped-def]
    """Before the first key: the screens the app makes ahead of time (the question, summary
    and calculator screens) are mounted, so no key meets a screen still being composed (on
    a loaded machine Enter then came before the question screen was there, and the next key
    went to the start screen)."""
    app = pilot.app
    for _ in range(500):
        await pilot.pause()
        made = app.ahead.calculator
        if made is not None and made.is_mounted:
            return
    raise AssertionError("the screens made ahead of time were never mounted")


def test_question_before_answer(snap_compare) -> None:
    assert snap_compare(make_app(_library(), shuffle=False), terminal_size=(80, 24),
                        run_before=_settled, press=["enter"])


def test_reveal_after_wrong_answer(snap_compare) -> None:
    assert snap_compare(make_app(_library(), shuffle=False), terminal_size=(80, 24),
                        run_before=_settled, press=["enter", "b"])


def test_start_screen(snap_compare) -> None:
    assert snap_compare(make_app(_library(), shuffle=False), terminal_size=(80, 24),
                        run_before=_settled)


def test_reveal_scrolled_to_the_distractor_review(snap_compare) -> None:
    assert snap_compare(make_app(_library(), shuffle=False), terminal_size=(80, 24),
                        run_before=_settled, press=["enter", "b", "end"])


def test_calculator_at_80x24(snap_compare) -> None:
    assert snap_compare(make_app(_library(), shuffle=False), terminal_size=(80, 24),
                        run_before=_settled, press=["m"])


def test_summary_with_a_question_to_review(snap_compare) -> None:
    # The fail verdict in the error colour, the topic table, the review entry highlighted.
    assert snap_compare(make_app(_library(), shuffle=False), terminal_size=(80, 24),
                        run_before=_settled, press=["enter", "b", "s"])
