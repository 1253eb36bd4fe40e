#!/usr/bin/env bash
# Installs and starts a single-node Slurm on this machine (Debian packages
# slurm-wlm and munge), for the sweep package's Slurm tests and for trying
# `sweep submit` by hand. Idempotent: when the cluster already answers and
# its node is idle, it returns in well under a second.
#
# The configuration is the smallest one that works without systemd or
# cgroups (containers, CI machines): ProctrackType=proctrack/linuxproc,
# TaskPlugin=task/none, no cgroup.conf, SlurmUser=root, munged run as the
# munge user, slurmctld and slurmd on the local host name, one partition
# "debug" holding this node. Needs root.
#
#   scripts/slurm-local.sh          install if needed, start, wait until idle
#   scripts/slurm-local.sh stop     stop slurmd, slurmctld, munged
set -euo pipefail

host=$(hostname -s)
conf=/etc/slurm/slurm.conf

log() { echo "slurm-local: $*" >&2; }

# pid_of NAME PIDFILE prints the pid in PIDFILE if that process is NAME
# (a stale file from an earlier boot may name another process).
pid_of() {
  local pid
  [ -f "$2" ] || return 1
  pid=$(cat "$2" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$1" ] && echo "$pid"
}

stop_slurm() {
  local pid
  for p in slurmd slurmctld; do
    if pid=$(pid_of $p /run/$p.pid); then kill "$pid" 2>/dev/null || true; fi
    rm -f /run/$p.pid
  done
}

if [ "${1:-}" = stop ]; then
  stop_slurm
  if pid=$(pid_of munged /run/munge/munged.pid); then kill "$pid" 2>/dev/null || true; fi
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  log "must run as root (it installs packages and starts daemons)"; exit 1
fi

# Quick path: already running here, node idle or busy with jobs.
node_ready() {
  local st
  st=$(sinfo -h -n "$host" -o %T 2>/dev/null | head -1) || return 1
  case "$st" in idle|mix*|alloc*|completing*) return 0 ;; esac
  return 1
}
if command -v sinfo >/dev/null && grep -q "^SlurmctldHost=$host\$" "$conf" 2>/dev/null \
   && scontrol ping 2>/dev/null | grep -q UP && node_ready; then
  exit 0
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  log "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq slurm-wlm munge >/dev/null
fi

# munge: a key, its folders, the daemon as the munge user.
if [ ! -s /etc/munge/munge.key ]; then
  if command -v mungekey >/dev/null; then mungekey --create --force >/dev/null
  else dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; fi
fi
chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/lib/munge /var/log/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge /etc/munge
chmod 755 /run/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  if pid=$(pid_of munged /run/munge/munged.pid); then kill "$pid" 2>/dev/null || true; sleep 0.2; fi
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi

# slurm.conf for this host (rewritten when the host name or CPU count changed).
cpus=$(nproc)
want=$(cat <<CONF
# Written by scripts/slurm-local.sh: a single-node cluster on $host.
ClusterName=sofago
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MaxArraySize=100001
MaxJobCount=200000
KillWait=5
MinJobAge=60
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
rm -f /etc/slurm/cgroup.conf
restart=0
if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
  printf '%s\n' "$want" >"$conf"
  restart=1
fi

running() { pid_of "$1" "/run/$1.pid" >/dev/null; }
if [ $restart = 1 ]; then stop_slurm; sleep 0.5; fi
running slurmctld || slurmctld
running slurmd || slurmd

# slurmd registers with slurmctld, retrying with a growing delay when it
# cannot (munged was down, slurmctld not yet listening): restart it once
# after 3 s rather than wait for its next try.
kicked=0
for i in $(seq 150); do
  if scontrol ping 2>/dev/null | grep -q UP; then
    st=$(sinfo -h -n "$host" -o %T 2>/dev/null | head -1 || true)
    case "$st" in
      idle|mix*|alloc*|completing*) log "ready: node $host ($cpus CPUs), partition debug"; exit 0 ;;
      *'*') if [ $i -ge 15 ] && [ $kicked = 0 ]; then
              kicked=1
              if pid=$(pid_of slurmd /run/slurmd.pid); then kill "$pid"; sleep 0.5; fi
              slurmd
            fi ;;
      down*|drain*|fail*) scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
    esac
  fi
  sleep 0.2
done
log "Slurm did not come up; see /var/log/slurm/slurmctld.log and slurmd.log"
sinfo 2>&1 | head -5 >&2 || true
exit 1
