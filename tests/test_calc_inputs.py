"""Issue 22 §2: inputs as people give them. Redundant but consistent options accepted with a note,
real conflicts refused together, a plain MLP, the stated defaults, memory without tokens, no KV
cache, usage without options that are always refused, and a versioned JSON contract."""

import json
from pathlib import Path

import pytest

H100 = ["--chip", "h100-sxm"]
# Llama 3.1 8B (meta-llama config.json), as a published table gives it, with its totals.
LLAMA_8B = [
    *("--layers", "32", "--d-model", "4096", "--heads", "32", "--kv-heads", "8", "--head-dim", "128"),
    *("--ffn", "14336", "--vocab", "128256"),
]
DECODE = ["calc", "decode", *H100, "--batch", "1", "--context", "100"]


def _json(run_cli, *args: str) -> dict:
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_a_whole_table_is_accepted_in_one_run_with_a_note(run_cli) -> None:
    """The architecture beside the totals it gives (8.03B params, 131,072 B of KV per token:
    32 layers x 2 x 8 KV heads x 128 x 2 B) is redundant, not wrong."""
    data = _json(run_cli, *DECODE, *LLAMA_8B, "--params", "8.03e9", "--kv-bytes-per-token", "131072")
    assert data["notes"] == [
        "unused: --layers, --d-model, --heads, --kv-heads, --head-dim, --ffn, --vocab "
        "(the values they would change are given, and agree within 1%)"
    ]
    assert data["results"]["weight_bytes"]["value"] == 8.03e9 * 2


def test_every_conflict_is_refused_in_one_message(run_cli) -> None:
    code, out, err = run_cli(*DECODE, *LLAMA_8B, "--params", "7e9", "--kv-bytes-per-token", "65536")
    assert (code, out) == (2, "")
    assert len(err.strip().splitlines()) == 1
    # by hand: Llama 3.1 8B counts 8,030,261,248 parameters and 131,072 B of KV per token
    assert "params is 7B\u00a0params by --params, but --layers" in err
    assert "give 8.03B\u00a0params" in err
    assert "kv_bytes_per_token is 65.5\u00a0kB/token by --kv-bytes-per-token" in err
    assert "give 131\u00a0kB/token" in err


def test_an_option_no_result_reads_is_noted(run_cli) -> None:
    data = _json(run_cli, *DECODE, "--model", "llama-3.1-8b", "--per-op", "--expected-experts")
    assert "unused: --expected-experts (no result of `calc decode` reads it)" in data["notes"]


def test_plain_mlp_flag_and_yaml(run_cli, tmp_path: Path) -> None:
    """By hand, 2 layers of d = 64, 4 heads of 16, a plain 256-wide MLP, 1,000 tied tokens:
    attention 4 x 64^2 = 16,384, MLP 2 x 64 x 256 = 32,768, norms 128 -> 49,280 a layer;
    embeddings 64 x 1,000 + final norm 64 = 64,064; total 2 x 49,280 + 64,064 = 162,624."""
    tiny = ["--layers", "2", "--d-model", "64", "--heads", "4", "--ffn", "256", "--vocab", "1000"]
    by_flags = _json(run_cli, "calc", "model", *tiny, "--mlp", "plain", "--tied-embeddings")
    assert by_flags["results"]["params"]["value"] == 162_624
    (tmp_path / "tiny.yaml").write_text(
        "models:\n  tiny:\n    name: tiny\n    source: test\n    layers: 2\n    d_model: 64\n"
        "    heads: 4\n    kv_heads: 4\n    head_dim: 16\n    ffn: 256\n    vocab: 1000\n"
        "    context_window: {value: 2048, source: test}\n    mlp: plain\n    tied_embeddings: true\n"
    )
    by_yaml = _json(run_cli, "calc", "model", "--specs", str(tmp_path), "--model", "tiny")
    assert by_yaml["results"]["params"]["value"] == 162_624


def test_plain_mlp_layer_is_kipplys_12_d_squared(run_cli) -> None:
    """kipply, "Transformer Inference Arithmetic" (2022): a GPT layer holds 12·d² parameters (4d² of
    attention, 8d² of a plain 4d-wide MLP), plus 2d of norms here; GPT-2 small's d = 768 gives
    12 x 589,824 + 1,536 = 7,079,424 a layer."""
    gpt = ["--d-model", "768", "--heads", "12", "--ffn", "3072", "--vocab", "50257", "--mlp", "plain"]
    one = _json(run_cli, "calc", "model", *gpt, "--layers", "1")["results"]["params"]["value"]
    two = _json(run_cli, "calc", "model", *gpt, "--layers", "2")["results"]["params"]["value"]
    assert two - one == 7_079_424


