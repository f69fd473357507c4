"""Computed questions (issue 20): figures written as placeholders, options generated from named
misconceptions, and variants drawn from ``vary:``.

- :mod:`~quiz.bank.computed.figures`: every figure a placeholder can name, for one scenario.
- :mod:`~quiz.bank.computed.placeholders`: ``{{ figure | UNIT:digits }}`` parsed and formatted.
- :mod:`~quiz.bank.computed.misconceptions`: the catalog of misconceptions behind distractors.
- :mod:`~quiz.bank.computed.template`: a question's raw values rendered for one variant.

Pure: no Textual, no I/O. The bank model (:mod:`quiz.bank.model`) calls
:func:`~quiz.bank.computed.template.render_question` while a question is validated, so every
question the library holds is already rendered: nothing is rendered per key press.
"""
