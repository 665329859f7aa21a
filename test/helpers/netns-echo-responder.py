#!/usr/bin/env python3
"""ICMP echo responder for tests, run inside a network namespace whose kernel echo replies are off
(net.ipv4.icmp_echo_ignore_all=1). Drops a share of echo requests and answers the rest after a delay,
standing in for netem, which this kernel lacks.

usage: netns-echo-responder.py LOSS_FRACTION DELAY_SECONDS SEED
Prints "ready" once listening; runs until killed.
"""
import heapq
import random
import select
import socket
import struct
import sys
import time


def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def main() -> None:
    loss = float(sys.argv[1])
    delay = float(sys.argv[2])
    rng = random.Random(int(sys.argv[3]))
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    pending = []  # (due, sequence, packet, destination)
    counter = 0
    print("ready", flush=True)
    while True:
        timeout = max(0.0, pending[0][0] - time.monotonic()) if pending else None
        readable, _, _ = select.select([sock], [], [], timeout)
        if readable:
            data, (source, _) = sock.recvfrom(65535)
            header_length = (data[0] & 0x0F) * 4
            icmp = bytearray(data[header_length:])
            # Type 8 code 0: echo request. Our own replies (type 0) come back on this socket too.
            if len(icmp) >= 8 and icmp[0] == 8 and icmp[1] == 0 and rng.random() >= loss:
                icmp[0] = 0
                icmp[2:4] = b"\0\0"
                icmp[2:4] = struct.pack("!H", checksum(bytes(icmp)))
                counter += 1
                heapq.heappush(pending, (time.monotonic() + delay, counter, bytes(icmp), source))
        now = time.monotonic()
        while pending and pending[0][0] <= now:
            _, _, packet, destination = heapq.heappop(pending)
            sock.sendto(packet, (destination, 0))


if __name__ == "__main__":
    main()
