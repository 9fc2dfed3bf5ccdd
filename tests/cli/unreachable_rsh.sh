#!/bin/sh
# A stand-in for ssh, for Open MPI's OMPI_MCA_plm_rsh_agent, that reaches no host: it fails as
# ssh does when a host cannot be reached (its message, exit 255), so that mpiexec cannot start
# its daemon there. Usage (by mpiexec): unreachable_rsh.sh [ssh options] HOST COMMAND...
while [ $# -gt 0 ]; do
  case "$1" in
    -*) shift ;;
    *) break ;;
  esac
done
echo "ssh: connect to host $1 port 22: No route to host" >&2
exit 255
