"""Collectives against nccl-tests' PERFORMANCE.md, a published nccl-tests run, the scaling book,
the ZeRO paper, Thakur et al. 2005, and hand derivations written out here."""

import pytest

from perfdrill.engine.model import load_specs
from perfdrill.engine.model.evaluation import evaluate
from perfdrill.engine.problems.bank import load_bank
from perfdrill.engine.problems.generation import generate

H100_LINK = {"link_bandwidth": 450e9, "link_peer_bandwidth": 450e9}


def _measured(size: float, seconds: float, ranks: int) -> dict:
    inputs = {"collective_bytes": size, "measured_runtime": seconds, "participants": ranks}
    return evaluate(
        "collective_latency",
        inputs,
        ["algorithm_bandwidth", "all_reduce_bus_bandwidth", "all_gather_bus_bandwidth"],
    )


def test_bus_bandwidth_factors_from_nccl_tests_performance_md() -> None:
    # NVIDIA/nccl-tests doc/PERFORMANCE.md: busbw = algbw · 2(n−1)/n for AllReduce and
    # algbw · (n−1)/n for AllGather and ReduceScatter. 1 GB in 10 ms over 4 ranks: algbw 100 GB/s.
    values = _measured(1e9, 0.010, 4)
    assert values["algorithm_bandwidth"] == pytest.approx(100e9)
    assert values["all_reduce_bus_bandwidth"] == pytest.approx(150e9)
    assert values["all_gather_bus_bandwidth"] == pytest.approx(75e9)


@pytest.mark.parametrize(
    ("size", "microseconds", "algbw", "busbw"),
    [
        (8589934592, 31307, 274.38, 480.16),
        (1073741824, 4029.4, 266.48, 466.33),
        (67108864, 324.7, 206.67, 361.67),
    ],
)
def test_a_published_nccl_tests_run_on_8_h100(
    size: int, microseconds: float, algbw: float, busbw: float
) -> None:
    # The all_reduce_perf sample output in NVIDIA's DGX Cloud Benchmarking recipe
    # (microbenchmark_nccl README), 8 x H100 80GB HBM3 in one node, out-of-place columns.
    # The printed times carry 4-5 figures, so the bandwidths agree to about 1e-4.
    values = _measured(size, microseconds * 1e-6, 8)
    assert values["algorithm_bandwidth"] / 1e9 == pytest.approx(algbw, rel=2e-4)
    assert values["all_reduce_bus_bandwidth"] / 1e9 == pytest.approx(busbw, rel=2e-4)


def _collective(workload: str, size: float, ranks: int, wanted: list[str], **extra: float) -> dict:
    inputs = {"collective_bytes": size, "participants": ranks, **H100_LINK, **extra}
    return evaluate(workload, inputs, wanted)


def test_all_gathers_from_the_scaling_book() -> None:
    # jax-ml/scaling-book gpus.md, Pop Quiz 1: AllGather of bf16[1024, 16384] over an 8xH100 node
    # takes 2·1024·16384·7 / (8 · 450e9), "more precisely 65us".
    pop_quiz = _collective("sharded_collectives", 2 * 1024 * 16384, 8, ["all_gather_time"])
    assert pop_quiz["all_gather_time"] == pytest.approx(65e-6, abs=0.5e-6)
    # Quiz 2, question 3: bf16[4096, 65536] (536.9 MB) takes 536e6 · 7 / 3.6e12 = 1.04 ms.
    quiz = _collective("sharded_collectives", 2 * 4096 * 65536, 8, ["all_gather_time", "reduce_scatter_time"])
    assert quiz["all_gather_time"] == pytest.approx(1.04e-3, abs=0.005e-3)
    assert quiz["reduce_scatter_time"] == quiz["all_gather_time"]


def test_zero3_moves_one_and_a_half_times_the_data_parallel_volume() -> None:
    # ZeRO paper, section 7: P_os+g+p communicates 3Ψ per step against data parallelism's 2Ψ.
    values = _collective("sharded_collectives", 14e9, 8, ["zero3_step_comm_time", "all_reduce_time"])
    assert values["zero3_step_comm_time"] / values["all_reduce_time"] == pytest.approx(1.5)


