"""Quantization beyond the weight dtype: what group scales add to every stored value.

A group-quantized tensor stores each value in `quant_bits` and, once per `group_size` values, a
scale (and any zero point) of `scale_bits`: 4-bit weights with one fp16 scale per 128 take
4 + 16/128 = 4.125 bits each. The same arithmetic sizes micro-scaled formats: MXFP4 keeps one
8-bit E8M0 scale per 32 values (OCP Microscaling Formats v1.0: 4.25 bits), NVFP4 one FP8 E4M3
scale per 16 (NVIDIA, "Introducing NVFP4": 4.5 bits), and a quantized KV cache.

What a lower-precision *compute* dtype changes (W8A8, FP8, FP4) is the peak, not a formula: a
question reruns the roofline with the chip's peak for that dtype (the `<dtype>_peak_flops` chip
facts), and the ridge point and critical batch move with it.
"""

from __future__ import annotations

from perfdrill.engine.model.formulas import SYM, define, q

GROUP_SCALES = [
    define(
        "quantized_bits_per_value",
        SYM["quant_bits"] + SYM["scale_bits"] / SYM["group_size"],
        "1",
        "bits stored per value: its own bits plus its share of the group's scale",
    ),
    define(
        "quantized_bytes_per_param",
        q("quantized_bits_per_value") / 8,
        "byte/parameter",
        "bytes per group-quantized weight, 8 bits to the byte",
    ),
    define(
        "quantized_kv_bytes_per_element",
        q("quantized_bits_per_value") / 8,
        "byte",
        "bytes per group-quantized K or V element, 8 bits to the byte",
    ),
    define(
        "quantized_weight_bytes",
        q("params") * q("quantized_bytes_per_param"),
        "byte",
        "every weight group-quantized, scales included",
    ),
    define(
        "scale_bytes",
        q("params") * SYM["scale_bits"] / (8 * SYM["group_size"]),
        "byte",
        "what the group scales of every weight take on their own",
    ),
]
