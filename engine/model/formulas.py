"""The inputs every formula is written in, and how a formula is defined.

Every quantity perfdrill knows is defined once as a sympy expression, in a topic module beside this
one (architecture.py, roofline.py, inference.py, ...). Each is written in terms of its immediate
dependencies (inputs or other formulas), so a worked explanation can show one step at a time.
Workloads group the formulas a calculation needs; `perfdrill.engine.model.codegen` turns them into
plain Python once and caches the result.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from perfdrill.engine.model.evaluation import CountRule
from perfdrill.engine.model.spoken import spoken


def _s(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, positive=True)


# name -> (unit, meaning). Units are keys of perfdrill.engine.model.units.BASE_UNITS.
INPUTS: dict[str, tuple[str, str]] = {
    "peak_flops": ("FLOP/s", "dense peak FLOP/s of one chip in the compute dtype"),
    "memory_bandwidth": ("byte/s", "memory bandwidth of one chip"),
    "memory_capacity": ("byte", "memory capacity of one chip"),
    "chips": ("1", "chips the work is split over evenly"),
    "mfu": ("1", "fraction of peak FLOP/s actually achieved"),
    "mbu": ("1", "fraction of peak memory bandwidth actually achieved"),
    "link_bandwidth": ("byte/s", "one-way chip-to-chip link bandwidth"),
    "layers": ("1", "transformer layers"),
    "dense_layers": ("1", "layers with a dense MLP (all of them in a dense model)"),
    "d_model": ("1", "model width"),
    "heads": ("1", "attention (query) heads"),
    "kv_heads": ("1", "key/value heads"),
    "head_dim": ("1", "width of one head"),
    "ffn": ("1", "MLP width of one projection (of one expert in an MoE)"),
    "dense_ffn": ("1", "MLP width in dense layers"),
    "vocab": ("1", "vocabulary size"),
    "mlp_matrices": ("1", "matrices per MLP: 3 gated, 2 plain"),
    "tied_embeddings": ("1", "1 when the LM head reuses the embedding"),
    "experts": ("1", "routed experts per MoE layer"),
    "experts_per_token": ("1", "routed experts each token uses"),
    "shared_experts": ("1", "always-on experts per MoE layer"),
    "position_embeddings": ("1", "rows of a learned position table"),
    "weight_bytes_per_param": ("byte/parameter", "bytes per stored weight"),
    "kv_bytes_per_element": ("byte", "bytes per cached K or V element"),
    "activation_bytes": ("byte", "bytes per activation element"),
    "batch": ("1", "sequences processed together"),
    "context": ("token", "tokens already in each sequence's KV cache"),
    "prompt": ("token", "prompt tokens per sequence"),
    "tokens": ("token", "training tokens"),
    "m": ("1", "rows of the activation operand"),
    "k": ("1", "shared (reduction) dimension"),
    "n": ("1", "columns of the weight operand"),
    "elements": ("1", "tensor elements"),
    "ops_per_element": ("FLOP", "operations per element"),
    "inputs": ("1", "tensors read per element"),
    "outputs": ("1", "tensors written per element"),
    "kernels": ("1", "separate kernels in an unfused chain"),
    "participants": ("1", "chips in the collective"),
    "collective_bytes": ("byte", "size of the buffer being reduced or gathered"),
    "training_bytes_per_param": ("byte/parameter", "training-state bytes per parameter"),
    "host_link_bandwidth": ("byte/s", "one-way host-to-chip (PCIe) bandwidth"),
    "launch_overhead": ("s", "CPU time to dispatch one kernel from eager PyTorch"),
    "loop_iterations": ("1", "iterations of a Python loop that launches kernels"),
    "measured_runtime": ("s", "the runtime someone measured"),
    "fp32_peak_flops": ("FLOP/s", "peak FLOP/s of one chip on the fp32 (non-tensor-core) path"),
    "sequence": ("token", "tokens per sequence"),
    "node_chips": ("1", "chips in one node, joined by the fast link"),
    "link_peer_bandwidth": ("byte/s", "one-way link bandwidth from a chip to any one peer"),
    "context_window": ("token", "the longest context the model takes"),
    # A sliding-window model's local layers cache at most the window (Mistral 7B v0.1: 4,096).
    "attention_span": (
        "token",
        "the most tokens a layer attends over: its sliding window, else its context window",
    ),
    "kernel_floor": ("s", "the shortest time any kernel takes on the GPU"),
    "flaw": (
        "1",
        "what the timed code does wrong: 1 nothing, 2 fp32, 3 host copies, 4 a Python loop, "
        "5 an eager chain, 6 no KV cache",
    ),
    # Issue 13, training memory under sharding, collectives and kernel-level effects
    # (engine/model/sharding.py, collectives.py, kernels.py).
    "dp_ranks": ("1", "data-parallel ranks the training state is sharded over (N_d in the ZeRO paper)"),
    "optimizer_bytes_per_param": (
        "byte/parameter",
        "optimizer-state bytes per parameter (K; 12 for mixed-precision Adam: fp32 master, m and v)",
    ),
    "pipeline_stages": ("1", "pipeline stages p, each on its own GPUs"),
    "microbatches": ("1", "micro-batches m each pipeline step is split into"),
    "virtual_stages": ("1", "model chunks per GPU in an interleaved pipeline schedule (v)"),
    "stage_microbatch_time": ("s", "forward plus backward time of one micro-batch on one stage"),
    "bubble_target_percent": ("1", "the largest share of a step the pipeline may sit idle, in percent"),
    "buckets": ("1", "equal buckets the gradient all-reduce is split into"),
    "link_latency": ("s", "fixed time of one step of a collective algorithm (alpha)"),
    # Issue 22: TPU ICI tori (engine/model/ici.py)
    "ici_link_bandwidth": ("byte/s", "one-way bandwidth of one ICI link (one axis, one direction)"),
    "ici_axes": ("1", "torus axes the collective spans, each with a wraparound link"),
    "ici_axis_size": ("1", "chips along each of those axes"),
    "batch_tokens": ("token", "tokens in one training batch, all chips together"),
    "fsdp_axes": ("1", "ICI axes given to fully-sharded data parallelism (M_X)"),
    "tp_axes": ("1", "ICI axes given to tensor parallelism (M_Y)"),
    "nodes": ("1", "nodes joined by the scale-out network"),
    "network_bandwidth": ("byte/s", "one-way scale-out (InfiniBand) bandwidth of one NIC"),
    "node_nics": ("1", "scale-out NICs per node; NCCL runs one ring per NIC (a rail)"),
    "bisection_bandwidth": (
        "byte/s",
        "one-way bandwidth across the narrowest cut of the network into halves",
    ),
    "sm_count": ("1", "streaming multiprocessors (SMs) on the chip"),
    "l2_cache_bytes": ("byte", "L2 cache capacity of the chip"),
    "l2_bandwidth_ratio": ("1", "how many times faster L2 serves reads than HBM"),
    "tile_m": ("1", "rows of the output tile one thread block computes"),
    "tile_n": ("1", "columns of the output tile one thread block computes"),
    "rows_per_block": ("1", "output elements one thread block of a GEMV computes"),
    "split_k": ("1", "ways the reduction dimension is split across thread blocks"),
    # Issue 13, topics 5-7: attention in decode, quantization beyond weights, MoE serving.
    "sram_bytes": ("byte", "on-chip SRAM one FlashAttention block of work may fill"),
    "quant_bits": ("1", "bits of each quantized value"),
    "scale_bits": ("1", "bits stored once per group of quantized values: its scale, plus any zero point"),
    "group_size": ("1", "quantized values that share one scale"),
    "busiest_share": ("1", "fraction of the routed token-to-expert assignments the busiest chip receives"),
    # Issue 13, serving and training economics (engine/model/serving.py)
    "output_tokens": ("token", "tokens each request generates"),
    "tpot_slo": ("s", "the time-per-output-token target every decode step must meet"),
    "chip_hourly_price": ("USD/h", "one chip's hourly price"),
    "reserved_tokens": ("token", "tokens a contiguous cache reserves per sequence: the longest it may reach"),
    "page_size": ("token", "tokens per KV-cache page (block)"),
    "shared_prefix": ("token", "prompt tokens every sequence shares (a system prompt), cached once"),
    "chunk": ("token", "prompt tokens prefilled inside one decode step"),
    "transfer_link": ("1", "the path the KV cache crosses: 1 the chip-to-chip link, 2 PCIe, 3 the network"),
    "tokens_per_param": ("1", "compute-optimal training tokens per parameter (Chinchilla: about 20)"),
    "run_time": ("s", "wall-clock length of a training run"),
    # Issue 13, speculative decoding (engine/model/speculative.py)
    "acceptance_rate": ("1", "chance the target accepts each drafted token (α), independently of the others"),
    "draft_tokens": ("1", "tokens the draft model proposes per round (k, γ in Leviathan et al. 2023)"),
    "draft_cost_ratio": ("1", "one draft step's time over one plain target decode step (c)"),
    "verify_slowdown": (
        "1",
        "the check of k + 1 positions over one plain target step (1 while memory-bound)",
    ),
    "draft_step_time": ("s", "time of one decode step of the draft model"),
    # Issue 13, bank shape: MFU of a measured decode server (engine/model/decode_utilisation.py)
    "measured_throughput": (
        "token/s",
        "output tokens per second a server was measured to make, all chips together",
    ),
    # A kernel known only by its intensity (`intensity_roofline`); elsewhere it is worked out.
    "arithmetic_intensity": ("FLOP/byte", "FLOPs per byte a kernel moves, as given"),
}
SYM = {name: _s(name) for name in INPUTS}

# What a person calls each input in a worked explanation; an input missing here reads as its name
# with spaces. Whole inputs are counts, never shown with a fraction.
INPUT_LABELS: dict[str, str] = {
    "peak_flops": "peak FLOP/s",
    "memory_bandwidth": "memory bandwidth",
    "memory_capacity": "memory per chip",
    "chips": "chips",
    "mfu": "MFU",
    "mbu": "MBU",
    "arithmetic_intensity": "arithmetic intensity",
    "link_bandwidth": "link bandwidth",
    "ici_link_bandwidth": "ICI link bandwidth",
    "ici_axes": "torus axes",
    "ici_axis_size": "chips per axis",
    "batch_tokens": "batch tokens",
    "fsdp_axes": "FSDP axes",
    "tp_axes": "TP axes",
    "layers": "layers",
    "dense_layers": "dense layers",
    "d_model": "model width",
    "heads": "query heads",
    "kv_heads": "KV heads",
    "head_dim": "head dim",
    "ffn": "MLP width",
    "dense_ffn": "dense MLP width",
    "vocab": "vocabulary",
    "mlp_matrices": "MLP matrices",
    "tied_embeddings": "tied embeddings",
    "scale_bits": "bits stored per group",  # its scale, and any zero point: not the scale's alone
    "experts": "experts",
    "experts_per_token": "experts per token",
    "shared_experts": "shared experts",
    "position_embeddings": "learned positions",
    "weight_bytes_per_param": "bytes per weight",
    "kv_bytes_per_element": "bytes per KV element",
    "activation_bytes": "bytes per activation",
    "batch": "batch",
    "context": "context",
    "prompt": "prompt",
    "tokens": "training tokens",
    "elements": "elements",
    "ops_per_element": "FLOPs per element",
    "inputs": "inputs",
    "outputs": "outputs",
    "kernels": "kernels",
    "participants": "GPUs taking part",  # a ring's, and an all-to-all's
    "collective_bytes": "buffer per GPU",  # what each GPU reduces, gathers or exchanges
    "training_bytes_per_param": "training bytes per parameter",
    "host_link_bandwidth": "host link bandwidth",
    "launch_overhead": "launch overhead",
    "loop_iterations": "loop iterations",
    "measured_runtime": "measured time",
    "fp32_peak_flops": "fp32 peak FLOP/s",
    "sequence": "sequence length",
    "node_chips": "chips per node",
    "node_nics": "NICs per node",
    "link_peer_bandwidth": "link bandwidth per peer",
    "context_window": "context window",
    "attention_span": "attention span",
    "kernel_floor": "kernel floor",
    "flaw": "flaw",
    # Issue 13, speculative decoding
    "acceptance_rate": "α",  # the prompts name them as Leviathan et al. do: α, k and c
    "draft_tokens": "k",
    "draft_cost_ratio": "c",
    "verify_slowdown": "verification cost",
    "draft_step_time": "draft step time",
    "measured_throughput": "measured throughput",
}
# fmt: off
WHOLE_INPUTS = frozenset({
    "chips", "layers", "dense_layers", "d_model", "heads", "kv_heads", "head_dim", "ffn", "dense_ffn",
    "vocab", "mlp_matrices", "experts", "experts_per_token", "shared_experts", "position_embeddings",
    "batch", "context", "prompt", "tokens", "m", "k", "n", "elements", "inputs", "outputs", "kernels",
    "participants", "loop_iterations", "sequence", "node_chips", "context_window", "draft_tokens",
    "ici_axes", "ici_axis_size", "fsdp_axes", "tp_axes", "attention_span",
    "node_nics",
})
# fmt: on


@dataclass(frozen=True)
class Formula:
    name: str
    expr: sympy.Expr
    unit: str
    doc: str
    labels: tuple[str, ...] | None = None  # label of value 0, 1, ... of a categorical formula
    shown: str | None = None  # how a piecewise formula reads, since sympy's printing of one is noise
    exact: bool | CountRule = False  # a whole count (floor/ceiling of one): graded exactly, never ±5%
    label: str = ""  # what a person calls it ("KV cache per token"); unset, the name with spaces
    phrases: tuple[str, ...] | None = None  # a categorical value in a sentence ("memory-bound")
    whole: bool = False  # a count shown without a fraction (a batch); `exact` counts are whole too

    @property
    def title(self) -> str:
        """The label, or the name as people say it where a definition declares none."""
        return self.label or spoken(self.name)


def define(name: str, expr: sympy.Expr, unit: str, doc: str, **extra: object) -> Formula:
    """One quantity: its name, sympy expression, unit (a key of units.BASE_UNITS) and meaning.

    Optional keywords: `label` (what a worked explanation calls it), `labels` and `phrases` (the
    words for a categorical value, alone and in a sentence), `shown`, `exact`, `whole`.
    """
    return Formula(name, expr, unit, doc, **extra)  # type: ignore[arg-type]


def q(name: str) -> sympy.Symbol:
    """The symbol standing for another formula's value.

    Only real, never positive: a margin or a memory headroom can be negative, and a positive
    assumption would let sympy silently drop a comparison such as `margin > 0`.
    """
    return sympy.Symbol(name, real=True)
