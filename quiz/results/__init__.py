"""Class results: every recorded answer as a portable file, and item analysis over many of them.

A class does not share one machine: each student exports their own answers
(:mod:`quiz.results.export`: JSON, CSV, or xAPI statements for a learning record store,
:mod:`quiz.results.xapi`), and the instructor reads any number of those exports
(:mod:`quiz.results.analysis`): per question its facility, discrimination and how often each
option was chosen, per topic its facility, per (pseudonymous) student a score.

The core: no Textual, no network. The commands are in :mod:`quiz.cli.results`.
"""
