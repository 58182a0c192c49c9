#!/usr/bin/env bash
# A PostgreSQL server for the tests on 127.0.0.1:5432, user postgres, trust auth from loopback only:
# installed from Debian when missing, pg_hba.conf given the two trust lines first, started, and waited
# for (bounded). Idempotent: a server already up that lets postgres in without a password is left alone.
set -uo pipefail

can_connect() { psql -h 127.0.0.1 -p 5432 -U postgres -w -Atqc 'select 1' >/dev/null 2>&1; }

if can_connect; then exit 0; fi

if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  echo "ci: installing PostgreSQL from Debian"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null || {
    echo "ci: could not install PostgreSQL"
    exit 1
  }
fi

# The package installed with its cluster dropped (or never made): one is made for the newest server installed.
if [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
  installed="$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$installed" ]; then
    echo "ci: PostgreSQL is installed but no server version is under /usr/lib/postgresql"
    exit 1
  fi
  echo "ci: making the PostgreSQL $installed cluster main"
  pg_createcluster "$installed" main >/dev/null || {
    echo "ci: could not make a PostgreSQL $installed cluster"
    exit 1
  }
fi

version="$(ls /etc/postgresql | sort -V | tail -n 1)"
hba="/etc/postgresql/$version/main/pg_hba.conf"
if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
  echo "ci: letting postgres in from 127.0.0.1 and ::1 without a password ($hba)"
  { printf 'host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n'; cat "$hba"; } >"$hba.new" && mv "$hba.new" "$hba"
  chown postgres:postgres "$hba"
fi

if pg_ctlcluster --skip-systemctl-redirect "$version" main status >/dev/null 2>&1; then
  pg_ctlcluster --skip-systemctl-redirect "$version" main reload >/dev/null 2>&1
else
  echo "ci: starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start || {
    echo "ci: PostgreSQL $version did not start"
    exit 1
  }
fi

for _ in $(seq 1 30); do
  can_connect && exit 0
  sleep 1
done
echo "ci: PostgreSQL did not accept a trusted connection on 127.0.0.1:5432 within 30 s"
exit 1
