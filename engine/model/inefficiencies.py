"""Where measured runtimes go when code misses its roofline, and the seeds' rule for judging one.

This is the documented model behind the "does my runtime make sense?" family. Each cause is one
formula; a synthetic measurement is the timed code's formula evaluated on a chip running at the
fractions of its datasheet rates that real kernels reach (a template's `measured` scenario), so no
measurement ever beats what the hardware can do.

Public measurements behind the constants (engine docs, cited by the tests that use them):

- Kernel floor. No kernel finishes faster than a couple of microseconds on the GPU, however little
  it does: an empty-kernel launch costs about 2.6 µs at best (makslevental/persistent_kernel
  README, "conventional kernel launch, sitting at 2.6μs, at the minimum"). KERNEL_FLOOR is 2 µs,
  on the GPU alone; the CPU's launch cost (launch_overhead, 4-10 µs from eager PyTorch) is extra.
- Memory. Streaming kernels reach about 80-90% of the datasheet HBM bandwidth: H100 SXM 2.90-2.97
  of 3.35 TB/s (87-89%), A100 80GB 1.61-1.70 of 2.04 TB/s (79-83%), MI300X 4.09-4.26 of
  5.3 TB/s (77-80%) in BabelStream-style copy/triad runs (samuel-bohman/AI-benchmarking-guide,
  Azure_Results/ND_*_results.md "HBM Bandwidth"). Host copies reach about 80% of PCIe
  (H100: 51 of 63 GB/s, same source, "NV Bandwidth").
- Model passes. A whole forward pass (attention, norms, activations and the chips' all-reduces
  between its GEMMs) keeps a lower share of the peak than its best GEMM: PaLM 540B trained at
  46.2% MFU and Megatron-LM's 1T-parameter GPT at 52% (163 of 312 TFLOP/s per A100) (Chowdhery et
  al. 2022, Table 3; Narayanan et al. 2021, Table 1). A profiled prefill-like pass reaches about
  40-60% MFU; past 65% nobody profiles one.
- Matmul. The best cuBLAS bf16 matmuls reach 77-87% of the dense peak (A100 SXM 86.9%, H100 SXM
  80.3%, B200 77.6%; MI300X 51-60% with ROCm 6.x) in the "Maximum Achievable Matmul FLOPS"
  table of stas00/ml-engineering compute/accelerator/README.md.
"""

from __future__ import annotations

from sympy import Eq, Max, Piecewise

from perfdrill.engine.model.formulas import SYM, Formula, define, q

KERNEL_FLOOR = 2e-6  # seconds: the shortest any kernel takes on the GPU (see the module docstring)
ACHIEVABLE_MEMORY = (0.80, 0.90)  # fraction of datasheet HBM (and PCIe) bandwidth real kernels reach
ACHIEVABLE_MATMUL = (0.70, 0.85)  # fraction of the dense matmul peak a tuned GEMM reaches
ACHIEVABLE_PASS_MFU = (0.40, 0.60)  # fraction of the dense peak a whole model pass reaches (its MFU)
# Values the engine supplies when a question does not set them.
DEFAULT_INPUTS = {"kernel_floor": KERNEL_FLOOR}

# The `flaw` input: what the timed code does wrong, if anything (spoken.VALUE_WORDS words each).
FLAWS = {"none": 1, "fp32": 2, "host-copy": 3, "python-loop": 4, "eager-chain": 5, "no-kv-cache": 6}
NEXT_STEPS = (
    "move fewer bytes: downcast or quantize",
    "at peak: shrink the batch or the FLOPs for latency",
    "run it in bf16 on the tensor cores",
    "keep the data on the GPU",
    "vectorise: one kernel over the whole tensor",
    "fuse the ops (torch.compile)",
    "batch more: more work per launch and per weight read",
    "keep the KV cache instead of recomputing the prefix",
)
_FIX_OF_FLAW = {"fp32": 2, "host-copy": 3, "python-loop": 4, "eager-chain": 5, "no-kv-cache": 7}

