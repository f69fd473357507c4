"""The words: rendering a report as text, the ``--explain`` notes and the other prose the
calculation modules leave out (they hold formulas and sources, not explanations)."""
