#!/usr/bin/env bash
# Regenerates the Swift code of the Pandora protos (Sources/StrobePandora/Protos, from Google's
# bt-test-interfaces 0.0.6) into Sources/StrobePandora/Generated. Not run by the test command:
# the generated code is committed. Uses protoc from grpcio-tools (in a venv of its own) and the
# protoc plugins of the package's own swift-protobuf and grpc-swift-protobuf.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
venv="$root/.venv-protoc"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check grpcio-tools==1.62.3
fi
scratch="$root/.build-protoc"
swift build --scratch-path "$scratch" --product protoc-gen-swift
swift build --scratch-path "$scratch" --product protoc-gen-grpc-swift-2
bin="$(swift build --scratch-path "$scratch" --show-bin-path)"
wkt="$("$venv/bin/python" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"
out="$root/Sources/StrobePandora/Generated"
rm -rf "$out"
mkdir -p "$out"
protos=(pandora/host.proto pandora/security.proto)
"$venv/bin/python" -m grpc_tools.protoc -I Sources/StrobePandora/Protos -I "$wkt" \
  --plugin=protoc-gen-swift="$bin/protoc-gen-swift" --swift_out="$out" --swift_opt=Visibility=Public \
  --plugin=protoc-gen-grpc-swift="$bin/protoc-gen-grpc-swift-2" --grpc-swift_out="$out" \
  --grpc-swift_opt=Visibility=Public,Client=true,Server=true \
  "${protos[@]}"
echo "generated:"; find "$out" -name '*.swift' | sort
