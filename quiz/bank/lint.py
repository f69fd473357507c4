"""Instructor checks: a bank that loads without errors may still hold weak questions.

The loader (:mod:`quiz.bank.load`) decides whether a bank is *valid*; this module decides whether
its questions are *good*, by rules that item-writing guides agree on (Haladyna, Downing and
Rodriguez 2002, "A Review of Multiple-Choice Item-Writing Guidelines", Applied Measurement in
Education 15(3)). Each rule has a code and a name (``Q104 longest-option-is-key``), a message
that says what was found, and a one-line hint that says how to fix it. Every rule's rationale is
documented for instructors in ``question_bank/FORMAT.md``.

Findings are :class:`~quiz.bank.library.Diagnostic` objects of severity ``warning`` (``error`` for
:data:`PLACEHOLDER`, which a student must never see), placed at the ``path:line:col`` of the value
they are about. An instructor silences a rule where it is deliberately broken with ``lint:
{ignore: [rule]}`` on the question (or on the ``bank:`` header, for the whole bank).

Everything here is deterministic: no hash-order dependence and no randomness, so the same library
gives the same findings in the same order on every run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from quiz.bank import yaml_reader
from quiz.bank.computed.handtyped import hand_typed, written_sizes
from quiz.bank.library import Diagnostic, Library, LoadedBank
from quiz.bank.lint_text import NUMBERS, may_hold_placeholder, placeholders, read_stem
from quiz.bank.lint_text import choose_count as choose_count
from quiz.bank.lint_text import repeats as _repeats
from quiz.bank.lint_text import word_count as _word_count
from quiz.bank.model import Question
from quiz.bank.places import Places as _Places
from quiz.bank.places import Position
from quiz.bank.problems import mark_position, value_positions


@dataclass(frozen=True)
class Rule:
    """One lint rule: ``code`` (``Q104``), ``name`` (``longest-option-is-key``), what it checks
    (``summary``), how to fix a finding (``hint``) and the finding's ``severity``."""

    code: str
    name: str
    summary: str
    hint: str
    severity: Literal["error", "warning"] = "warning"

    @property
    def label(self) -> str:
        """``code name``, as printed in a diagnostic."""
        return f"{self.code} {self.name}"


NEAR_DUPLICATE = Rule(
    "Q101", "near-duplicate-stem",
    "two stems in the library are nearly the same text",
    "reword one stem so it asks something different, or delete the duplicate question")
PLACEHOLDER = Rule(
    "Q102", "placeholder-text",
    "placeholder text left in (TODO, FIXME, TBD, XXX, lorem ipsum, a bare '...')",
    "write the real text in place of the placeholder", "error")
KEY_SKEW = Rule(
    "Q103", "key-letter-skew",
    "the answer keys of a bank's single-answer questions favour some letters",
    "reorder some questions' options so each letter is the key about equally often")
LONGEST_KEY = Rule(
    "Q104", "longest-option-is-key",
    "the keyed option is noticeably longer than every distractor",
    "make the distractors as long and as qualified as the key, or shorten the key")
CHOOSE_MISSING = Rule(
    "Q105", "choose-count-missing",
    "a multiple-response stem does not say how many options to choose",
    "end the stem with 'Choose two.' (the number of keys in 'answer')")
CHOOSE_MISMATCH = Rule(
    "Q106", "choose-count-mismatch",
    "the stem asks for a different number of options than the key has",
    "make the number in the stem match the number of keys in 'answer'")
NEGATIVE_STEM = Rule(
    "Q107", "negative-stem",
    "a negative stem ('Which is not ...') without emphasis on the negative word",
    "write the negative word in capitals (NOT, EXCEPT, LEAST), or ask the question positively")
SHORT_EXPLANATION = Rule(
    "Q108", "short-explanation",
    "an explanation shorter than its minimum (short: 12 words, full: 25 words)",
    "explain why the key is right, in full sentences a student can learn from")
SHORT_REVIEW = Rule(
    "Q109", "short-review",
    "a distractor review shorter than 6 words",
    "say why this option is wrong: the misconception it comes from and the fact it contradicts")
REVIEW_REPEATS = Rule(
    "Q110", "review-repeats-option",
    "a distractor review that only repeats its option's words",
    "give the reason the option is wrong instead of restating it")
