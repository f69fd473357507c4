"""The question bank: model (:mod:`.model`), loader (:mod:`.load`), library (:mod:`.library`).

No Textual import here or below: the bank is plain Python, testable without a terminal.
"""
