#!/usr/bin/env bash
# Benchmarks `cyanotype serve` (release build) on loopback:
#   1. live preview: a per-pixel chain on a 24 MP JPEG at display size (1200x800), the first
#      view (decode, DCT-scaled) and then slider moves (from the preview cache);
#   2. load: 500 render requests from 32 concurrent clients (a Python client): p50, p99,
#      throughput, errors, the server's peak memory.
# Usage: scripts/bench-serve.sh [--workers N] [--requests N] [--clients N] [--moves N]
# The machine, its load and the build are printed with the rows; numbers on a shared machine
# are noisy (the CPU-time column is steadier than wall time).
set -euo pipefail
cd "$(dirname "$0")/.."
workers=2 requests=500 clients=32 moves=40
while [ $# -gt 0 ]; do
    case "$1" in
        --workers) workers=$2; shift 2 ;;
        --requests) requests=$2; shift 2 ;;
        --clients) clients=$2; shift 2 ;;
        --moves) moves=$2; shift 2 ;;
        *) echo "bench-serve: unknown option $1" >&2; exit 2 ;;
    esac
done
scripts/setup.sh
swift build -c release --product cyanotype >&2
bin=.build/release/cyanotype
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
# A 24 MP photo: the sample, enlarged to 6000x4000, as a quality-90 JPEG; and a 1 MP one.
"$bin" apply Samples/astronaut.png -o "$work/photo24.jpg" --resize '6000x4000!' --quality 90
"$bin" apply Samples/astronaut.png -o "$work/photo1.jpg" --resize '1200x800!' --quality 90
"$bin" serve --root "$work" --port 0 --workers "$workers" --queue $((clients * 2)) 2>"$work/log" &
server=$!
for _ in $(seq 1 600); do grep -q "listening on" "$work/log" 2>/dev/null && break; sleep 0.05; done
port=$(grep -o '127.0.0.1:[0-9]*' "$work/log" | head -1 | cut -d: -f2)
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg); cyanotype serve --workers $workers (release)"
python3 - "$port" "$server" "$requests" "$clients" "$moves" <<'EOF'
import http.client, json, sys, threading, time, urllib.parse
port, pid, total, clients, moves = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
tick = 100.0  # USER_HZ

def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick

def peak_mib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0

def get(target, conn=None):
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    t0 = time.perf_counter()
    c.request("GET", target)
    r = c.getresponse()
    body = r.read()
    ms = (time.perf_counter() - t0) * 1000
    if conn is None:
        c.close()
    return r.status, ms, float(r.getheader("X-Render-Ms") or 0), r.getheader("X-Preview"), len(body)

def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))] if s else 0

q = urllib.parse.quote
print()
print("| workload | count | wall p50 ms | wall p95/p99 ms | server ms (median) | CPU ms per request | notes |")
print("|---|---|---|---|---|---|---|")
# 1. Live preview of a per-pixel chain on a 24 MP JPEG, at display size.
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
base = "/render?image=photo24.jpg&filter=" + q("colorControls saturation=1.3 contrast=1.1") + "&filter=sepiaTone%20intensity%3D{}&w=1200&h=800&format=png&preview=1"
c0 = cpu()
status, first_ms, first_server, mode, size = get(base.format("0.50"), conn)
first_cpu = (cpu() - c0) * 1000
assert status == 200, status
walls, servers = [], []
c0 = cpu()
for i in range(moves):
    status, ms, server_ms, mode, size = get(base.format(f"{0.3 + 0.5 * i / moves:.3f}"), conn)
    assert status == 200 and mode == "fast", (status, mode)
    walls.append(ms); servers.append(server_ms)
move_cpu = (cpu() - c0) * 1000 / moves
print(f"| preview, 24 MP JPEG, first view (decode at 1/4, resize, cache) | 1 | {first_ms:.0f} | - | {first_server:.0f} | {first_cpu:.0f} | 1200x800 PNG |")
print(f"| preview, 24 MP JPEG, slider moves (cached source) | {moves} | {pct(walls, .5):.1f} | {pct(walls, .95):.1f} (p95) | {pct(servers, .5):.1f} | {move_cpu:.1f} | per-pixel chain of 2, PNG out |")
exact = "/render?image=photo24.jpg&filter=" + q("sepiaTone intensity=0.8") + "&format=jpeg&q=90"
c0 = cpu()
status, ms, server_ms, _, size = get(exact, conn)
print(f"| export, 24 MP JPEG, full size, sepia | 1 | {ms:.0f} | - | {server_ms:.0f} | {(cpu() - c0) * 1000:.0f} | JPEG q90, {size >> 20} MiB |")
conn.close()

# 2. Load: `total` requests from `clients` threads, each on its own connection per request.
targets = [
    "/render?image=photo1.jpg&filter=" + q("sepiaTone intensity=0.8") + "&w=400&h=400&preview=1",
    "/render?image=photo1.jpg&filter=" + q("colorControls saturation=1.4") + "&filter=vignette&w=600&h=600&preview=1",
    "/render?image=photo1.jpg&filter=" + q("exposureAdjust ev=0.5") + "&w=300&format=jpeg&q=80",
    "/render?image=photo1.jpg&lut=warmFilm&intensity=0.7&w=320&format=webp",
    "/render?image=photo1.jpg&filter=" + q("gaussianBlur radius=3") + "&w=240",
]
lock = threading.Lock()
results, errors, nxt = [], [], [0]
def client():
    while True:
        with lock:
            i = nxt[0]; nxt[0] += 1
        if i >= total:
            return
        try:
            status, ms, server_ms, _, _ = get(targets[i % len(targets)])
        except Exception as e:  # noqa: BLE001
            with lock: errors.append(repr(e))
            continue
        with lock:
            results.append(ms)
            if status != 200: errors.append(status)
# The load row's peak memory is its own: reset the high-water mark the 24 MP renders left
# (Linux: "5" in clear_refs); said when this kernel does not allow it.
try:
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")
    reset = ""
except OSError:
    reset = " (since start: clear_refs refused)"
c0 = cpu(); t0 = time.perf_counter()
threads = [threading.Thread(target=client) for _ in range(clients)]
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.perf_counter() - t0
print(f"| load: {clients} clients, mixed renders of a 1 MP JPEG | {total} | {pct(results, .5):.0f} | {pct(results, .99):.0f} (p99) | - | {(cpu() - c0) * 1000 / max(1, len(results)):.0f} | "
      f"{len(results) / elapsed:.1f} req/s, {len(errors)} errors, peak RSS {peak_mib():.0f} MiB{reset} |")
if errors:
    print("errors:", errors[:5], file=sys.stderr)
    sys.exit(1)
EOF
