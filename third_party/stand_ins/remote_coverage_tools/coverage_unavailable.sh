#!/bin/sh
echo "Coverage tools are not available offline in this workspace." >&2
exit 1
