"""Property tests: monotonic in parameters, sequence length and batch; ZeRO stage k+1 never needs
more per device than stage k; the items always sum to the total; output fits its width."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.spec import CHOICES, FootprintSpec
from quiz.footprint.items.activations import training_activation_bytes
from quiz.footprint.items.model_states import model_state_bytes
from quiz.footprint.words.render import derivation_steps, render_bars, render_report

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PRESETS = st.sampled_from(
    [
        "llama-2-7b",
        "llama-2-70b",
        "llama-3-8b",
        "mistral-7b",
        "mixtral-8x7b",
        "gpt-2-1.5b",
        "gpt-3-175b",
    ]
)
PRECISION = st.sampled_from(CHOICES["precision"])
OPTIMIZER = st.sampled_from(CHOICES["optimizer"])
RECOMPUTE = st.sampled_from(CHOICES["recompute"])
WEIGHTS = st.sampled_from(CHOICES["weights"])


def training_total(data: dict) -> int:
    return estimate(FootprintSpec.from_mapping({**data, "phase": "training"})).training.total_bytes


def inference_total(data: dict) -> int:
    spec = FootprintSpec.from_mapping({**data, "phase": "inference"})
    return estimate(spec).inference.total_bytes


@FAST
@given(
    p=st.integers(1, 10**13),
    q=st.integers(1, 10**13),
    opt=OPTIMIZER.filter(lambda o: o != "adafactor"),
    prec=PRECISION,
    zero=st.integers(0, 3),
    dp=st.integers(1, 512),
    weights=WEIGHTS,
)
def test_monotonic_in_params(p, q, opt, prec, zero, dp, weights) -> None:
    lo, hi = sorted((p, q))
    train = {"optimizer": opt, "precision": prec, "zero": zero, "dp": dp}
    assert training_total({"params": lo, "training": train}) <= training_total(
        {"params": hi, "training": train}
    )
    inf = {"weights": weights}
    assert inference_total({"params": lo, "inference": inf}) <= inference_total(
        {"params": hi, "inference": inf}
    )


@FAST
@given(
    model=PRESETS,
    s1=st.integers(1, 65536),
    s2=st.integers(1, 65536),
    b=st.integers(1, 64),
    recompute=RECOMPUTE,
    sp=st.booleans(),
    prec=PRECISION,
)
def test_monotonic_in_sequence_length(model, s1, s2, b, recompute, sp, prec) -> None:
    lo, hi = sorted((s1, s2))

    def train(s: int) -> int:
        return training_total(
            {
                "model": model,
                "training": {
                    "seq_len": s,
                    "micro_batch": b,
                    "recompute": recompute,
                    "sequence_parallel": sp,
                    "precision": prec,
                },
            }
        )

    def infer(s: int) -> int:
        return inference_total({"model": model, "inference": {"context": s, "batch": b}})

    assert train(lo) <= train(hi)
    assert infer(lo) <= infer(hi)


@FAST
@given(
    model=PRESETS,
    b1=st.integers(1, 256),
    b2=st.integers(1, 256),
    s=st.integers(1, 16384),
    recompute=RECOMPUTE,
    kv=st.sampled_from(CHOICES["kv_dtype"]),
)
def test_monotonic_in_batch(model, b1, b2, s, recompute, kv) -> None:
    lo, hi = sorted((b1, b2))

    def train(b: int) -> int:
        return training_total(
            {"model": model, "training": {"seq_len": s, "micro_batch": b, "recompute": recompute}}
        )

    def infer(b: int) -> int:
        return inference_total(
            {"model": model, "inference": {"context": s, "batch": b, "kv_dtype": kv}}
        )

    assert train(lo) <= train(hi)
    assert infer(lo) <= infer(hi)


@FAST
@given(
    params=st.integers(1, 10**13),
    dp=st.integers(1, 4096),
    opt=OPTIMIZER.filter(lambda o: o != "adafactor"),
    prec=PRECISION,
    grad=st.sampled_from(["fp32", "fp16", "bf16"]),
    model=st.one_of(st.none(), PRESETS),
)
def test_zero_stages_never_need_more(params, dp, opt, prec, grad, model) -> None:
    base = {"model": model} if model else {"params": params}
    totals = []
    for stage in range(4):
        totals.append(
            training_total(
                {
                    **base,
                    "training": {
                        "zero": stage,
                        "dp": dp,
                        "optimizer": opt,
                        "precision": prec,
                        "grad_precision": grad,
                    },
                }
            )
        )
    assert all(a >= b for a, b in zip(totals, totals[1:], strict=False))
    if dp == 1:
        assert len(set(totals)) == 1


@FAST
@given(
    model=PRESETS,
    opt=OPTIMIZER,
    prec=PRECISION,
    zero=st.integers(0, 3),
    dp=st.integers(1, 256),
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.sampled_from([1, 2, 4]),
    sp=st.booleans(),
    recompute=RECOMPUTE,
    weights=WEIGHTS,
    group=st.sampled_from([32, 64, 100, 128, 1024]),
    ctx=st.integers(1, 100_000),
    batch=st.integers(1, 64),
    tokens=st.one_of(st.none(), st.integers(0, 10**13)),
    ckpt=st.integers(0, 5),
    gpu=st.one_of(st.none(), st.sampled_from(["h100-80gb", "l4"])),
    width=st.integers(40, 160),
    units=st.sampled_from(["GB", "GiB"]),
)
def test_items_sum_to_total_and_render_fits(
    model,
    opt,
    prec,
    zero,
    dp,
    tp,
    pp,
    sp,
    recompute,
    weights,
    group,
    ctx,
    batch,
    tokens,
    ckpt,
    gpu,
    width,
    units,
) -> None:
    spec = FootprintSpec.from_mapping(
        {
            "model": model,
            "gpu": gpu,
            "units": units,
            "training": {
                "optimizer": opt,
                "precision": prec,
                "zero": zero,
                "dp": dp,
                "tp": tp if model != "gpt-2-1.5b" else 1,
                "pp": pp,
                "sequence_parallel": sp,
                "recompute": recompute,
            },
            # AutoAWQ refuses a group that does not divide in_features (an error, tested apart)
            "inference": {"weights": weights, "group_size": 32 if weights == "awq-int4" else group,
                          "context": ctx, "batch": batch},
            "storage": {"dataset_tokens": tokens, "checkpoints": ckpt},
        }
    )
    report = estimate(spec)
    for phase in report.phases:
        assert sum(i.bytes for i in phase.items) == phase.total_bytes
        assert all(type(i.bytes) is int and i.bytes >= 0 for i in phase.items)
    assert sum(i.bytes for i in report.storage.items) == report.storage.total_bytes
    t = report.training
    states = model_state_bytes(spec.training, spec.resolved, spec.training.dp)
    act = training_activation_bytes(spec.training, spec.resolved)
    assert states + (act or 0) == t.total_bytes
    if gpu:
        assert t.headroom == t.usable_bytes - t.total_bytes  # the usable memory (issue 21)
        if t.gpus_needed is not None:
            assert t.gpus_needed % (spec.training.tp * spec.training.pp) == 0
    for text in (
        render_report(report, width=width, units=units, explain=True),
        render_bars(report, width=width, units=units),
    ):
        assert max(len(line) for line in text.splitlines()) <= width
    assert len(derivation_steps(report, units=units)) >= len(t.items)


@FAST
@given(params=st.integers(1, 10**13), dp=st.integers(1, 10**4))
def test_zero_3_is_model_states_over_dp(params, dp) -> None:
    total = training_total(
        {"params": params, "training": {"zero": 3, "dp": dp, "optimizer": "adam"}}
    )
    shard = -(-params // dp)
    assert total == 16 * shard
