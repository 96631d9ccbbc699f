#!/usr/bin/env bash
# Installs the Debian packages Cyanotype builds against, if any are missing (we run as root;
# sudo is used when not). Safe to run repeatedly: it does nothing when all are present.
set -euo pipefail
packages=(pkg-config libspng-dev libturbojpeg0-dev libwebp-dev liblcms2-dev libtiff-dev libheif-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "setup: the Swift toolchain (6.0 or later) is required: https://www.swift.org/install/linux/" >&2
    exit 1
fi
