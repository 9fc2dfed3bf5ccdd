#!/bin/sh
# A stand-in for ssh, for Open MPI's OMPI_MCA_plm_rsh_agent: it "logs in" to a host of a
# hostfile by running the command on this machine, in a UTS namespace whose host name is that
# host's name. Several loopback addresses in a hostfile then behave like separate machines:
# Open MPI starts a daemon for each, and each rank's processor name is its host's name.
# Usage (by mpiexec): loopback_rsh.sh [ssh options] HOST COMMAND...
while [ $# -gt 0 ]; do
  case "$1" in
    -*) shift ;;
    *) break ;;
  esac
done
host=$1
shift
if [ "$(id -u)" -eq 0 ]; then
  exec unshare --uts /bin/sh -c "hostname '$host' && $*"
fi
exec unshare --user --map-root-user --uts /bin/sh -c "hostname '$host' && $*"
