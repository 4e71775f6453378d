#!/bin/sh
# Stamps the workspace's release version, read from the root package.json.
# Like many tools, it falls back quietly when that file is not there.
v=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' ../../package.json 2>/dev/null)
mkdir -p dist
echo "app ${v:-0.0.0-dev}" > dist/version.txt
cat dist/version.txt
