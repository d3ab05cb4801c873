#!/usr/bin/env python3
"""
The `decode` work done by Bumble's own host code, for Benchmarks/compare.sh: every H4 packet of a
btsnoop capture (datalink 1002) through Bumble's HCI packet parser, its ACL reassembler, its L2CAP
PDU parser and its ATT PDU parser, and each notification's value through a stylus batch decoder
(header, then 5-byte samples), as Strobe's `strobe-bench decode --capture FILE` does; a capture of
many links (`strobe-bench --write-capture --capture-links N`) gets a reassembler per connection handle.
Prints one JSON object: notifications, samples, seconds, notifications_per_second, cpu_seconds.
"""
import json
import struct
import sys
import time

from bumble import hci
from bumble.att import ATT_PDU, ATT_Handle_Value_Notification
from bumble.l2cap import L2CAP_PDU


def h4_packets(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'btsnoop\0':
        sys.exit('not a btsnoop file')
    offset = 16
    packets = []
    while offset + 24 <= len(data):
        _, included, _, _, _ = struct.unpack_from('>IIIIQ', data, offset)
        offset += 24
        packets.append(data[offset:offset + included])
        offset += included
    return packets


def main():
    packets = h4_packets(sys.argv[1])
    counts = {'notifications': 0, 'samples': 0}

    def on_l2cap(pdu_bytes):
        pdu = L2CAP_PDU.from_bytes(pdu_bytes)
        if pdu.cid != 4:
            return
        att = ATT_PDU.from_bytes(pdu.payload)
        if not isinstance(att, ATT_Handle_Value_Notification):
            return
        counts['notifications'] += 1
        value = att.attribute_value
        seq, flags, count = struct.unpack_from('<HBB', value, 0)
        size = 9 if flags & 1 else 5
        for i in range(count):
            struct.unpack_from('<HHB', value, 4 + i * size)
        counts['samples'] += count

    assemblers = {}
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    for raw in packets:
        packet = hci.HCI_Packet.from_bytes(raw)
        if not isinstance(packet, hci.HCI_AclDataPacket):
            continue
        assembler = assemblers.get(packet.connection_handle)
        if assembler is None:
            assembler = assemblers[packet.connection_handle] = hci.HCI_AclDataPacketAssembler(on_l2cap)
        assembler.feed_packet(packet)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    print(json.dumps(dict(notifications=counts['notifications'], samples=counts['samples'], seconds=round(seconds, 3),
                          notifications_per_second=counts['notifications'] / seconds, cpu_seconds=round(cpu, 3))))


if __name__ == '__main__':
    main()
