#!/usr/bin/env python3
"""Writes the cases in test/data/sequence_layers/: matmul, einsum, MultiheadAttention and recurrent
operators (LSTM, GRU, RNN) as small PNNX graphs, with PyTorch's outputs.

    /usr/bin/python3 scripts/make_sequence_layer_cases.py        (Debian's python3-torch)

Same format and writer as scripts/make_layer_cases.py (whose Case class this reuses), in a folder
of its own so that either script can be rerun without the other. The cases cover what the corpus
does not: other layouts (sequence-first, unbatched), batch > 1, masks with fully masked rows (NaN in
PyTorch), initial states, several layers, 1-D matmul operands, transposed einsum operands.
Outputs come from running the PyTorch modules themselves, never from Lumen.
"""
import pathlib
import shutil

import torch

import make_layer_cases as layer_cases
from make_layer_cases import ARITHMETIC, Case, seeded

ROOT = pathlib.Path(__file__).resolve().parent.parent / "test/data/sequence_layers"


def product_cases():
    def product(name, kind, shapes, fn, params=None, keys="$input=0 $other=1", seed=41):
        case = Case(name, ARITHMETIC, f"{kind} {params or ''} {shapes}")
        tensors = [seeded(seed + i, *shape) for i, shape in enumerate(shapes)]
        operands = [case.input(t) for t in tensors]
        (y,) = case.op(kind, operands, [fn(*tensors)], params, keys=keys)
        case.output(y)
        case.write()

    matmul = torch.matmul
    product("matmul_vec_left_batched", "torch.matmul", [(7,), (3, 7, 4)], matmul)
    product("matmul_vec_right_batched", "torch.matmul", [(2, 3, 5, 7), (7,)], matmul)
    product("matmul_vec_left_2d", "torch.matmul", [(7,), (7, 4)], matmul)
    product("matmul_broadcast_5d", "torch.matmul", [(2, 1, 3, 5, 7), (4, 1, 7, 6)], matmul)
    product("matmul_left_2d_right_batched", "torch.matmul", [(5, 7), (3, 7, 4)], matmul)
    # B shared by every product; more rows than a panel and a depth over 256 (two slices).
    product("matmul_shared_right_deep", "torch.matmul", [(2, 70, 300), (300, 50)], matmul)
    # Three products on two threads: small ones one per task, large ones each on every thread.
    product("matmul_three_small", "torch.matmul", [(3, 40, 33), (3, 33, 45)], matmul)
    product("matmul_three_large", "torch.matmul", [(3, 100, 80), (3, 80, 90)], matmul)
    product("mm", "torch.mm", [(5, 7), (7, 4)], torch.mm, keys="$input=0 $mat2=1")
    product("bmm_b3", "torch.bmm", [(3, 6, 5), (3, 5, 9)], torch.bmm, keys="$input=0 $mat2=1")

    def einsum(name, equation, shapes):
        product(name, "torch.einsum", shapes, lambda a, b: torch.einsum(equation, a, b),
                dict(equation=equation), keys="")

    einsum("einsum_transposed_right", "bij,bkj->bik", [(2, 5, 7), (2, 4, 7)])
    einsum("einsum_transposed_left", "bji,bjk->bik", [(2, 7, 5), (2, 7, 4)])
    einsum("einsum_transposed_result", "ij,jk->ki", [(5, 7), (7, 4)])
    einsum("einsum_outer", "bi,bj->bij", [(3, 5), (3, 4)])
    einsum("einsum_matvec", "bij,bj->bi", [(3, 5, 7), (3, 7)])
    einsum("einsum_batch_letter_inside", "ibj,bjk->bik", [(5, 2, 7), (2, 7, 4)])
    einsum("einsum_attention_values", "bhqk,bhkd->bhqd", [(2, 2, 5, 6), (2, 2, 6, 8)])
    einsum("einsum_broadcast_batch", "bij,bjk->bik", [(1, 5, 7), (3, 7, 4)])
    einsum("einsum_row_letter_batch", "bij,jk->bik", [(2, 5, 7), (7, 4)])
    einsum("einsum_implicit_output", "ij,jk", [(5, 7), (7, 4)])
    einsum("einsum_result_transposed_both", "bij,bjk->kib", [(2, 5, 7), (2, 7, 4)])


