#!/usr/bin/env python3
"""How fast `membank mcp` answers a `context` call once the bank is loaded.

    mcp_context.py BANK [--membank target/release/membank] [--calls 50]
                   [--client NAME] [--domain NAME] [--source-lang L] [--target-lang L]
                   [--budget N]

Starts the server on BANK over standard input and output, as an assistant
does, and times:

- the handshake, which waits for the bank to be read;
- the first `context` call (it also builds the scoring arrays);
- CALLS further `context` calls with the same arguments: the time until the
  first byte of the answer arrives and until its last byte, per call.

Without --client / --domain the busiest client and domain (from `values`)
are asked for, with en-US -> nl-BE. The answer is parsed only after its
time is taken, so the times are the server's work plus the pipe. Needs
Python 3 only.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


class Server:
    def __init__(self, argv):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.out = self.proc.stdout.fileno()
        self.pending = b""
        self.next_id = 0

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def read_line(self):
        """One protocol line, with the times its first and last bytes came."""
        first = time.perf_counter() if self.pending else None
        # Chunks are kept in a list and only the newest is searched: joining
        # and scanning the whole answer on every read of a pipe (64 KiB at a
        # time) is quadratic and took longer than the server on a 75 MB one.
        chunks = [self.pending]
        while b"\n" not in chunks[-1]:
            chunk = os.read(self.out, 1 << 20)
            if not chunk:
                sys.exit("the server closed its output")
            if first is None:
                first = time.perf_counter()
            chunks.append(chunk)
        last = time.perf_counter()
        line, self.pending = b"".join(chunks).split(b"\n", 1)
        return line, first, last

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        start = time.perf_counter()
        self.send(message)
        while True:
            line, first, last = self.read_line()
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    sys.exit(f"{method}: {answer['error']}")
                return answer["result"], first - start, last - start, len(line)

    def call(self, tool, arguments):
        result, first, last, size = self.request(
            "tools/call", {"name": tool, "arguments": arguments}
        )
        if result.get("isError"):
            sys.exit(f"{tool}: {result['content'][0]['text']}")
        return result, first, last, size

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def ms(seconds):
    return f"{seconds * 1000:.2f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bank")
    ap.add_argument("--membank", default="target/release/membank")
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--client")
    ap.add_argument("--domain")
    ap.add_argument("--source-lang", default="en-US")
    ap.add_argument("--target-lang", default="nl-BE")
    ap.add_argument("--budget", type=int)
    args = ap.parse_args()

    server = Server([args.membank, "mcp", args.bank])
    _, _, handshake, _ = server.request(
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "mcp_context.py", "version": "1"},
        },
    )
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    print(f"handshake (bank read): {ms(handshake)}")

    query = {"source_lang": args.source_lang, "target_lang": args.target_lang}
    if args.client is None or args.domain is None:
        values, _, _, _ = server.call("values", {})
        busiest = lambda kind: max(
            values["structuredContent"][kind], key=lambda v: v["articles"]
        )["value"]
        args.client = args.client or busiest("clients")
        args.domain = args.domain or busiest("domains")
    query["client"] = args.client
    query["domain"] = args.domain
    # An assistant asks a large bank for the best articles, not all of them.
    query["limit"] = int(os.environ.get("LIMIT", "100"))
    if args.budget is not None:
        query["budget"] = args.budget
    print(f"query: {json.dumps(query, ensure_ascii=False)}")

    result, _, first_call, size = server.call("context", query)
    report = result["structuredContent"]
    kept = sum(1 for a in report["articles"] if a["included"])
    print(
        f"first context call: {ms(first_call)}; {len(report['articles'])} articles "
        f"listed, {kept} kept, answer {size / 1024:.0f} KiB"
    )

    firsts, lasts = [], []
    for _ in range(args.calls):
        _, first, last, _ = server.call("context", query)
        firsts.append(first)
        lasts.append(last)
    server.close()

    def summary(times):
        times = sorted(times)
        p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
        return (
            f"median {ms(statistics.median(times))}, p90 {ms(p90)}, "
            f"best {ms(times[0])}, worst {ms(times[-1])}"
        )

    print(f"{args.calls} further calls, first byte: {summary(firsts)}")
    print(f"{args.calls} further calls, whole answer: {summary(lasts)}")


if __name__ == "__main__":
    main()
