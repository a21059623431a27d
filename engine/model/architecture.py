"""The model's own quantities: its parameter counts, broken down, and the KV cache one token adds."""

from __future__ import annotations

from perfdrill.engine.model.formulas import SYM, define, q

MODEL = [
    define(
        "attention_params_per_layer",
        2 * SYM["d_model"] * SYM["head_dim"] * (SYM["heads"] + SYM["kv_heads"]),
        "parameter",
        "Q and O are model width × heads × head dim; K and V are model width × KV heads × head dim",
        label="attention params per layer",
    ),
    define(
        "mlp_params_per_expert",
        SYM["mlp_matrices"] * SYM["d_model"] * SYM["ffn"],
        "parameter",
        "one MLP (one expert): its 2 or 3 matrices of model width × MLP width",
        label="MLP params per expert",
    ),
    define(
        "dense_mlp_params",
        SYM["mlp_matrices"] * SYM["d_model"] * SYM["dense_ffn"],
        "parameter",
        "the MLP of a dense layer",
        label="dense MLP params",
    ),
    define(
        "norm_params_per_layer",
        2 * SYM["d_model"],
        "parameter",
        "two norms per layer",
        label="norm params per layer",
    ),
    define(
        "router_params",
        SYM["d_model"] * SYM["experts"],
        "parameter",
        "the MoE router of one layer",
        label="router params",
    ),
    define(
        "moe_layers",
        SYM["layers"] - SYM["dense_layers"],
        "1",
        "layers whose MLP is a mixture of experts",
        label="MoE layers",
        whole=True,
    ),
    define(
        "embedding_params",
        (2 - SYM["tied_embeddings"]) * SYM["vocab"] * SYM["d_model"]
        + SYM["position_embeddings"] * SYM["d_model"]
        + SYM["d_model"],
        "parameter",
        "token embedding, LM head unless tied, learned positions and the final norm",
        label="embedding params",
    ),
    # Issue 22: the parameter count broken down, as results of `calc model`.
    define(
        "attention_params",
        SYM["layers"] * q("attention_params_per_layer"),
        "parameter",
        "the attention projections of every layer",
        label="attention params",
    ),
    define(
        "mlp_params",
        SYM["dense_layers"] * q("dense_mlp_params")
        + q("moe_layers") * (SYM["experts"] + SYM["shared_experts"]) * q("mlp_params_per_expert"),
        "parameter",
        "every MLP: the dense layers' and all experts (routed and shared) of the MoE layers",
        label="MLP params",
    ),
    define(
        "norm_and_router_params",
        SYM["layers"] * q("norm_params_per_layer") + q("moe_layers") * q("router_params"),
        "parameter",
        "the layers' norms and the MoE routers",
        label="norm and router params",
    ),
    define(
        "params",
        q("embedding_params")
        + SYM["dense_layers"]
        * (q("attention_params_per_layer") + q("dense_mlp_params") + q("norm_params_per_layer"))
        + q("moe_layers")
        * (
            q("attention_params_per_layer")
            + (SYM["experts"] + SYM["shared_experts"]) * q("mlp_params_per_expert")
            + q("router_params")
            + q("norm_params_per_layer")
        ),
        "parameter",
        "every weight of the model",
        label="params",
    ),
    # A sum of the weights a token reads, not params less the experts it skips: the difference of
    # two large, rounded figures cannot be checked by hand (14.9T − 14.6T printed as 291B).
    define(
        "active_params",
        q("embedding_params")
        + SYM["dense_layers"]
        * (q("attention_params_per_layer") + q("dense_mlp_params") + q("norm_params_per_layer"))
        + q("moe_layers")
        * (
            q("attention_params_per_layer")
            + (SYM["experts_per_token"] + SYM["shared_experts"]) * q("mlp_params_per_expert")
            + q("router_params")
            + q("norm_params_per_layer")
        ),
        "parameter",
        "the weights one token actually uses: all but the routed experts it skips in each MoE layer",
        label="active params",
    ),
    define(
        "weight_bytes",
        q("params") * SYM["weight_bytes_per_param"],
        "byte",
        "all weights in their storage dtype",
        label="weight bytes",
    ),
    define(
        "kv_elements_per_token_per_layer",
        2 * SYM["kv_heads"] * SYM["head_dim"],
        "1",
        "K and V, one vector per KV head",
        label="KV elements per token per layer",
    ),
    define(
        "kv_bytes_per_token",
        SYM["layers"] * q("kv_elements_per_token_per_layer") * SYM["kv_bytes_per_element"],
        "byte/token",
        "KV cache one token adds across all layers",
        label="KV cache per token",
    ),
]
