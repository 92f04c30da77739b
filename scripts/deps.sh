#!/bin/sh
# Installs the Debian 12 packages heartsbot builds and tests with, if any
# is missing. Runs apt-get through sudo when not root.
set -eu

packages="cmake gcc make pkg-config libjson-c-dev libcmocka-dev \
libircclient-dev libcurl4-openssl-dev valgrind"

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
echo "deps: installing$missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