def test_stated_defaults_kv_heads_and_head_dim(run_cli) -> None:
    """Llama 2 7B by flags without --kv-heads or --head-dim: 6,738,415,616 parameters (the
    safetensors total), and 32 layers x 2 x 32 heads x 128 x 2 B = 524,288 B of KV per token."""
    llama2 = ["--layers", "32", "--d-model", "4096", "--heads", "32", "--ffn", "11008", "--vocab", "32000"]
    results = _json(run_cli, "calc", "model", *llama2)["results"]
    assert results["params"]["value"] == 6_738_415_616
    assert results["kv_bytes_per_token"]["value"] == 524_288
    code, out, _ = run_cli("calc", "model", "--help")
    assert code == 0
    flat = " ".join(out.split())
    assert "key/value heads (default --heads)" in flat
    assert "width of one head (default --d-model / --heads)" in flat


def test_train_memory_needs_no_tokens(run_cli) -> None:
    data = _json(run_cli, "calc", "train", *H100, "--model", "llama-3.1-8b")
    # by hand: 16 B/param (mixed-precision Adam) x 8,030,261,248 = 128,484,179,968 B
    assert data["results"]["memory_required"]["value"] == 128_484_179_968
    assert data["results"]["min_chips"]["value"] == 2  # 128.5 GB over 80 GB chips
    assert data["omitted"] == {
        "flops": ["--tokens"],
        "time": ["--tokens"],
        "checkpointed_time": ["--tokens"],
        "activation_memory": ["--batch --sequence"],
        "checkpointed_activation_memory": ["--batch --sequence"],
        "logits_memory": ["--batch --sequence"],
    }


def test_prefill_without_a_kv_cache(run_cli) -> None:
    prefill = ["calc", "prefill", *H100, "--model", "llama-3.1-8b", "--batch", "1", "--prompt", "1000"]
    none = _json(run_cli, *prefill, "--kv-bytes-per-token", "0")["results"]
    kept = _json(run_cli, *prefill)["results"]
    # by hand: the weights alone, 16,060,522,496 B / 3.35e12 B/s; with the cache, + 1,000 x 131,072 B
    assert none["memory_time"]["value"] == pytest.approx(16_060_522_496 / 3.35e12)
    assert kept["memory_time"]["value"] == pytest.approx((16_060_522_496 + 131_072_000) / 3.35e12)
    assert "time" in none and "time" in kept


def test_flash_attention_offers_only_what_it_reads(run_cli) -> None:
    code, out, _ = run_cli("calc", "flash-attention", "--help")
    assert code == 0
    for flag in ("--model", "--heads", "--head-dim", "--batch", "--sequence", "--sram"):
        assert flag in out
    for flag in ("--layers", "--ffn", "--vocab", "--params", "--kv-bytes-per-token", "--weight-dtype"):
        assert flag not in out


@pytest.mark.parametrize(
    "args",
    [
        ["calc", "roofline", *H100],
        [*DECODE, "--model", "llama-3.1-8b"],
        ["calc", "sweep", *H100, "--model", "llama-3.1-8b", "--context", "128", "--batches", "1,8"],
    ],
)
def test_the_json_names_its_schema(run_cli, args: list[str]) -> None:
    data = _json(run_cli, *args)
    assert list(data) == ["schema", "inputs", "results", "omitted", "notes"]
    assert data["schema"] == 2  # docs/calc-json.md: 2 added this field


def test_a_yaml_mlp_that_contradicts_gated_mlp_is_refused_with_its_line(run_cli, tmp_path: Path) -> None:
    (tmp_path / "tiny.yaml").write_text(
        "models:\n  tiny:\n    name: tiny\n    source: test\n    layers: 2\n    d_model: 64\n"
        "    heads: 4\n    kv_heads: 4\n    head_dim: 16\n    ffn: 256\n    vocab: 1000\n"
        "    context_window: {value: 2048, source: test}\n    mlp: plain\n    gated_mlp: true\n"
        "    tied_embeddings: true\n"
    )
    code, out, err = run_cli("calc", "model", "--specs", str(tmp_path), "--model", "tiny")
    assert (code, out) == (2, "")
    assert "tiny.yaml:13: models.tiny.mlp: disagrees with gated_mlp: true" in err
