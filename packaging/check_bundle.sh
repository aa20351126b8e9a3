#!/bin/sh
# Run the bundle's own check (`reverie --check`: every part started without a
# window, one reply streamed from the embedded chat model) as a first start on
# a clean machine would: an empty environment but PATH, a fresh HOME, the XDG
# folders under it, Qt's offscreen platform.  Exits with the check's status.
#
# Usage: packaging/check_bundle.sh [dist/reverie]
set -eu
bundle=$(cd "${1:-dist/reverie}" && pwd)
if [ ! -x "$bundle/reverie" ]; then
    echo "No bundle at $bundle: run \`make package\` first." >&2
    exit 2
fi
home=$(mktemp -d "${TMPDIR:-/tmp}/reverie-package-check.XXXXXX")
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/.config" "$home/.local/share" "$home/.cache" "$home/runtime"
chmod 700 "$home/runtime"
status=0
env -i \
    PATH=/usr/bin:/bin \
    HOME="$home" \
    XDG_CONFIG_HOME="$home/.config" \
    XDG_DATA_HOME="$home/.local/share" \
    XDG_CACHE_HOME="$home/.cache" \
    XDG_RUNTIME_DIR="$home/runtime" \
    QT_QPA_PLATFORM=offscreen \
    "$bundle/reverie" --check || status=$?
echo "reverie --check exited with $status"
exit "$status"