OVERHEAD = [
    define(
        "launch_time",
        SYM["kernels"] * SYM["launch_overhead"],
        "s",
        "CPU time to dispatch every kernel of the chain",
        label="launch time",
    ),
    define(
        "eager_gpu_time",
        Max(SYM["kernels"] * SYM["kernel_floor"], q("compute_time"), q("unfused_memory_time")),
        "s",
        "the unfused chain on the GPU: its math, its repeated traffic, and never under the kernel floor",
        label="eager GPU time",
    ),
    define(
        "eager_runtime",
        Max(q("launch_time"), q("eager_gpu_time")),
        "s",
        "eager mode: one kernel per op; the CPU queues kernels while the GPU runs, so the slower wins",
        label="eager runtime",
    ),
    define(
        "graph_runtime",
        SYM["launch_overhead"] + q("eager_gpu_time"),
        "s",
        "a CUDA graph replays the whole chain with one launch; the kernels still run unfused",
        label="CUDA-graph runtime",
    ),
    define(
        "eager_bound",
        Piecewise((1, q("compute_time") >= q("unfused_memory_time")), (0, True)),
        "1",
        "which roof the unfused chain is under: its math against its repeated traffic",
        labels=("memory", "compute"),
        phrases=("the unfused chain is memory-bound", "the unfused chain is compute-bound"),
        shown="compute if compute_time ≥ unfused_memory_time else memory",
        label="eager bound",
    ),
    define(
        "regime",
        Piecewise(
            (
                2,
                Max(q("launch_time"), SYM["kernels"] * SYM["kernel_floor"])
                > Max(q("compute_time"), q("unfused_memory_time")),
            ),
            (q("eager_bound"), True),
        ),
        "1",
        "overhead-bound when launching (or the kernel floor) takes longer than the chain's work",
        labels=("memory-bound", "compute-bound", "overhead-bound"),
        shown="overhead if max(launch_time, kernels·kernel_floor) > max(compute_time, "
        "unfused_memory_time) else eager_bound",
        label="regime",
    ),
    define(
        "overhead_break_even_elements",
        SYM["launch_overhead"]
        * q("system_bandwidth")
        / ((SYM["inputs"] + SYM["outputs"]) * SYM["activation_bytes"]),
        "1",
        "elements at which one kernel's memory time equals its launch cost",
        label="break-even elements",
    ),
]

HOST_COPY = [
    define(
        "host_copy_time",
        q("bytes") / SYM["host_link_bandwidth"],
        "s",
        "inputs copied to the chip and outputs back over the host link",
        label="host copy time",
    ),
]

KERNEL = [
    define(
        "kernel_runtime",
        Max(SYM["kernel_floor"], q("runtime")),
        "s",
        "one kernel: its roofline time, but never under the kernel floor",
        label="kernel time",
    ),
]

PYTHON_LOOP = [
    define(
        "loop_runtime",
        Max(
            SYM["loop_iterations"] * q("launch_time"),
            SYM["loop_iterations"] * SYM["kernels"] * SYM["kernel_floor"],
            q("compute_time"),
            q("unfused_memory_time"),
        ),
        "s",
        "every iteration launches the chain's kernels on a small slice",
        label="loop runtime",
    ),
]

FP32_MATMUL = [
    define(
        "fp32_bytes",
        (SYM["m"] * SYM["k"] + SYM["k"] * SYM["n"] + SYM["m"] * SYM["n"]) * 4,
        "byte",
        "the same matmul with 4-byte fp32 operands",
        label="fp32 bytes",
    ),
    define(
        "fp32_runtime",
        Max(
            SYM["kernel_floor"],
            q("flops") / (SYM["chips"] * SYM["fp32_peak_flops"] * SYM["mfu"]),
            q("fp32_bytes") / q("system_bandwidth"),
        ),
        "s",
        "roofline of the fp32 path: CUDA cores instead of bf16 tensor cores",
        label="fp32 runtime",
    ),
]


def _flaw(name: str) -> Eq:
    return Eq(SYM["flaw"], FLAWS[name])


TIMED_MATMUL = [
    define(
        "timed_runtime",
        SYM["launch_overhead"]
        + Piecewise(
            (q("fp32_runtime"), _flaw("fp32")),
            (q("host_copy_time") + q("kernel_runtime"), _flaw("host-copy")),
            (q("kernel_runtime"), True),
        ),
        "s",
        "the timed code as written: one launch, then the kernel (fp32, or after host copies)",
        shown="launch_overhead + (fp32_runtime if fp32, host_copy_time + kernel_runtime if host copies, "
        "else kernel_runtime)",
        label="timed runtime",
    ),
]

TIMED_POINTWISE = [
    define(
        "timed_runtime",
        Piecewise(
            (q("loop_runtime"), _flaw("python-loop")),
            (q("eager_runtime"), _flaw("eager-chain")),
            (SYM["launch_overhead"] + q("host_copy_time") + q("kernel_runtime"), _flaw("host-copy")),
            (SYM["launch_overhead"] + q("kernel_runtime"), True),
        ),
        "s",
        "the timed code as written: a Python loop, an eager chain, host copies, or one fused kernel",
        shown="loop_runtime if a Python loop, eager_runtime if an eager chain, launch_overhead + "
        "host_copy_time + kernel_runtime if host copies, else launch_overhead + kernel_runtime",
        label="timed runtime",
    ),
]