NO_REFERENCE = Rule(
    "Q111", "no-reference",
    "a question with no reference",
    "add a source a student can check under 'references:' (author, year, title, section)")
UNDECLARED_TOPIC = Rule(
    "Q112", "undeclared-topic",
    "a topic used by a question but not declared in bank.topics",
    "declare the topic with its display name under 'bank: topics:'")
UNUSED_TOPIC = Rule(
    "Q113", "unused-topic",
    "a topic declared in bank.topics that no question of the bank uses",
    "remove the topic from 'bank: topics:', or write questions for it")
HAND_TYPED = Rule(
    "Q114", "hand-typed-figure",
    "a size typed by hand in a question with a scenario, equal to one of the scenario's figures "
    "within the rounding written",
    "write the placeholder it names, so the calculator keeps the figure true (FORMAT.md, "
    "Computed questions)")
UNKNOWN_RULE = Rule(
    "Q100", "unknown-rule",
    "'lint: ignore:' names a rule that does not exist",
    "use a rule code (Q104) or name (longest-option-is-key) listed by 'quiz validate --rules'")

RULES: tuple[Rule, ...] = (
    UNKNOWN_RULE, NEAR_DUPLICATE, PLACEHOLDER, KEY_SKEW, LONGEST_KEY, CHOOSE_MISSING,
    CHOOSE_MISMATCH, NEGATIVE_STEM, SHORT_EXPLANATION, SHORT_REVIEW, REVIEW_REPEATS, NO_REFERENCE,
    UNDECLARED_TOPIC, UNUSED_TOPIC, HAND_TYPED)
"""Every rule, in code order."""

_BY_KEY = {key: rule for rule in RULES for key in (rule.code, rule.name)}

MIN_SHORT_WORDS = 12
"""Fewest words a ``short_explanation`` should have (Q108)."""

MIN_FULL_WORDS = 25
"""Fewest words a ``full_explanation`` should have (Q108)."""

MIN_REVIEW_WORDS = 6
"""Fewest words a distractor review should have (Q109)."""

LONGEST_RATIO = 1.3
"""Q104 fires when the key is at least this many times as long (in characters) as the longest
distractor, and at least :data:`LONGEST_MARGIN` characters longer."""

LONGEST_MARGIN = 15

DUPLICATE_SIMILARITY = 0.8
"""Q101 fires when two stems share at least this fraction of their word 3-grams (Jaccard index
of the normalised texts)."""

SKEW_MIN_QUESTIONS = 8
"""Q103 judges a bank's key letters only from this many single-answer questions on."""

_CHI2_CRITICAL_1PCT = {1: 6.635, 2: 9.210, 3: 11.345, 4: 13.277, 5: 15.086, 6: 16.812, 7: 18.475}
"""Critical values of the chi-squared distribution at the 1 % level, by degrees of freedom
(NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.4)."""


class SelectionError(ValueError):
    """A ``--select`` or ``--ignore`` entry that names no rule."""


def resolve_rules(select: Sequence[str] = (), ignore: Sequence[str] = ()) -> frozenset[str]:
    """The rule codes to run: those matching ``select`` (all rules when it is empty) minus those
    matching ``ignore``. An entry is a code (``Q104``), a name (``longest-option-is-key``), a code
    prefix (``Q1``) or ``ALL``. Raises :class:`SelectionError` naming an entry that matches no
    rule."""
    def matching(entry: str) -> set[str]:
        entry = entry.strip()
        found = {r.code for r in RULES
                 if entry in (r.code, r.name, "ALL") or (entry[:1] == "Q" and
                                                          r.code.startswith(entry))}
        if not found:
            raise SelectionError(f"no lint rule is called {entry!r} (quiz validate --rules "
                                 "lists them)")
        return found

    chosen = set().union(*(matching(e) for e in select)) if select else {r.code for r in RULES}
    for entry in ignore:
        chosen -= matching(entry)
    return frozenset(chosen)


