"""Compute figures: FLOPs, training time, prefill and decode (roofline)."""
