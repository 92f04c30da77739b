#!/bin/sh
# Installs the Debian 12 packages heartsbot builds and tests with, if any
# is missing. Runs apt-get through sudo when not root.
set -eu

packages="cmake gcc make pkg-config gettext libjson-c-dev libcmocka-dev \
libircclient-dev libcurl4-openssl-dev libmicrohttpd-dev ca-certificates valgrind python3 \
python3-matrix-nio ngircd inspircd anope openssl build-essential debhelper \
chromium"

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

# build-essential (which dpkg-buildpackage requires) and debhelper build
# the Debian package (scripts/package-test.sh).
# ngircd, inspircd and anope (services, linked to InspIRCd) are for the
# integration tests and scripts/run.sh, which start their own on ports of
# their own; openssl makes the tests' certificates. Debian starts each
# server as a system service on install (on port 6667): stop and disable
# the ones installed just now, with systemd or without it.
for svc in ngircd inspircd anope; do
    case " $missing " in *" $svc "*) ;; *) continue ;; esac
    if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
        $sudo systemctl disable --now "$svc" >/dev/null 2>&1 || true
    else
        if [ -x "/etc/init.d/$svc" ]; then
            $sudo "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
        fi
        $sudo update-rc.d "$svc" disable >/dev/null 2>&1 || true
    fi
done