def lint_library(library: Library, rules: Iterable[str] | None = None, *,
                 parses: dict[str, tuple[Any, dict[int, yaml_reader.Marks], str]] | None = None,
                 ) -> list[Diagnostic]:
    """Run the lint rules (codes; all when ``rules`` is None) over every bank of ``library``.

    Returns the findings sorted by file (in library order), line and column. Findings that a
    question's or the bank's ``lint: {ignore: [...]}`` names are left out. Findings are placed
    at ``line:col`` from the loader's parse of each file when ``parses`` has it (what
    :func:`quiz.bank.load.load_library` fills in with its ``parses``); otherwise the file is
    read again, and should it have changed or vanished since it was loaded, findings fall back
    to line 0 (the whole file)."""
    parses = parses or {}
    enabled = gc.isenabled()
    gc.disable()  # millions of marks are alive: a collection would walk them again and again
    try:
        linted = []
        for bank in library.banks:
            parsed = parses.get(str(bank.path))
            places = _Places(*parsed) if parsed is not None else _Places.read(bank.path)
            linted.append((str(bank.path), lint_bank(bank, places, rules)))
        return library_findings(linted, rules)
    finally:
        if enabled:
            gc.enable()


Finding = tuple[int, int, str, Literal["error", "warning"], str, str]
"""One finding within a bank file, without the file's path: line, column, rule label
(``Q104 longest-option-is-key``), severity, message and hint (plain values: the lint cache
keeps them)."""

Stem = tuple[str | None, str, int, int, bool]
"""What rule Q101 needs of one question, without its models: its stem's casefolded words,
joined by spaces (``None`` when the stem holds placeholder text), its id, the line and column of
its stem, and whether the question's or the bank's ``lint: ignore:`` names the rule."""


@dataclass(frozen=True)
class BankLint:
    """The findings of one bank file by the rules that look at that file only
    (:attr:`findings`, in the order found), and what the library-wide rule Q101 needs of it
    (:attr:`stems`): what :func:`lint_bank` returns and the lint cache keeps."""

    findings: tuple[Finding, ...]
    stems: tuple[Stem, ...]


def lint_bank(bank: LoadedBank, places: _Places, rules: Iterable[str] | None = None,
              ) -> BankLint:
    """The findings of the rules (codes; all when ``rules`` is None) that look at one bank,
    placed with ``places`` (the bank file's parse), and its stems for rule Q101 (see
    :func:`library_findings`). Only ``bank`` and ``places`` are read: a library's files can be
    linted one by one, each dropped before the next is loaded."""
    enabled = frozenset(r.code for r in RULES) if rules is None else frozenset(rules)
    out = _Collector(bank, places, enabled)
    stems: list[Stem] | None = [] if NEAR_DUPLICATE.code in enabled else None
    _lint_bank(bank, out, stems)
    return BankLint(tuple(out.found), tuple(stems or ()))


def library_findings(banks: Sequence[tuple[str, BankLint]], rules: Iterable[str] | None = None,
                     ) -> list[Diagnostic]:
    """Every finding of a library whose bank files (their paths as diagnostics name them, in
    library order) were linted by :func:`lint_bank`: theirs, and rule Q101's near-duplicate
    stems across the library; sorted by file, line and column (see :class:`LibraryLint`)."""
    together = LibraryLint(rules)
    for path, linted in banks:
        together.add(path, linted)
    return together.findings()


class LibraryLint:
    """The findings of a library gathered file by file (:meth:`add`, in library order) from
    :func:`lint_bank`, then completed with rule Q101's near-duplicate stems across the library
    (:meth:`findings`). Of each stem only a compact form is kept
    (:class:`~quiz.bank.near_duplicates.StemIndex`), so a file's lint can go once added."""

    def __init__(self, rules: Iterable[str] | None = None) -> None:
        from quiz.bank.near_duplicates import StemIndex

        self.enabled = frozenset(r.code for r in RULES) if rules is None else frozenset(rules)
        self._paths: list[str] = []
        self._found: list[tuple[int, Finding]] = []
        self._stems = StemIndex()
        self._where: list[tuple[int, str, int, int, bool]] = []

    def add(self, path: str, linted: BankLint) -> None:
        """The next bank file of the library: its path as diagnostics name it, and its lint
        (filtered by the rules enabled: a cached lint holds every rule's findings)."""
        order = len(self._paths)
        self._paths.append(path)
        enabled = self.enabled
        self._found += [(order, f) for f in linted.findings if f[2].split(" ", 1)[0] in enabled]
        if NEAR_DUPLICATE.code in enabled:
            for words, qid, line, column, ignored in linted.stems:
                self._stems.add(words)
                self._where.append((order, qid, line, column, ignored))

    def findings(self) -> list[Diagnostic]:
        """Every finding, sorted by file (in the order added), line and column."""
        found = list(self._found)
        where = self._where
        paths = self._paths
        for n, m, similarity in self._stems.pairs(DUPLICATE_SIMILARITY):
            order, _, line, column, ignored = where[n]
            if ignored:
                continue
            first_order, first_id, first_line, _, _ = where[m]
            found.append((order, (line, column, NEAR_DUPLICATE.label, NEAR_DUPLICATE.severity,
                                  f"this stem is nearly the same as that of question "
                                  f"{first_id!r} ({paths[first_order]}:{first_line}, "
                                  f"{similarity:.0%} alike)", NEAR_DUPLICATE.hint)))
        found.sort(key=lambda item: (item[0], item[1][0], item[1][1], item[1][2]))
        return [Diagnostic(paths[order], line, column, message, severity, rule=label,
                           hint=hint)
                for order, (line, column, label, severity, message, hint) in found]


