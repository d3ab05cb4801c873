#!/usr/bin/env python3
"""
sim_client.py - Bumble's own host, over H4/TCP, against a controller of Strobe's simulated world
(`strobe sim serve`): scans for --name, connects, discovers its services and characteristics,
reads --read-uuid, subscribes to --notify-uuid and waits for --notify-count notifications,
disconnects. Prints 'SUMMARY {json}': the advertisement seen, the services, the value read and
the notifications (hex), then exits.

    sim_client.py tcp:127.0.0.1:PORT --name Strobe-Test --read-uuid ... --notify-uuid ...
"""
import argparse
import asyncio
import json
import logging
import signal

from bumble import hci
from bumble.device import Device, Peer
from bumble.transport import open_transport


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('transport', help='tcp:HOST:PORT of strobe sim serve')
    p.add_argument('--name', required=True)
    p.add_argument('--read-uuid', required=True)
    p.add_argument('--notify-uuid', required=True)
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
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement):
        name = advertisement.data.get(advertisement.data.COMPLETE_LOCAL_NAME)
        if name in (args.name, args.name.encode()) and not found.done():
            found.set_result(advertisement)
    device.on('advertisement', on_advertisement)
    await device.start_scanning(active=True)
    advertisement = await found
    await device.stop_scanning()
    summary['address'] = str(advertisement.address)
    summary['rssi'] = advertisement.rssi
    connection = await device.connect(advertisement.address)
    peer = Peer(connection)
    summary['mtu'] = await peer.request_mtu(247)
    await peer.discover_services()
    characteristics = {}
    summary['services'] = []
    for service in peer.services:
        await service.discover_characteristics()
        summary['services'].append(str(service.uuid))
        for characteristic in service.characteristics:
            characteristics[str(characteristic.uuid).upper()] = characteristic

    def find(uuid):
        for key, value in characteristics.items():
            if key.endswith(uuid.upper()):
                return value
        raise KeyError(uuid)

    summary['read'] = bytes(await peer.read_value(find(args.read_uuid))).hex()
    notifications = []
    done = asyncio.get_running_loop().create_future()

    def on_value(value):
        notifications.append(bytes(value).hex())
        if len(notifications) >= args.notify_count and not done.done():
            done.set_result(None)
    await peer.subscribe(find(args.notify_uuid), on_value)
    await done
    summary['notifications'] = notifications[:args.notify_count]
    await connection.disconnect()
    await transport.close()
    return summary


def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    logging.basicConfig(level=logging.WARNING)
    args = parse_args()
    try:
        summary = asyncio.run(asyncio.wait_for(run(args), args.timeout))
        summary['exit_reason'] = 'done'
    except asyncio.TimeoutError:
        summary = {'exit_reason': 'timeout'}
    print('SUMMARY ' + json.dumps(summary), flush=True)


if __name__ == '__main__':
    main()
