. ../util/dist/greet.sh
greet "${GREETING:-world}"
