"""The engine: :func:`~quiz.footprint.engine.estimate.estimate` gathers the items of each
phase into a :class:`~quiz.footprint.engine.report.Report` and decides the fit."""