def attention_cases():
    def attention(name, embed, heads, query_shape, key_shape=None, value_shape=None,
                  batch_first=True, kdim=None, vdim=None, mask=None, padding=None, weights=False,
                  average=True, bias=True, bias_kv=False, zero_attn=False, seed=51):
        torch.manual_seed(seed)
        module = torch.nn.MultiheadAttention(embed, heads, bias=bias, add_bias_kv=bias_kv,
                                             add_zero_attn=zero_attn, kdim=kdim, vdim=vdim,
                                             batch_first=batch_first).eval()
        if bias:  # PyTorch starts the biases at 0: make them matter
            with torch.no_grad():
                module.in_proj_bias.uniform_(-0.5, 0.5)
                module.out_proj.bias.uniform_(-0.5, 0.5)
        query = seeded(seed + 1, *query_shape)
        key = seeded(seed + 2, *key_shape) if key_shape else query
        value = seeded(seed + 3, *value_shape) if value_shape else key
        # With gradients on, PyTorch takes its plain (not the fused "fast path") implementation,
        # which also handles bias=False.
        out, attn = module(query, key, value, key_padding_mask=padding, attn_mask=mask,
                           need_weights=weights, average_attn_weights=average)
        out = out.detach()
        attn = attn.detach() if attn is not None else None
        case = Case(name, ARITHMETIC, f"nn.MultiheadAttention {name}")
        operands = [case.input(query)]
        if key_shape:
            operands.append(case.input(key))
        if value_shape:
            operands.append(case.input(value))
        keys = []
        if mask is not None:
            operands.append(case.input(mask))
            keys.append(f"$attn_mask={operands[-1]}")
        if padding is not None:
            operands.append(case.input(padding))
            keys.append(f"$key_padding_mask={operands[-1]}")
        params = dict(add_bias_kv=bias_kv, add_zero_attn=zero_attn, batch_first=batch_first,
                      bias=bias, embed_dim=embed, kdim=kdim or embed, num_heads=heads,
                      vdim=vdim or embed)
        if not average:
            params["average_attn_weights"] = False
        state = {k: v.detach() for k, v in module.state_dict().items()}
        results = case.op("nn.MultiheadAttention", operands, [out, attn] if weights else [out],
                          params, state, name="attn", keys=" ".join(keys))
        for result in results:
            case.output(result)
        case.write()
        # Bool masks are stored as 0/1 floats (Lumen's inputs are float) and declared bool in the
        # param file, as pnnx declares them: the layer reads the declaration.
        param = ROOT / name / "model.pnnx.param"
        text = param.read_text()
        for role, tensor in (("attn_mask", mask), ("key_padding_mask", padding)):
            if tensor is not None and tensor.dtype == torch.bool:
                operand = next(k.split("=")[1] for k in keys if k.startswith(f"${role}="))
                shape = ",".join(str(d) for d in tensor.shape)
                text = text.replace(f"#{operand}=({shape})f32", f"#{operand}=({shape})bool")
        param.write_text(text)

    inf = float("-inf")
    # Per-(item, head) masks; item 1 head 0 masks every key of query row 2 (PyTorch: NaN there).
    mask = torch.zeros(4, 4, 5)
    mask[:, :, 4] = inf
    mask[1, 0, 1] = inf
    mask[2, 2, :] = inf
    attention("mha_mask_per_head_fully_masked_row", 8, 2, (2, 4, 8), (2, 5, 8), mask=mask,
              weights=True)
    causal = torch.triu(torch.full((6, 6), inf), diagonal=1)
    attention("mha_seqfirst_b3_causal_weights", 16, 4, (6, 3, 16), batch_first=False, mask=causal,
              weights=True)
    attention("mha_seqfirst_cross_key_value", 16, 4, (5, 3, 16), (7, 3, 16), batch_first=False,
              weights=True, average=False)
    attention("mha_seqfirst_kdim_vdim_b2", 12, 3, (5, 2, 12), (4, 2, 10), (4, 2, 6),
              batch_first=False, kdim=10, vdim=6)
    padding = torch.zeros(2, 6)
    padding[0, 1] = inf
    padding[1, 4:] = inf
    # Padding alone: PyTorch 1.13 merges a float key_padding_mask into a float attn_mask with
    # masked_fill, which ignores it (newer versions add it, as Lumen does).
    attention("mha_key_padding", 8, 2, (2, 6, 8), padding=padding, weights=True)
    attention("mha_float_mask_values", 8, 2, (2, 6, 8), weights=True,
              mask=torch.randn(6, 6, generator=torch.Generator().manual_seed(3)))
    causal_bool = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
    attention("mha_bool_causal_mask", 8, 2, (2, 5, 8), mask=causal_bool, weights=True)
    padding_bool = torch.zeros(2, 7, dtype=torch.bool)
    padding_bool[0, 2] = True
    padding_bool[1, 5:] = True
    head_mask_bool = torch.zeros(4, 4, 7, dtype=torch.bool)
    head_mask_bool[3, 1, 0] = True
    attention("mha_bool_masks_seqfirst", 8, 2, (4, 2, 8), (7, 2, 8), batch_first=False,
              mask=head_mask_bool, padding=padding_bool, weights=True, average=False)
    attention("mha_float_mask_bool_padding", 8, 2, (2, 4, 8), (2, 7, 8),
              mask=torch.randn(4, 7, generator=torch.Generator().manual_seed(4)),
              padding=padding_bool, weights=True)
    attention("mha_unbatched_weights", 8, 2, (5, 8), weights=True)
    attention("mha_unbatched_cross", 8, 2, (5, 8), (3, 8), weights=True, average=False)
    attention("mha_no_bias", 8, 4, (2, 5, 8), bias=False)
    attention("mha_bias_kv_zero_attn", 8, 2, (2, 4, 8), (2, 5, 8), bias_kv=True, zero_attn=True,
              mask=torch.zeros(4, 5), weights=True)
    # More query rows than one block: several blocks per sequence, several tasks per head.
    attention("mha_long_sequence", 32, 2, (1, 150, 32), weights=True)
    attention("mha_long_batch2_heads4", 32, 4, (2, 70, 32))