# --- Findings -----------------------------------------------------------------------------------

def _ignored(bank: LoadedBank, question: Question | None, rule: Rule) -> bool:
    bank_lint = bank.info.lint
    question_lint = question.lint if question is not None else None
    if bank_lint is None and question_lint is None:
        return False  # most questions of most banks
    lists = [bank_lint.ignore if bank_lint else []]
    if question_lint is not None:
        lists.append(question_lint.ignore)
    return any(entry in (rule.code, rule.name) for names in lists for entry in names)


class _Collector:
    """Findings of one bank, with the rules enabled and the ignores applied."""

    def __init__(self, bank: LoadedBank, places: _Places, enabled: frozenset[str]) -> None:
        self.bank = bank
        self.places = places
        self.enabled = enabled
        self.found: list[Finding] = []

    def add(self, rule: Rule, question: Question | None, place: Position, message: str,
            hint: str | None = None) -> None:
        if rule.code in self.enabled and not _ignored(self.bank, question, rule):
            self.found.append((place[0], place[1], rule.label, rule.severity, message,
                               hint or rule.hint))


# --- The rules -----------------------------------------------------------------------------------

def _lint_bank(bank: LoadedBank, out: _Collector, stems: list[Stem] | None) -> None:
    """Every rule but Q101 on ``bank``, into ``out``; with ``stems``, each question's
    :data:`Stem` for rule Q101 is appended to it, in question order."""
    places = out.places
    info = bank.info
    if info.lint is not None:
        for n, name in enumerate(info.lint.ignore):
            if name not in _BY_KEY:
                out.add(UNKNOWN_RULE, None, _list_item(places, None, n, header=True),
                        f"there is no lint rule {name!r} to ignore")
    for field in ("title", "description"):
        text = getattr(info, field)
        if text is not None:
            for what in placeholders(text):
                out.add(PLACEHOLDER, None, places.header(field), f"the bank's {field} holds "
                        f"the placeholder {what}")
    for key, name in info.topics.items():
        for what in placeholders(name):
            out.add(PLACEHOLDER, None, places.header("topics", key),
                    f"topic {key!r} is named with the placeholder {what}")
    used = {q.topic for q in bank.questions}
    for key in info.topics:
        if key not in used:
            out.add(UNUSED_TOPIC, None, places.header("topics", key, of_key=True),
                    f"no question of this bank has topic {key!r}")
    undeclared_seen: set[str] = set()
    for index, question in enumerate(bank.questions):
        words = _lint_question(index, question, out)
        if stems is not None:
            line, column = places.value(index, "question")
            stems.append((words, question.id, line, column,
                          _ignored(bank, question, NEAR_DUPLICATE)))
        if not info.topics and question.topic not in undeclared_seen:
            undeclared_seen.add(question.topic)
            out.add(UNDECLARED_TOPIC, question, places.value(index, "topic"),
                    f"topic {question.topic!r} is not declared: this bank has no 'topics:'")
    _key_skew(bank, out)


def _list_item(places: _Places, index: int | None, n: int, *, header: bool = False) -> Position:
    """Where entry ``n`` of a ``lint: ignore:`` list is written (the ``lint`` value if unknown)."""
    container: Any = (places._value.get("bank") if header and isinstance(places._value, dict)
                      else places._question(index) if index is not None else None)
    lint = container.get("lint") if isinstance(container, dict) else None
    ignore = lint.get("ignore") if isinstance(lint, dict) else None
    marks = places._marks_of(ignore)
    if marks is not None and isinstance(marks[2], list) and n < len(marks[2]):
        return mark_position(marks[2][n])
    if header:
        return places.header("lint")
    return places.value(index, "lint") if index is not None else (0, 0)


