#!/usr/bin/env python3
"""
central.py - Bumble's own host as a GATT client (central) on a virtual LE link, against a
peripheral that the host under test runs through the H4 port:

    [host under test, peripheral role] --H4/TCP--> EXT controller ==LocalLink== CENTRAL controller <-> Bumble Device (GATT client)

Prints 'READY hci=<spec> name=<name>' when the H4 port accepts hosts. Then scans for --name, connects,
exchanges the MTU, discovers every service and characteristic, reads --read-uuid, writes
--write-value to --write-uuid (with response), subscribes to --notify-uuid and waits for
--notify-count notifications, disconnects, and prints 'SUMMARY {json}' and exits.
"""
import argparse
import logging
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble import hci  # noqa: E402
from bumble.device import Device, Peer  # noqa: E402
from bumble.host import Host  # noqa: E402

import gatt_client  # noqa: E402
import vctl  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--hci-listen', default='tcp:127.0.0.1:0')
    p.add_argument('--ext-address', default='00:11:22:33:44:55', help="the peripheral's controller public address")
    p.add_argument('--name', required=True, help='local name the peripheral advertises')
    p.add_argument('--read-uuid', required=True)
    p.add_argument('--write-uuid', required=True)
    p.add_argument('--write-value', default='0102', help='hex')
    p.add_argument('--notify-uuid', required=True)
    p.add_argument('--notify-count', type=int, default=5)
    p.add_argument('--mtu', type=int, default=247)
    p.add_argument('--timeout', type=float, default=60.0)
    p.add_argument('-v', '--verbose', action='count', default=0)
    return p.parse_args(argv)


async def run(args):
    summary = {'found': False}
    link = vctl.HarnessLink()
    link.fix_acl_source = True
    controller = vctl.local_controller(link, 'CENTRAL', spec_fixes=True)
    device = Device(name='Bumble-Central', address=hci.Address('C0:00:00:00:00:01'),
                    host=Host(controller_source=controller, controller_sink=controller))
    hci_server = vctl.HciServer(link, args.hci_listen, public_address=args.ext_address,
                                controller_kwargs=dict(spec_fixes=True))
    await device.power_on()
    address = await hci_server.start()
    spec = f'tcp:{address[0]}:{address[1]}' if isinstance(address, tuple) else f'unix:{address}'
    print(f'READY hci={spec} name={args.name}', flush=True)

    advertisement = await gatt_client.scan_for(device, args.name)
    summary['found'] = True
    connection = await device.connect(advertisement.address)
    peer = Peer(connection)
    summary['mtu'] = await peer.request_mtu(args.mtu)
    characteristics = await gatt_client.discover_all(peer, summary)
    summary['characteristics'] = sorted(characteristics)
    summary['gap'] = await gatt_client.read_gap(peer)
    summary['read'] = bytes(await peer.read_value(gatt_client.find(characteristics, args.read_uuid))).hex()
    await peer.write_value(gatt_client.find(characteristics, args.write_uuid), bytes.fromhex(args.write_value),
                           with_response=True)
    summary['wrote'] = args.write_value
    summary['notifications'] = await gatt_client.collect_notifications(
        peer, gatt_client.find(characteristics, args.notify_uuid), args.notify_count)
    await connection.disconnect()
    return summary


def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    args = parse_args()
    level = logging.WARNING if args.verbose == 0 else (logging.INFO if args.verbose == 1 else logging.DEBUG)
    logging.basicConfig(level=level, format='%(asctime)s %(name)s %(levelname)s %(message)s')
    gatt_client.run_and_summarise(run(args), args.timeout)


if __name__ == '__main__':
    main()
