#!/bin/sh
greet() { printf 'hello, %s\n' "$1"; }
