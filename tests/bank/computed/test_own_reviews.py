"""A question's own review of a misconception's distractor (``misconception_reviews:``): used
instead of the catalog's, rendered for each variant, and every mistake in it an error at its
file:line:col."""

from __future__ import annotations

from pathlib import Path

from quiz.bank.load import load_bank_text

FIXTURE = Path(__file__).parents[2] / "fixtures" / "computed" / "computed.yaml"
ANCHOR = "    vary:\n      model: [llama-2-7b, llama-2-13b, mistral-7b]\n"


def _with(reviews: str) -> str:
    """The fixture with ``reviews`` (YAML lines at the question's indent) before the first
    question's ``vary:`` (the first of them on line 21)."""
    text = FIXTURE.read_text("utf-8")
    assert ANCHOR in text and text.split("\n")[20] == "    vary:"
    return text.replace(ANCHOR, reviews + ANCHOR, 1)


def _problems(text: str) -> list[str]:
    report = load_bank_text(text, "bank.yaml")
    return [str(d) for d in report.diagnostics if d.severity == "error"]


OWN = """\
    misconception_reviews:
      forget-optimizer-states: >-
        {value} leaves out {{ training.optimizer }}'s two moments ({part}); a set {1, 2} stays
        as written. The full count is {key}.
"""


def test_the_questions_own_review_replaces_the_catalogs_in_every_variant() -> None:
    report = load_bank_text(_with(OWN), "bank.yaml")
    assert report.library is not None, [str(d) for d in report.diagnostics]
    question = report.library.banks[0].questions[0]
    seen = set()
    for values in question.variants():
        shown = question.with_variant(values)
        (own,) = [text for text in shown.distractor_review.values() if "two moments (" in text]
        seen.add(own)
    # Llama-2-7B with AdamW: 107.8 GB, the optimizer states 53.9 GB of it.
    assert ("53.9 GB leaves out adamw's two moments (53.9 GB); a set {1, 2} stays as written. "
            "The full count is 107.8 GB.") in seen
    assert any("leaves out adam's two moments" in text for text in seen)
    assert len(seen) == 6  # 3 models x 2 optimizers, each with its own figures


def test_an_unknown_or_unlisted_misconception_is_an_error_at_its_name() -> None:
    text = _with("    misconception_reviews:\n"
                 "      forget-optimiser-states: '{value} is short; the right one is {key}.'\n"
                 "      forget-kv-cache: '{value} is short; the right one is {key}.'\n")
    problems = _problems(text)
    assert problems[0].startswith(
        "bank.yaml:22:7: error: misconception_reviews: unknown misconception "
        "'forget-optimiser-states'; did you mean 'forget-optimizer-states'? the catalog: "
        "forget-optimizer-states, ")
    assert problems[1] == (
        "bank.yaml:23:7: error: misconception_reviews: forget-kv-cache is not in this "
        "question's misconceptions: list it there, or remove its review")
    assert len(problems) == 2


def test_a_field_that_is_not_a_reviews_is_an_error_at_the_field() -> None:
    text = _with("    misconception_reviews:\n"
                 "      gib-labelled-gb: '{value} is in GiB, {answer} in GB.'\n")
    # Column 24 is the quote; {answer} is 19 characters into the text.
    assert _problems(text) == [
        "bank.yaml:22:44: error: misconception_reviews.gib-labelled-gb: {answer} is not a "
        "field of a review: write {value} (the distractor), {key} (the answer) or {part} (the "
        "difference)"]
    assert _problems(_with("    misconception_reviews: [forget-gradients]\n"))[0].startswith(
        "bank.yaml:21:28: error: misconception_reviews: expected a mapping of misconception "
        "names to the review of their distractor, e.g. {forget-optimizer-states: ")
