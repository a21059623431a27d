"""One sentence of intuition for each regime a part asks about, built from the computed values."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from perfdrill.engine.errors import PerfdrillError
from perfdrill.engine.model.evaluation import computed, info
from perfdrill.engine.model.quantity_text import display


def insights(
    workload: str,
    values: Mapping[str, Any],
    lookup: Callable[[str], Any],
    asked: Collection[str],
    asked_in: Mapping[str, str] | None = None,
) -> list[str]:
    """Why the numbers came out as they did, and what would change them.

    A sentence is written only for a quantity a part asks about in the question's own setting
    (`asked`), so it never answers a question nobody asked nor contradicts a part set in a what-if;
    the supporting numbers it quotes are computed through `lookup` if needed; a number a part asks
    in a unit (`asked_in`) is written in it, as the key writes it.
    """

    known = dict(values)

    def show(name: str) -> str:
        return display(workload, name, lookup(name), asked_in=(asked_in or {}).get(name))

    def has(trigger: str, *supporting: str) -> bool:
        """True when the variant worked out `trigger`, or everything it is decided from (a roofline
        whose runtime was asked has a bound), and the `supporting` numbers can be computed."""
        if trigger not in asked:
            return False
        try:
            if trigger not in known:
                if trigger not in computed(workload) or not set(info(workload, trigger).args) <= set(known):
                    return False
                known[trigger] = lookup(trigger)
            known.update((name, lookup(name)) for name in supporting)
            return all(known[name] is not None for name in supporting)
        except PerfdrillError:
            return False

    sentences = []
    if has("regime", "launch_time", "eager_gpu_time"):
        if round(float(known["regime"])) == 2:
            sentences.append(
                f"Overhead-bound: dispatching the kernels takes {show('launch_time')} and the GPU "
                f"needs only {show('eager_gpu_time')} for them, so it idles; fuse the ops "
                "(torch.compile) or replay them as one CUDA graph."
            )
        else:
            sentences.append(
                f"Not overhead-bound: the unfused chain keeps the GPU busy for {show('eager_gpu_time')}, "
                f"longer than the {show('launch_time')} of launching, and every kernel rereads and "
                "rewrites the tensor; fusing them cuts that traffic to one read and one write."
            )
    elif not any(name.endswith("_bound") for name in asked) and has(
        "bound", "arithmetic_intensity", "ridge_point"
    ):
        # only as the one regime asked: beside a prefill's, "memory-bound" would be ambiguous
        if round(float(known["bound"])) == 1:
            sentences.append(
                f"Compute-bound: an intensity of {show('arithmetic_intensity')} is above the ridge point "
                f"of {show('ridge_point')}, so the math units are the bottleneck; only fewer FLOPs, "
                "lower-precision math on the matrix units or a faster chip lowers the time."
            )
        else:
            sentences.append(
                f"Memory-bound: an intensity of {show('arithmetic_intensity')} is below the ridge point "
                f"of {show('ridge_point')}, so the chip waits on memory; fewer bytes (a smaller dtype, "
                "fusion) or more work per byte (a bigger batch) would help."
            )
    if has("verdict", "slowdown"):
        suspicious = round(float(known["verdict"])) == 1
        sentences.append(
            f"The measurement is {show('slowdown')}× the roofline estimate, so by the order-of-magnitude "
            f"rule it {'calls for a hunt for inefficiencies' if suspicious else 'makes sense'}."
        )
    if has("fits", "memory_required", "system_memory"):
        fits = round(float(known["fits"])) == 1
        sentences.append(
            f"It needs {show('memory_required')} of the {show('system_memory')} available, so it "
            f"{'fits' if fits else 'does not fit'}."
        )
    if has("optimal_batch", "optimal_is_knee"):
        if round(float(known["optimal_is_knee"])) == 1:
            sentences.append(
                "Past the knee every extra sequence adds compute time as fast as it adds tokens, so "
                "throughput stops growing and only latency rises."
            )
        else:
            sentences.append(
                "Memory runs out before the batch turns compute-bound, so the largest batch that fits "
                "gives the most throughput."
            )
    if has("score_matrix_ratio"):
        sentences.append(
            f"The score matrix grows with the square of the sequence and is {show('score_matrix_ratio')}× "
            "the size of Q, K, V and O; FlashAttention tiles it through on-chip SRAM and never stores it."
        )
    if has("activation_savings"):
        sentences.append(
            f"Checkpointing cuts activation memory {show('activation_savings')}× for one extra forward "
            "pass (about a third more compute)."
        )
    return sentences
