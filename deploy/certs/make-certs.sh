#!/usr/bin/env bash
# Certificates of ONE party with openssl: the party's own CA, the bridge certificate its Flink jobs
# present to the peer (CN = the party's name, which the peer checks), and the TLS certificate of its
# coordinator's HTTPS API. All keys are EC P-256 in unencrypted PKCS#8 PEM, as the bridge and the
# coordinator read them; certificate files hold the chain, leaf first.
#
#   deploy/certs/make-certs.sh --party alice --out DIR \
#       [--bridge-host bridge.alice.example] [--coordinator-host coordinator.alice.example] [--days N]
#
# Writes DIR/ca.{key,pem}, DIR/bridge.{key,pem}, DIR/coordinator.{key,pem} and DIR/fingerprints.txt
# (SHA-256 of the CA and of both leaf certificates). Refuses to overwrite an existing CA key.
#
# Then, with the other party (docs/operations.md, "Certificates"): send it ca.pem and
# fingerprints.txt, receive its ca.pem, and compare the SHA-256 fingerprint of what arrived with the
# one the peer reads out over a second channel (a call, not the same e-mail). Trust bundles:
#   bridge (PartyMain --ca):           our ca.pem + the peer's ca.pem (the peer's jobs, and the relay
#                                      at our edge, which our CA signs)
#   coordinator (tls.trustedCa):       the peer's ca.pem (it signed the peer coordinator's certificate)
#   relay (bridge.relay.trustedCa):    our ca.pem + the peer's ca.pem; bridge.relay.peerCa: the
#                                      peer's ca.pem alone (only it may issue the peer's CN there)
# Keep ca.key offline once the certificates are issued.
set -euo pipefail

party="" out="" bridge_host="" coord_host="" days=397
die() { printf 'make-certs: %s\n' "$*" >&2; exit 1; }
while (($#)); do
  case "$1" in
    --party) party="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bridge-host) bridge_host="$2"; shift 2 ;;
    --coordinator-host) coord_host="$2"; shift 2 ;;
    --days) days="$2"; shift 2 ;;
    -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ "$party" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ ]] || die "--party NAME is required ([A-Za-z0-9._-], up to 64 characters)"
[[ -n "$out" ]] || die "--out DIR is required"
[[ "$days" =~ ^[0-9]+$ && "$days" -gt 0 ]] || die "--days must be a positive integer"
bridge_host="${bridge_host:-bridge.$party.example}"
coord_host="${coord_host:-coordinator.$party.example}"
command -v openssl >/dev/null || die "openssl not found (Debian: apt-get install openssl)"
mkdir -p "$out"
[[ -e "$out/ca.key" ]] && die "$out/ca.key exists: refusing to replace the party's CA"
umask 077

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

# CA
key "$out/ca.key"
openssl req -x509 -new -key "$out/ca.key" -sha256 -days "$days" -subj "/CN=psi-flink CA $party" \
  -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -addext "subjectKeyIdentifier=hash" -out "$out/ca.pem"

leaf() { # leaf NAME CN SAN EKU
  local name="$1" ext
  ext="$(mktemp)"
  cat >"$ext" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=$4
subjectAltName=$3
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EOF
  key "$out/$name.key"
  openssl req -new -key "$out/$name.key" -subj "/CN=$2" -out "$out/$name.csr"
  openssl x509 -req -in "$out/$name.csr" -CA "$out/ca.pem" -CAkey "$out/ca.key" -CAcreateserial \
    -days "$days" -sha256 -extfile "$ext" -out "$out/$name.leaf.pem" 2>/dev/null
  cat "$out/$name.leaf.pem" "$out/ca.pem" >"$out/$name.pem"
  rm -f "$ext" "$out/$name.csr" "$out/$name.leaf.pem"
}
# The bridge certificate: CN is the party's name (the peer's job checks it); it authenticates the
# job's TLS connections to the bridge and signs its session key exchange.
leaf bridge "$party" "DNS:$bridge_host" "clientAuth,serverAuth"
# The coordinator's HTTPS certificate: the peer coordinator checks the host name.
leaf coordinator "$coord_host" "DNS:$coord_host" "serverAuth,clientAuth"
rm -f "$out/ca.srl"
chmod 600 "$out"/*.key
chmod 644 "$out"/*.pem

{
  for f in ca bridge coordinator; do
    printf '%-12s %s\n' "$f" "$(openssl x509 -in "$out/$f.pem" -noout -fingerprint -sha256 | cut -d= -f2)"
  done
} >"$out/fingerprints.txt"
echo "certificates of party $party in $out (SHA-256 fingerprints in $out/fingerprints.txt):"
cat "$out/fingerprints.txt"
