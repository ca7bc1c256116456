#!/usr/bin/env bash
# Installs the Debian packages hetsched builds and tests with. Idempotent; needs root (or sudo).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libcli11-dev libyaml-cpp-dev libyaml-dev libcsv-dev libnlopt-cxx-dev libeigen3-dev libglpk-dev coinor-libcbc-dev catch2 help2man groff-base
      clang libclang-rt-14-dev  # the sanitizer build and the fuzz targets
      zsh fish                  # the completion tests
      gnuplot-nox make          # examples/Makefile's plots
      slurm-wlm munge python3 python3-yaml)  # the Slurm loop (examples/slurm) and its test on a local Slurm
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
