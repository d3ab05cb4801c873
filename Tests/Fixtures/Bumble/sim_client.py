#!/usr/bin/env python3
"""
sim_client.py - Bumble's own host, over H4/TCP, against a controller of Strobe's simulated world
(`strobe sim serve`): scans for --name, connects, discovers its services and characteristics,
reads its Device Name and Appearance, reads --read-uuid, subscribes to --notify-uuid and waits
for --notify-count notifications, disconnects. Prints 'SUMMARY {json}': the advertisement
seen, the services, the GAP values, the value read and the notifications (hex), then exits.
With --gap-of NAME (repeatable) it instead visits each device named, one link after another,
and reads only their GAP values ('gap': {name: {...}}).

    sim_client.py tcp:127.0.0.1:PORT --name Strobe-Test --read-uuid ... --notify-uuid ...
"""
import argparse
import logging
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble import hci  # noqa: E402
from bumble.device import Device, Peer  # noqa: E402
from bumble.transport import open_transport  # noqa: E402

import gatt_client  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('transport', help='tcp:HOST:PORT of strobe sim serve')
    p.add_argument('--name')
    p.add_argument('--read-uuid')
    p.add_argument('--notify-uuid')
    p.add_argument('--gap-of', action='append', default=[], metavar='NAME')
    p.add_argument('--notify-count', type=int, default=10)
    p.add_argument('--timeout', type=float, default=30.0)
    return p.parse_args()


async def run(args):
    spec = args.transport
    if spec.startswith('tcp:'):
        spec = 'tcp-client:' + spec[4:]
    transport = await open_transport(spec)
    device = Device.with_hci('bumble-host', hci.Address('00:5E:00:00:0B:01'), transport.source, transport.sink)
    await device.power_on()
    summary = {}
    if args.gap_of:
        summary['gap'] = {}
        for name in args.gap_of:
            advertisement = await gatt_client.scan_for(device, name)
            connection = await device.connect(advertisement.address)
            summary['gap'][name] = await gatt_client.read_gap(Peer(connection))
            await connection.disconnect()
        await transport.close()
        return summary
    advertisement = await gatt_client.scan_for(device, args.name)
    summary['address'] = str(advertisement.address)
    summary['rssi'] = advertisement.rssi
    connection = await device.connect(advertisement.address)
    peer = Peer(connection)
    summary['mtu'] = await peer.request_mtu(247)
    characteristics = await gatt_client.discover_all(peer, summary)
    summary['gap'] = await gatt_client.read_gap(peer)
    summary['read'] = bytes(await peer.read_value(gatt_client.find(characteristics, args.read_uuid))).hex()
    summary['notifications'] = await gatt_client.collect_notifications(
        peer, gatt_client.find(characteristics, args.notify_uuid), args.notify_count)
    await connection.disconnect()
    await transport.close()
    return summary


def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    logging.basicConfig(level=logging.WARNING)
    args = parse_args()
    gatt_client.run_and_summarise(run(args), args.timeout)


if __name__ == '__main__':
    main()
