#!/bin/sh
# shellcheck source=/dev/null
. ../util/dist/greet.sh
greet "${GREETING:-world}"
