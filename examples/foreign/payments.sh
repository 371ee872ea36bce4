# Sourced by the run.sh of the zoo's proxy tiers (nginx-limit-req,
# httpd-*, varnish-*): start_payments starts resilcheck's reference payments
# service on 127.0.0.1:SERVICE_PORT, calling its processor at PROCESSOR_URL
# with an SQLite store in DATA_DIR, and returns once it listens.
#   usage: start_payments SERVICE_PORT PROCESSOR_URL DATA_DIR
# RESILCHECK names the resilcheck binary (default: resilcheck on PATH).
start_payments() {
  ready=$3/service.ready
  mkfifo "$ready"
  "${RESILCHECK:-resilcheck}" reference service --addr "127.0.0.1:$1" \
    --processor-url "$2" --store "sqlite:$3/payments.db" >"$ready" &
  # It prints "service URL" once it listens.
  read -r _ _ <"$ready"
}
