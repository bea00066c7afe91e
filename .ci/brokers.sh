# Sourced by .ci/run. A broker that accepts TCP but answers no handshake is wedged. CI never stops a
# broker it did not start (other work on this machine may use it): it restarts the one it started,
# by its pid, or else runs the suites on a RabbitMQ node of its own (own name, ports and data
# directory, AMQP_URL exported), stopped by its process group when the calling shell exits.
# tests/platform/ci-brokers.test.ts runs it against a broker that never answers.

CI_RABBITMQ_PID_FILE="${CI_RABBITMQ_PID_FILE:-/tmp/ci-rabbitmq.pid}"

ci_port_open() { (echo > "/dev/tcp/127.0.0.1/$1") >/dev/null 2>&1; }

ensure_brokers_answer() {
  if ! node scripts/check-brokers.js; then
    if [[ "${ci_started_rabbitmq:-false}" == true && -s "$CI_RABBITMQ_PID_FILE" ]]; then
      echo "== the RabbitMQ that CI started is wedged: restarting it (pid $(cat "$CI_RABBITMQ_PID_FILE"))"
      kill -9 "$(cat "$CI_RABBITMQ_PID_FILE")" || true
      sleep 2
      rm -f "$CI_RABBITMQ_PID_FILE"
      RABBITMQ_PID_FILE="$CI_RABBITMQ_PID_FILE" rabbitmq-server -detached
      for i in $(seq 1 60); do ci_port_open 5672 && break; sleep 1; done
    else
      echo "== the machine's RabbitMQ is wedged and CI did not start it: running on a RabbitMQ of CI's own"
      own_rabbitmq_dir=$(mktemp -d /tmp/ci-rabbitmq-XXXXXX)
      read -r own_port own_dist_port < <(node -e '
        const net = require("node:net");
        const free = () => new Promise((r) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => r(p)); }); });
        Promise.all([free(), free()]).then((ports) => console.log(ports.join(" ")));')
      echo '[].' > "$own_rabbitmq_dir/enabled_plugins"
      HOME="$own_rabbitmq_dir" RABBITMQ_NODENAME="ci$$@localhost" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
        RABBITMQ_NODE_PORT="$own_port" RABBITMQ_DIST_PORT="$own_dist_port" RABBITMQ_MNESIA_BASE="$own_rabbitmq_dir/mnesia" \
        RABBITMQ_LOG_BASE="$own_rabbitmq_dir/log" RABBITMQ_ENABLED_PLUGINS_FILE="$own_rabbitmq_dir/enabled_plugins" \
        RABBITMQ_CONFIG_FILE="$own_rabbitmq_dir/rabbitmq" RABBITMQ_ADVANCED_CONFIG_FILE="$own_rabbitmq_dir/advanced.config" \
        setsid /usr/lib/rabbitmq/bin/rabbitmq-server >"$own_rabbitmq_dir/server.log" 2>&1 &
      own_rabbitmq_pid=$!
      # setsid made it a process group leader: killing the group stops this node's processes and nothing else.
      # The node writes its files until it is gone: wait for the group to end before removing them,
      # and never let the cleanup decide the shell's exit status.
      trap 'kill -- -"$own_rabbitmq_pid" 2>/dev/null || true
        for i in $(seq 1 40); do kill -0 -- -"$own_rabbitmq_pid" 2>/dev/null || break; sleep 0.5; done
        rm -rf "$own_rabbitmq_dir" 2>/dev/null || true' EXIT
      export AMQP_URL="amqp://guest:guest@127.0.0.1:$own_port"
      for i in $(seq 1 120); do ci_port_open "$own_port" && break; sleep 1; done
    fi
    # A node still booting may refuse the handshake although its port is open, and a busy machine
    # boots it slowly: ask again for about three minutes before giving up.
    for attempt in $(seq 1 8); do
      sleep 5
      node scripts/check-brokers.js --timeout-ms 20000 && return 0
      echo "== the broker did not answer yet (attempt $attempt of 8)"
    done
    return 1
  fi
}
