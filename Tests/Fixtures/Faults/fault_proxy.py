#!/usr/bin/env python3
"""
fault_proxy.py - an H4/TCP proxy between a host and a controller that breaks the controller's
side of the stream on cue. It forwards both ways unchanged until the controller has sent
--at ACL packets, then applies --fault to the stream (before that packet):

    close      closes both connections
    truncate   forwards the first half of the packet, then closes
    junk       inserts the byte 0x09 (no H4 packet type) and forwards on
    drop       drops the packet's first byte after its type (a one-byte desynchronisation)
    oversize   sets the packet's ACL length to 0xFFFF and forwards on
    silence    forwards nothing more from the controller, keeps both connections open

    fault_proxy.py --upstream 127.0.0.1:PORT --fault close --at 200

Prints 'READY hci=tcp:127.0.0.1:PORT' once listening, 'FAULT {json}' when the fault is applied
(the fault, the ACL packet count and the byte offset of the host's stream at that point).
Serves one host connection, then exits.
"""
import argparse
import json
import socket
import sys
import threading

HEADER = {0x01: (3, lambda h: h[2]), 0x02: (4, lambda h: h[2] | h[3] << 8),
          0x03: (3, lambda h: h[2]), 0x04: (2, lambda h: h[1]), 0x05: (4, lambda h: (h[2] | h[3] << 8) & 0x3FFF)}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--upstream', required=True, help='HOST:PORT of the controller')
    p.add_argument('--fault', required=True, choices=['close', 'truncate', 'junk', 'drop', 'oversize', 'silence'])
    p.add_argument('--at', type=int, default=100, help='the ACL packet (from 1) the fault lands on')
    p.add_argument('--timeout', type=float, default=120.0)
    return p.parse_args()


def pump_host_to_controller(host, controller):
    try:
        while data := host.recv(65536):
            controller.sendall(data)
    except OSError:
        pass
    finally:
        for s in (host, controller):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def controller_packets(controller):
    """Yields whole H4 packets (type byte included) from the controller's stream."""
    buffer = bytearray()

    def need(n):
        while len(buffer) < n:
            data = controller.recv(65536)
            if not data:
                raise EOFError
            buffer.extend(data)

    while True:
        need(1)
        kind = buffer[0]
        if kind not in HEADER:
            raise ValueError(f'controller sent H4 type 0x{kind:02x}')
        header_length, length = HEADER[kind]
        need(1 + header_length)
        total = 1 + header_length + length(buffer[1:1 + header_length])
        need(total)
        packet = bytes(buffer[:total])
        del buffer[:total]
        yield packet


def main():
    args = parse_args()
    host_, port = args.upstream.rsplit(':', 1)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(('127.0.0.1', 0))
    listener.listen(1)
    listener.settimeout(args.timeout)
    print(f'READY hci=tcp:127.0.0.1:{listener.getsockname()[1]}', flush=True)
    host, _ = listener.accept()
    controller = socket.create_connection((host_, int(port)))
    for s in (host, controller):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=pump_host_to_controller, args=(host, controller), daemon=True).start()

    acl = 0
    offset = 0
    faulted = False
    try:
        for packet in controller_packets(controller):
            if packet[0] == 0x02:
                acl += 1
            if not faulted and acl >= args.at:
                faulted = True
                print('FAULT ' + json.dumps({'fault': args.fault, 'aclPacket': acl, 'offset': offset}), flush=True)
                if args.fault == 'close':
                    break
                if args.fault == 'truncate':
                    host.sendall(packet[:len(packet) // 2])
                    break
                if args.fault == 'junk':
                    host.sendall(b'\x09')
                    offset += 1
                elif args.fault == 'drop':
                    packet = packet[:1] + packet[2:]
                elif args.fault == 'oversize':
                    packet = packet[:3] + b'\xff\xff' + packet[5:]
                elif args.fault == 'silence':
                    threading.Event().wait(args.timeout)
                    break
            host.sendall(packet)
            offset += len(packet)
    except (EOFError, OSError, ValueError) as error:
        print(f'ENDED {error!r} after {acl} ACL packets', flush=True)
    for s in (host, controller):
        try:
            s.shutdown(socket.SHUT_RDWR)
            s.close()
        except OSError:
            pass


if __name__ == '__main__':
    sys.exit(main())