# The seeds' rule: an order of magnitude slower than expected means look for inefficiencies.
SLOWDOWN_THRESHOLD = 10
VERDICT = [
    define(
        "slowdown",
        SYM["measured_runtime"] / q("runtime"),
        "1",
        "how many times slower than the roofline the measurement is",
        label="slowdown",
    ),
    define(
        "verdict",
        Piecewise((1, q("slowdown") >= SLOWDOWN_THRESHOLD), (0, True)),
        "1",
        f"an order of magnitude ({SLOWDOWN_THRESHOLD}×) slower means look for inefficiencies",
        labels=("makes sense", "look for inefficiencies"),
        phrases=("the measurement makes sense", "look for inefficiencies"),
        shown=f"look for inefficiencies if slowdown ≥ {SLOWDOWN_THRESHOLD} else makes sense",
        label="verdict",
    ),
]


def _fixes() -> list[tuple[int, Eq]]:
    return [(step, _flaw(flaw)) for flaw, step in _FIX_OF_FLAW.items()]


# Kernels timed from Python: fix a flaw in the code first; clean code whose launch costs more than
# its work needs more work per launch; otherwise the roof it is under decides.
KERNEL_NEXT_STEP = [
    define(
        "next_step",
        Piecewise(*_fixes(), (6, SYM["launch_overhead"] > q("runtime")), (q("bound"), True)),
        "1",
        "fix the flaw in the code; else batch more if the launch outweighs the work; else by the roof",
        labels=NEXT_STEPS,
        shown="the flaw's fix if the code has one, batch more if launch_overhead > runtime, "
        "move fewer bytes if memory-bound, else at peak",
        label="next step",
    ),
]


def decode_diagnosis() -> list[Formula]:
    """A decode step as timed: with the KV cache, or recomputing the whole prefix every step.

    The next step aims at throughput: memory-bound with room for twice the batch means batch more;
    memory-bound and full means quantize; compute-bound means the chip is at peak.
    """
    return [
        define(
            "recompute_runtime",
            Max(
                SYM["context"] * q("flops") / q("system_flops"),
                q("weight_bytes") / q("system_bandwidth"),
            ),
            "s",
            "without a KV cache every step reruns the whole prefix: context times the FLOPs",
            label="runtime without a KV cache",
        ),
        define(
            "timed_runtime",
            Piecewise((q("recompute_runtime"), _flaw("no-kv-cache")), (q("runtime"), True)),
            "s",
            "the decode step as written",
            shown="recompute_runtime if the KV cache is off, else runtime",
            label="timed runtime",
        ),
        define(
            "next_step",
            Piecewise(
                *_fixes(),
                (1, Eq(q("bound"), 1)),
                (6, q("weight_bytes") + 2 * q("kv_cache_bytes") <= q("system_memory")),
                (0, True),
            ),
            "1",
            "for throughput: turn the KV cache back on; at peak if compute-bound; batch more while "
            "twice the batch still fits; else quantize to free memory and bytes",
            labels=NEXT_STEPS,
            shown="keep the KV cache if it is off, at peak if compute-bound, batch more if twice "
            "the batch fits, else move fewer bytes",
            label="next step",
        ),
    ]


# Issue 13, bank shape: a decode step launched kernel by kernel from eager PyTorch. The CPU queues
# the step's kernels while the GPU runs them, so the step takes the slower of the two; a CUDA graph
# launches the whole step at once (OVERHEAD above models the same for pointwise chains).
DECODE_LAUNCH = [
    *[f for f in OVERHEAD if f.name == "launch_time"],
    define(
        "decode_gpu_time",
        Max(q("runtime"), SYM["kernels"] * SYM["kernel_floor"]),
        "s",
        "the step on the GPU: its roofline, and never under every kernel's floor",
        label="GPU time per step",
    ),
    define(
        "eager_decode_time",
        Max(q("launch_time") + SYM["kernel_floor"], SYM["launch_overhead"] + q("decode_gpu_time")),
        "s",
        "eager: the CPU launches each kernel while the GPU runs earlier ones; the GPU starts after "
        "the first launch, the last kernel (at least the floor) after the last; the slower pace wins",
        label="eager step time",
    ),
    define(
        "graph_decode_time",
        SYM["launch_overhead"] + q("decode_gpu_time"),
        "s",
        "a CUDA graph launches the whole step once; the GPU's work stays the same",
        label="CUDA-graph step time",
    ),
    define(
        "decode_launch_bound",
        Piecewise((1, q("launch_time") > q("decode_gpu_time")), (0, True)),
        "1",
        "what sets an eager decode step's time: the GPU's work or the CPU's launches",
        labels=("the GPU's work", "the CPU's kernel launches"),
        phrases=("the GPU's work sets the pace", "the CPU's launches set the pace"),
        shown="launches if launch_time > decode_gpu_time else the GPU",
        label="what sets the pace",
    ),
]