def _lint_question(index: int, q: Question, out: _Collector) -> str | None:
    """The rules on question ``index`` of the bank, ``q``, into ``out``. Returns what rule Q101
    compares of its stem: its casefolded words joined by spaces, None when the stem holds
    placeholder text."""
    places = out.places
    if q.lint is not None:
        for n, name in enumerate(q.lint.ignore):
            if name not in _BY_KEY:
                out.add(UNKNOWN_RULE, None, _list_item(places, index, n),
                        f"there is no lint rule {name!r} to ignore")
    # Q102: placeholders in every text a student reads. The question's texts are first
    # tested at once, joined (most questions hold none); a text's place is looked up only when
    # it holds one (16 look-ups a question were a tenth of the lint).
    unfinished: set[Position] = set()
    stem_unfinished = False
    if may_hold_placeholder("\n".join(
            [q.stem, q.short_explanation, q.full_explanation, *q.options.values(),
             *q.distractor_review.values(), *q.references])):
        stem_unfinished = bool(placeholders(q.stem))
        texts: list[tuple[str, str, str | None, str]] = [
            ("the stem", "question", None, q.stem),
            ("the short explanation", "short_explanation", None, q.short_explanation),
            ("the full explanation", "full_explanation", None, q.full_explanation)]
        texts += [(f"option {k}", "options", k, t) for k, t in q.options.items()]
        texts += [(f"the review of {k}", "distractor_review", k, t)
                  for k, t in q.distractor_review.items()]
        texts += [("a reference", "references", None, t) for t in q.references]
        for what, key, sub, text in texts:
            found_here = placeholders(text)
            if found_here:
                place = places.value(index, key, sub)
                for found in found_here:
                    out.add(PLACEHOLDER, q, place, f"{what} holds the placeholder {found}")
                unfinished.add(place)
    _longest_key(index, q, out)
    stem_words, said, stem_negative = read_stem(q.stem)
    _choose_count(index, q, out, said)
    if stem_negative is not None:
        out.add(NEGATIVE_STEM, q, places.value(index, "question"),
                f"the stem asks a negative question ({stem_negative!r}) without emphasis: "
                "students who miss the word answer the opposite question")
    for field, minimum, label in (("short_explanation", MIN_SHORT_WORDS, "short explanation"),
                                  ("full_explanation", MIN_FULL_WORDS, "full explanation")):
        count = _word_count(getattr(q, field), minimum)
        if count < minimum and places.value(index, field) not in unfinished:
            out.add(SHORT_EXPLANATION, q, places.value(index, field),
                    f"the {label} has {count} word{'s' * (count != 1)}; write at least {minimum}")
    for key, review in q.distractor_review.items():
        if unfinished and places.value(index, "distractor_review", key) in unfinished:
            continue  # a placeholder is reported as such, not as a short review
        count = _word_count(review, MIN_REVIEW_WORDS)
        if count < MIN_REVIEW_WORDS:
            out.add(SHORT_REVIEW, q, places.value(index, "distractor_review", key),
                    f"the review of {key} has {count} word{'s' * (count != 1)}; write at least "
                    f"{MIN_REVIEW_WORDS}")
        if key in q.options and _repeats(review, q.options[key]):
            out.add(REVIEW_REPEATS, q, places.value(index, "distractor_review", key),
                    f"the review of {key} only repeats the option's words; it does not say "
                    "why the option is wrong")
    if not q.references:
        out.add(NO_REFERENCE, q, places.value(index, "id"),
                "this question has no reference a student can check")
    if q.worked_example is not None and HAND_TYPED.code in out.enabled:
        _hand_typed(index, q, out)
    return None if stem_unfinished else stem_words