def recurrent_cases():
    def recurrent(name, kind, input_shape, hidden, layers=1, bidirectional=False,
                  batch_first=False, bias=True, initial=False, outputs=None, nonlinearity=None,
                  seed=61):
        torch.manual_seed(seed)
        classes = dict(LSTM=torch.nn.LSTM, GRU=torch.nn.GRU, RNN=torch.nn.RNN)
        extra = dict(nonlinearity=nonlinearity) if nonlinearity else {}
        module = classes[kind](input_shape[-1], hidden, layers, bias=bias, batch_first=batch_first,
                               bidirectional=bidirectional, **extra).eval()
        x = seeded(seed + 1, *input_shape)
        stacked = layers * (2 if bidirectional else 1)
        state_shape = (stacked, hidden) if len(input_shape) == 2 else (
            stacked, input_shape[0 if batch_first else 1], hidden)
        states = []
        if initial:
            states = [seeded(seed + 2, *state_shape) * 0.5]
            if kind == "LSTM":
                states.append(seeded(seed + 3, *state_shape) * 0.5)
        with torch.no_grad():
            if not states:
                y, hx = module(x)
            else:
                y, hx = module(x, tuple(states) if kind == "LSTM" else states[0])
        results = [y] + (list(hx) if kind == "LSTM" else [hx])
        results = results[:outputs or len(results)]
        case = Case(name, ARITHMETIC, f"nn.{kind} {name}")
        operands = [case.input(x)] + [case.input(s) for s in states]
        params = dict(batch_first=batch_first, bias=bias, bidirectional=bidirectional,
                      hidden_size=hidden, input_size=input_shape[-1], num_layers=layers)
        if kind == "LSTM":
            params["proj_size"] = 0
        if kind == "RNN":
            params["nonlinearity"] = nonlinearity or "tanh"
        weights = {k: v.detach() for k, v in module.state_dict().items()}
        for result in case.op(f"nn.{kind}", operands, results, params, weights, name="rnn"):
            case.output(result)
        case.write()

    recurrent("lstm_2l_bidir_seqfirst_b2_h0c0", "LSTM", (5, 2, 6), 8, layers=2,
              bidirectional=True, initial=True)
    recurrent("lstm_unbatched_bidir_h0c0", "LSTM", (7, 6), 8, bidirectional=True, initial=True)
    recurrent("lstm_batchfirst_b3_y_only", "LSTM", (3, 6, 5), 7, batch_first=True, outputs=1)
    recurrent("lstm_no_bias", "LSTM", (4, 2, 5), 6, bias=False)
    # Enough work per step that the units are shared among threads (on 2 threads).
    recurrent("lstm_parallel_steps_bidir_b4", "LSTM", (4, 10, 12), 64, bidirectional=True,
              batch_first=True, initial=True)
    recurrent("gru_seqfirst_b3_h0", "GRU", (6, 3, 5), 7, initial=True)
    recurrent("gru_bidir_batchfirst_b2_no_bias", "GRU", (2, 5, 6), 8, bidirectional=True,
              batch_first=True, bias=False)
    recurrent("gru_unbatched_2l", "GRU", (6, 5), 7, layers=2)
    recurrent("gru_parallel_steps", "GRU", (8, 2, 16), 100, initial=True)
    recurrent("rnn_tanh_3l_batchfirst_b2", "RNN", (2, 5, 6), 7, layers=3, batch_first=True)
    recurrent("rnn_relu_unbatched_h0", "RNN", (6, 5), 7, initial=True, nonlinearity="relu")
    recurrent("rnn_relu_2l_bidir_seqfirst_b2_h0", "RNN", (5, 2, 4), 6, layers=2,
              bidirectional=True, initial=True, nonlinearity="relu")


def main():
    if ROOT.exists():
        shutil.rmtree(ROOT)
    ROOT.mkdir(parents=True)
    layer_cases.ROOT = ROOT  # Case.write puts cases under the module's ROOT
    product_cases()
    attention_cases()
    recurrent_cases()
    print(f"wrote {len(list(ROOT.iterdir()))} cases under {ROOT}")


if __name__ == "__main__":
    main()