def test_alpha_beta_costs_from_thakur_et_al() -> None:
    # Thakur, Rabenseifner and Gropp 2005: a ring all-gather costs (p−1)·α + (p−1)/p·n·β, and a
    # recursive-doubling all-reduce lg p·α + lg p·n·β. With p = 8, α = 2 µs, n = 8 MB, 1/β = 450 GB/s:
    # ring all-gather 14 µs + 15.56 µs; ring all-reduce 28 µs + 31.11 µs; recursive doubling
    # 3 · (2 µs + 17.78 µs) = 59.33 µs.
    wanted = [
        "alpha_beta_all_gather_time",
        "alpha_beta_all_reduce_time",
        "recursive_doubling_time",
        "faster_all_reduce",
        "half_bandwidth_bytes",
        "latency_bound",
    ]
    values = _collective("collective_latency", 8e6, 8, wanted, link_latency=2e-6)
    assert values["alpha_beta_all_gather_time"] == pytest.approx(14e-6 + 7 / 8 * 8e6 / 450e9)
    assert values["alpha_beta_all_reduce_time"] == pytest.approx(28e-6 + 2 * 7 / 8 * 8e6 / 450e9)
    assert values["recursive_doubling_time"] == pytest.approx(3 * (2e-6 + 8e6 / 450e9))
    assert values["faster_all_reduce"] == 0  # the ring: 59.1 µs against 59.3 µs
    # The ring's terms meet at N·α·B = 8 · 2 µs · 450 GB/s = 7.2 MB; 8 MB is just past it.
    assert values["half_bandwidth_bytes"] == pytest.approx(7.2e6)
    assert values["latency_bound"] == 0
    tiny = _collective(
        "collective_latency", 8e3, 8, ["faster_all_reduce", "latency_bound"], link_latency=2e-6
    )
    assert tiny == {**tiny, "faster_all_reduce": 1, "latency_bound": 1}


def test_the_dgx_nic_is_400_gigabits_not_gigabytes() -> None:
    # jax-ml/scaling-book gpus.md: 8 x 400 Gbps NICs give a DGX H100 node 400 GB/s of egress,
    # 50 GB/s per GPU each way.
    book = load_specs()
    for chip in ("h100-sxm", "h200", "b200"):
        assert book.chip(chip).network_bandwidth.value == 50e9
        assert book.chip(chip).network_bandwidth.shown == "400 Gb/s"


def _two_nodes(size: float, nics: int = 8) -> dict:
    inputs = {
        "collective_bytes": size,
        "nodes": 2,
        "node_chips": 8,
        "network_bandwidth": 50e9,
        "node_nics": nics,
        **H100_LINK,
    }
    wanted = [
        "flat_ring_all_reduce_time",
        "intra_node_reduce_scatter_time",
        "inter_node_all_reduce_time",
        "hierarchical_all_reduce_time",
        "hierarchical_speedup",
    ]
    return evaluate("hierarchical_collective", inputs, wanted)


def test_hierarchical_all_reduce_over_two_h100_nodes() -> None:
    # jax-ml/scaling-book gpus.md, Quiz 4 question 5: over 2 nodes the in-node step costs
    # B·7/(8·450e9) = B/514e9 and the cross-node all-gather B/800e9 (each node's 400 GB/s carrying
    # half the buffer); an all-reduce crosses twice, B/400e9.
    values = _two_nodes(1e9)
    assert values["intra_node_reduce_scatter_time"] == pytest.approx(1e9 / 514.2857e9)
    assert values["inter_node_all_reduce_time"] == pytest.approx(2 * 1e9 / 800e9)
    # By hand, one NIC per GPU (DGX H100): NCCL runs 8 rings, one per NIC, each carrying 1/8 of the
    # buffer: 2 · 15/16 · 1 GB / (8 · 50 GB/s) = 4.6875 ms; hierarchical 2 · 1.944 ms + 2.5 ms = 6.389 ms
    # adds the in-node phases in series, so it is slower (0.734x): no ~5x gain on a railed node.
    assert values["flat_ring_all_reduce_time"] == pytest.approx(4.6875e-3)
    assert values["hierarchical_all_reduce_time"] == pytest.approx(2 * 7 / 8 / 450 + 2.5e-3)
    assert values["hierarchical_speedup"] == pytest.approx(4.6875e-3 / (2 * 7 / 8 / 450 + 2.5e-3))
    # One NIC per node: the flat ring crosses it every step, 2 · 15/16 · 1 GB / 50 GB/s = 37.5 ms; the
    # hierarchical cross-node step sends each GPU's 1/8 over a shared NIC: 2 · 1/2 · 1 GB / 50 GB/s = 20 ms.
    one_nic = _two_nodes(1e9, nics=1)
    assert one_nic["flat_ring_all_reduce_time"] == pytest.approx(37.5e-3)
    assert one_nic["inter_node_all_reduce_time"] == pytest.approx(20e-3)
    assert one_nic["hierarchical_speedup"] == pytest.approx(37.5e-3 / (2 * 7 / 8 / 450 + 20e-3))


def test_the_nccl_tests_slips_replay_by_hand() -> None:
    # Reading algbw as busbw shrinks the answer by 2(N−1)/N; counting α once turns the per-step
    # latency into the whole 8-byte time.
    template = load_bank().get("parallelism/nccl-tests-table")
    problem = generate(template, 7, load_specs())
    chips = problem.variant.lookup("participants", None)
    busbw = problem.part("busbw")
    assert dict(busbw.mistakes)["algbw-as-busbw"] == pytest.approx(busbw.value * chips / (2 * (chips - 1)))
    latency = problem.part("latency")
    assert dict(latency.mistakes)["latency-once"] == pytest.approx(latency.value * 2 * (chips - 1))