def _hand_typed(index: int, q: Question, out: _Collector) -> None:
    """Q114: a size typed by hand that the scenario computes (:mod:`quiz.bank.computed.handtyped`),
    read from the file as written (placeholders are not figures typed by hand)."""
    places = out.places
    raw = places._question(index)
    if not isinstance(raw, dict) or q.worked_example is None:
        return
    source = places.question_source(index)
    if source is not None and written_sizes(places.text, *source) == []:
        return  # no size written anywhere in the question (most questions): one search said so
    for found in hand_typed(raw, q.worked_example.footprint):
        container: Any = raw
        for part in found.loc[:-1]:
            container = container[part]
        marks = places._marks_of(container)
        mark = marks[2][found.loc[-1]] if marks is not None else None
        spot = value_positions(places.text, mark.index, container[found.loc[-1]],
                               [found.offset])[0] if mark is not None and places.text else None
        place = places.line_col(spot) if spot is not None else places.question(index)
        out.add(HAND_TYPED, q, place, f"hand-typed figure {found.written!r}: write "
                f"{found.placeholder}")


def _longest_key(index: int, q: Question, out: _Collector) -> None:
    """Q104: the keyed option(s) noticeably longer than every distractor."""
    keys = q.answer_keys
    distractors = [len(t.strip()) for k, t in q.options.items() if k not in keys]
    if not distractors:
        return
    key_len = min(len(q.options[k].strip()) for k in keys if k in q.options)
    longest = max(distractors)
    if key_len >= LONGEST_RATIO * longest and key_len - longest >= LONGEST_MARGIN:
        which = "keyed option" if len(keys) == 1 else "every keyed option"
        place = out.places.value(index, "options", sorted(keys)[0])
        out.add(LONGEST_KEY, q, place,
                f"the {which} has {key_len} characters, the longest distractor {longest}: "
                "test-wise students pick the longest option")


def _choose_count(index: int, q: Question, out: _Collector, said: int | None) -> None:
    """Q105 and Q106: a multiple-response stem says how many to choose (``said``: its
    :func:`choose_count`), and says it right."""
    want = len(q.answer_keys)
    if said is None and not q.multiple_response or said == want:
        return
    place = out.places.value(index, "question")
    words = {n: w for w, n in NUMBERS.items() if not w.isdigit()}
    if q.multiple_response and said is None:
        out.add(CHOOSE_MISSING, q, place,
                f"the key has {want} options but the stem does not say how many to choose",
                f"end the stem with 'Choose {words[want]}.'")
    elif said is not None and said != want and (q.multiple_response or said > 1):
        out.add(CHOOSE_MISMATCH, q, place,
                f"the stem asks for {said} option{'s' * (said != 1)} but the key has {want}",
                f"make the stem ask for {words[want]}, or change 'answer' to {said} keys")


def _key_skew(bank: LoadedBank, out: _Collector) -> None:
    """Q103: a chi-squared goodness-of-fit test of the key letters against an even spread."""
    single = [q for q in bank.questions if not q.multiple_response
              and not _ignored(bank, q, KEY_SKEW)]
    if len(single) < SKEW_MIN_QUESTIONS:
        return
    expected: dict[str, float] = {}
    observed: dict[str, int] = {}
    for q in single:
        for key in q.options:
            expected[key] = expected.get(key, 0.0) + 1 / len(q.options)
        key = next(iter(q.answer_keys))
        observed[key] = observed.get(key, 0) + 1
    letters = sorted(expected)
    chi2 = sum((observed.get(k, 0) - expected[k]) ** 2 / expected[k] for k in letters)
    df = min(len(letters) - 1, max(_CHI2_CRITICAL_1PCT))
    if df < 1 or chi2 <= _CHI2_CRITICAL_1PCT[df]:
        return
    spread = ", ".join(f"{k} {observed.get(k, 0)}" for k in letters)
    out.add(KEY_SKEW, None, out.places.header("id"),
            f"the keys of this bank's {len(single)} single-answer questions are spread "
            f"{spread}; an even spread is about {len(single) / len(letters):.1f} each")


def placeholder_fields(question: Question) -> list[str]:
    """The fields of ``question`` a student reads that hold placeholder text (what rule Q102
    reports: TODO, FIXME, a bare '...'), named as ``question``, ``options.B``,
    ``distractor_review.C``, ``references``...; empty when it is finished. ``quiz export``
    refuses such questions."""
    texts: list[tuple[str, str]] = [
        ("question", question.stem), ("short_explanation", question.short_explanation),
        ("full_explanation", question.full_explanation),
        *((f"options.{k}", t) for k, t in question.options.items()),
        *((f"distractor_review.{k}", t) for k, t in question.distractor_review.items()),
        *(("references", t) for t in question.references)]
    return list(dict.fromkeys(name for name, text in texts if placeholders(text)))
