#!/usr/bin/env bash
# The command line of one party's job (io.psiflink.jobs.PartyMain) in the cluster end-to-end run,
# sourced by run-e2e.sh. One function so that a test (deploy's JobCommandLinesTest) can run it and
# check that the job's parser (io.psiflink.api.PartyConfiguration) reads back what was meant. The
# options themselves are declared in api/src/main/java/io/psiflink/api/PartyOptions.java
# (`java ... io.psiflink.jobs.PartyMain --help` lists them).
#
#   party_job_args P PIN
#
# P: A or B; PIN: the SHA-256 (hex) of the peer's certificate. Reads hdfs_uri, session, relay_port,
# work (with pki/ and tables/query.sql in it), parallelism, out (party A's output) and, if set,
# bins (the bin count m; otherwise the job chooses it) and resume (1: resume the failed run of
# $session, whose state is in the same client work directory and whose journal is beside the same
# $out); sets the array party_args.
party_job_args() {
  local P="$1" pin="$2" p peer table
  p="$(tr 'A-Z' 'a-z' <<<"$P")"
  if [[ "$P" == A ]]; then peer="party-b"; else peer="party-a"; fi
  table="$hdfs_uri/party-$p/tables/$p.csv"
  party_args=(--party "$P" --table "$table" --sql "$(cat "$work/tables/query.sql")")
  if [[ "$P" == A ]]; then party_args+=(--out "$out" --format avro); fi
  # this script made both certificates, so each job pins its peer's, as a coordinator's session does
  party_args+=(--peer-cert-sha256 "$pin"
    --quarantine "$hdfs_uri/party-$p/out/quarantine-$session"
    --session "$session" --bridge "127.0.0.1:$relay_port"
    --cert "$work/pki/party-$p.pem" --key "$work/pki/party-$p.key" --ca "$work/pki/ca.pem"
    --peer "$peer" --parallelism "$parallelism" --work "$work/client-$p"
    --summary "$work/summary-$P.json")
  if [[ -n "${bins:-}" ]]; then party_args+=(--bins "$bins"); fi
  if [[ "${resume:-0}" == 1 ]]; then party_args+=(--resume); fi
}
