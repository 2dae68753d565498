#!/usr/bin/env bash
# Installs the Debian packages the network lab (tests/lab/lab.py) needs: iproute2 (network
# namespaces, veth pairs), nftables (the router's NAT and firewall), miniupnpd with its
# nftables backend (UPnP-IGD, NAT-PMP and PCP on the router's LAN side), miniupnpc (upnpc,
# to look at the router's mappings from a test), pebble (Let's Encrypt's test CA, with
# pebble-challtestsrv), procps (sysctl), openssl, curl and libnss3-tools (certutil: a
# browser's trust store).
# Idempotent, and quick when everything is there: it asks dpkg first and runs apt-get only
# for what is missing. The Debian package of miniupnpd starts no daemon of its own (its
# debconf question start_daemon defaults to false): nothing runs on this machine's own
# network; the lab starts its routers inside namespaces of its own.
set -euo pipefail
packages=(iproute2 procps nftables miniupnpd miniupnpd-nftables miniupnpc pebble openssl curl libnss3-tools)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "tests/lab/setup.sh: apt-get install ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
